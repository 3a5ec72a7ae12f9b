"""Model text is untrusted input: whatever a model sends (lone surrogates, control characters,
JSON nested past any sane depth, absurd tool names) becomes an observation, never a crash.

Each test drives the real runtime in-process with the scripted model."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.engine.json_repair import MAX_DEPTH, loads_lenient
from agent_runtime.engine.messages import Message
from agent_runtime.engine.registry import action
from agent_runtime.engine.replies import RawReply, ToolMode, parse_reply
from agent_runtime.engine.run_record import EventLog, read_events
from agent_runtime.testing import Reply, call, raw_call, reply
from tests.support.runs import events, finish_with_report, start_run

SURROGATE = "\ud800"
FILE_AGENT = "You are the File agent"


def first_then_finish(ws: Path, *first: Reply) -> Callable[[list[Message], Any], Reply]:
    """The main agent sends `first` replies in turn, then finishes with a cited report."""
    pending = list(first)

    def script(messages: list[Message], tools: Any) -> Reply:
        return pending.pop(0) if pending else finish_with_report(ws)

    return script


def assert_clean_event_log(ws: Path) -> list[dict[str, Any]]:
    """The event log is valid UTF-8 JSON lines, every line of it."""
    raw = (ws / ".runtime" / "events.jsonl").read_bytes()
    text = raw.decode("utf-8")  # strict: a lone surrogate would have been written as invalid bytes
    parsed = [json.loads(line) for line in text.splitlines()]
    assert parsed and parsed[-1]["event"] == "run_ended"
    return parsed


# -- 3. lone surrogates and control characters ---------------------------------------------------
def test_replies_are_normalised_at_the_boundary() -> None:
    raw = RawReply(
        content=f"thinking aloud {SURROGATE}\x00\x1b[31m",
        tool_calls=[
            ("c1", "web_search", '{"query": "a\\ud800b\\u0000c", "max_results": 3}'),
            ("c2", "web\x00_search", json.dumps({"query": "pair \ud83d\ude00 kept"}, ensure_ascii=False)),
        ],
    )
    parsed = parse_reply(raw, "native", ["web_search"])
    assert parsed.text == "thinking aloud \ufffd[31m"
    assert parsed.calls[0].arguments == {"query": "a\ufffdbc", "max_results": 3}
    # a surrogate pair split into two code points is one character again; a NUL in a name is dropped
    assert parsed.calls[1].name == "web_search"
    assert parsed.calls[1].arguments == {"query": "pair \U0001f600 kept"}
    json.dumps(parsed.assistant_message, ensure_ascii=False).encode("utf-8")  # encodable


def test_the_event_log_never_fails_on_unencodable_text(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    seen: list[dict[str, Any]] = []
    log.listeners.append(seen.append)
    log.append("action", text=f"a{SURROGATE}b", nested={"k": [SURROGATE]}, other=object())
    log.close()
    (event,) = list(read_events(tmp_path / "events.jsonl"))
    assert event["text"] == "a\ufffdb" and event["nested"] == {"k": ["\ufffd"]}
    assert seen[0]["text"] == "a\ufffdb"


def test_an_event_is_one_line_for_every_reader(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    log.append("action", text="a\u2028b\u2029c\x85d\x0be\x1cf")
    log.close()
    (line,) = (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["text"] == "a\u2028b\u2029c\x85d\x0be\x1cf"


async def test_a_lone_surrogate_in_dashboard_content_and_a_search_query(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cells.md").write_text("# Solid-state cells\n\nSolid-state cells are near.\n")
    script = first_then_finish(
        ws,
        reply(call("update_current_dashboard", content=f"# Current\n\nfinding {SURROGATE} one\x00\x07")),
        reply(call("web_search", query=f"solid-state {SURROGATE} cells")),
    )
    result, _ = await start_run(tmp_path, script, search="local", corpus=corpus)
    assert result.status == "finished", result.reason
    assert (ws / "current_dashboard.md").read_text(encoding="utf-8") == "# Current\n\nfinding \ufffd one\n"
    logged = assert_clean_event_log(ws)
    searches = [e for e in logged if e["event"] == "action" and e["action"] == "web_search"]
    assert searches[0]["arguments"]["query"] == "solid-state \ufffd cells" and not searches[0]["error"]


async def test_a_lone_surrogate_in_a_file_agent_path(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    main_steps = [reply(call("file_operation", operation_description=f"Create Notebook/n{SURROGATE}.md"))]

    def script(messages: list[Message], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(FILE_AGENT):
            if any(m["role"] == "tool" for m in messages):
                return reply(call("finish", answer=f"created {SURROGATE}"))
            return reply(
                call(
                    "create_file", file_path=f"Notebook/n{SURROGATE}\x00.md", initial_content=f"x{SURROGATE}"
                )
            )
        return main_steps.pop(0) if main_steps else finish_with_report(ws)

    result, model = await start_run(tmp_path, script)
    assert result.status == "finished", result.reason
    assert (ws / "Notebook" / "n\ufffd.md").read_text(encoding="utf-8") == "x\ufffd"
    answers = [m["content"] for m, _ in model.requests for m in m if m["role"] == "tool"]
    assert "created \ufffd" in answers
    logged = assert_clean_event_log(ws)
    file_actions = [e for e in logged if e["event"] == "action" and e["agent"] == "file"]
    assert [e["action"] for e in file_actions] == ["create_file", "finish"]
    assert not any(e["error"] for e in file_actions)


# -- 4. JSON nested past any sane depth -----------------------------------------------------------
DEEP = "[" * 100_000


def nested(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize("text", [DEEP, "{" * 100_000, '{"query": ' + DEEP + "}", nested(MAX_DEPTH + 1)])
def test_deep_nesting_is_refused_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        loads_lenient(text)


def test_nesting_up_to_the_limit_is_read() -> None:
    value = loads_lenient(nested(MAX_DEPTH))
    for _ in range(MAX_DEPTH):
        value = value["a"]
    assert value == 1
    assert loads_lenient('{"text": "' + "[" * 500 + '"}') == {"text": "[" * 500}  # brackets in a string


def test_deep_arguments_and_tool_call_text_become_errors() -> None:
    native = parse_reply(
        RawReply(content=None, tool_calls=[("c1", "web_search", DEEP)]), "native", ["web_search"]
    )
    assert native.calls[0].error is not None and "nested too deeply" in native.calls[0].error
    modes: tuple[ToolMode, ...] = ("native", "json")
    for mode in modes:
        as_text = parse_reply(RawReply(content="<tool_call>" + DEEP), mode, ["web_search"])
        assert not as_text.calls and "unreadable_tool_call" in as_text.problems
        assert any("nested too deeply" in note for note in as_text.notes)


async def test_deeply_nested_replies_are_observations_and_the_run_goes_on(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    script = first_then_finish(
        ws,
        reply(raw_call("update_current_dashboard", DEEP)),
        Reply(content="<tool_call>" + DEEP + "</tool_call>"),
        Reply(content='<tool_call>{"name": "update_current_dashboard", "arguments": ' + DEEP),
        reply(raw_call("update_current_dashboard", '{"content": ' + "[" * 40 + "]" * 40 + "}")),
    )
    result, model = await start_run(tmp_path, script)
    assert result.status == "finished", result.reason
    seen = [str(messages[-2:]) for messages, _ in model.requests]
    assert "nested too deeply" in seen[1]  # the native call's observation
    assert "nested too deeply" in seen[2] and "nested too deeply" in seen[3]  # the text calls' notes
    # 40 levels of empty lists: read, written as Markdown (a list for prose), and refused as empty.
    assert "the new content is empty; current_dashboard.md was not changed" in seen[4]
    assert_clean_event_log(ws)
    problems = [e["problems"] for e in events(ws) if e["event"] == "model_call"]
    assert problems[:3] == [["invalid_arguments"], ["unreadable_tool_call"], ["unreadable_tool_call"]]


# -- 5. unknown and absurd tool names ---------------------------------------------------------------
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what OpenAI accepts as a function name


async def test_unknown_tool_names_get_a_bounded_observation_listing_the_actions(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    names = [
        "x" * 10_000,
        "../../etc/" + "a/" * 3_000 + "evil",
        "web\x00search",
        "",
        "update_curent_dashboard",
    ]
    script = first_then_finish(ws, *(reply(raw_call(name, "{}")) for name in names))
    result, model = await start_run(tmp_path, script, max_observation_chars=500)
    assert result.status == "finished", result.reason
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]  # nothing written outside
    observations = [m["content"] for m in model.requests[-1][0] if m["role"] == "tool"]
    assert len(observations) == len(names)  # one per unknown call; all_finished then ends the run
    for text in observations:
        assert "no action named" in text and len(text) < 1_000
        assert "update_current_dashboard" in text and "all_finished" in text
    assert "Did you mean update_current_dashboard" in observations[-1]
    # the history keeps every name in a form an endpoint accepts back
    for message in model.requests[-1][0]:
        for tool_call in message.get("tool_calls") or []:
            assert NAME_PATTERN.match(tool_call["function"]["name"])
    logged = assert_clean_event_log(ws)
    assert all(len(e["action"]) <= 64 for e in logged if e["event"] == "action")


@action(name="../odd/" + "n" * 300)
async def odd_named_action() -> str:
    """An action whose name is no file name, with an observation long enough to be saved."""
    return "long observation " * 1_000


async def test_a_saved_observation_gets_a_safe_bounded_file_name(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    script = first_then_finish(ws, reply(raw_call(odd_named_action.name, "{}")))
    result, model = await start_run(tmp_path, script, extra=[odd_named_action])
    assert result.status == "finished", result.reason
    saved = list((ws / ".runtime" / "observations").iterdir())
    assert len(saved) == 1 and saved[0].is_file() and len(saved[0].name) <= 120
    assert re.fullmatch(r"[A-Za-z0-9_.-]+", saved[0].name)
    assert saved[0].read_text().startswith("long observation")
    pointer = next(m["content"] for m in model.requests[-1][0] if m["role"] == "tool")
    assert f".runtime/observations/{saved[0].name}" in pointer


# -- huge replies, many calls, a reply cut at the output limit ---------------------------------------
@pytest.mark.parametrize(
    "content",
    [
        "<think>" * 50_000,  # many unclosed openers: a backtracking regex took minutes
        "{x}" * 100_000,  # a hundred thousand broken objects, each once a repair attempt
        "<tool_call>{x}</tool_call>" * 20_000,
    ],
)
def test_a_huge_reply_is_read_in_linear_time(content: str) -> None:
    started = time.monotonic()
    parsed = parse_reply(RawReply(content=content), "native", ["web_search"])
    assert time.monotonic() - started < 3.0
    assert not parsed.calls


def test_thinking_blocks_of_every_name_and_case_are_removed() -> None:
    text = "<think>a</think>b<THINKING>c</thinking>d<reasoning>e</Reasoning>f<think>unclosed"
    parsed = parse_reply(RawReply(content=text), "native", [])
    assert parsed.text == "bdf<think>unclosed" and "think_block" in parsed.problems


def test_many_calls_and_repeated_ids_are_bounded_and_made_unique() -> None:
    calls = [("same", "web_search", '{"query": "q"}')] * 40
    parsed = parse_reply(RawReply(content=None, tool_calls=calls), "native", ["web_search"])
    assert len(parsed.calls) == 32 and len({c.id for c in parsed.calls}) == 32
    assert any("40 tool calls; only the first 32" in note for note in parsed.notes)
    ids = [c["id"] for c in parsed.assistant_message["tool_calls"]]
    assert ids == [c.id for c in parsed.calls]  # each observation answers one id of the history


async def test_a_reply_cut_at_the_output_limit_is_explained(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    cut = Reply(
        tool_calls=[raw_call("update_current_dashboard", '{"content": "# Current\\n\\nA long fin')],
        finish_reason="length",
    )
    result, model = await start_run(tmp_path, first_then_finish(ws, cut))
    assert result.status == "finished", result.reason
    assert "cut off at the endpoint's output limit" in str(model.requests[1][0][-1])
    calls = [e for e in events(ws) if e["event"] == "model_call"]
    assert calls[0]["problems"] == ["invalid_arguments", "cut_at_output_limit"]
