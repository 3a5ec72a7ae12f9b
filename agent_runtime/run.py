"""The services one run shares across its agents and actions: workspace, settings, model,
event log, metadata with the running totals, token estimator, prompts, and the budgets."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.config import Settings
from agent_runtime.model import Model
from agent_runtime.prompts import Prompts
from agent_runtime.run_state import EventLog, RunMeta, save_meta
from agent_runtime.tokens import TokenEstimator
from agent_runtime.workspace import Workspace


@dataclass
class ActionContext:
    """Handed to every action that asks for it (its first parameter, annotated `ActionContext`)."""

    workspace: Workspace
    settings: Settings
    model: Model
    events: EventLog
    meta: RunMeta
    prompts: Prompts
    estimator: TokenEstimator = field(default_factory=TokenEstimator)
    agent: str = "main"
    step: int = 0
    # Per-run state that later actions keep (streams, ledger, browser); keyed by their module.
    state: dict[str, Any] = field(default_factory=dict)
    _started: float = field(default_factory=time.monotonic)
    _elapsed_before: float = 0.0

    def __post_init__(self) -> None:
        self._elapsed_before = self.meta.totals.elapsed_seconds

    # -- accounting --------------------------------------------------------------------------
    def elapsed(self) -> float:
        return self._elapsed_before + (time.monotonic() - self._started)

    def record_usage(self, prompt_tokens: int, completion_tokens: int) -> float:
        totals = self.meta.totals
        totals.model_calls += 1
        totals.prompt_tokens += prompt_tokens
        totals.completion_tokens += completion_tokens
        price = self.settings.price()
        cost = 0.0
        if price is not None:
            cost = (prompt_tokens * price.input + completion_tokens * price.output) / 1_000_000
            totals.cost += cost
        return cost

    def save(self) -> None:
        self.meta.totals.elapsed_seconds = round(self.elapsed(), 3)
        save_meta(self.workspace.run_file, self.meta)

    # -- budgets -----------------------------------------------------------------------------
    def spent_budget(self) -> str | None:
        """The name and figures of the first run-wide budget that is spent, else None."""
        s, totals = self.settings, self.meta.totals
        if totals.steps >= s.max_steps:
            return f"max_steps: {totals.steps} of {s.max_steps} steps used; resume with a larger --max-steps"
        if s.max_tokens is not None and totals.total_tokens >= s.max_tokens:
            return (
                f"max_tokens: {totals.total_tokens:,} of {s.max_tokens:,} tokens used; "
                "resume with a larger --max-tokens"
            )
        if s.max_cost is not None and totals.cost >= s.max_cost:
            return f"max_cost: ${totals.cost:.4f} of ${s.max_cost:.4f} spent; resume with a larger --max-cost"
        if s.max_time is not None and self.elapsed() >= s.max_time:
            return f"max_time: {self.elapsed():.0f} of {s.max_time:.0f} seconds used; resume with a larger --max-time"
        return None

    def status_line(self) -> str:
        """The run's figures for the last message of a request (never in the system prompt)."""
        s, t = self.settings, self.meta.totals
        parts = [f"step {t.steps + 1} of {s.max_steps}"]
        parts.append(f"tokens {t.total_tokens:,}" + (f" of {s.max_tokens:,}" if s.max_tokens else ""))
        if s.max_cost is not None or t.cost:
            parts.append(f"cost ${t.cost:.4f}" + (f" of ${s.max_cost:.2f}" if s.max_cost is not None else ""))
        parts.append(
            f"elapsed {_duration(self.elapsed())}" + (f" of {_duration(s.max_time)}" if s.max_time else "")
        )
        return " · ".join(parts)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
