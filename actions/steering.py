"""The main agent's side of a person steering the research (agent_runtime/domain/steering.py):
`ask_user` (only with --clarify, only before the plan, once), and the pause after the first plan of a
--review-plan run.

On a terminal the CLI provides an `Asker` (a service of the run): the questions are asked there and
the run goes on with the answers. Anywhere else the questions go into `overall_dashboard.md` and the
run stops resumably (status awaiting_answers) until a person writes the answers and resumes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from agent_runtime.domain.layout import OVERALL_DASHBOARD
from agent_runtime.domain.steering import (
    MAX_QUESTION_CHARS,
    MAX_QUESTIONS,
    load_steering,
    questions_section,
    save_steering,
    with_section,
)
from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.registry import Action, Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError

T = TypeVar("T")


class Asker:
    """Asks a person the questions and returns their answers in order ("" for no preference).
    Blocking (it reads a terminal): the action runs it in a thread."""

    def __init__(self, ask: Callable[[list[str]], list[str]]) -> None:
        self.ask = ask


def in_daemon_thread(work: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """`work(*args)` in a daemon thread: a person reading a terminal question may never answer, and
    Ctrl-C must still end the run (asyncio.to_thread's worker would keep the process waiting for
    the Enter key after the run was saved)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():  # cancelled meanwhile: nobody waits for it
            outcome()

    def run() -> None:
        try:
            result = work(*args)
        except BaseException as exc:  # handed to the awaiting task, as to_thread would
            loop.call_soon_threadsafe(settle, functools.partial(future.set_exception, exc))
        else:
            loop.call_soon_threadsafe(settle, functools.partial(future.set_result, result))

    threading.Thread(target=run, name="ask_user", daemon=True).start()
    return future


def _checked(questions: list[str]) -> list[str]:
    asked = [" ".join(str(q).split()) for q in questions]
    if not asked or not any(asked):
        raise ActionError("ask_user needs one to three short questions; none were given, nothing was asked")
    if len(asked) > MAX_QUESTIONS:
        raise ActionError(
            f"ask_user takes at most {MAX_QUESTIONS} questions, {len(asked)} were given; nothing was asked: "
            "keep the few whose answers change the plan most"
        )
    if any(not q for q in asked):
        raise ActionError("one of the questions is empty; nothing was asked: send only real questions")
    longest = max(len(q) for q in asked)
    if longest > MAX_QUESTION_CHARS:
        raise ActionError(
            f"a question is {longest:,} characters long, over the limit of {MAX_QUESTION_CHARS}; nothing was "
            "asked: ask short questions a person answers in a line"
        )
    return asked


@action
async def ask_user(ctx: ActionContext, questions: list[str]) -> Observation:
    """Ask the user one to three short questions before you write the research blueprint, when the
    title leaves open what they want (scope, period, region, depth, audience). Only before the first
    update_overall_dashboard, and only once: then write the blueprint with the answers, and record in
    it the assumptions you made where an answer is empty.

    Args:
        questions: one to three short questions, each answerable in a line.
    """
    root = ctx.workspace.root
    steering = load_steering(root)
    if steering.asked:
        raise ActionError("ask_user was already used in this run (it is offered once): go on with the answers you have")
    if steering.plan_written:
        raise ActionError(
            "the research blueprint is already written: ask_user is only for before the plan. Go on with the "
            "research, and record your assumptions in overall_dashboard.md"
        )
    asked = _checked(questions)
    steering.asked, steering.questions = True, asked
    asker = ctx.services.peek(Asker)
    command = resume_command(root)
    language = ctx.settings.language
    answers = await in_daemon_thread(asker.ask, asked) if asker is not None else []
    dashboard = ctx.workspace.state.read(OVERALL_DASHBOARD)
    ctx.workspace.state.write(
        OVERALL_DASHBOARD, with_section(dashboard, questions_section(asked, answers, language, command))
    )
    save_steering(root, steering)
    ctx.events.append("questions_asked", step=ctx.meta.totals.steps + 1, questions=asked, at_terminal=asker is not None)
    if asker is None:
        return Observation(
            "The questions are written into overall_dashboard.md; the run waits for the user's answers.",
            waiting="awaiting_answers",
        )
    lines = [f"{q}\n  answer: {a.strip() or '(no preference)'}" for q, a in zip(asked, answers, strict=False)]
    return Observation(
        "The user answered (also kept in overall_dashboard.md under the questions):\n"
        + "\n".join(lines)
        + "\nNow write the research blueprint with update_overall_dashboard, and record in it the assumptions "
        "you made where an answer is empty."
    )


# ask_user rebuilds the history from the files like a dashboard update (AgentSpec.compresses): the
# answers it wrote into overall_dashboard.md reach the model as the dashboard does.
COMPRESSES = frozenset({ask_user.name})

# What a --review-plan run does only once the person had the plan: nothing is searched or fetched
# before (a search in the same reply as the plan would otherwise run first).
REACHES_OUT = frozenset({"web_search", "visit_url", "browse", "research_task"})


def until_reviewed(wrapped: Action) -> Action:
    """`wrapped`, refused with a clear observation while a --review-plan run's plan is unreviewed."""

    async def gated(ctx: ActionContext, **arguments: Any) -> Observation | str:
        if ctx.settings.review_plan and not load_steering(ctx.workspace.root).plan_reviewed:
            raise ActionError(
                f"{wrapped.name} was not run: in this run the user reviews the plan before any search or fetch. "
                "Write the research blueprint (questions and outline) with update_overall_dashboard first"
            )
        return await (wrapped.function(ctx, **arguments) if wrapped.takes_context else wrapped.function(**arguments))

    return dataclasses.replace(wrapped, function=gated, takes_context=True)


def after_plan(ctx: ActionContext, updated: Observation) -> Observation:
    """After an update of the overall dashboard: the first plan is recorded; in a --review-plan run
    the run then waits for the person's review, before any search or fetch."""
    root = ctx.workspace.root
    steering = load_steering(root)
    if steering.plan_written and (steering.plan_reviewed or not ctx.settings.review_plan):
        return updated
    steering.plan_written = True
    waiting = ctx.settings.review_plan and not steering.plan_reviewed
    save_steering(root, steering)  # reviewed only when the run resumes from this pause (steering_note)
    if not waiting:
        return updated
    ctx.events.append("plan_review", step=ctx.meta.totals.steps + 1)
    return Observation(updated.text + " The plan now waits for the user's review.", waiting="awaiting_review")
