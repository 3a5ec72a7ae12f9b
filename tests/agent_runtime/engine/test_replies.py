import json

import pytest

from agent_runtime.engine.replies import MAX_CALLS, RawReply, parse_reply, strip_thinking

KNOWN = ["web_search", "all_finished"]


def test_native_tool_calls_are_read() -> None:
    raw = RawReply(content=None, tool_calls=[("c1", "web_search", '{"query": "x", "max_results": 5}')])
    reply = parse_reply(raw, "native", KNOWN)
    assert [(c.id, c.name, c.arguments) for c in reply.calls] == [
        ("c1", "web_search", {"query": "x", "max_results": 5})
    ]
    assert reply.problems == []
    assert reply.assistant_message["tool_calls"][0]["id"] == "c1"


def test_think_blocks_are_removed_and_reported() -> None:
    raw = RawReply(
        content="<think>I should search.</think>\nLet me search.",
        tool_calls=[("c1", "web_search", '{"query": "x"}')],
    )
    reply = parse_reply(raw, "native", KNOWN)
    assert reply.text == "Let me search."
    assert "think_block" in reply.problems
    assert "I should search" not in str(reply.assistant_message)


def test_unclosed_think_block_hides_the_rest() -> None:
    assert strip_thinking("<think>endless reasoning") == ("", True)
    assert strip_thinking("reasoning without opener</think>answer") == ("answer", True)


def test_tool_call_written_as_text_in_content_is_used() -> None:
    raw = RawReply(
        content='<tool_call>\n{"name": "web_search", "arguments": {"query": "batteries"}}\n</tool_call>'
    )
    reply = parse_reply(raw, "native", KNOWN)
    assert [(c.name, c.arguments) for c in reply.calls] == [("web_search", {"query": "batteries"})]
    assert "text_tool_call" in reply.problems
    # kept in the history as a real tool call, so the next request is well-formed
    assert reply.assistant_message["tool_calls"][0]["function"]["name"] == "web_search"
    assert reply.assistant_message["content"] == ""


def test_bare_json_call_in_text_and_unknown_names_ignored() -> None:
    raw = RawReply(
        content='I will call {"name": "delete_everything", "arguments": {}} or {"name": "all_finished", "arguments": {"result": "r", "report_path": "a.md"}}'
    )
    reply = parse_reply(raw, "native", KNOWN)
    assert [c.name for c in reply.calls] == ["all_finished"]


def test_invalid_argument_json_becomes_a_call_with_an_error() -> None:
    raw = RawReply(content=None, tool_calls=[("c1", "web_search", '{"query": "x" "max_results": }')])
    reply = parse_reply(raw, "native", KNOWN)
    assert reply.calls[0].error is not None and "not valid JSON" in reply.calls[0].error
    assert "invalid_arguments" in reply.problems
    assert reply.assistant_message["tool_calls"][0]["function"]["arguments"] == "{}"


def test_near_json_arguments_are_repaired() -> None:
    raw = RawReply(content=None, tool_calls=[("c1", "web_search", "{'query': 'x', 'max_results': 3,}")])
    assert parse_reply(raw, "native", KNOWN).calls[0].arguments == {"query": "x", "max_results": 3}


def test_empty_and_whitespace_replies_are_flagged() -> None:
    for content in (None, "", "  \n "):
        reply = parse_reply(RawReply(content=content), "native", KNOWN)
        assert reply.calls == [] and reply.problems == ["empty_reply"]


def test_text_without_action_is_flagged() -> None:
    reply = parse_reply(RawReply(content="I think the answer is 42."), "native", KNOWN)
    assert reply.problems == ["no_action"]


def test_json_mode_reads_every_action_of_the_text_in_order() -> None:
    raw = RawReply(
        content='```json\n{"action": "web_search", "arguments": {"query": "q"}}\n```\n{"action": "all_finished", "arguments": {}}'
    )
    reply = parse_reply(raw, "json", KNOWN)
    assert [(c.name, c.arguments) for c in reply.calls] == [
        ("web_search", {"query": "q"}),
        ("all_finished", {}),
    ]
    assert reply.problems == [] and reply.notes == []
    assert "tool_calls" not in reply.assistant_message


def test_json_mode_accepts_flat_arguments() -> None:
    reply = parse_reply(
        RawReply(content='{"action": "web_search", "query": "q", "max_results": 4}'), "json", KNOWN
    )
    assert reply.calls[0].arguments == {"query": "q", "max_results": 4}


# -- what a small local model writes in json mode ----------------------------------------------------
def test_json_mode_reads_raw_newlines_and_tabs_inside_strings() -> None:
    content = '{"action": "web_search", "arguments": {"query": "first line\n\tsecond line"}}'
    reply = parse_reply(RawReply(content=content), "json", KNOWN)
    assert [(c.name, c.arguments, c.error) for c in reply.calls] == [
        ("web_search", {"query": "first line\n\tsecond line"}, None)
    ]
    assert reply.problems == []


