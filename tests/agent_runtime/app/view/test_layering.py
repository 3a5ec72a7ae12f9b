"""The view sits beside the run, never inside it: it reads the run's files through a few modules,
and nothing but the CLI's `view` command imports it (tests/test_import_graph.py holds the rest)."""

from __future__ import annotations

from tests.support.import_graph import graph

ALLOWED = {
    "agent_runtime.engine.run_record", "agent_runtime.engine.workspace",
    # the sources' reading parts; never the Ledger, which writes
    "agent_runtime.domain.sources", "agent_runtime.domain.sources.journal", "agent_runtime.domain.sources.records",
    "agent_runtime.domain.sources.urls", "agent_runtime.domain.sources.front_matter",
    "agent_runtime.domain.sources.snapshots",
    "agent_runtime.app.markdown_html", "agent_runtime.language", "agent_runtime.errors", "agent_runtime.app.export",
    "agent_runtime.app.figure_images",  # the chart action's figures inline (reads them through the path policy)
    "agent_runtime.domain.layout",  # the workspace's file names (imports only engine.workspace and the leaves)
    "agent_runtime.app.export.report",  # the one reader of report.citations.json (it starts light)
    "agent_runtime.app.background_runs",  # how a run is started in the background (imports only errors)
    "agent_runtime.app.run_state",  # a run's lock and figures, read from its files (shared with batch)
    "agent_runtime.engine.commands",  # the resume command, printed as run and inspect print it (imports shlex)
    "agent_runtime.domain.steering",  # a follow-up's folder name (imports only language, errors and sandbox)
}  # fmt: skip


def test_the_view_imports_only_the_record_the_workspace_and_the_renderers() -> None:
    edges = graph()
    view = [m for m in edges if m == "agent_runtime.app.view" or m.startswith("agent_runtime.app.view.")]
    assert "agent_runtime.app.view.server" in view
    for module in view:
        bad = {
            t for t in edges[module]
            if t not in ALLOWED and not t.startswith(("agent_runtime.app.view", "sandbox"))
        }  # fmt: skip
        assert not bad, f"{module} imports {sorted(bad)}"


def test_only_the_cli_imports_the_view() -> None:
    edges = graph()
    importers = {
        m for m, targets in edges.items()
        if not m.startswith("agent_runtime.app.view") and any(t.startswith("agent_runtime.app.view") for t in targets)
    }  # fmt: skip
    assert importers <= {"agent_runtime.app.cli"}
