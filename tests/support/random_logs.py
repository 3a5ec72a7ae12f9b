"""Random inputs of many shapes, from a seed: histories for the context guard's last resort, event
logs for the resume note and the unfinished research tasks. The tests compare what the code makes
of them with the outputs stored in tests/data/expected/ (made by tests/data/expected/make_expected.py
from these same seeds).

A change here changes the inputs: regenerate the stored outputs only with the reference they were
made from (see that script's docstring)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.context_guard import ContextGuard
from agent_runtime.engine.messages import Message, ToolSchema
from agent_runtime.engine.run_record import EventLog, RunMeta
from agent_runtime.engine.tokens import TokenEstimator

TOOLS: list[ToolSchema] = [
    {"type": "function", "function": {"name": "web_search", "description": "Search the web. " * 20,
                                      "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}},
]  # fmt: skip


def random_history(rng: random.Random, length: int) -> list[Message]:
    """A system prompt, then turns of every kind: empty and missing contents, tool calls, ties in
    length, very long observations, CJK text, a second system message, a content that is a list."""

    def text(size: int) -> str:
        alphabet = rng.choice(["abc def ghi ", "電池のコスト", "mixed 電池 text "])
        return (alphabet * (size // len(alphabet) + 1))[:size]

    history: list[Message] = [{"role": "system", "content": text(rng.choice([200, 3000, 40_000]))}]
    for i in range(length):
        size = rng.choice([0, 50, 400, 400, 1_000, 5_000, 30_000])
        kind = rng.choice(["user", "assistant", "tool", "tool", "system", "parts"])
        if kind == "assistant":
            tool_call = {
                "id": f"c{i}",
                "type": "function",
                "function": {"name": "web_search", "arguments": '{"q": "x"}'},
            }
            history.append(
                {"role": "assistant", "content": rng.choice([None, text(size)]), "tool_calls": [tool_call]}
            )
        elif kind == "tool":
            history.append({"role": "tool", "tool_call_id": f"c{i}", "content": text(size)})
        elif kind == "parts":
            history.append({"role": "user", "content": [{"type": "text", "text": text(size)}]})
        elif kind == "system" and rng.random() < 0.2:
            history.append({"role": "system", "content": text(size)})
        else:
            history.append({"role": "user", "content": text(size)} if size else {"role": "user"})
    return history


def started(n: int, notes: str = "Notebook/a.md") -> dict[str, Any]:
    return {"event": "agent_started", "agent": f"research-{n}", "task": n, "question": f"q{n}",
            "notes_file": notes, "depth": "quick"}  # fmt: skip


def ended(n: int, outcome: str) -> dict[str, Any]:
    return {"event": "agent_ended", "agent": f"research-{n}", "task": n, "outcome": outcome, "steps": 2}


def random_log(rng: random.Random, length: int) -> list[dict[str, Any]]:
    """Runs of any length (empty ones, several in a row, one last), tasks that start, end, start
    again under the same name or end without a start, and other events between."""
    log: list[dict[str, Any]] = []
    for _ in range(length):
        n = rng.randint(1, 4)
        kind = rng.choice(["run", "run", "start", "start", "end", "end", "action", "other"])
        if kind == "run":
            log.append({"event": "run_started"})
        elif kind == "start":
            log.append(
                {**started(n, rng.choice(["Notebook/a.md", "Notebook/b.md"])), "question": f"q{n}-{len(log)}"}
            )
        elif kind == "end":
            log.append(
                ended(n, rng.choice(["finished", "max_steps", "interrupted", "budget", "stopped", "error"]))
            )
        elif kind == "action":
            log.append(
                {"event": "action", "agent": rng.choice(["main", f"research-{n}"]), "action": "web_search"}
            )
        else:
            log.append({"event": "model_call", "agent": f"research-{n}"})
    return log


ARGUMENTS: list[dict[str, Any]] = [
    {"query": "solid-state electrolyte costs 2026 " * 4},
    {"path": "Notebook/notes/a.md", "content": "## Findings\n- 電池のコスト [S1]\n" * 20},
    {"nested": {"a": [1, 2, {"b": None}]}, "n": 3, "flag": True},
    {"text": "quote ' and \" and \\ and \u2028 line separator"},
    {},
]


def write_runs(ws: Path, rng: random.Random, runs: int) -> None:
    """An event log of several runs, as EventLog writes it: the main agent's actions (some failed),
    research tasks that finish, stop or never end (a name started again in a later run), their own
    actions, model calls; sometimes a run killed before it did anything, or a torn last line."""
    log = EventLog(ws / ".runtime" / "events.jsonl")
    step, task = 0, 0
    for _ in range(runs):
        log.append("run_started", title="T", resumed=step > 0)
        for _ in range(rng.randint(0, 30)):
            step += 1
            kind = rng.choice(["action", "action", "model_call", "task", "task_action"])
            if kind == "action":
                error = rng.choice([None, None, "the page could not be read"])
                log.append("action", step=step, agent="main", action=rng.choice(["web_search", "write_file"]),
                           arguments=rng.choice(ARGUMENTS), error=error, observation_chars=rng.randint(0, 9000))  # fmt: skip
            elif kind == "model_call":
                log.append("model_call", step=step, agent="main", prompt_tokens=rng.randint(1, 9000))
            elif kind == "task":
                task = task + 1 if rng.random() < 0.7 else max(task, 1)  # sometimes a name again
                agent = f"research-{task}"
                log.append("agent_started", step=step, agent=agent, task=task, question=f"question {task} " * 40,
                           notes_file=rng.choice(["Notebook/notes/a.md", "Notebook/notes/none.md"]),
                           depth=rng.choice(["quick", "standard", ""]))  # fmt: skip
                outcome = rng.choice(["finished", "max_steps", "interrupted", "budget", "stopped", None])
                if outcome is not None:
                    log.append("agent_ended", step=step, agent=agent, task=task, outcome=outcome, steps=3)
            else:
                log.append("action", step=step, agent=f"research-{max(task, 1)}", action="web_search",
                           arguments={"query": "a research agent's search"})  # fmt: skip
        if rng.random() < 0.2:
            log.append("run_started", title="T", resumed=True)  # killed before it did anything
    log.close()
    if rng.random() < 0.3:
        with (ws / ".runtime" / "events.jsonl").open("a") as handle:
            handle.write('{"event": "action", "step": 9999, "agent": "main", "acti')  # killed mid-line


def fit_cases(workspace: Any) -> Iterator[tuple[list[Message], list[ToolSchema], ContextGuard]]:
    """200 histories, each with its tool list and a guard whose window fits it whole, cuts it, or
    cannot fit it at all (seed 11)."""
    rng = random.Random(11)
    for _ in range(200):
        history = random_history(rng, rng.choice([0, 1, 3, 10, 30, 60]))
        tools = rng.choice([[], TOOLS])
        estimator = TokenEstimator()
        estimator.factor = rng.choice([1.0, 1.0, 1.37, 2.5])
        whole = estimator.request(history, tools)
        window = max(1, int(whole * rng.choice([0.05, 0.3, 0.7, 0.95, 1.2])))
        yield history, tools, ContextGuard(window, soft=0.6, hard=1.0, estimator=estimator, workspace=workspace)


def research_task_logs() -> Iterator[list[dict[str, Any]]]:
    """600 event logs of up to 24 events (seed 20260101)."""
    rng = random.Random(20260101)
    for _ in range(600):
        yield random_log(rng, rng.randint(0, 24))


def resume_cases(folder: Path) -> Iterator[tuple[ResearchWorkspace, RunMeta]]:
    """40 workspaces under `folder` (ws0…ws39), each with a note file and an event log of up to six
    runs, and the run record a resume reads (seed 7)."""
    rng = random.Random(7)
    for case in range(40):
        ws = ResearchWorkspace(folder / f"ws{case}")
        ws.create("T", None)
        (ws.root / "Notebook" / "notes").mkdir()
        (ws.root / "Notebook" / "notes" / "a.md").write_text("# A\n\n## Costs\nCells fell 14% [S1][S3].\n")
        write_runs(ws.root, rng, rng.randint(0, 6))
        status = rng.choice(["running", "stopped", "interrupted", "error", "finished"])
        stop_reason = rng.choice([None, "loop: the same search 5 times", "max_steps reached"])
        yield ws, RunMeta(title="T", status=status, stop_reason=stop_reason)
