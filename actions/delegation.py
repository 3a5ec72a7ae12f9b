"""What the delegating actions (file_operation, research_task) share: the micro agent's actions,
recording what it did, so an agent that stops without an answer can still tell the main agent;
and one spelling of a file for their conflict keys."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.engine.registry import ActionSet, Observation
from agent_runtime.engine.run_context import ActionContext

MAX_TRAIL = 15  # actions listed when a micro agent stops without an answer


@dataclass
class RecordingActions(ActionSet):
    """A micro agent's actions; each call is recorded with the first line of its observation."""

    trail: list[str] = field(default_factory=list)

    async def run(self, ctx: ActionContext | None, name: str, arguments: dict[str, Any]) -> Observation:
        observation = await super().run(ctx, name, arguments)
        if name != "finish":
            first_line = next(iter(observation.text.strip().splitlines()), "")
            self.trail.append(f"- {name}({short_arguments(arguments)}) → {first_line[:200]}")
        return observation

    def what_it_did(self, nothing: str = "It did not run any action.") -> list[str]:
        """The last MAX_TRAIL calls, under a heading, for an unfinished agent's observation."""
        if not self.trail:
            return [nothing]
        done = self.trail[-MAX_TRAIL:]
        skipped = len(self.trail) - len(done)
        return ["What it did:", *([f"- … {skipped} earlier actions"] if skipped else []), *done]


def short_arguments(arguments: dict[str, Any]) -> str:
    """Arguments as a short line: long texts are shown by their length."""
    parts = []
    for key, value in arguments.items():
        if isinstance(value, str) and len(value) > 60:
            value = f"<{len(value):,} characters>"
        parts.append(f"{key}={json.dumps(value, ensure_ascii=False, default=str)[:200]}")
    return ", ".join(parts)


def file_key(path: str) -> str:
    """A file as a conflict key (agent_runtime.engine.registry): the calls of one reply naming the same
    file, however spelled (./, NFD, case), run in their order."""
    return unicodedata.normalize("NFC", path.strip()).removeprefix("./").casefold()
