import json

import pytest

from agent_runtime.engine.json_repair import balanced_objects, loads_lenient


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Sure! Here is the call: {"a": {"b": [1, 2]}} Hope it helps.', {"a": {"b": [1, 2]}}),
        ('{"a": }', None),  # broken beyond repair is refused, not guessed
        ('{"a": 1,}', {"a": 1}),
        ('{a: 1, b: "x"}', {"a": 1, "b": "x"}),
        (
            "{'query': 'solid state', 'flag': True, 'none': None}",
            {"query": "solid state", "flag": True, "none": None},
        ),
        ('{"query": "x", "n": 3', {"query": "x", "n": 3}),  # missing closing brace
        ('{"text": "a } inside a string"}', {"text": "a } inside a string"}),
    ],
)
def test_near_json_is_repaired(text: str, expected: object) -> None:
    if expected is None:
        with pytest.raises(ValueError):
            loads_lenient(text)
    else:
        assert loads_lenient(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "no json here", "[1, 2", "{{{{"])
def test_garbage_is_refused_with_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        loads_lenient(text)


def test_balanced_objects_finds_each_top_level_object() -> None:
    assert balanced_objects('x {"a": "}"} y {"b": {}} z') == ['{"a": "}"}', '{"b": {}}']


# -- what a small local model writes ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"content": "# Title\n\n- a\tb"}', {"content": "# Title\n\n- a\tb"}),
        ('{"content": "line one\r\nline two",}', {"content": "line one\r\nline two"}),  # and a trailing comma
        ("{'content': 'line one\nline two'}", {"content": "line one\nline two"}),  # Python quoting
        ('Here: {"a": "x\ny"', {"a": "x\ny"}),  # prose before it, no closing brace
    ],
)
def test_raw_control_characters_inside_strings_are_read(text: str, expected: object) -> None:
    assert loads_lenient(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{{"name": "web_search", "arguments": {"query": "x"}}}',
        '{{ "name": "web_search", "arguments": {"query": "x"} }}',
        '{{"name": "web_search", "arguments": {{"query": "x"}}}}',
        '{"name": "web_search", "arguments": {{"query": "x"}}}',
        '{{\n  "name": "web_search",\n  "arguments": {{ "query": "x" }}\n}}',
        'Calling it now: {{"name": "web_search", "arguments": {"query": "x"}}}',
        '{{"name": "web_search", "arguments": {"query": "x",}}}',  # and a trailing comma
        '{{"name": "web_search", "arguments": {"query": "x"}}',  # the last brace missing
    ],
)
def test_doubled_braces_are_unwrapped(text: str) -> None:
    assert loads_lenient(text) == {"name": "web_search", "arguments": {"query": "x"}}


@pytest.mark.parametrize(
    "text",
    [
        '{"a": {"b": {"c": 1}}}',  # closing braces side by side are ordinary JSON
        '{"a": {"b": 1}, "c": {"d": {}}}',
        '{"template": "{{ name }} and {{x}}"}',  # braces inside a string are text
        '[{"a": 1}, {"b": {"c": [1, {"d": 2}]}}]',
    ],
)
def test_valid_json_with_nested_objects_is_not_altered(text: str) -> None:
    assert loads_lenient(text) == json.loads(text)


def test_doubled_braces_inside_a_string_stay_as_written() -> None:
    text = '{{"name": "write", "arguments": {"content": "Use {{ title }} here"}}}'
    assert loads_lenient(text) == {"name": "write", "arguments": {"content": "Use {{ title }} here"}}


def test_an_object_holding_an_object_and_more_is_not_unwrapped() -> None:
    # `{ {...}, "k": 1 }` is broken, but not doubled: removing braces would invent a structure.
    with pytest.raises(ValueError):
        loads_lenient('{{"a": 1}, "k": 1}')
