"""The calls of one reply that can run together do: bounded by --parallel, observations in call
order, run-shaping actions alone and after the others, one file's operations in their order,
budgets holding across concurrent work."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from actions.file_operation import files_named
from agent_runtime.engine.registry import ANYTHING, Action, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.testing import Reply, call, reply
from tests.support.runs import events, finish_with_report, start_run


class InFlight:
    """Counts the actions running at one time, and the order they start and end in."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0
        self.log: list[str] = []

    def action(self, pause: float = 0.2) -> Action:
        @action(concurrent=True, conflicts=lambda arguments: frozenset({arguments.get("topic", "")}))
        async def lookup(item: str, topic: str = "") -> str:
            """Look something up (slowly).

            Args:
                item: what to look up.
                topic: what it is about (lookups on one topic keep their order).
            """
            self.now += 1
            self.most = max(self.most, self.now)
            self.log.append(f"start {item}")
            await asyncio.sleep(pause)
            self.log.append(f"end {item}")
            self.now -= 1
            return f"result of {item}"

        return lookup


def _script(ws: Path, first: Reply, seen: list[list[dict[str, Any]]]) -> Any:
    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(messages)
        return first if len(seen) == 1 else finish_with_report(ws)

    return script


def _observations(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


@pytest.mark.parametrize(("parallel", "expected"), [(4, 3), (2, 2), (1, 1)])
async def test_independent_calls_run_together_up_to_the_limit(
    tmp_path: Path, parallel: int, expected: int
) -> None:
    flight, seen = InFlight(), []
    first = reply(*[call("lookup", item=f"item-{n}", topic=f"t{n}") for n in (1, 2, 3)])
    result, _ = await start_run(
        tmp_path, _script(tmp_path / "ws", first, seen), extra=[flight.action()], parallel=parallel
    )
    assert result.status == "finished"
    assert flight.most == expected
    # Whatever order they ended in, the model reads the observations in the order of its calls.
    assert _observations(seen[1]) == ["result of item-1", "result of item-2", "result of item-3"]


async def test_calls_on_one_topic_keep_their_order_and_others_run_beside_them(tmp_path: Path) -> None:
    flight, seen = InFlight(), []
    first = reply(
        call("lookup", item="a1", topic="a"), call("lookup", item="b1", topic="b"),
        call("lookup", item="a2", topic="a"),
    )  # fmt: skip
    await start_run(tmp_path, _script(tmp_path / "ws", first, seen), extra=[flight.action()])
    assert flight.log.index("end a1") < flight.log.index("start a2")
    assert flight.log.index("start b1") < flight.log.index("end a1")  # b ran beside a1
    assert _observations(seen[1]) == ["result of a1", "result of b1", "result of a2"]


@pytest.mark.parametrize("parallel", [4, 1])  # one rule, whatever the limit
async def test_a_dashboard_update_runs_alone_after_the_lookups_of_its_reply(tmp_path: Path, parallel: int) -> None:
    flight, seen = InFlight(), []
    first = reply(
        call("lookup", item="x", topic="x"),
        call("update_current_dashboard", content="# Current\nafter the lookups"),
        call("lookup", item="y", topic="y"),
    )
    await start_run(tmp_path, _script(tmp_path / "ws", first, seen), extra=[flight.action()], parallel=parallel)
    assert flight.most == min(2, parallel)
    order = [e["action"] for e in events(tmp_path / "ws") if e["event"] == "action"][:3]
    assert order[-1] == "update_current_dashboard"
    # The update reset the history: what came after it in the reply is kept, what came before is not.
    text = "\n".join(str(m["content"]) for m in seen[1])
    assert "after the lookups" in text and "result of y" in text and "result of x" not in text


async def test_a_spent_budget_starts_no_new_work_and_lets_running_work_end(tmp_path: Path) -> None:
    ended: list[str] = []

    @action(concurrent=True)
    async def costly(ctx: ActionContext, item: str) -> str:
        """Work that spends tokens.

        Args:
            item: the work.
        """
        await asyncio.sleep(0.1)
        ctx.record_usage(60_000, 0)
        ended.append(item)
        return f"done {item}"

    seen: list[list[dict[str, Any]]] = []
    first = reply(*[call("costly", item=f"w{n}") for n in (1, 2, 3)])
    result, _ = await start_run(
        tmp_path, _script(tmp_path / "ws", first, seen), extra=[costly], parallel=2, max_tokens=100_000
    )
    assert result.status == "stopped" and "max_tokens" in (result.reason or "")
    assert ended == ["w1", "w2"]  # both running calls ended; the third never started
    refused = [e for e in events(tmp_path / "ws") if e["event"] == "action" and e["error"]]
    assert len(refused) == 1 and "budget" in refused[0]["error"]


def test_files_named_in_a_description_are_the_operation_conflict_keys() -> None:
    assert files_named({"operation_description": "Append the attached text to Notebook/03_costs.md"}) == {
        "notebook/03_costs.md"
    }
    assert files_named({"operation_description": "把附件追加到 笔记/成本.md 末尾"}) == {"笔记/成本.md"}
    # No file named: it may touch any, so it waits for the file operations before it.
    assert files_named({"operation_description": "List every line with TODO in the Notebook"}) == {ANYTHING}


def _file_agent_script(ws: Path, requests: list[str], inflight: list[int]) -> Any:
    """The main agent sends three file operations at once; each File agent writes its attachment
    with write_attached, then finishes. The File agents' requests are counted while in flight."""
    state = {"now": 0}

    async def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        system = str(messages[0]["content"])
        if "File agent" not in system and "file agent" not in system.lower():
            requests.append("main")
            if len(requests) == 1:
                return reply(
                    call("file_operation", operation_description="Write the attached text to Notebook/a.md",
                         content="alpha text\n"),
                    call("file_operation", operation_description="Write the attached text to Notebook/b.md",
                         content="beta text\n"),
                    call("file_operation", operation_description="Append the attached text to Notebook/a.md",
                         content="alpha second\n"),
                )  # fmt: skip
            return finish_with_report(ws)
        task = str(messages[1]["content"])
        state["now"] += 1
        inflight.append(state["now"])
        await asyncio.sleep(0.15)
        state["now"] -= 1
        if any(m["role"] == "tool" for m in messages):
            return reply(call("finish", answer="written"))
        path = "Notebook/b.md" if "b.md" in task else "Notebook/a.md"
        mode = "append" if task.startswith("Append") else "overwrite"
        return reply(call("write_attached", file_path=path, mode=mode))

    return script


async def test_file_operations_on_different_files_run_together_each_with_its_own_attachment(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    requests: list[str] = []
    inflight: list[int] = []
    result, _ = await start_run(tmp_path, _file_agent_script(ws, requests, inflight))
    assert result.status == "finished"
    assert max(inflight) == 2  # a.md's and b.md's operations overlapped; a.md's second waited
    assert (ws / "Notebook" / "b.md").read_text() == "beta text\n"
    # One file's operations ran in the order of the calls, each with its own attached text.
    assert (ws / "Notebook" / "a.md").read_text() == "alpha text\nalpha second\n"


async def test_concurrent_appends_to_one_file_never_lose_a_line(tmp_path: Path) -> None:
    from actions.files import file_actions
    from agent_runtime.domain.layout import ResearchWorkspace
    from agent_runtime.engine.prompts import Prompts
    from agent_runtime.engine.registry import ActionSet
    from agent_runtime.engine.run_record import EventLog, RunMeta
    from tests.support.runs import settings

    ws = tmp_path / "ws"
    (ws / "Notebook").mkdir(parents=True)
    workspace = ResearchWorkspace(ws)
    ctx = ActionContext(
        workspace, settings(), None, EventLog(tmp_path / "events.jsonl"), RunMeta(title="t"), Prompts(None)  # type: ignore[arg-type]
    )
    actions = ActionSet.of(file_actions())
    block = "x" * 200_000  # a large file, so each rewrite takes a while in its thread
    await actions.run(ctx, "write_file", {"file_path": "Notebook/log.md", "content": block})
    lines = [f"line {n}" for n in range(24)]
    results = await asyncio.gather(
        *[actions.run(ctx, "write_file", {"file_path": "Notebook/log.md", "content": line, "mode": "append"})
          for line in lines]
    )  # fmt: skip
    assert not any(r.error for r in results)
    text = (ws / "Notebook" / "log.md").read_text()
    assert sorted(text.splitlines()[1:]) == sorted(lines)


async def test_calls_after_a_refused_finish_still_run_and_answer(tmp_path: Path) -> None:
    flight, seen = InFlight(), []
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(messages)
        if len(seen) == 1:  # a finish that is refused (no such report), then two lookups
            return reply(
                call("all_finished", result="done", report_path="missing.md"),
                call("lookup", item="p", topic="p"), call("lookup", item="q", topic="q"),
            )  # fmt: skip
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script, extra=[flight.action()])
    assert result.status == "finished"
    answered = _observations(seen[1])
    # Every call of the reply has its observation (an endpoint refuses a call left unanswered).
    assert len(answered) == 3 and answered[1:] == ["result of p", "result of q"]


async def test_a_reply_whose_own_call_crossed_the_budget_still_runs_its_calls(tmp_path: Path) -> None:
    flight, seen = InFlight(), []
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(messages)
        return reply(call("lookup", item="c1", topic="c1"), call("lookup", item="c2", topic="c2"))

    result, _ = await start_run(tmp_path, script, extra=[flight.action()], max_tokens=100)
    assert result.status == "stopped" and "max_tokens" in (result.reason or "")
    # The model call that spent the budget was paid for: its calls ran, as they would in turn.
    assert flight.log.count("end c1") == 1 and flight.log.count("end c2") == 1
    assert not [e for e in events(ws) if e["event"] == "action" and e["error"]]
