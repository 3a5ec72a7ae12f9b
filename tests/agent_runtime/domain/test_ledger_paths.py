"""Every reader checks ledger paths: a tampered sources/ledger.json (or journal,
sources/ledger.journal.jsonl) whose snapshot points outside the workspace (absolute, `..`, another
folder, or a link out) is refused with a clear message, and nothing outside the workspace is read —
by the ledger, the citation audit, resume and audit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.citation_audit import source_text
from agent_runtime.domain.sources.journal import JOURNAL_FILE, LEDGER_FILE
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.errors import WorkspaceError
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli

OUTSIDE_TEXT = "the secret diary outside the workspace"


def _ledger_with_snapshot(sources: Path, snapshot: str) -> None:
    ledger = Ledger.load(sources)
    record = ledger.register("https://example.org/a", title="A")
    ledger.mark_fetched(record.id, final_url="https://example.org/a", title="A", content_type="text/html", sha256="0" * 64, snapshot="sources/S1.md")
    ledger.save()
    data = json.loads((sources / "ledger.json").read_text())
    data["sources"][0]["snapshot"] = snapshot
    (sources / "ledger.json").write_text(json.dumps(data))


@pytest.mark.parametrize("snapshot", ["../outside.md", "/etc/hostname", "sources/../../outside.md", "Notebook/S1.md", "sources/S1.txt"])
def test_a_snapshot_that_is_not_sources_sn_md_is_refused(tmp_path: Path, snapshot: str) -> None:
    (tmp_path / "outside.md").write_text(OUTSIDE_TEXT)
    sources = tmp_path / "ws" / "sources"
    sources.mkdir(parents=True)
    _ledger_with_snapshot(sources, snapshot)
    with pytest.raises(WorkspaceError, match="tampered with"):
        Ledger.load(sources)


def test_a_snapshot_that_links_out_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text(OUTSIDE_TEXT)
    ws = tmp_path / "ws"
    sources = ws / "sources"
    sources.mkdir(parents=True)
    _ledger_with_snapshot(sources, "sources/S1.md")
    (sources / "S1.md").symlink_to(tmp_path / "outside.md")
    ledger = Ledger.load(sources)
    record = ledger.get("S1")
    assert record is not None
    with pytest.raises(WorkspaceError, match="link that leads out of the workspace"):
        ledger.snapshot_path(record)
    with pytest.raises(WorkspaceError, match="link that leads out of the workspace"):
        source_text(record, sources)


@pytest.mark.slow
def test_resume_and_audit_refuse_a_tampered_ledger(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text(OUTSIDE_TEXT)
    ws = tmp_path / "ws"
    sources = ws / "sources"
    (ws / ".runtime").mkdir(parents=True)
    sources.mkdir()
    (ws / ".runtime" / "run.json").write_text(json.dumps({"title": "T", "settings": {}, "status": "stopped"}))
    (ws / "report.md").write_text("# T\n\nA fact [1].\n\n## References\n\n1. A. https://example.org/a\n")
    _ledger_with_snapshot(sources, "../outside.md")
    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("web_search", query="a", max_results=2))

    with ScriptedEndpoint(script) as server:
        for args in (["resume", str(ws)], ["audit", str(ws), "--verify-citations", "lexical"]):
            done = run_cli(args, cli_env(server.url), cwd=tmp_path)
            assert done.code == 1, (args, done.stdout, done.stderr)
            assert "tampered with" in done.stderr and "Traceback" not in done.stderr
            assert OUTSIDE_TEXT not in done.stdout + done.stderr + "".join(p.read_text(errors="replace") for p in ws.rglob("*") if p.is_file())


# -- the journal (sources/ledger.journal.jsonl) is held to the same rules ------------------------------
def _ledger_with_journal_snapshot(sources: Path, snapshot: str) -> None:
    """A ledger whose S1 is in ledger.json, and whose journal then marks it fetched as `snapshot`."""
    ledger = Ledger.load(sources)
    ledger.register("https://example.org/a", title="A")
    with ledger.batch():  # a second source, so that the journal line stays smaller than ledger.json
        ledger.register("https://example.org/b", title="B")
    ledger.save()
    ledger.mark_fetched(
        "S1",
        final_url="https://example.org/a",
        title="A",
        content_type="text/html",
        sha256="0" * 64,
        snapshot="sources/S1.md",
    )
    journal = sources / JOURNAL_FILE
    lines = journal.read_text().splitlines()
    assert len(lines) == 1  # S1 is marked fetched in the journal only
    assert json.loads((sources / LEDGER_FILE).read_text())["sources"][0]["snapshot"] is None
    change = json.loads(lines[0])
    change["sources"][0]["snapshot"] = snapshot
    journal.write_text(json.dumps(change) + "\n")


@pytest.mark.parametrize("snapshot", ["../outside.md", "/etc/hostname", "Notebook/S1.md", "sources/S1.txt"])
def test_a_journal_record_whose_snapshot_is_not_sources_sn_md_is_refused(
    tmp_path: Path, snapshot: str
) -> None:
    (tmp_path / "outside.md").write_text(OUTSIDE_TEXT)
    sources = tmp_path / "ws" / "sources"
    sources.mkdir(parents=True)
    _ledger_with_journal_snapshot(sources, snapshot)
    with pytest.raises(WorkspaceError, match="tampered with") as exc:
        Ledger.load(sources)
    assert JOURNAL_FILE in str(exc.value)


def test_a_journal_that_is_a_link_is_neither_read_nor_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(OUTSIDE_TEXT)
    sources = tmp_path / "ws" / "sources"
    sources.mkdir(parents=True)
    (sources / JOURNAL_FILE).symlink_to(outside)
    with pytest.raises(WorkspaceError, match="is a link"):
        Ledger.load(sources)

    (sources / JOURNAL_FILE).unlink()
    ledger = Ledger.load(sources)
    ledger.register("https://example.org/a", title="A")  # the first save: the journal is folded in at once
    (sources / JOURNAL_FILE).unlink()
    (sources / JOURNAL_FILE).symlink_to(outside)  # planted while the run goes on
    with pytest.raises(WorkspaceError, match="is a link"):
        ledger.register("https://example.org/b", title="B")
    assert outside.read_text() == OUTSIDE_TEXT


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_the_journal_is_refused_without_hanging(tmp_path: Path) -> None:
    sources = tmp_path / "ws" / "sources"
    sources.mkdir(parents=True)
    os.mkfifo(sources / JOURNAL_FILE)
    with pytest.raises(WorkspaceError, match="not a regular file"):
        Ledger.load(sources)
