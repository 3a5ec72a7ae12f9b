"""A property of the model boundary: whatever a model replies, the run ends in a documented way.

Hypothesis draws replies (text with lone surrogates and control characters, JSON nested past any
depth, huge strings, tool names real and absurd, argument shapes of every kind, `<tool_call>` and
`<think>` text, any finish_reason) and feeds them to the real runtime in-process through the
scripted model, to every agent that asks (the main agent, the File agent, the summarizer). The run
never raises; it ends finished (0), stopped (3) or with an error (1); run.json and the event log
agree with the result."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent_runtime.engine.messages import Message
from agent_runtime.testing import Reply, raw_call
from tests.support.runs import finish_with_report, start_run

EXIT_CODES = {"finished": 0, "error": 1, "stopped": 3}
# Actions that stay on this machine (the local corpus for search; no URL visits, no browser).
SAFE_ACTIONS = [
    "update_current_dashboard",
    "update_overall_dashboard",
    "all_finished",
    "file_operation",
    "web_search",
    "read_file",  # the File agent's, and unknown to the main agent
    "finish",
]
ODD = ["\ud800", "\udfff", "\x00", "\x1b[2J", "\x7f", "\u2028", "\ufeff", "\ud83d\ude00", "\r\n"]

# text in pieces: any code point but lone surrogates (Hypothesis draws none), and the odd ones
texts = st.lists(st.one_of(st.characters(), st.sampled_from(ODD)), max_size=30).map("".join)
huge = st.builds(
    lambda piece, n: piece * n,
    st.sampled_from(["a", "[", "{", "\ud800", "<think>", "é", '"', "\\"]),
    st.integers(2_000, 60_000),
)
deep = st.builds(
    lambda opener, n: opener * n,
    st.sampled_from(["[", "{", '{"a": ', '{"content": [']),
    st.integers(60, 50_000),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
keys = (
    st.sampled_from(
        [
            "content",
            "query",
            "max_results",
            "result",
            "report_path",
            "chapters",
            "operation_description",
            "file_path",
            "answer",
        ]
    )
    | texts
)
argument_texts = st.one_of(
    st.dictionaries(keys, json_values | huge, max_size=4).map(lambda d: json.dumps(d, ensure_ascii=False)),
    json_values.map(json.dumps),
    texts,
    deep,
    huge,
)
names = st.one_of(st.sampled_from(SAFE_ACTIONS), texts, huge)
tool_call_texts = st.builds(
    lambda name, arguments: (
        f'<tool_call>{{"name": {json.dumps(name)}, "arguments": {arguments}}}</tool_call>'
    ),
    names,
    argument_texts,
)
contents = st.one_of(st.none(), texts, huge, deep, tool_call_texts, texts.map(lambda t: f"<think>{t}"))
replies = st.builds(
    Reply,
    content=contents,
    tool_calls=st.lists(st.builds(raw_call, names, argument_texts), max_size=3),
    finish_reason=st.one_of(
        st.none(), st.sampled_from(["stop", "length", "tool_calls", "content_filter", "function_call"]), texts
    ),
)


async def run_with(replies: list[Reply], root: Path) -> None:
    ws = root / "ws"
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "fen.md").write_text("# The fen\n\nEel-grass meadows shelter young fish.\n")
    pending = list(replies)

    def script(messages: list[Message], tools: Any) -> Reply:
        # every agent that asks (main, File, summarizer) gets the next drawn reply; then a finish
        return pending.pop(0) if pending else finish_with_report(ws)

    result, _ = await start_run(
        root, script, search="local", corpus=corpus, max_steps=5, file_max_steps=2, context_window=16_000
    )

    event(f"status {result.status}")
    assert result.status in EXIT_CODES and result.exit_code == EXIT_CODES[result.status], result
    meta = json.loads((ws / ".runtime" / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == result.status and meta["stop_reason"] == result.reason
    assert meta["totals"]["steps"] == result.totals.steps <= 5
    lines = (ws / ".runtime" / "events.jsonl").read_bytes().decode("utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert events[-1]["event"] == "run_ended" and events[-1]["status"] == result.status
    if result.status == "finished":
        assert (ws / "report.md").is_file()


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(st.lists(replies, min_size=1, max_size=5))
def test_any_model_reply_ends_the_run_in_a_documented_way(drawn: list[Reply]) -> None:
    with tempfile.TemporaryDirectory() as root:
        asyncio.run(run_with(drawn, Path(root)))
