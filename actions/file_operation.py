"""file_operation: the main agent's one file action, which delegates to the File micro agent.

The File agent runs the same loop as the main agent, with its own short context
([its system prompt, the operation description] and its own actions), its own step limit and
optionally its own, cheaper model (`--file-model`). Only its `finish(answer)` answer, bounded in
size, comes back to the main agent: the File agent's messages never enter the main history.
It shares the run's services (workspace, event log, totals, budgets, `ctx.services`), so its model
calls count against the run's budgets and its streams outlive one operation.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from actions.delegation import RecordingActions, file_key, short_arguments
from actions.files import CHANGES_FILE, file_actions
from actions.files.common import file_policy
from actions.files.write import AttachedText, without_repeated_attachment
from agent_runtime.domain.layout import DASHBOARDS, OVERALL_DASHBOARD
from agent_runtime.engine.loop import AgentLoop, AgentSpec, Outcome
from agent_runtime.engine.messages import Message, system, user
from agent_runtime.engine.model import Model, build_model
from agent_runtime.engine.registry import ANYTHING, ActionSet, Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError, DeepResearcherError, SandboxError, StorageError
from sandbox import atomic_write_text

AGENT = "file"
ANSWER_LIMIT = 4_000  # characters of the File agent's answer the main agent reads
ATTACHMENT_PREVIEW_LINES = 5  # of attached text, shown to the File agent


@dataclass
class _State:
    """What file_operation keeps for the run in its services: the File agent's model client
    (built once) and a counter for naming saved answers."""

    model: Model | None = None
    answers: int = 0


def _state(ctx: ActionContext) -> _State:
    return ctx.services.get(_State, _State)


def file_agent_model(ctx: ActionContext) -> Model:
    """The configured file model (`--file-model`), built once per run; else the main model."""
    state = _state(ctx)
    if state.model is None:
        name = ctx.settings.file_model
        if name and name != ctx.model.name:
            state.model = build_model(ctx.settings, name)
            # its retries and waits are logged as the main model's are (the event names the agent)
            state.model.on_retry = getattr(ctx.model, "on_retry", None)
            state.model.on_wait = getattr(ctx.model, "on_wait", None)
            state.model.on_fallback = getattr(ctx.model, "on_fallback", None)
        else:
            state.model = ctx.model
    return state.model


def dashboard_door(name: str) -> str:
    """The one way to change a dashboard, as the model would write the call."""
    action_name = "update_overall_dashboard" if name == OVERALL_DASHBOARD else "update_current_dashboard"
    return f"{action_name}(content=<the whole new dashboard>)"


@dataclass
class FileAgentActions(RecordingActions):
    """The File agent's actions. A change to a dashboard ends the operation at once, before it
    runs: a dashboard has one door, the main agent's own update_*_dashboard action, and a File
    agent refused one write tries another (ten steps of write_file, replace_text and
    write_attached on the same file, seen with small models). `door` is then the main agent's
    observation. Reading a dashboard stays allowed. A write_attached that also passes the attached
    text as an argument is written once, or refused when that text differs (a small model does it,
    and the schema's "Extra inputs are not permitted" only brought the same call back)."""

    door: str | None = None

    async def run(self, ctx: ActionContext | None, name: str, arguments: dict[str, Any]) -> Observation:
        dashboard = _dashboard_named(ctx, name, arguments)
        if dashboard is None and name == "write_attached" and ctx is not None:
            try:
                arguments, note = without_repeated_attachment(ctx, arguments)
            except ActionError as exc:
                self.trail.append(f"- {name}({short_arguments(arguments)}) → refused: {str(exc)[:200]}")
                return Observation(f"Error in {name}: {exc}", error=True)
            observation = await super().run(ctx, name, arguments)
            if note and not observation.error:
                observation = dataclasses.replace(observation, text=f"{observation.text}\n\n{note}")
            return observation
        if dashboard is None:
            return await super().run(ctx, name, arguments)
        self.door = (
            f"The File agent did not change {dashboard}: a dashboard changes only through "
            f"{dashboard_door(dashboard)}, so call that action yourself."
        )
        self.trail.append(f"- {name}({short_arguments(arguments)}) → refused: {dashboard} is a dashboard")
        return Observation(self.door, finished=True, result=self.door, error=True)


def _dashboard_named(ctx: ActionContext | None, name: str, arguments: dict[str, Any]) -> str | None:
    """The dashboard a call would change, or None (any other file, a read, a path refused anyway)."""
    path = arguments.get("file_path")
    if ctx is None or name not in CHANGES_FILE or not isinstance(path, str):
        return None
    policy = file_policy(ctx)
    try:
        relative = policy.relative(policy.resolve(path))
    except SandboxError:
        return None  # the action refuses it with the policy's own message
    return relative if relative in DASHBOARDS else None


def _base_messages(
    ctx: ActionContext, actions: ActionSet, description: str, content: str | None
) -> list[Message]:
    prompt = ctx.prompts.render(
        "file_system.j2",
        tool_mode=ctx.tool_mode(),
        brief=ctx.settings.compact(),
        actions=list(actions),
        max_steps=ctx.settings.file_max_steps,
        answer_limit=ANSWER_LIMIT,
    )
    return [system(prompt), user(description + _attachment_note(content))]


def _attachment_note(content: str | None) -> str:
    """What the File agent is told of the attached text: its size and opening, not all of it (it
    writes it with write_attached, so it never needs to repeat it)."""
    if content is None:
        return ""
    lines = content.splitlines()
    opening = "\n".join(line[:200] for line in lines[:ATTACHMENT_PREVIEW_LINES])
    more = (
        f"\n… ({len(lines) - ATTACHMENT_PREVIEW_LINES:,} more lines)"
        if len(lines) > ATTACHMENT_PREVIEW_LINES
        else ""
    )
    return (
        f"\n\n[Attached text: {len(content):,} characters, {len(lines):,} lines. Write it with "
        "write_attached (a new or whole file, or append/insert), or put it in place of one passage with "
        f"replace_text(old_text=…, attached=True); never copy it. It begins:]\n{opening}{more}"
    )


def _bounded_answer(ctx: ActionContext, answer: str) -> str:
    """The answer as the main agent reads it; a longer one is saved whole, with a pointer."""
    if len(answer) <= ANSWER_LIMIT:
        return answer
    state = _state(ctx)
    state.answers += 1
    path = ctx.workspace.observations_dir / f"step-{ctx.step:05d}-file_operation-{state.answers}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, answer, durable=False)
    return (
        answer[:ANSWER_LIMIT]
        + f"\n\n[… {len(answer) - ANSWER_LIMIT:,} more characters: the whole answer is in "
        f"{ctx.workspace.relative(path)}; read the rest with file_operation]"
    )


def _unfinished(why: str, actions: RecordingActions) -> str:
    """What the main agent reads when the File agent stopped without an answer."""
    lines = [why, *actions.what_it_did("It did not run any file action.")]
    lines.append(
        "Check the files it changed before retrying; split a large operation into smaller ones or describe "
        "it more precisely."
    )
    return "\n".join(lines)


def _why(outcome: Outcome, steps: int) -> str:
    if outcome.kind == "max_steps":
        return f"The File agent used all its {steps} steps without finishing the operation."
    if outcome.kind == "loop":
        return f"The File agent was stopped because it repeated itself ({outcome.reason})."
    return f"The File agent was stopped by the run's budget ({outcome.reason})."


# A file named in a description: a relative path with an extension, or a Notebook/ path. Word
# characters include CJK, so 笔记/成本.md counts.
_NAMED_FILE = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,6}(?![\w/])|Notebook/[\w./-]+")


