"""Dashboards compress the context; the guard keeps every request under the window.

Runs the real runtime with the real `openai` client against the loopback endpoint and
measures each request as the endpoint saw it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine import context_guard
from agent_runtime.engine.context_guard import ContextGuard
from agent_runtime.engine.messages import Message
from agent_runtime.engine.tokens import TokenEstimator, raw_message_tokens
from agent_runtime.testing import Reply, ScriptedEndpoint, call, count_tokens, reply
from tests.support.expected import digest, stored
from tests.support.random_logs import fit_cases
from tests.support.runs import (
    events,
    finish_with_report,
    is_summary_request,
    read_fixture,
    researcher,
    step_counter,
)


@pytest.mark.slow
async def test_dashboard_updates_bring_the_prompt_back_to_its_base(tmp_path: Path, endpoint: Any) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        step = step_counter(ws)
        if step > 60:
            return finish_with_report(ws)
        if step % 10 == 0:
            return reply(
                call(
                    "update_current_dashboard", content=f"# Current\n\nFindings after step {step}: [S1] etc."
                )
            )
        return reply(call("read_fixture", part=step))

    server: ScriptedEndpoint = endpoint(script)
    result = await researcher(tmp_path, server.url).run()
    assert result.status == "finished"

    sizes = [count_tokens(body["messages"], body.get("tools", [])) for body in server.requests]
    base = sizes[0]
    assert len(sizes) == 61
    for update_step in range(10, 61, 10):  # request index update_step is the first after the update
        after = server.requests[update_step]
        assert [m["role"] for m in after["messages"]] == ["system", "user", "user"]
        assert sizes[update_step] < base + 100
        assert sizes[update_step - 1] > base + 9 * 1900  # nine 8 KB observations had piled up
    assert max(sizes) < 64_000
    assert max(sizes) < base + 10 * 2100


@pytest.mark.slow
async def test_without_dashboard_updates_the_guard_keeps_every_request_under_a_small_window(
    tmp_path: Path, endpoint: Any
) -> None:
    ws = tmp_path / "ws"
    window = 8_000

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if is_summary_request(messages):
            return Reply(
                content="# Current dashboard\n\n## Task at hand\nReading.\n\n## Findings so far\n"
                "Read parts so far; nothing else [S1].\n\n## Next steps\nRead on.\n\n## Lessons\n"
            )
        step = step_counter(ws)
        if step > 30:
            return finish_with_report(ws)
        return reply(call("read_fixture", part=step))

    server: ScriptedEndpoint = endpoint(script)
    result = await researcher(tmp_path, server.url, context_window=window).run()
    assert result.status == "finished"

    sizes = [count_tokens(body["messages"], body.get("tools", [])) for body in server.requests]
    assert max(sizes) <= window
    compactions = [e for e in events(ws) if e["event"] == "compaction"]
    assert compactions, "a small window must make the runtime compact"
    assert all(e["tokens_after"] < e["tokens_before"] for e in compactions)
    # compacted observations point to files that hold their full text
    pointers = [
        m["content"]
        for body in server.requests
        for m in body["messages"]
        if "[compacted:" in str(m.get("content"))
    ]
    assert pointers
    saved = list((ws / ".runtime" / "observations").iterdir())
    assert saved and any("part " in p.read_text() for p in saved)
    assert (
        "Read parts so far" in (ws / "current_dashboard.md").read_text()
    )  # the summary went into the dashboard


async def test_the_context_nudge_appears_past_the_soft_limit(tmp_path: Path, endpoint: Any) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if "Update the current dashboard now" in str(messages[-1]["content"]):
            return reply(call("update_current_dashboard", content="# Current\n\nnudged"))
        if "nudged" in str(messages):
            return finish_with_report(ws)
        return reply(call("read_fixture", part=step_counter(ws)))

    server: ScriptedEndpoint = endpoint(script)
    result = await researcher(tmp_path, server.url, context_window=20_000).run()
    assert result.status == "finished"
    nudged = next(
        i
        for i, b in enumerate(server.requests)
        if "Update the current dashboard now" in str(b["messages"][-1])
    )
    assert count_tokens(server.requests[nudged]["messages"], server.requests[nudged]["tools"]) > 0.55 * 20_000
    assert not any(e["event"] == "compaction" for e in events(ws))


@pytest.mark.slow
async def test_a_failed_summary_keeps_the_compacted_history(tmp_path: Path) -> None:
    """When the summarizing call fails, nothing since the last dashboard update is thrown away."""
    from tests.support.runs import start_run

    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if is_summary_request(messages):
            raise RuntimeError("the summarizer is down")
        step = step_counter(ws)
        if step > 12:
            return finish_with_report(ws)
        return reply(call("read_fixture", part=step))

    result, model = await start_run(tmp_path, script, extra=[read_fixture], context_window=8_000)
    assert result.status == "finished"
    assert any(e["event"] == "summary_failed" for e in events(ws))
    main_requests = [m for m, _ in model.requests if not is_summary_request(m)]
    later = main_requests[-1]
    assert sum(1 for m in later if m["role"] == "tool") >= 3  # the history was kept, compacted
    assert any("[compacted:" in str(m.get("content")) for m in later)
    assert any(
        "old observations were replaced by pointers" in str(m.get("content"))
        for r in main_requests
        for m in r
    )


# ----------------------------------------------------------------- the last resort: fit


def test_fit_cuts_the_same_request_as_before_estimating_each_message_once(tmp_path: Path) -> None:
    """The last resort keeps a running estimate instead of estimating the whole request at every
    cut: the request it returns is the one the old way returned, byte for byte (its SHA-256, stored
    in tests/data/expected/fit_digests.json from the old way's output)."""
    expected = stored("fit_digests.json")
    outcomes = {"fits": 0, "cut": 0, "cannot fit": 0}
    cases = list(fit_cases(ResearchWorkspace(tmp_path)))
    assert len(cases) == len(expected)
    for case, (history, tools, guard) in enumerate(cases):
        before = json.dumps(history, ensure_ascii=False)
        fitted = guard.fit(history, tools)
        assert digest(fitted) == expected[case], case
        assert json.dumps(history, ensure_ascii=False) == before  # the history itself is left as it was
        if fitted == history:
            outcomes["fits"] += 1
        elif guard.estimate(fitted, tools) <= guard.hard_tokens:
            outcomes["cut"] += 1
        else:
            outcomes["cannot fit"] += 1
    assert all(count >= 20 for count in outcomes.values()), outcomes


def test_fit_estimates_each_message_once_and_each_cut_once(tmp_path: Path, monkeypatch: Any) -> None:
    """Linear in the messages: a history of hundreds of long observations, most of them cut, costs
    one estimate per message and one per cut (the whole request at every cut was quadratic)."""
    estimated: list[int] = []

    def counting(message: Message) -> float:
        estimated.append(1)
        return raw_message_tokens(message)

    monkeypatch.setattr(context_guard, "raw_message_tokens", counting)
    history: list[Message] = [{"role": "system", "content": "You are a researcher."}]
    history += [{"role": "tool", "tool_call_id": f"c{i}", "content": f"page {i} " * 600} for i in range(400)]
    estimator = TokenEstimator()
    guard = ContextGuard(
        estimator.request(history, []) // 4,
        soft=0.6,
        hard=1.0,
        estimator=estimator,
        workspace=ResearchWorkspace(tmp_path),
    )
    fitted = guard.fit(history, [])
    cuts = sum("characters cut to fit the context window" in str(m["content"]) for m in fitted)
    assert cuts > 200 and guard.estimate(fitted, []) <= guard.hard_tokens
    assert len(estimated) <= len(history) + 4 * len(history)  # one per message, one per cut at most
    assert len(estimated) < 3 * len(history)
