"""How the calls of one reply run.

    concurrent calls (searches, visits, delegated tasks) → together, at most `parallel` at a time;
        two that touch one file (their conflict keys overlap) in the order of the calls;
        a budget the running ones spend starts no new one
    then the others (dashboard updates, the finishing action…) → alone, in the order of the calls;
        the finishing action only if every call before it succeeded; nothing after it once it has

The observations come back in the order of the calls, whatever order they ran in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agent_runtime.engine.registry import ANYTHING, ActionSet, Observation
from agent_runtime.engine.replies import ToolCall
from agent_runtime.engine.run_context import BudgetStop


@dataclass(frozen=True)
class NotRun:
    """Why a call is answered without running: an action before it failed, or a budget is spent."""

    failed_before: bool = False
    budget: BudgetStop | None = None


RunOne = Callable[[ToolCall, NotRun | None], Awaitable[Observation]]


def overlap(first: frozenset[str], second: frozenset[str]) -> bool:
    return bool(first & second) or (ANYTHING in first and bool(second)) or (ANYTHING in second and bool(first))


async def run_calls(
    calls: list[ToolCall],
    actions: ActionSet,
    run_one: RunOne,
    *,
    parallel: int,
    finish_action: str | None,
    spent_budget: Callable[[], BudgetStop | None],
) -> list[Observation | None]:
    """Each call's observation, in call order; None for the calls after a successful finish or a
    pause for a person (a --review-plan run's plan: no fetch in the same reply runs before it)."""
    done: list[Observation | None] = [None] * len(calls)

    def concurrent(call: ToolCall) -> bool:
        found = actions.actions.get(call.name)
        return call.error is None and found is not None and found.concurrent

    together = [index for index, call in enumerate(calls) if concurrent(call)]
    if together:  # one rule whatever their number (with --parallel 1 they run in turn)
        await _run_together(calls, together, actions, run_one, done, parallel, spent_budget)
    for index, call in enumerate(calls):
        if done[index] is None:
            failed = any(o is not None and o.error for o in done[:index])
            blocked = NotRun(failed_before=True) if failed and call.name == finish_action else None
            observation = await run_one(call, blocked)
            done[index] = observation
            if observation.finished or observation.waiting is not None:  # a pause: nothing after it runs
                break
    return done


async def _run_together(
    calls: list[ToolCall],
    indices: list[int],
    actions: ActionSet,
    run_one: RunOne,
    done: list[Observation | None],
    parallel: int,
    spent_budget: Callable[[], BudgetStop | None],
) -> None:
    limit = asyncio.Semaphore(parallel)
    # The reply's own model call may have crossed a budget: its calls still run, as in turn they
    # would. Only a budget the calls themselves spend stops the ones not yet started.
    spent_before = spent_budget() is not None
    keys = {i: actions.actions[calls[i].name].conflict_keys(calls[i].arguments) for i in indices}
    started: dict[int, asyncio.Task[None]] = {}

    async def run(index: int, after: list[asyncio.Task[None]]) -> None:
        if after:
            await asyncio.wait(after)  # an earlier call on the same file ends first
        async with limit:
            spent = None if spent_before else spent_budget()
            late = spent is not None and spent.kind != "max_steps"
            done[index] = await run_one(calls[index], NotRun(budget=spent) if late else None)

    try:
        async with asyncio.TaskGroup() as group:
            for i in indices:
                after = [task for j, task in started.items() if overlap(keys[i], keys[j])]
                started[i] = group.create_task(run(i, after))
    except BaseExceptionGroup as failure:  # a full disk, a bug: as if the calls ran in turn
        raise failure.exceptions[0] from None
