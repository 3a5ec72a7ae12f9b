import pytest

from agent_runtime.json_repair import balanced_objects, loads_lenient


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
