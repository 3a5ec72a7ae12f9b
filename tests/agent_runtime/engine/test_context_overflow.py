"""An endpoint whose context window is smaller than configured refuses a long request with HTTP
400, in its own words. The runtime reads the window from the refusal (or lowers its own), keeps
it for the rest of the run and across resumes (run.json), compacts and retries; only when that
cannot help does it stop, resumably, naming --context-window.

The endpoint doubles below answer as OpenAI, vLLM and llama.cpp do (bodies from their sources)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.researcher import Researcher
from agent_runtime.engine.messages import Message, ToolSchema
from agent_runtime.engine.replies import RawReply
from agent_runtime.errors import ContextOverflowError, ModelRequestRefusedError
from agent_runtime.testing import (
    OVERFLOW_STYLES,
    Fault,
    Reply,
    ScriptedEndpoint,
    ScriptedModel,
    call,
    context_overflow_body,
    count_tokens,
    reply,
)
from tests.support.cli import cli_env, run_cli, write_cited_report
from tests.support.model_client import client
from tests.support.runs import finish_with_report, read_fixture, settings

MODEL = "small-model"
SUMMARY_SYSTEM = "You maintain the current dashboard"
PAGE = "The fen holds eel-grass meadows that shelter young fish and hold the seabed in place. " * 120


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for n in range(1, 7):
        (folder / f"page{n}.md").write_text(f"# Fen page {n}\n\n" + f"Page {n}. " + PAGE)
    return folder


def serve(script: Any, window: int, style: str = "openai") -> ScriptedEndpoint:
    """An endpoint that refuses, as `style` does, every request longer than `window` tokens."""
    return ScriptedEndpoint(script, model=MODEL, context_window=window, overflow_style=style)


# -- what each server says, and what the client reads from it ---------------------------------------
EXPECTED = {  # style → (window read, prompt tokens read)
    "openai": (True, True),
    "vllm": (True, True),
    "vllm-v0": (True, True),
    "llama.cpp": (True, True),
    "llama.cpp-old": (False, False),
}


@pytest.mark.parametrize("style", OVERFLOW_STYLES)
async def test_each_servers_refusal_is_read_as_a_context_overflow(style: str) -> None:
    messages: list[Message] = [{"role": "user", "content": "x" * 4_000}]
    tokens = count_tokens(messages)
    server = ScriptedEndpoint(lambda m, t: reply(), context_window=500, overflow_style=style)
    with server, pytest.raises(ContextOverflowError) as caught:
        await client(server.url).complete(messages, [])
    assert len(server.requests) == 1  # a refusal for length is not retried as it is
    has_window, has_prompt = EXPECTED[style]
    assert caught.value.window == (500 if has_window else None)
    assert caught.value.prompt_tokens == (tokens if has_prompt else None)
    assert "context window" in str(caught.value)


def test_the_bodies_are_the_servers_own() -> None:
    assert context_overflow_body("openai", 8192, 9000) == {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, your messages resulted "
            "in 9000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    assert context_overflow_body("llama.cpp", 4096, 4476)["error"] == {
        "code": 400,
        "message": "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 4476,
        "n_ctx": 4096,
    }


async def test_another_400_is_still_a_plain_refusal() -> None:
    server = ScriptedEndpoint(lambda m, t: Fault(400, message="messages[0].role: invalid value"))
    with server, pytest.raises(ModelRequestRefusedError) as caught:
        await client(server.url).complete([{"role": "user", "content": "x"}], [])
    assert not isinstance(caught.value, ContextOverflowError)


# -- the run: learn the window, compact, go on ------------------------------------------------------
def reading_script(ws: Path, steps: int) -> Any:
    """Search once, then read a long corpus page each step (a different goal each time), then finish.
    The step count lives in a file, so it survives history resets and separate processes."""
    counter = ws.parent / "script-steps.txt"

    def script(messages: list[Message], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(SUMMARY_SYSTEM):
            return Reply(content="# Current dashboard\n\n## Findings\nRead fen pages 1-6 [S1].\n")
        step = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(step))
        if step == 1:
            return reply(call("web_search", query="fen eel-grass", max_results=3))
        if step <= steps:
            page = (step - 2) % 6 + 1
            return reply(call("visit_url", url=f"corpus:page{page}.md", goal=f"detail {step}"))
        return reply(call("all_finished", result="done", report_path=write_cited_report(ws)))

    return script


def run_args(ws: Path, corpus: Path, *extra: str) -> list[str]:
    return [
        "run", "Fen", "--workspace", str(ws), "--model", MODEL, "--search", "local",
        "--corpus", str(corpus), "--context-window", "64000", "-q", *extra,
    ]  # fmt: skip


def read_events(ws: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (ws / ".runtime" / "events.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("style", ["openai", "llama.cpp-old"])
def test_a_smaller_server_window_is_learned_and_the_run_finishes(
    tmp_path: Path, corpus: Path, style: str
) -> None:
    ws = tmp_path / "ws"
    window = 8_000
    with serve(reading_script(ws, steps=14), window, style) as server:
        result = run_cli(run_args(ws, corpus), cli_env(server.url))
        # What the server counts against its window: the prompt and the room asked for the reply.
        sizes = [
            count_tokens(b["messages"], b.get("tools", [])) + b.get("max_tokens", 0) for b in server.requests
        ]
    assert result.code == 0, result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "finished"
    learned = meta["context_windows"][MODEL]
    assert learned == window if style == "openai" else learned < window
    refused = [i for i, size in enumerate(sizes) if size > window]
    assert 1 <= len(refused) <= 3, sizes  # refused, learned, and from then on the guard keeps under it
    assert all(size <= window for size in sizes[refused[-1] + 1 :])
    events = read_events(ws)
    overflow = [e for e in events if e["event"] == "context_overflow"]
    assert overflow and overflow[0]["window_before"] == 64_000 and overflow[0]["window_after"] == learned
    assert any(e["event"] == "compaction" for e in events)


@pytest.mark.slow
def test_the_learned_window_survives_a_resume(tmp_path: Path, corpus: Path) -> None:
    ws = tmp_path / "ws"
    window = 8_000
    with serve(reading_script(ws, steps=24), window) as server:
        first = run_cli(run_args(ws, corpus, "--max-steps", "9"), cli_env(server.url))
        assert first.code == 3, first.stderr
        assert json.loads((ws / ".runtime" / "run.json").read_text())["context_windows"] == {MODEL: window}
        before = len(server.requests)
        again = run_cli(["resume", str(ws), "--max-steps", "40", "-q"], cli_env(server.url))
        resumed = [
            count_tokens(b["messages"], b.get("tools", [])) + b.get("max_tokens", 0)
            for b in server.requests[before:]
        ]
    assert again.code == 0, again.stderr
    assert max(resumed) <= window  # the guard starts from the learned window: no refusal after the resume
    events = read_events(ws)
    started = max(i for i, e in enumerate(events) if e["event"] == "run_started")
    assert not any(e["event"] == "context_overflow" for e in events[started:])
    assert any(e["event"] == "compaction" for e in events[started:])


@pytest.mark.slow
def test_a_window_too_small_for_anything_stops_resumably_naming_the_flag(
    tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"
    with serve(reading_script(ws, steps=3), 300) as server:
        result = run_cli(run_args(ws, corpus), cli_env(server.url))
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "--context-window" in result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "error" and "--context-window" in meta["stop_reason"]
    assert meta["context_windows"][MODEL] < 64_000


# -- a refusal for prompt + output cap: the prompt alone was within the stated window ---------------
class CappedWindowModel(ScriptedModel):
    """A server with an 8,000-token window that reserves `cap` tokens for the reply (vLLM with
    max_tokens): it refuses any prompt over window - cap, stating its window and the prompt size."""

    def __init__(self, script: Any, window: int, cap: int) -> None:
        super().__init__(script, name=MODEL)
        self.window, self.cap, self.refused = window, cap, 0

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSchema], **options: Any
    ) -> RawReply:
        tokens = count_tokens(messages, tools)
        if tokens + self.cap > self.window:
            self.refused += 1
            body = context_overflow_body("vllm-v0", self.window, tokens)
            raise ContextOverflowError(
                f"HTTP 400: {body['message']}", window=self.window, prompt_tokens=tokens
            )
        return await super().complete(messages, tools)


@pytest.mark.slow
async def test_a_refusal_within_the_stated_window_keeps_the_window_and_leaves_room_for_the_reply(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    counter = {"n": 0}

    def script(messages: list[Message], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(SUMMARY_SYSTEM):
            return Reply(content="# Current dashboard\n\n## Findings\nRead parts so far [S1].\n")
        counter["n"] += 1
        if counter["n"] > 14:
            return finish_with_report(ws)
        return reply(call("read_fixture", part=counter["n"]))

    model = CappedWindowModel(script, window=8_000, cap=2_000)
    researcher = Researcher.start(
        "Capped", workspace=ws, settings=settings(), model=model, extra_actions=[read_fixture]
    )
    result = await researcher.run()
    assert result.status == "finished", result.reason
    learned = json.loads((ws / ".runtime" / "run.json").read_text())["context_windows"][MODEL]
    # The window is what the server said; the guard now keeps a quarter of it for the reply.
    assert learned == 8_000 and 1 <= model.refused <= 4


@pytest.mark.slow
def test_a_small_vllm_window_shrinks_the_output_cap_and_a_given_window_replaces_the_learned_one(
    tmp_path: Path, corpus: Path
) -> None:
    """A 6,144-token vLLM server with the default 4,096-token output cap: prompt + cap never fits
    until the cap shrinks with the learned window (it was a stop with the wrong advice)."""
    ws = tmp_path / "ws"
    with serve(reading_script(ws, steps=8), 6_144, "vllm-v0") as server:
        first = run_cli(run_args(ws, corpus, "--max-steps", "5"), cli_env(server.url))
        assert first.code == 3, first.stderr  # stopped by the step budget, not by the window
        caps = [body.get("max_tokens") for body in server.requests]
        assert caps[0] == 4_096 and caps[-1] == 6_144 // 4
        assert json.loads((ws / ".runtime" / "run.json").read_text())["context_windows"] == {MODEL: 6_144}
        # The user says the window is larger now (the server was restarted with more): believed.
        again = run_cli(
            ["resume", str(ws), "--context-window", "16000", "--max-steps", "30", "-q"], cli_env(server.url)
        )
    assert again.code == 0, again.stderr
    # It started from the given 16,000 (the server, still at 6,144, then taught it again).
    overflows = [e for e in read_events(ws) if e["event"] == "context_overflow"]
    assert overflows[-1]["window_before"] == 16_000 and overflows[-1]["window_after"] == 6_144
