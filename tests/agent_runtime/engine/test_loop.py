"""The generic loop through the main agent, in-process with a scripted model."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, call, raw_call, reply
from tests.support.runs import events, finish_with_report, read_fixture, resume_run, start_run


def counting_script(workspace: Path, finish_after: int) -> Any:
    """Reads fixtures; finishes once the run has read `finish_after` parts (decided from the
    dashboard, so it is stateless and survives a resume)."""

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        done = (workspace / "parts.txt").read_text().count("\n") if (workspace / "parts.txt").exists() else 0
        if done >= finish_after:
            return finish_with_report(workspace)
        with (workspace / "parts.txt").open("a") as handle:
            handle.write(f"{done}\n")
        return reply(call("read_fixture", part=done))

    return script


async def test_system_prompt_and_tools_are_byte_identical_in_every_request(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        step = len([m for m in messages if m["role"] == "tool"])
        if "vvv3" in str(messages):
            return finish_with_report(ws)
        if step >= 2:
            version = (ws / "current_dashboard.md").read_text().count("v") + 1  # v1, vv2… grows
            return reply(
                call(
                    "update_current_dashboard", content="# Current\ndashboard " + "v" * version + str(version)
                )
            )
        return reply(call("read_fixture", part=step))

    result, model = await start_run(tmp_path, script, extra=[read_fixture])
    assert result.status == "finished"
    assert len(model.requests) > 6
    first_system, first_tools = json.dumps(model.requests[0][0][0]), json.dumps(model.requests[0][1])
    for messages, tools in model.requests:
        assert json.dumps(messages[0]) == first_system
        assert json.dumps(tools) == first_tools
    # what changes travels in the last message
    assert model.requests[0][0][-1]["content"].startswith("[status] step 1 of 200")
    assert model.requests[1][0][-1]["content"].startswith("[status] step 2 of 200")


async def test_each_budget_stops_resumably_and_a_larger_budget_continues(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result, _ = await start_run(tmp_path, counting_script(ws, 6), extra=[read_fixture], max_steps=3)
    assert (result.status, result.exit_code) == ("stopped", 3)
    assert (
        result.reason is not None and result.reason.startswith("max_steps") and "--max-steps" in result.reason
    )
    assert result.totals.steps == 3

    # the same budget again: stops at once, saying which budget
    again, model = await resume_run(tmp_path, counting_script(ws, 6), extra=[read_fixture])
    assert again.exit_code == 3 and model.requests == []

    result, model = await resume_run(tmp_path, counting_script(ws, 6), extra=[read_fixture], max_steps=20)
    assert (result.status, result.exit_code) == ("finished", 0)
    assert result.totals.steps == 7
    resumed_first = model.requests[0][0]
    assert any(
        "[resumed]" in str(m["content"]) and "read_fixture" in str(m["content"]) for m in resumed_first
    )


async def test_token_budget(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result, _ = await start_run(tmp_path, counting_script(ws, 50), extra=[read_fixture], max_tokens=8000)
    assert result.exit_code == 3 and result.reason is not None and result.reason.startswith("max_tokens")
    assert result.totals.total_tokens >= 8000
    result, _ = await resume_run(tmp_path, counting_script(ws, 4), extra=[read_fixture], max_tokens=10**7)
    assert result.status == "finished"


async def test_cost_budget_uses_configured_prices(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    prices = {"gpt-4o-mini": {"input": 1000.0, "output": 1000.0}}  # $1 per 1000 tokens
    result, _ = await start_run(
        tmp_path, counting_script(ws, 50), extra=[read_fixture], max_cost=5.0, prices=prices
    )
    assert result.exit_code == 3 and result.reason is not None and result.reason.startswith("max_cost")
    assert result.totals.cost >= 5.0
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["totals"]["cost"] == result.totals.cost


async def test_time_budget(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    inner = counting_script(ws, 50)

    def slow(messages: Any, tools: Any) -> Reply:
        time.sleep(0.2)
        return inner(messages, tools)

    result, _ = await start_run(tmp_path, slow, extra=[read_fixture], max_time=0.5)
    assert result.exit_code == 3 and result.reason is not None and result.reason.startswith("max_time")
    result, _ = await resume_run(tmp_path, counting_script(ws, 5), extra=[read_fixture], max_time=600)
    assert result.status == "finished"


async def test_repeated_identical_calls_are_nudged_then_stopped(tmp_path: Path) -> None:
    def script(messages: Any, tools: Any) -> Reply:
        return reply(call("update_current_dashboard", content="   "))

    result, model = await start_run(tmp_path, script)
    assert (result.status, result.exit_code) == ("stopped", 3)
    assert result.reason is not None and result.reason.startswith("loop")
    assert len(model.requests) == 5
    nudged = [
        i
        for i, (messages, _) in enumerate(model.requests)
        if "same arguments and got the same result" in str(messages)
    ]
    assert nudged and nudged[0] == 3  # the 4th request carries the nudge after 3 repeats


async def test_invalid_replies_become_observations_and_are_counted(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    replies = [
        Reply(content=""),
        Reply(content="I will now think about it."),
        reply(raw_call("update_current_dashboard", '{"content": "unterminated')),
        reply(call("update_current_dashboard", wrong_name="x")),
        Reply(
            content='<think>hmm</think><tool_call>{"name": "update_current_dashboard", "arguments": {"content": "# C\\nok"}}</tool_call>'
        ),
    ]

    def script(messages: Any, tools: Any) -> Reply:
        return replies.pop(0) if replies else finish_with_report(ws)

    result, model = await start_run(tmp_path, script)
    assert result.status == "finished"
    texts = [str(messages[-2:]) for messages, _ in model.requests]
    assert "Your reply was empty" in texts[1]
    assert "called no action" in texts[2]
    assert "could not read the arguments of update_current_dashboard" in texts[3]
    assert "invalid arguments for update_current_dashboard" in texts[4]
    assert (ws / "current_dashboard.md").read_text() == "# C\nok\n"
    assert result.totals.invalid_replies == 4
    problems = [e["problems"] for e in events(ws) if e["event"] == "model_call"]
    assert problems[:5] == [
        ["empty_reply"],
        ["no_action"],
        ["invalid_arguments"],
        [],
        ["think_block", "text_tool_call"],
    ]


async def test_all_finished_refuses_a_report_outside_or_missing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (tmp_path / "outside.md").write_text("x")
    attempts = ["missing.md", "../outside.md", "/etc/passwd", ""]

    def script(messages: Any, tools: Any) -> Reply:
        if attempts:
            return reply(call("all_finished", result="r", report_path=attempts.pop(0)))
        return finish_with_report(ws)

    result, model = await start_run(tmp_path, script)
    assert result.status == "finished" and result.report_path == "report.md"
    observations = [messages[-2]["content"] for messages, _ in model.requests[1:]]
    assert "'missing.md' does not exist" in observations[0]
    assert "escapes the workspace" in observations[1]
    assert "escapes the workspace" in observations[2] or "absolute" in observations[2]
    assert "give exactly one of chapters" in observations[3]  # an empty report_path counts as not given
