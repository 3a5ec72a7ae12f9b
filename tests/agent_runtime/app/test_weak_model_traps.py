"""What a weak model still tripped on (issue 34, items 1-3), played by the scripted endpoint through
the real CLI at an 8k window, in both tool modes and in English and Chinese, as the issue's *Why*
describes it: the plan sent back as the template with one line changed; the File agent asked to write
a dashboard; the attached text sent again as an argument of write_attached. Each costs one refused
step with what to do instead, never ten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from actions.files import COMPACT_LEAVES_OUT
from agent_runtime.domain.layout import template_text
from agent_runtime.engine.tokens import TokenEstimator
from agent_runtime.language import dashboard_words
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli, write_cited_report

FILE_AGENT = "You are the File agent"
TITLES = {"en": "Sodium-ion cells for grid storage", "zh": "钠离子电池在电网储能中的应用"}
CHAPTER = "".join(f"Paragraph {n}: sodium-ion cells are discussed here at some length.\n" for n in range(30))
OTHER_TEXT = "A different paragraph the File agent made up.\n"


def act(json_mode: bool, *calls: tuple[str, dict[str, Any]]) -> Reply:
    """A reply with these calls: native tool calls, or in json mode the JSON a model writes as text."""
    if json_mode:
        actions = [{"action": name, "arguments": arguments} for name, arguments in calls]
        return reply(content=json.dumps(actions if len(actions) > 1 else actions[0], ensure_ascii=False))
    return reply(*(call(name, **arguments) for name, arguments in calls))


def texts_after_system(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content") or "") for m in messages[1:]]


class WeakModel:
    """The main agent and the File agent of the issue's run, step by step; what each was shown."""

    def __init__(self, ws: Path, language: str, json_mode: bool) -> None:
        self.ws, self.language, self.json_mode = ws, language, json_mode
        self.main: list[list[dict[str, Any]]] = []
        self.file: dict[str, list[list[dict[str, Any]]]] = {}
        self.file_tools: list[Any] = []

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(FILE_AGENT):
            operation = str(messages[1]["content"]).split("]", 1)[0].removeprefix("[op:")
            self.file.setdefault(operation, []).append(messages)
            self.file_tools = tools or []
            return self.file_agent(operation, len(self.file[operation]))
        self.main.append(messages)
        return self.main_agent(len(self.main), messages)

    def main_agent(self, step: int, messages: list[dict[str, Any]]) -> Reply:
        words = dashboard_words(self.language)
        title = TITLES[self.language]
        template = template_text("overall_dashboard.md", title, None, self.language)
        do = lambda name, **arguments: act(self.json_mode, (name, arguments))  # noqa: E731
        if step == 1:  # the template back, with one line changed
            return do("update_overall_dashboard", content=template.replace(words["not_started"], "In progress."))
        if step == 2:  # the dashboard through the File agent
            return do(
                "file_operation",
                operation_description="[op:dashboard] Write the research questions into the overall dashboard",
                content=f"## {words['questions']}\n1. What limits the cells' cycle life?\n",
            )
        if step == 3:
            return do(
                "file_operation",
                operation_description="[op:chapter] Write the attached chapter to Notebook/01_cells.md",
                content=CHAPTER,
            )
        if step == 4:
            return do(
                "file_operation",
                operation_description="[op:differs] Write the attached text to Notebook/02_other.md",
                content="The text the main agent wrote.\n",
            )
        if step == 5:  # reading a dashboard, and a long file, through the File agent
            (self.ws / "Notebook" / "big.md").write_text("A line of a long note.\n" * 2000, encoding="utf-8")
            return do(
                "file_operation",
                operation_description="[op:read] Return overall_dashboard.md and the start of Notebook/big.md",
            )
        if step == 6:
            plan = template.replace(
                f"## {words['questions']}\n", f"## {words['questions']}\n1. What limits the cells' cycle life?\n"
            ).replace(f"## {words['outline']}\n", f"## {words['outline']}\n1. Notebook/01_cells.md\n")
            return do("update_overall_dashboard", content=plan)
        return do("all_finished", result="done", report_path=write_cited_report(self.ws))

    def file_agent(self, operation: str, step: int) -> Reply:
        do = lambda *calls: act(self.json_mode, *calls)  # noqa: E731
        if operation == "dashboard":  # it tries to write the dashboard: the first try ends it
            return do(("write_attached", {"file_path": "overall_dashboard.md"}))
        if operation == "chapter":
            if step == 1:  # the attached text sent again as an argument
                return do(("write_attached", {"file_path": "Notebook/01_cells.md", "content": CHAPTER}))
            return do(("finish", {"answer": "Wrote Notebook/01_cells.md."}))
        if operation == "differs":
            if step == 1:
                return do(("write_attached", {"file_path": "Notebook/02_other.md", "attached": OTHER_TEXT}))
            return do(("finish", {"answer": "Nothing written: the text differed."}))
        if step == 1:
            return do(
                ("read_file", {"file_path": "overall_dashboard.md"}),
                ("read_file", {"file_path": "Notebook/big.md"}),
                ("list_directory", {"directory_path": "Notebook"}),
            )
        return do(("finish", {"answer": "Read both."}))


