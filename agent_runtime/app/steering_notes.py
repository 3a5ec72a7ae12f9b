"""What a paused run says: to the person, why it waits and how to go on; to the model on resume,
what the person did in its turn (answered the questions, reviewed the plan).

The answers reach the model as the dashboard always does (it is in every request); the note only
says where they are and what to do with them, or that there are none.
"""

from __future__ import annotations

from pathlib import Path

from agent_runtime.domain.layout import OVERALL_DASHBOARD, ResearchWorkspace
from agent_runtime.domain.steering import (
    load_steering,
    questions_section,
    read_answers,
    save_steering,
    with_section,
    words,
)
from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.run_record import load_meta
from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text


def waiting_reason(status: str, workspace: Path, language: str | None = None) -> str:
    """The stop reason of a paused run, as run.json, `inspect` and the view show it."""
    if status == "awaiting_answers":
        return (
            f"waiting for your answers: write them under each question in {workspace / OVERALL_DASHBOARD} "
            f"(section \"{words(language)['heading']}\"), then `{resume_command(workspace)}`"
        )
    return (
        f"waiting for your review of the plan: edit {workspace / OVERALL_DASHBOARD} if you like, "
        f"then `{resume_command(workspace)}`"
    )


def steering_note(workspace: Path, status: str, overall: str) -> str | None:
    """The note for the model when a paused run resumes; resuming from the plan's pause is the
    person's review (from then on the research may search and fetch)."""
    if status == "awaiting_review":
        steering = load_steering(workspace)
        steering.plan_reviewed = True
        save_steering(workspace, steering)
        return (
            "[plan reviewed] The user has reviewed your research blueprint; overall_dashboard.md above is the "
            "plan as they left it (edited or not). Follow it: their changes come first. Now start the research."
        )
    if status != "awaiting_answers":
        return None
    answers = read_answers(overall)
    asked = load_steering(workspace).questions
    if answers is None or not any(answers.values()):
        return (
            "[answers] The user gave no answers to your questions: go on with your own judgment, and record "
            "in the blueprint the assumptions you made. Do not ask again."
        )
    lines = [f"- {q}: {a or '(no preference)'}" for q, a in answers.items()]
    missing = [q for q in asked if q not in answers]
    if missing:
        lines += [f"- {q}: (no answer)" for q in missing]
    return (
        "[answers] The user answered your questions (under \"Questions for you\" in overall_dashboard.md):\n"
        + "\n".join(lines)
        + "\nWrite the research blueprint with update_overall_dashboard now, shaped by these answers, and record "
        "in it the assumptions you made where an answer is empty. Do not ask again."
    )


def answer_waiting_run(workspace: Path, answers: list[str] | None = None, plan: str | None = None) -> str:
    """A person's turn given by a tool rather than an editor (the MCP server): the answers written
    under the questions, or the plan replacing the blueprint. Returns the status the run waited in;
    WorkspaceError if it waits for nothing."""
    space = ResearchWorkspace(workspace)
    meta = load_meta(space.run_file)
    status = meta.status if meta is not None else "unknown"
    if status == "awaiting_answers":
        questions = load_steering(space.root).questions
        if answers is not None and len(answers) > len(questions):
            raise WorkspaceError(f"the run asked {len(questions)} questions; {len(answers)} answers were given")
        settings = meta.settings if meta is not None else {}
        if answers is not None:  # no answers given: what the person wrote in the file stays
            section = questions_section(questions, answers, settings.get("language"), resume_command(space.root))
            atomic_write_text(space.overall_dashboard, with_section(space.read_text(OVERALL_DASHBOARD), section))
    elif status == "awaiting_review":
        if plan is not None and plan.strip():
            atomic_write_text(space.overall_dashboard, plan if plan.endswith("\n") else plan + "\n")
    else:
        raise WorkspaceError(f"the run in {space.root} is {status}: it waits for no answer")
    return status
