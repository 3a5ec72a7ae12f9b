"""all_finished end to end (in-process, scripted): refusals, fixes, forced finalization."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.testing import Reply, call, reply
from tests.support.runs import start_run


def seed_sources(workspace: Path) -> None:
    ledger = Ledger.load(workspace / "sources")
    for n in (1, 2, 3):
        ledger.register(f"https://example.org/{n}", f"Source {n}", via="search")


def drafts_then_finish(workspace: Path, drafts: list[str], path: str = "Notebook/draft.md") -> Any:
    """Submits each draft in turn (rewriting the file), one all_finished call per draft."""
    queue = list(drafts)

    def script(messages: Any, tools: Any) -> Reply:
        seed_sources(workspace)
        text = queue.pop(0) if len(queue) > 1 else queue[0]
        (workspace / path).parent.mkdir(exist_ok=True)
        (workspace / path).write_text(text)
        return reply(call("all_finished", result="summary", report_path=path))

    return script


GOOD = "# T\n\n## A\nFirst [S2]. Second [S1][S2]. Third [S2, S3].\n\n## References\n- made up\n"
BAD = "# T\n\n## A\nFirst [S2]. Invented [S9]. [NEEDS RESEARCH: figures]\n\n## B\n"


async def test_a_refused_report_is_fixed_and_accepted(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result, model = await start_run(tmp_path, drafts_then_finish(ws, [BAD, GOOD]))
    assert result.status == "finished" and result.report_path == "report.md"
    refusal = model.requests[1][0][-2]["content"]
    assert "not accepted (1 of 3 tries)" in refusal
    for needle in ("[S9] is not a source", "NEEDS RESEARCH: figures", "'B' is empty"):
        assert needle in refusal
    report = (ws / "report.md").read_text()
    assert "First [1]. Second [2][1]. Third [1, 3]." in report
    assert report.split("## References")[1].strip().splitlines() == [
        line for line in report.split("## References")[1].strip().splitlines() if line[0].isdigit()
    ]
    assert [line.split(".")[1].strip() for line in report.split("## References")[1].strip().splitlines()] == [
        "Source 2", "Source 1", "Source 3",
    ]  # fmt: skip
    assert "made up" not in report and "Appendix" not in report
    assert (ws / "Notebook" / "draft.md").read_text() == GOOD  # the draft stays where it was
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["finish_refusals"] == 1 and meta["report_problems"] == []
    assert meta["summary"]["sources_cited"] == 3 and meta["summary"]["sources_seen"] == 3


async def test_after_three_tries_the_report_is_finalized_with_an_appendix(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result, model = await start_run(tmp_path, drafts_then_finish(ws, [BAD]))
    assert result.status == "finished"
    assert len(model.requests) == 3
    report = (ws / "report.md").read_text()
    assert (
        "NEEDS RESEARCH" not in report.split("## Appendix")[0]
        and "[S9]" not in report.split("## Appendix")[0]
    )
    assert "First [1]. Invented." in report
    appendix = report.split("## Appendix: problems found at finalization")[1]
    assert "a citation of a source that no search or visit returned was removed" in appendix
    assert "S9" not in appendix  # the reader never saw that id
    assert "NEEDS RESEARCH: figures" in appendix and "'B' is empty" in appendix
    assert result.report_problems and any("S9" in p for p in result.report_problems)


async def test_when_the_budget_is_nearly_spent_the_report_is_finalized_at_once(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result, model = await start_run(tmp_path, drafts_then_finish(ws, [BAD]), max_steps=3)
    assert result.status == "finished" and len(model.requests) == 1
    assert "## Appendix: problems found at finalization" in (ws / "report.md").read_text()


async def test_a_draft_named_report_md_is_kept_as_report_draft_md(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result, _ = await start_run(tmp_path, drafts_then_finish(ws, [GOOD], path="report.md"))
    assert result.status == "finished"
    assert (ws / "report.draft.md").read_text() == GOOD
    assert "[1]" in (ws / "report.md").read_text()


async def test_the_writing_reserve_tells_the_agent_to_finish(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if "[writing reserve]" in messages[-1]["content"]:
            return drafts_then_finish(ws, [GOOD])(messages, tools)
        return reply(call("update_current_dashboard", content=f"# Current\n\nstep {len(str(messages))}"))

    result, model = await start_run(tmp_path, script, max_steps=20)
    assert result.status == "finished"
    reserve_from = next(
        i for i, (m, _) in enumerate(model.requests) if "[writing reserve]" in m[-1]["content"]
    )
    assert reserve_from == 17  # 20 steps, 15% kept for writing: the 18th request is the first in the reserve