def observation_after(messages: list[dict[str, Any]], marker: str) -> str:
    return next(text for text in reversed(texts_after_system(messages)) if marker in text)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("mode", ["native", "json"])
def test_a_weak_models_run_costs_one_step_per_trap_and_finishes(tmp_path: Path, language: str, mode: str) -> None:
    ws = tmp_path / "ws"
    model = WeakModel(ws, language, mode == "json")
    words = dashboard_words(language)
    with ScriptedEndpoint(model) as server:
        result = run_cli(
            ["run", TITLES[language], "--workspace", str(ws), "--context-window", "8000", "--tool-mode", mode,
             "--max-steps", "20", "-q"],
            cli_env(server.url),
        )  # fmt: skip
    assert result.code == 0, result.stderr
    overall = (ws / "overall_dashboard.md").read_text("utf-8")

    # 1. The template with a line changed is no plan: refused, naming what to fill, in the form.
    refused = observation_after(model.main[1], "update_overall_dashboard")
    assert f"Fill: {words['questions']}, {words['outline']}." in refused
    assert f"## {words['outline']}\n{words['form.outline']}" in refused
    assert "In progress." not in overall and "cycle life" in overall  # the real plan was saved

    # 2. A dashboard has one door: one File-agent call, and the main agent is told which action works.
    assert len(model.file["dashboard"]) == 1
    door = observation_after(model.main[2], "File agent")
    assert "update_overall_dashboard(content=<the whole new dashboard>)" in door
    assert door.count(".") <= 2  # one sentence (the name of the dashboard has the other dot)
    # Reading a dashboard through the File agent stays allowed.
    read = texts_after_system(model.file["read"][1])
    assert any(f"## {words['questions']}" in text and "Error" not in text for text in read)

    # 3. The attached text sent again is written once, and the File agent is told; a different one
    # is refused, naming the attached text it would have written.
    assert (ws / "Notebook/01_cells.md").read_text("utf-8") == CHAPTER
    told = " ".join(texts_after_system(model.file["chapter"][1]))
    assert "is the attached text itself: it was written once" in told
    assert not (ws / "Notebook/02_other.md").exists()
    refusal = " ".join(texts_after_system(model.file["differs"][1]))
    assert "write_attached writes the attached text (31 characters, beginning «The text the main agent wrote.»)" in refusal
    assert "Extra inputs are not permitted" not in told + refusal

    # The File agent's fixed prefix fits a small window, and nothing it is shown names an action
    # the compact profile left out of its list.
    first = model.file["dashboard"][0]
    prefix = TokenEstimator().request([first[0]], model.file_tools)
    assert prefix <= 2_000, prefix
    shown = " ".join(text for messages in model.file.values() for text in texts_after_system(messages[-1:][0]))
    assert "over the limit of one read" in shown  # the long file's footer was seen
    assert not [name for name in COMPACT_LEAVES_OUT if name in shown]
