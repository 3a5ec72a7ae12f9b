"""Building blocks for in-process runs of the real runtime with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_runtime.app.researcher import Researcher, RunResult
from agent_runtime.config import load_settings
from agent_runtime.engine.model import build_model
from agent_runtime.engine.registry import Action, action
from agent_runtime.testing import Reply, Script, ScriptedModel, call, reply
from tests.support.cli import write_cited_report

FILLER = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 200)[:7900]


@action
async def read_fixture(part: int) -> str:
    """Return about 8 KB of text (a stand-in for a page read).

    Args:
        part: which part to read.
    """
    return f"part {part}\n{FILLER}"


def settings(**overrides: Any) -> Any:
    return load_settings(overrides, env={})


async def start_run(
    tmp_path: Path, script: Script, *, extra: list[Action] | None = None, **overrides: Any
) -> tuple[RunResult, ScriptedModel]:
    model = ScriptedModel(script)
    researcher = Researcher.start(
        "Test research", purpose="testing", workspace=tmp_path / "ws", settings=settings(**overrides),
        model=model, extra_actions=extra or [],
    )  # fmt: skip
    return await researcher.run(), model


async def resume_run(
    tmp_path: Path, script: Script, *, extra: list[Action] | None = None, **flags: Any
) -> tuple[RunResult, ScriptedModel]:
    model = ScriptedModel(script)
    researcher = Researcher.resume(tmp_path / "ws", flags=flags, model=model, extra_actions=extra or [])
    return await researcher.run(), model


def finish_with_report(workspace: Path) -> Reply:
    return reply(
        call("all_finished", result="all done", report_path=write_cited_report(workspace, "report.draft.md"))
    )


def is_summary_request(messages: list[dict[str, Any]]) -> bool:
    return "You maintain the current dashboard" in str(messages[0]["content"])


def main_steps_taken(messages: list[dict[str, Any]]) -> int:
    """How many assistant turns the history already holds (since the last reset)."""
    return sum(1 for m in messages if m["role"] == "assistant")


def events(workspace: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (workspace / ".runtime" / "events.jsonl").read_text().splitlines()]


def step_counter(workspace: Path) -> int:
    """The script's own step count, kept in a file so it is independent of the history."""
    counter = workspace.parent / "script-steps.txt"
    step = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(step))
    return step


def researcher(tmp_path: Path, url: str, **overrides: Any) -> Researcher:
    resolved = settings(base_url=url, api_key="k", **overrides)
    return Researcher.start(
        "Compression",
        workspace=tmp_path / "ws",
        settings=resolved,
        model=build_model(resolved),
        extra_actions=[read_fixture],
    )