def files_named(arguments: dict[str, Any]) -> frozenset[str]:
    """The files an operation names, for running two operations on one file in their order; an
    operation that names none may touch any (it waits for the file operations before it)."""
    description = str(arguments.get("operation_description") or "")
    named = {file_key(match.group(0)) for match in _NAMED_FILE.finditer(description)}
    return frozenset(named) if named else frozenset({ANYTHING})


@action(concurrent=True, conflicts=files_named)
async def file_operation(
    ctx: ActionContext, operation_description: str, content: str | None = None
) -> str | Observation:
    """Work with the files in your workspace through the File agent: read, write, append to,
    insert into, create, search (grep across the Notebook, or within one file), list, stream
    through large files, and delete (to .trash/). Describe the whole operation in plain words:
    the files, the exact text to write, and what you want back. The File agent sees only this
    description, not your conversation. It answers with what it did or the content you asked for
    (at most about 4,000 characters; for more it says where to read on). Examples: "Create
    Notebook/02_<chapter>.md with exactly this text: …"; "Append this paragraph to
    Notebook/01_intro.md: …"; "List every line containing NEEDS RESEARCH in Notebook/, with file
    and line number"; "Return lines 1-80 of Notebook/03_<chapter>.md". The dashboards and sources/
    are read-only there: change the dashboards with their own actions.

    To write text you compose (a chapter, a paragraph), pass it as `content` and say in the
    description where it goes ("Append the attached text to Notebook/03_<chapter>.md"): it is written
    exactly as you gave it, and the File agent does not need to repeat it.

    Args:
        operation_description: the complete operation: what to do and every path.
        content: exact text to write, attached to the operation (the File agent writes it as is).
    """
    if not operation_description.strip():
        raise ActionError("operation_description is empty; describe the file operation to carry out")
    content = content if content and content.strip() else None  # "" is no attachment
    try:
        model = file_agent_model(ctx)
    except DeepResearcherError as exc:
        raise ActionError(f"the File agent's model cannot be used: {exc}") from None
    compact = ctx.settings.compact()
    actions = FileAgentActions(ActionSet.of(file_actions(compact)).actions, brief=compact)
    file_ctx = ctx.for_agent(AGENT, model)
    spec = AgentSpec(
        name=AGENT,
        actions=actions,
        base_messages=lambda: _base_messages(file_ctx, actions, operation_description, content),
        model=model,
        tool_mode=ctx.tool_mode(),
        max_steps=ctx.settings.file_max_steps,
        finish_action="finish",
    )
    loop = AgentLoop(spec, file_ctx)
    # The attachment belongs to this operation only: another may run at the same time.
    file_ctx.services.provide(AttachedText, AttachedText(content))
    try:
        outcome = await loop.run()
    except StorageError:  # a full or read-only disk stops the run, not just this operation
        raise
    except DeepResearcherError as exc:
        raise ActionError(_unfinished(f"the File agent stopped: {exc}", actions)) from None
    ctx.events.append(
        "agent_ended",
        step=ctx.step,
        agent=AGENT,
        parent=ctx.agent,
        outcome=outcome.kind,
        steps=loop.local_steps,
        reason=outcome.reason,
    )
    if actions.door is not None:  # one sentence, and what the File agent did before it, if anything
        done = actions.what_it_did()[:-1] if len(actions.trail) > 1 else []
        return Observation("\n".join([actions.door, *done]), error=True)
    if outcome.kind == "finished" and outcome.result is not None:
        return _bounded_answer(ctx, outcome.result)
    # An error: a finishing action in the same reply must not run on top of an unfinished write.
    return Observation(_unfinished(_why(outcome, loop.local_steps), actions), error=True)
