from typing import Literal

import pytest

from agent_runtime.engine.registry import ActionSet, Observation, action
from agent_runtime.errors import ActionError


@action
async def search(query: str, max_results: int = 10, mode: Literal["fast", "deep"] = "fast") -> str:
    """Search the corpus.

    Args:
        query: what to look for.
        max_results: how many results,
            between 1 and 20.
        mode: fast or deep.
    """
    if query == "boom":
        raise RuntimeError("kaput")
    if query == "refuse":
        raise ActionError("refused on purpose")
    return f"{query}:{max_results}:{mode}"


@action(name="finish")
async def finish_action(answer: str) -> Observation:
    """Finish."""
    return Observation("done", finished=True, result=answer)


def test_schema_comes_from_signature_and_docstring() -> None:
    schema = search.schema()["function"]
    assert schema["name"] == "search"
    assert schema["description"] == "Search the corpus."
    props = schema["parameters"]["properties"]
    assert props["query"] == {"type": "string", "description": "what to look for."}
    assert props["max_results"]["default"] == 10
    assert props["max_results"]["description"] == "how many results, between 1 and 20."
    assert props["mode"]["enum"] == ["fast", "deep"]
    assert schema["parameters"]["required"] == ["query"]
    assert "title" not in str(schema)


async def test_valid_call_runs() -> None:
    actions = ActionSet.of([search, finish_action])
    observation = await actions.run(None, "search", {"query": "q", "max_results": 3})
    assert observation.text == "q:3:fast" and not observation.error


async def test_validation_errors_come_back_as_observations() -> None:
    actions = ActionSet.of([search])
    observation = await actions.run(None, "search", {"max_results": "many", "colour": "red"})
    assert observation.error
    for expected in (
        "invalid arguments for search",
        "query",
        "max_results",
        "colour",
        "search(query, max_results=10",
    ):
        assert expected in observation.text


async def test_action_failures_and_unknown_actions_are_observations() -> None:
    actions = ActionSet.of([search])
    crashed = await actions.run(None, "search", {"query": "boom"})
    assert crashed.error and "RuntimeError" in crashed.text and "kaput" in crashed.text
    refused = await actions.run(None, "search", {"query": "refuse"})
    assert refused.error and refused.text == "Error in search: refused on purpose"
    unknown = await actions.run(None, "browse_everything", {})
    assert (
        unknown.error and "no action named 'browse_everything'" in unknown.text and "search" in unknown.text
    )


async def test_finishing_action() -> None:
    observation = await ActionSet.of([finish_action]).run(None, "finish", {"answer": "42"})
    assert observation.finished and observation.result == "42"


# -- an object or a list where text is expected ------------------------------------------------------
@action
async def save(ctx_free_path: str, content: str, title: str | None = None) -> Observation:
    """Save text.

    Args:
        ctx_free_path: where.
        content: the text.
        title: an optional title.
    """
    return Observation(f"saved {ctx_free_path}:\n{content}\ntitle={title}", finished=True)


@action
async def visit(url: str | list[str], tags: list[str] | None = None) -> str:
    """Visit.

    Args:
        url: one URL or a list.
        tags: labels.
    """
    return f"{url!r} {tags!r}"


NOTE = "was a JSON object, not text; it was written as Markdown"


async def test_an_object_for_a_text_parameter_is_written_as_markdown_and_the_model_is_told() -> None:
    content = {
        "Current task": "Compare cell costs",
        "Findings": ["cheaper [S1]", "safer [S2]"],
        "Next steps": {"search": "recycling", "write": "Notebook/02_safety.md"},
    }
    observation = await ActionSet.of([save]).run(None, "save", {"ctx_free_path": "a.md", "content": content})
    assert not observation.error and observation.finished  # the action ran, its flags kept
    assert observation.text.startswith(
        "saved a.md:\n"
        "## Current task\n\nCompare cell costs\n\n"
        "## Findings\n\n- cheaper [S1]\n- safer [S2]\n\n"
        "## Next steps\n\n- search: recycling\n- write: Notebook/02_safety.md\n"
        "title=None"
    )
    assert f"content {NOTE}" in observation.text
    assert "send content as one string" in observation.text


@pytest.mark.parametrize(
    ("value", "markdown"),
    [
        ({"text": "Plain words.\nTwo lines."}, "Plain words.\nTwo lines."),
        ({"content": "# Dashboard\n\n- item"}, "# Dashboard\n\n- item"),
        ({"task": "x", "done": False, "sources": 3}, "- task: x\n- done: false\n- sources: 3"),
        (["one", ["two", "three"], "four"], "- one\n  - two\n  - three\n- four"),
        (
            [{"claim": "cheaper", "source": "S1"}, {"claim": "safer", "source": "S2"}],
            "- claim: cheaper; source: S1\n- claim: safer; source: S2",
        ),
        (
            {"Plan": {"Questions": ["why?"], "Chapters": {"1": "cost"}}},
            "## Plan\n\n### Questions\n\n- why?\n\n### Chapters\n\n- 1: cost",
        ),
        (
            {"Notes": "line one\nline two", "status": "open"},
            "## Notes\n\nline one\nline two\n\n## status\n\nopen",
        ),
        ({"steps": {"next": ["a", {"b": ["c"]}]}}, "## steps\n\n### next\n\n- a\n  - b:\n    - c"),
        ([["a", {"b": {"c": ["d"]}}]], "  - a\n    - b:\n      - c:\n        - d"),
    ],
)
async def test_objects_and_lists_become_readable_markdown(value: object, markdown: str) -> None:
    observation = await ActionSet.of([save]).run(None, "save", {"ctx_free_path": "a.md", "content": value})
    assert observation.text.startswith(f"saved a.md:\n{markdown}\ntitle=None\n")
    kind = "object" if isinstance(value, dict) else "list"
    assert f"content was a JSON {kind}, not text; it was written as Markdown" in observation.text


@action
async def report_back(answer: str | None = None) -> str:
    """Report.

    Args:
        answer: an optional answer.
    """
    return f"answer={answer}"


async def test_an_optional_prose_parameter_is_written_as_markdown_too() -> None:
    observation = await ActionSet.of([report_back]).run(None, "report_back", {"answer": ["a", "b"]})
    assert observation.text.startswith("answer=- a\n- b")
    assert "answer was a JSON list, not text; it was written as Markdown" in observation.text


async def test_a_list_for_a_name_or_path_is_refused_not_rewritten() -> None:
    """A title, a path, a query sent as a list is a mistake to correct, not prose to keep."""
    observation = await ActionSet.of([save]).run(
        None, "save", {"ctx_free_path": ["a.md", "b.md"], "content": "x", "title": ["a", "b"]}
    )
    assert observation.error and "invalid arguments for save" in observation.text
    assert "Markdown" not in observation.text


async def test_text_arguments_and_parameters_that_take_lists_are_left_alone() -> None:
    actions = ActionSet.of([save, visit])
    plain = await actions.run(None, "save", {"ctx_free_path": "a.md", "content": "# Text\n"})
    assert plain.text == "saved a.md:\n# Text\n\ntitle=None"
    listed = await actions.run(
        None, "visit", {"url": ["https://a.example", "https://b.example"], "tags": ["x"]}
    )
    assert listed.text == "['https://a.example', 'https://b.example'] ['x']" and not listed.error


async def test_an_object_where_a_number_is_expected_is_still_a_validation_error() -> None:
    observation = await ActionSet.of([search]).run(None, "search", {"query": "q", "max_results": {"n": 3}})
    assert observation.error and "invalid arguments for search" in observation.text
    assert "Markdown" not in observation.text
