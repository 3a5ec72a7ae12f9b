"""Dashboards compress the context; the guard keeps every request under the window.

Runs the real runtime with the real `openai` client against the loopback endpoint and
measures each request as the endpoint saw it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_runtime.app.researcher import Researcher
from agent_runtime.engine.model import build_model
from agent_runtime.testing import Reply, ScriptedEndpoint, call, count_tokens, reply
from tests.agent_runtime.helpers import events, finish_with_report, is_summary_request, read_fixture, settings


def step_counter(workspace: Path) -> int:
    """The script's own step count, kept in a file so it is independent of the history."""
    counter = workspace.parent / "script-steps.txt"
    step = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(step))
    return step


def researcher(tmp_path: Path, url: str, **overrides: Any) -> Researcher:
    resolved = settings(base_url=url, api_key="k", **overrides)
    return Researcher.start(
        "Compression",
        workspace=tmp_path / "ws",
        settings=resolved,
        model=build_model(resolved),
        extra_actions=[read_fixture],
    )


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


async def test_a_failed_summary_keeps_the_compacted_history(tmp_path: Path) -> None:
    """When the summarizing call fails, nothing since the last dashboard update is thrown away."""
    from tests.agent_runtime.helpers import start_run

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
