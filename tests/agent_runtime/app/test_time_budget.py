"""--max-time is a budget like the others, through the real CLI with a model slow enough that time
is what runs out (a local model on a CPU): it opens the writing reserve, a stop with chapters
written leaves an unfinished report.md, and the printed command continues with a larger budget."""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.runs import events

CHAPTER = "Notebook/01_price.md"
SECONDS_PER_REPLY = 0.7


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "price.md").write_text(
        "# Sodium-ion cell price\n\nSodium-ion cells cost less than lithium-ion cells in 2026.\n"
    )
    return folder


def slow_model(ws: Path, finish: bool) -> Any:
    """Plans, searches, writes its chapter, then keeps searching however the status reads (a weak
    model ignores the reserve); on resume (`finish`) it finishes with its chapters."""
    topics = iter(
        [
            "hard carbon anode",
            "Prussian blue cathode",
            "grid storage projects",
            "cycle life tests",
            "electrolyte safety",
            "vehicle pilots",
            "recycling routes",
            "cold weather range",
            "supply chain",
            "factory capacity",
            "patent filings",
            "standards bodies",
            "warranty terms",
            "energy density",
        ]
        * 3
    )
    seen_status: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        time.sleep(SECONDS_PER_REPLY)
        shown = json.dumps(messages, ensure_ascii=False)
        seen_status.append(str(messages[-1]["content"]))
        if finish:
            return reply(call("all_finished", result="done", chapters=[CHAPTER]))
        if "## Outline" not in shown or "01_price" not in shown:
            return reply(call("update_overall_dashboard", content=(
                "# Sodium-ion cells\n\n## Research questions\n1. What do the cells cost?\n\n"
                f"## Outline\n1. {CHAPTER}: price\n")))  # fmt: skip
        if "[S1]" not in shown:
            return reply(call("web_search", query="sodium-ion cell price", max_results=3))
        chapter = ws / CHAPTER
        if not chapter.exists():
            chapter.write_text(
                "## Price\n\nSodium-ion cells cost less than lithium-ion cells in 2026 [S1].\n"
            )
        return reply(call("web_search", query=next(topics), max_results=3))

    script.seen_status = seen_status  # type: ignore[attr-defined]
    return script


@pytest.mark.slow
def test_time_runs_out_the_chapters_become_an_unfinished_report_and_resume_finishes(tmp_path: Path) -> None:
    ws, docs = tmp_path / "ws", corpus(tmp_path)
    flags = ["--search", "local", "--corpus", str(docs), "-q", "--verify-citations", "lexical"]
    stopping = slow_model(ws, finish=False)
    with ScriptedEndpoint(stopping) as server:
        result = run_cli(
            ["run", "Sodium-ion cells", "--workspace", str(ws), "--max-time", "7", *flags],
            cli_env(server.url),
        )
    assert result.code == 3, result.stderr
    assert "max_time" in result.stderr
    # The reserve opened on time alone (the step budget is far away).
    assert any("[writing reserve]" in status for status in stopping.seen_status)
    assert not any("[writing reserve]" in status for status in stopping.seen_status[:2])

    report = (ws / "report.md").read_text()
    assert report.startswith("# Sodium-ion cells\n\n> **Unfinished.**")
    assert "Sodium-ion cells cost less than lithium-ion cells in 2026 [1]." in report
    assert "## References" in report
    assert f"Unfinished report (the chapters written so far): {ws / 'report.md'}" in result.stderr
    assert any(e["event"] == "unfinished_report" for e in events(ws))

    hint = result.stderr.split("Continue with: ", 1)[1].splitlines()[0]
    assert hint.endswith("  # budgets count the whole run, resumes included")
    command = shlex.split(hint, comments=True)  # the command pastes into a shell as printed
    assert command == ["deep-researcher", "resume", str(ws), "--max-time", "14"]
    assert "--max-time 14" in report  # the banner says how to continue, too

    with ScriptedEndpoint(slow_model(ws, finish=True)) as server:
        resumed = run_cli([*command[1:], "-q"], cli_env(server.url))
    assert resumed.code == 0, resumed.stderr
    finished = (ws / "report.md").read_text()
    assert "Unfinished" not in finished and "cost less than lithium-ion cells in 2026 [1]" in finished
    assert "report" not in json.loads((ws / ".runtime" / "run.json").read_text())["summary"]


@pytest.mark.slow
def test_a_step_budget_stop_prints_a_command_that_continues(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    searches = iter(range(1000))

    def searching(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("web_search", query=f"cells {next(searches)}", max_results=3))

    with ScriptedEndpoint(searching) as server:
        result = run_cli(
            ["run", "Sodium-ion cells", "--workspace", str(ws), "--max-steps", "3", "-q", "--search", "local",
             "--corpus", str(corpus(tmp_path))],
            cli_env(server.url),
        )  # fmt: skip
    assert result.code == 3
    assert (
        f"Continue with: deep-researcher resume {ws} --max-steps 6  # budgets count the whole run"
        in result.stderr
    )
    assert not (ws / "report.md").exists()  # no chapter written: no report to show
    assert "Unfinished report" not in result.stderr
