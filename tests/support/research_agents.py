"""The scripted Research and main agents of the research_task tests (tests/actions/): one model
that plays both, told apart by their system prompts, over a small corpus of three documents."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.engine.messages import Message
from agent_runtime.testing import Reply, call, reply
from tests.support.cli import write_cited_report

RESEARCH = "You are a Research agent"
FILE = "You are the File agent"
DOCUMENTS = {
    "costs.md": "# Battery costs\n\nCell costs fell 14 percent in 2025. Pack prices reached 115 dollars per kWh.\n",
    "sodium.md": "# Sodium-ion cells\n\nSodium-ion cells avoid lithium and cobalt. They suit stationary storage.\n",
    "grid.md": "# Grid storage\n\nGrid storage batteries grow fastest. Storage costs follow cell costs.\n",
}
QUESTIONS = {
    "Notebook/notes/costs.md": "battery cell costs",
    "Notebook/notes/sodium.md": "sodium-ion cells",
    "Notebook/notes/grid.md": "grid storage costs",
}


def is_research(messages: list[Message]) -> bool:
    return str(messages[0]["content"]).startswith(RESEARCH)


def observations(messages: list[Message]) -> list[str]:
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


def turns(messages: list[Message]) -> int:
    return sum(1 for m in messages if m["role"] == "assistant")


def task_of(messages: list[Message]) -> tuple[str, str]:
    """(question, notes file) from the Research agent's task message."""
    brief = str(messages[1]["content"])
    question = re.search(r"Research question: (.*)", brief)
    notes = re.search(r"Notes file: (\S+)", brief)
    assert question and notes, brief
    return question.group(1), notes.group(1)


def results(text: str) -> list[tuple[str, str]]:
    """(id, url) of each search result line: `[S1] title — corpus:a.md — snippet`."""
    return re.findall(r"\[(S\d+)\] [^\n]*? — (corpus:\S+)", text)


def researcher(*, keep_searching: bool = False) -> Callable[[list[Message]], Reply]:
    """A Research agent that searches its question, reads the first result, writes one cited note
    and finishes (three model calls); `keep_searching`: writes its note, then never finishes."""

    def act(messages: list[Message]) -> Reply:
        question, _ = task_of(messages)
        seen = observations(messages)
        step = turns(messages)
        if step == 0:
            return reply(call("web_search", query=question, max_results=3))
        found = results(seen[0])[:2]
        if step == 1:
            return reply(call("visit_url", url=[url for _, url in found], goal=question))
        source = "][".join(sid for sid, _ in found)
        note = f"## {question}\n\n- The corpus says this about {question} [{source}].\n"
        if keep_searching:
            if step == 2:
                return reply(call("write_notes", content=note))
            return reply(call("web_search", query=f"{question} {step}", max_results=3))
        return reply(
            call("write_notes", content=note),
            call("finish", answer=f"Found: {question} is covered by [{source}]."),
        )

    return act


def main_agent(ws: Path, calls: list[dict[str, Any]], agent: Callable[[list[Message]], Reply]) -> Any:
    """The main agent sends `calls` in one reply, then finishes; research requests go to `agent`."""

    def script(messages: list[Message], tools: Any) -> Reply:
        if is_research(messages):
            return agent(messages)
        if not observations(messages):
            return reply(*calls)
        return reply(call("all_finished", result="done", report_path=write_cited_report(ws)))

    return script


def task_call(notes: str, depth: str | None = None) -> dict[str, Any]:
    extra = {} if depth is None else {"depth": depth}
    return call(
        "research_task", question=QUESTIONS.get(notes, "battery cell costs"), notes_file=notes, **extra
    )


def main_requests(model: Any) -> list[list[Message]]:
    return [m for m, _ in model.requests if not is_research(m) and not str(m[0]["content"]).startswith(FILE)]
