"""The view sits beside the run, never inside it: it reads the run's files through a few modules,
and nothing but the CLI's `view` command imports it (tests/test_import_graph.py holds the rest)."""

from __future__ import annotations

from tests.test_import_graph import graph

ALLOWED = {
    "agent_runtime.run_record", "agent_runtime.workspace", "agent_runtime.ledger",
    "agent_runtime.markdown_html", "agent_runtime.language", "agent_runtime.errors", "agent_runtime.export",
    "agent_runtime.export.report",  # the one reader of report.citations.json (it starts light)
}  # fmt: skip


def test_the_view_imports_only_the_record_the_workspace_and_the_renderers() -> None:
    edges = graph()
    view = [m for m in edges if m == "agent_runtime.view" or m.startswith("agent_runtime.view.")]
    assert "agent_runtime.view.server" in view
    for module in view:
        bad = {
            t for t in edges[module]
            if t not in ALLOWED and not t.startswith(("agent_runtime.view", "sandbox"))
        }  # fmt: skip
        assert not bad, f"{module} imports {sorted(bad)}"


def test_only_the_cli_imports_the_view() -> None:
    edges = graph()
    importers = {
        m for m, targets in edges.items()
        if not m.startswith("agent_runtime.view") and any(t.startswith("agent_runtime.view") for t in targets)
    }  # fmt: skip
    assert importers <= {"agent_runtime.cli"}
