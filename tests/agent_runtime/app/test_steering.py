"""A person edits a dashboard while the run works: the agent continues from the edited text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, call, reply
from tests.support.runs import events, finish_with_report, read_fixture, start_run

EDITED_PLAN = "# Test research\n\n## Outline\n1. Notebook/01_only_costs.md: focus on costs only (the user's plan)\n"


def _text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


async def test_an_outside_edit_reaches_the_next_request_and_the_work_since_is_kept(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    seen: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(_text(messages))
        request = len(seen)
        if request == 1:
            return reply(call("read_fixture", part=1))
        if request == 2:
            # While the model "thinks", the user saves an edited plan in an editor.
            (ws / "overall_dashboard.md").write_text(EDITED_PLAN, encoding="utf-8")
            return reply(call("read_fixture", part=2))
        if request == 3:
            return reply(call("update_current_dashboard", content="# Current\nworking on costs"))
        if request == 4:
            return reply(call("read_fixture", part=3))
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script, extra=[read_fixture])
    assert result.status == "finished"
    assert "focus on costs only" not in seen[1]
    third = seen[2]
    assert "focus on costs only (the user's plan)" in third  # the edited dashboard is in the base
    assert "The user edited overall_dashboard.md" in third
    assert "part 1" in third and "part 2" in third  # the steps since the last reset were kept
    assert third.count("focus on costs only") == 1  # replaced in place, not appended
    # The runtime's own update of a dashboard is not taken for an outside edit.
    assert "The user edited" not in seen[3] and "The user edited" not in seen[4]
    edits = [e for e in events(ws) if e["event"] == "dashboard_edited"]
    assert [e["files"] for e in edits] == [["overall_dashboard.md"]]


async def test_a_chinese_edit_of_the_current_dashboard_is_followed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    seen: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(_text(messages))
        if len(seen) == 1:
            (ws / "current_dashboard.md").write_text("# 当前任务\n先查固态电池的成本数据\n", encoding="utf-8")
            return reply(call("read_fixture", part=1))
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script, extra=[read_fixture])
    assert result.status == "finished"
    assert "先查固态电池的成本数据" in seen[1]
    assert "The user edited current_dashboard.md" in seen[1]


async def test_an_update_sent_while_the_user_edited_is_refused_and_the_edit_kept(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    seen: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(_text(messages))
        if len(seen) == 1:
            (ws / "current_dashboard.md").write_text("# Current\nthe user's plan: costs first\n", encoding="utf-8")
            return reply(call("update_current_dashboard", content="# Current\nthe agent's plan"))
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished"
    assert (ws / "current_dashboard.md").read_text(encoding="utf-8") == "# Current\nthe user's plan: costs first\n"
    assert "the user edited it while you were working" in seen[1]
    assert "the user's plan: costs first" in seen[1]


async def test_an_edit_keeps_what_followed_the_dashboards_and_the_runs_own_crlf_write_is_no_edit(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    seen: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(_text(messages))
        if len(seen) == 1:  # the update comes first: the reading after it survives the reset
            return reply(
                call("update_current_dashboard", content="# Current\r\nwindows line ends\r\n"),
                call("read_fixture", part=7),
            )
        if len(seen) == 2:
            (ws / "overall_dashboard.md").write_text(EDITED_PLAN, encoding="utf-8")
            return reply(call("read_fixture", part=8))
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script, extra=[read_fixture])
    assert result.status == "finished"
    assert "The user edited" not in seen[1]  # its own \r\n write is not taken for an edit
    assert "The user edited overall_dashboard.md" in seen[2] and "current_dashboard.md while" not in seen[2]
    assert "part 7" in seen[2] and "part 8" in seen[2]  # the observations kept by the reset survive
