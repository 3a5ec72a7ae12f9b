"""The `deep-researcher …` commands the runtime prints: after a stop, in `inspect`, in the live view,
in the batch summary, in messages and in the banner of an unfinished report.

Every one is made here, so that each pastes into a shell as printed: its words are quoted where a
shell needs it (shlex.quote: a workspace named `my notes` or `结果 (v2)` stays one word), and
whatever explains it goes after a `#` (`with_note`) or on a line of its own, never in the command.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PROGRAM = "deep-researcher"

# The budgets a stop names (the stop reason's prefix), and the flag that raises each.
_BUDGET_FLAGS = {
    "max_steps": "--max-steps",
    "max_tokens": "--max-tokens",
    "max_cost": "--max-cost",
    "max_time": "--max-time",
}
BUDGETS_NOTE = "budgets count the whole run, resumes included"


def command(*words: str | Path) -> str:
    """`deep-researcher WORD …`, each word quoted where a shell needs it."""
    return shlex.join([PROGRAM, *(str(word) for word in words)])


def with_note(line: str, note: str) -> str:
    """A command and what it does, as one line that still pastes: the note is a shell comment."""
    return f"{line}  # {' '.join(note.split())}"


def raised_budget(stop_reason: str | None, limits: Mapping[str, Any]) -> list[str]:
    """The flag that lets a run stopped by a budget go on (budgets count the whole run, so the same
    limit would stop it again at once): twice the limit that stopped it, from the run's settings
    (`limits`: Settings as a mapping, or run.json's settings). Empty for other stops."""
    kind = (stop_reason or "").partition(":")[0]
    flag, limit = _BUDGET_FLAGS.get(kind), limits.get(kind)
    if flag is None or not isinstance(limit, int | float) or isinstance(limit, bool):
        return []
    return [flag, f"{limit * 2:g}" if isinstance(limit, float) else str(limit * 2)]


def resume_command(workspace: Path, stop_reason: str | None = None, limits: Mapping[str, Any] | None = None) -> str:
    """`deep-researcher resume WS`, with the budget that stopped the run raised."""
    return command("resume", workspace, *raised_budget(stop_reason, limits or {}))
