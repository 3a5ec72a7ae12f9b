"""`deep-researcher follow-up` through the real CLI and the scripted endpoint: the new run starts from
the earlier report and sources (every earlier id kept), the earlier workspace does not change by a
byte, `inspect` shows the chain, a follow-up of a follow-up works, and bad input is refused."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.follow_up import follow_up
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli, write_cited_report

pytestmark = pytest.mark.slow  # real CLI processes (docs/testing.md: the quick loop leaves them out)

Script = Callable[[list[dict[str, Any]], list[dict[str, Any]]], Reply]
PLAN = "# {title}\n\n## Research questions\n1. {question}\n\n## Outline\n1. Notebook/01_answer.md: the answer\n"


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes (the lock file included: nothing may touch it)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def research(ws: Path, question: str, new_url: str | None) -> Script:
    """Plan → current dashboard → a report citing the earlier source S1 (and a new one) → finish."""

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = json.dumps(messages, ensure_ascii=False)
        if "phase: writing" in seen:
            ledger = Ledger.load(ws / "sources")
            cited = "[S1]"
            if new_url is not None:
                cited += f" [{ledger.register(new_url, 'A newer page', via='search').id}]"
            (ws / "draft.md").write_text(f"# Report\n\n## Findings\nSolid-state cells are near {cited}.\n")
            return reply(call("all_finished", result="done", report_path="draft.md"))
        if question in seen and "## Outline" in seen and "Notebook/01_answer.md" in seen:
            return reply(call("update_current_dashboard", content="# Current\n\nphase: writing\n"))
        return reply(call("update_overall_dashboard", content=PLAN.format(title=question, question=question)))

    return script


def finished_run(tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]) -> Path:
    ws = tmp_path / "ssb"

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = json.dumps(messages)
        if "phase: writing" in seen:
            write_cited_report(ws)
            return reply(call("all_finished", result="done", report_path="draft.md"))
        if "Q1: cost per kWh" in seen:
            return reply(call("update_current_dashboard", content="# Current\n\nphase: writing\n- cells [S1]\n"))
        return reply(call("update_overall_dashboard", content=PLAN.format(title="ssb", question="Q1: cost per kWh")))

    server = endpoint(script)
    result = run_cli(["run", "Solid-state batteries", "--workspace", str(ws)], cli_env(server.url))
    assert result.code == 0, result.stderr
    return ws


def test_a_follow_up_keeps_every_source_id_and_leaves_the_earlier_workspace_unchanged(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    earlier = finished_run(tmp_path, endpoint)
    before = tree(earlier)
    earlier_sources = {r.id: r.url for r in Ledger.load(earlier / "sources").records()}
    assert tree(earlier) == before  # (loading a sound ledger writes nothing)

    question = "What changed in 2026?"
    new = tmp_path / "ssb-follow-up"
    server = endpoint(research(new, question, "https://example.org/2026-news"))
    result = run_cli(["follow-up", str(earlier), question], cli_env(server.url))
    assert result.code == 0, result.stderr
    assert tree(earlier) == before  # not a byte of the earlier workspace changed

    first = json.dumps(server.requests[0]["messages"], ensure_ascii=False)
    assert "[follow-up]" in first and question in first
    assert "Solid-state cells are near [S1]." in first  # the earlier report, its [1] written back as [S1]
    assert "References" not in first.split("[follow-up]")[1]  # the ledger holds those
    now = {r.id: r.url for r in Ledger.load(new / "sources").records()}
    assert {k: now[k] for k in earlier_sources} == earlier_sources and len(now) == len(earlier_sources) + 1
    report = (new / "report.md").read_text()
    assert "https://example.org/solid-state" in report and "https://example.org/2026-news" in report
    assert str(earlier) in (new / "overall_dashboard.md").read_text() or "Follows up" in first
    assert (new / "earlier_report.md").read_bytes() == before["report.md"]

    shown = run_cli(["inspect", str(new)], cli_env())
    assert f"follows:   {earlier}" in shown.stdout

    # A follow-up of the follow-up: the chain has both, nearest first, and the ids still hold.
    again = tmp_path / "third"
    server = endpoint(research(again, "And in 2027?", None))
    result = run_cli(["follow-up", str(new), "And in 2027?", "--workspace", str(again)], cli_env(server.url))
    assert result.code == 0, result.stderr
    state = json.loads(run_cli(["inspect", str(again), "--json"], cli_env()).stdout)
    assert state["follows"] == [str(new), str(earlier)] and state["status"] == "finished"
    assert {r.id: r.url for r in Ledger.load(again / "sources").records()} == now


def test_bad_follow_ups_are_refused_and_lose_nothing(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    earlier = finished_run(tmp_path, endpoint)
    env = cli_env("http://127.0.0.1:9/v1")  # never reached: each is refused before

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("mine")
    result = run_cli(["follow-up", str(plain), "Why?"], env)
    assert result.code == 2 and "is not a research workspace" in result.stderr
    assert tree(plain) == {"notes.txt": b"mine"} and not (tmp_path / "plain-follow-up").exists()

    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "keep.md").write_text("keep")
    result = run_cli(["follow-up", str(earlier), "Why?", "--workspace", str(taken)], env)
    assert result.code == 2 and "exists and is not empty" in result.stderr
    assert tree(taken) == {"keep.md": b"keep"}

    meta_file = earlier / ".runtime" / "run.json"
    meta = json.loads(meta_file.read_text())
    meta["status"] = "stopped"
    meta_file.write_text(json.dumps(meta))
    result = run_cli(["follow-up", str(earlier), "Why?"], env)
    assert result.code == 2 and "did not finish" in result.stderr and f"deep-researcher resume {earlier}" in result.stderr
    meta["status"] = "finished"
    meta_file.write_text(json.dumps(meta))

    ledger = earlier / "sources" / "ledger.json"
    if not ledger.exists():  # the journal holds the records until a compaction
        ledger = next((earlier / "sources").glob("*.jsonl"))
    ledger.write_text(ledger.read_text()[:-7] + "garbage\n")
    before = tree(earlier)
    result = run_cli(["follow-up", str(earlier), "Why?"], cli_env("http://127.0.0.1:9/v1"))
    assert result.code == 1 and "ledger" in result.stderr, result.stderr
    assert tree(earlier) == before and not (tmp_path / "ssb-follow-up").exists()


def test_every_rebuilt_history_of_a_follow_up_says_its_task_again_briefly(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    earlier = finished_run(tmp_path, endpoint)
    researcher = follow_up(earlier, "What changed in 2026?", flags={"api_key": "sk-test"})
    first, rebuilt = json.dumps(researcher.base_messages(), ensure_ascii=False), json.dumps(researcher.base_messages(), ensure_ascii=False)
    assert "Solid-state cells are near [S1]." in first  # the first request: the earlier report in full
    assert "[follow-up]" in rebuilt and "What changed in 2026?" in rebuilt and "earlier_report.md" in rebuilt
    assert "Solid-state cells are near [S1]." not in rebuilt.split("[follow-up]")[1]  # not the whole report again


def test_a_follow_up_with_its_endpoint_down_makes_no_folder(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    earlier = finished_run(tmp_path, endpoint)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    result = run_cli(["follow-up", str(earlier), "What changed in 2026?"], cli_env(down))
    assert result.code != 0 and "Traceback" not in result.stderr
    assert not (tmp_path / "ssb-follow-up").exists()  # nothing to clean up, no -2 next time
