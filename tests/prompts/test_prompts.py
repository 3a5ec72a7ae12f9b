"""The rendered prompts are pinned: a change to a prompt shows up as a diff in review.

After a deliberate change, refresh the snapshots with `UPDATE_SNAPSHOTS=1 python -m pytest tests/prompts`.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from actions import main_actions
from actions.file_operation import ANSWER_LIMIT
from actions.files import file_actions
from actions.research_task import ANSWER_LIMIT as RESEARCH_ANSWER_LIMIT
from actions.research_task import research_tools
from agent_runtime.app.researcher import COMPACT_LEAVES_OUT
from agent_runtime.engine.prompts import Prompts
from agent_runtime.errors import ConfigError
from agent_runtime.testing import Reply, call, reply
from tests.support.cli import write_cited_report
from tests.support.runs import start_run

SNAPSHOTS = Path(__file__).parent / "snapshots"


def rendered(name: str, mode: str) -> str:
    prompts = Prompts()
    if name == "main_system_compact":  # a small window: brief descriptions, fewer actions
        compact = [a for a in main_actions() if a.name not in COMPACT_LEAVES_OUT]
        return prompts.render(
            "main_system_compact.j2", title="<a research title>", purpose=None, tool_mode=mode,
            actions=compact, language="English", brief=True,
        )  # fmt: skip
    if name == "file_system_compact":
        return prompts.render(
            "file_system.j2", tool_mode=mode, actions=file_actions(compact=True), max_steps=10,
            answer_limit=ANSWER_LIMIT, brief=True,
        )  # fmt: skip
    if name == "main_system":
        return prompts.render(
            "main_system.j2", title="Solid-state batteries in 2026", purpose="an investment memo",
            tool_mode=mode, actions=main_actions(), language="English",
        )  # fmt: skip
    if name == "research_system":
        return prompts.render(
            "research_system.j2", tool_mode=mode, actions=research_tools(),
            answer_limit=RESEARCH_ANSWER_LIMIT, language="English",
        )  # fmt: skip
    return prompts.render(
        "file_system.j2", tool_mode=mode, actions=file_actions(), max_steps=10, answer_limit=ANSWER_LIMIT
    )


@pytest.mark.parametrize("mode", ["native", "json"])
@pytest.mark.parametrize(
    "name", ["main_system", "file_system", "research_system", "main_system_compact", "file_system_compact"]
)
def test_rendered_prompt_matches_its_snapshot(name: str, mode: str) -> None:
    text = rendered(name, mode) + "\n"
    snapshot = SNAPSHOTS / f"{name}.{mode}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        snapshot.write_text(text)
    assert snapshot.exists(), f"no snapshot yet: run with UPDATE_SNAPSHOTS=1 to create {snapshot.name}"
    assert text == snapshot.read_text()


def test_the_method_is_taught() -> None:
    text = rendered("main_system", "native")
    for idea in (
        "research blueprint",
        "[NEEDS RESEARCH:",
        "3-5",
        "8-12",
        "15-20",
        "[S<n>]",
        "Lessons",
        "all_finished",
    ):
        assert idea in text
    assert "{{" not in text and "{%" not in text


def test_the_main_prompt_teaches_when_to_delegate_and_when_not() -> None:
    text = rendered("main_system", "native")
    for idea in ("research_task", "one per chapter of the outline", "run in parallel", "its own notes file",
                 "Do not delegate a quick fact"):  # fmt: skip
        assert idea in text


def test_the_research_prompt_is_the_same_for_every_task_and_teaches_notes_with_ids() -> None:
    text = rendered("research_system", "native")
    for idea in (
        "write_notes",
        "[S<n>]",
        "Never invent an id",
        "finish(answer)",
        "3,000 characters",
        "English",
    ):
        assert idea in text
    # Nothing of one task (its question, notes file, step limit) is in the system prompt: the
    # endpoint's prompt cache keeps it across the run's research tasks.
    assert "Notebook/" not in text and "{{" not in text


# A small model copies an example topic into its own research (a run on libffi wrote chapters on
# markets and cell costs): what a model reads shows placeholders, never a real-world topic.
EXAMPLE_TOPIC = re.compile(r"market|cost|batter|sodium|Wh/kg|14%|solid.state|energy density|lithium", re.I)


def test_nothing_a_model_reads_carries_an_example_topic() -> None:
    prompts = Prompts()
    texts = [
        path.read_text("utf-8") for path in resources.files("prompts").iterdir() if path.name.endswith(".j2")
    ]
    texts += [
        path.read_text("utf-8")
        for path in resources.files("workspace_template").iterdir()
        if path.name.endswith(".md")
    ]
    for mode in ("native", "json"):
        texts.append(prompts.render(
            "main_system.j2", title="Test research", purpose="", tool_mode=mode, actions=main_actions(),
            language="English",
        ))  # fmt: skip
        texts += [rendered(name, mode) for name in ("file_system", "research_system")]
    for item in [*main_actions(), *file_actions(), *research_tools()]:
        texts += [item.description, json.dumps(item.schema())]
    for text in texts:
        assert not EXAMPLE_TOPIC.search(text), EXAMPLE_TOPIC.findall(text)


def test_the_file_agent_is_shown_the_action_and_finish_together_in_its_own_tool_mode() -> None:
    native, as_json = rendered("file_system", "native"), rendered("file_system", "json")
    assert "as two tool calls, e.g. write_attached(file_path=" in native and '[{"action"' not in native
    line = next(line for line in as_json.splitlines() if "the action and finish together" in line)
    example = json.loads(line.split("e.g. ", 1)[1].split("]. ", 1)[0] + "]")
    assert [a["action"] for a in example] == ["write_attached", "finish"]
    assert "or several independent actions as a JSON array" in as_json


def test_json_mode_lists_every_action_with_its_schema() -> None:
    text = rendered("main_system", "json")
    for item in main_actions():
        assert f"## {item.signature_text()}" in text
    # Each schema is JSON as a model reads it best: "<chapter>", not "\u003cchapter\u003e".
    schemas = [
        line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("Arguments (JSON schema): ")
    ]
    assert [json.loads(schema) for schema in schemas] == [
        item.schema()["function"]["parameters"] for item in main_actions()
    ]
    assert "\\u00" not in text and "<chapter>" in text
    assert rendered("main_system", "native").count("## ") < text.count("## ")


def test_a_missing_variable_is_an_error_not_a_blank(tmp_path: Path) -> None:
    (tmp_path / "main_system.j2").write_text("Title: {{ title }} {{ no_such_variable }}")
    with pytest.raises(ConfigError, match="no_such_variable"):
        Prompts(tmp_path).render("main_system.j2", title="x")


async def test_a_prompts_folder_overrides_templates_of_the_same_name(tmp_path: Path) -> None:
    folder = tmp_path / "my_prompts"
    folder.mkdir()
    (folder / "main_system.j2").write_text(
        "CUSTOM PROMPT for {{ title }} ({{ tool_mode }}, {{ actions | length }} actions)"
    )
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("all_finished", result="ok", report_path=write_cited_report(ws)))

    result, model = await start_run(tmp_path, script, prompts=folder)
    assert result.status == "finished"
    system = model.requests[0][0][0]["content"]
    assert system == f"CUSTOM PROMPT for Test research (native, {len(main_actions())} actions)"
    assert (
        "<<< overall_dashboard.md >>>" in model.requests[0][0][1]["content"]
    )  # the other templates are the shipped ones


def test_a_prompts_folder_that_does_not_exist_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a folder"):
        Prompts(tmp_path / "missing")