def test_native_arguments_with_raw_newlines_are_read() -> None:
    raw = RawReply(content=None, tool_calls=[("c1", "web_search", '{"query": "a\nb",\n "max_results": 2}')])
    reply = parse_reply(raw, "native", KNOWN)
    assert reply.calls[0].arguments == {"query": "a\nb", "max_results": 2} and reply.calls[0].error is None


@pytest.mark.parametrize(
    "content",
    [
        '{{"name": "web_search", "arguments": {"query": "x"}}}',
        '{{ "name": "web_search", "arguments": {"query": "x"} }}',
        '{{"name": "web_search", "arguments": {{"query": "x"}}}}',
        '{"name": "web_search", "arguments": {{"query": "x"}}}',
        '```json\n{{"action": "web_search", "arguments": {{"query": "x"}}}}\n```',
    ],
)
def test_json_mode_unwraps_doubled_braces(content: str) -> None:
    reply = parse_reply(RawReply(content=content), "json", KNOWN)
    assert [(c.name, c.arguments, c.error) for c in reply.calls] == [("web_search", {"query": "x"}, None)]
    assert reply.problems == []


@pytest.mark.parametrize("name_key", ["action", "name", "tool", "function"])
@pytest.mark.parametrize("arguments_key", ["arguments", "parameters", "args", "input", "action_input"])
def test_json_mode_accepts_the_usual_spellings_of_name_and_arguments(
    name_key: str, arguments_key: str
) -> None:
    content = json.dumps({name_key: "web_search", arguments_key: {"query": "q", "max_results": 2}})
    reply = parse_reply(RawReply(content=content), "json", KNOWN)
    assert [(c.name, c.arguments) for c in reply.calls] == [("web_search", {"query": "q", "max_results": 2})]


def test_json_mode_reads_a_list_of_actions_in_order() -> None:
    content = json.dumps(
        [
            {"action": "web_search", "arguments": {"query": "first"}},
            {"action": "web_search", "arguments": {"query": "second"}},
            {"action": "all_finished", "arguments": {"result": "r"}},
        ]
    )
    reply = parse_reply(RawReply(content=content), "json", KNOWN)
    assert [(c.name, c.arguments) for c in reply.calls] == [
        ("web_search", {"query": "first"}),
        ("web_search", {"query": "second"}),
        ("all_finished", {"result": "r"}),
    ]
    assert len({c.id for c in reply.calls}) == 3  # each observation answers its own call
    assert reply.problems == [] and reply.notes == []


def test_json_mode_reads_several_objects_each_broken_its_own_way() -> None:
    content = (
        '{{"action": "web_search", "arguments": {"query": "a\nb"}}}\n'
        '{"action": "web_search", "arguments": {"query": "c" "max_results": }}\n'
        '{"tool": "all_finished", "args": {"result": "done",}}'
    )
    reply = parse_reply(RawReply(content=content), "json", KNOWN)
    assert [c.name for c in reply.calls] == ["web_search", "web_search", "all_finished"]
    assert reply.calls[0].arguments == {"query": "a\nb"} and reply.calls[0].error is None
    assert reply.calls[1].error is not None and "not valid JSON" in reply.calls[1].error
    assert reply.calls[2].arguments == {"result": "done"}
    assert reply.problems == ["invalid_arguments"]


def test_json_mode_takes_at_most_max_calls_and_says_so() -> None:
    content = json.dumps(
        [{"action": "web_search", "arguments": {"query": f"q{n}"}} for n in range(MAX_CALLS + 5)]
    )
    reply = parse_reply(RawReply(content=content), "json", KNOWN)
    assert [c.arguments["query"] for c in reply.calls] == [f"q{n}" for n in range(MAX_CALLS)]
    assert len(reply.notes) == 1 and f"only the first {MAX_CALLS}" in reply.notes[0]
    assert reply.problems == []  # a bound, not an unreadable call


def test_a_tagged_list_longer_than_max_calls_is_cut_too() -> None:
    actions = [{"name": "web_search", "arguments": {"query": f"q{n}"}} for n in range(MAX_CALLS + 1)]
    reply = parse_reply(RawReply(content=f"<tool_call>{json.dumps(actions)}</tool_call>"), "json", KNOWN)
    assert len(reply.calls) == MAX_CALLS and f"only the first {MAX_CALLS}" in reply.notes[0]


def test_a_call_written_twice_in_one_text_reply_runs_once() -> None:
    """A model that states its action, then repeats it fenced: one search, not two."""
    action = '{"action": "web_search", "arguments": {"query": "cells"}}'
    raw = RawReply(content=f"I will call {action}.\n```json\n{action}\n```")
    calls = parse_reply(raw, "json", ["web_search"]).calls
    assert [(c.name, c.arguments) for c in calls] == [("web_search", {"query": "cells"})]
    two = RawReply(content=f"[{action}, {action.replace('cells', 'grids')}]")
    assert len(parse_reply(two, "json", ["web_search"]).calls) == 2
