"""What one run shares across its agents and actions: workspace, settings, model, event log,
metadata with the running totals, token estimator, prompts, the budgets, and the actions' services
(`agent_runtime.engine.services`)."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Literal

from agent_runtime.config import Settings
from agent_runtime.engine.model import Model
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.replies import ToolMode
from agent_runtime.engine.run_record import EventLog, RunMeta, duration, save_meta
from agent_runtime.engine.services import Services
from agent_runtime.engine.tokens import TokenEstimator
from agent_runtime.engine.workspace import Workspace

Budget = Literal["max_steps", "max_tokens", "max_cost", "max_time"]


@dataclass(frozen=True)
class BudgetStop:
    """A spent budget: which one, and the figures with what to do (for the user)."""

    kind: Budget
    figures: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.figures}"


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
    parent: str | None = None  # the agent that delegated to this one (None: the main agent)
    step: int = 0
    # What the actions share for the run (the ledger, the fetcher, the browser…), one of each type.
    services: Services = field(default_factory=Services)
    _started: float = field(default_factory=time.monotonic)
    _elapsed_before: float = 0.0

    def __post_init__(self) -> None:
        self._elapsed_before = self.meta.totals.elapsed_seconds

    def for_agent(self, agent: str, model: Model) -> ActionContext:
        """The same run (workspace, events, totals, services) for a delegated micro agent with its
        own model and its own step count, and its own layer of services (`Services.scoped`)."""
        self.save()  # the totals are current, so the new context's clock continues from them
        return dataclasses.replace(
            self, agent=agent, parent=self.agent, model=model, step=self.step, services=self.services.scoped(),
            _started=time.monotonic(),
        )  # fmt: skip

    def tool_mode(self) -> ToolMode:
        """The mode actions are asked for in now: the setting, or with "auto" native until the run
        switched (RunMeta.tool_mode)."""
        if self.settings.tool_mode != "auto":
            return self.settings.tool_mode
        return self.meta.tool_mode or "native"

    # -- accounting --------------------------------------------------------------------------
    def elapsed(self) -> float:
        return self._elapsed_before + (time.monotonic() - self._started)

    def account(self, raw_tokens: float, prompt: int | None, completion: int | None) -> tuple[int, int]:
        """Count one model call: the endpoint's figures where it gave them (teaching the estimator
        its tokenizer), the estimate of the request where it did not. Returns (prompt, completion)."""
        if prompt:
            self.estimator.observe(raw_tokens, prompt)
        prompt = prompt if prompt is not None else self.estimator.scale(raw_tokens)
        completion = completion if completion is not None else 0
        self.record_usage(prompt, completion)
        return prompt, completion

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
    def spent_budget(self) -> BudgetStop | None:
        """The first run-wide budget that is spent, else None."""
        s, totals = self.settings, self.meta.totals
        if totals.steps >= s.max_steps:
            return BudgetStop(
                "max_steps", f"{totals.steps} of {s.max_steps} steps used; resume with a larger --max-steps"
            )
        if s.max_tokens is not None and totals.total_tokens >= s.max_tokens:
            return BudgetStop(
                "max_tokens",
                f"{totals.total_tokens:,} of {s.max_tokens:,} tokens used; resume with a larger --max-tokens",
            )
        if s.max_cost is not None and totals.cost >= s.max_cost:
            return BudgetStop(
                "max_cost", f"${totals.cost:.4f} of ${s.max_cost:.4f} spent; resume with a larger --max-cost"
            )
        if s.max_time is not None and self.elapsed() >= s.max_time:
            return BudgetStop(
                "max_time",
                f"{self.elapsed():.0f} of {s.max_time:.0f} seconds used; resume with a larger --max-time",
            )
        return None

    def time_left(self) -> float | None:
        """Seconds until the time budget ends (None: no time budget)."""
        if self.settings.max_time is None:
            return None
        return max(0.0, self.settings.max_time - self.elapsed())

    def in_writing_reserve(self) -> bool:
        """True once the research share of a budget (steps, tokens, time) is spent: time to write."""
        s, t = self.settings, self.meta.totals
        if s.max_steps - t.steps <= max(1.0, s.max_steps * s.writing_reserve):
            return True
        if s.max_tokens is not None and s.max_tokens - t.total_tokens <= s.max_tokens * s.writing_reserve:
            return True
        return s.max_time is not None and s.max_time - self.elapsed() <= self._time_reserve(s.max_time)

    def _time_reserve(self, max_time: float) -> float:
        """The seconds kept for writing: the reserve's share of the time budget, but at least three
        steps at the pace so far (on a CPU one step can take minutes), and at most half the budget."""
        steps = self.meta.totals.steps
        pace = self.elapsed() / steps if steps else 0.0
        return min(max_time / 2, max(max_time * self.settings.writing_reserve, 3 * pace))

    def budget_nearly_spent(self) -> bool:
        """The last few steps or percent of a budget: a report is finalized as it is, problems listed."""
        s, t = self.settings, self.meta.totals
        if s.max_steps - t.steps <= max(2.0, s.max_steps * 0.03):
            return True
        shares = [(t.total_tokens, s.max_tokens), (t.cost, s.max_cost), (self.elapsed(), s.max_time)]
        return any(limit is not None and used >= 0.97 * limit for used, limit in shares)

    def status_line(self) -> str:
        """The run's figures for the last message of a request (never in the system prompt)."""
        s, t = self.settings, self.meta.totals
        parts = [f"step {t.steps + 1} of {s.max_steps}"]
        parts.append(f"tokens {t.total_tokens:,}" + (f" of {s.max_tokens:,}" if s.max_tokens else ""))
        if s.max_cost is not None or t.cost:
            parts.append(f"cost ${t.cost:.4f}" + (f" of ${s.max_cost:.2f}" if s.max_cost is not None else ""))
        parts.append(
            f"elapsed {duration(self.elapsed())}" + (f" of {duration(s.max_time)}" if s.max_time else "")
        )
        return " · ".join(parts)
