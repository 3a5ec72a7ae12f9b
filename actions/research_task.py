"""research_task: the main agent hands one sub-question to a Research micro agent.

The Research agent runs the same loop as the main agent (`AgentLoop`), in its own short context
([its system prompt, the task]) with the main agent's research actions — web_search, visit_url,
browse, file_operation: the very same action objects, so they share the run's ledger, fetcher and
browser — plus two of its own: `write_notes`, which writes into the task's notes file directly,
and `finish(answer)`. It has no dashboards, no all_finished and no research_task (no recursion).
Its step limit comes from the depth (settings.research_steps); its model calls count in the run's
budgets. Only a bounded summary comes back to the main agent: the answer, the notes file and the
source ids relied on, each checked against the ledger.

Why `write_notes` rather than file_operation for the notes: a File agent inside a Research agent
is one more model call per write (usually two: the write and its finish), and it would have to
repeat the text it was given. `write_notes` is the File agent's own `write_file`, bound to the
task's notes file, so the same path policy and atomic writes hold, in one call.

Each task is named "research-<n>" (n counts across resumes, from the event log) and logs
`agent_started` and `agent_ended`; `unfinished_research_note` tells the main agent on resume about
the tasks a stopped run left unfinished, with what their notes files hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from actions.browser.browse import browse
from actions.chart import chart
from actions.delegation import RecordingActions, file_key
from actions.file_operation import file_operation
from actions.files.common import file_policy, human_size, plural, workspace_policy
from actions.files.write import write_file
from actions.mcp.tools import mcp_actions_for
from actions.web import visit_url, web_search
from actions.web.digest import fence, new_boundary
from agent_runtime.domain.layout import NOTEBOOK
from agent_runtime.domain.research_task_log import (
    RESEARCH_AGENT_PREFIX,
    ResearchTaskRecord,
    ResearchTaskTracker,
)
from agent_runtime.domain.sources.ledger import Ledger, ledger_for
from agent_runtime.engine.loop import AgentLoop, AgentSpec, Outcome
from agent_runtime.engine.messages import Message, system, user
from agent_runtime.engine.registry import Action, ActionSet, Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import read_events
from agent_runtime.errors import ActionError, DeepResearcherError, SandboxError, StorageError
from agent_runtime.language import name as language_name
from agent_runtime.language import resolve as resolve_language
from sandbox import atomic_write_text
from sandbox.paths import PathPolicy

AGENT_PREFIX = RESEARCH_AGENT_PREFIX
ANSWER_LIMIT = 3_000  # characters of the summary the main agent reads; the whole is saved beyond
MAX_HEADINGS = 8  # of a notes file, in a description
MAX_SOURCES_SHOWN = 25  # with their titles in a summary; the rest by id only
NOTES_READ_LIMIT = 2 << 20  # bytes of a notes file read to describe it
# Outcomes after which the main agent never acted on the task's result: reported on resume.
UNFINISHED = {None: "the run was stopped during it", "interrupted": "it was interrupted",
              "budget": "the run's budget ran out during it",
              "stopped": "a storage problem stopped the run during it"}  # fmt: skip

# [S3], [S3][S4], [S3, S4], 【S3】: as the citation checker reads them.
_MARKER = re.compile(r"[\[【]\s*(S\d+(?:\s*[,，;；、]\s*S\d+)*)\s*[\]】]")
_ID = re.compile(r"S\d+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S.*$", re.MULTILINE)


def cited_ids(text: str) -> list[str]:
    """The source ids cited in `text`, in order of first use."""
    found = (sid for marker in _MARKER.finditer(text) for sid in _ID.findall(marker.group(1)))
    return list(dict.fromkeys(found))


# ----------------------------------------------------------------- the run's research tasks


@dataclass
class _Task:
    """One running research task: what it was asked, and what it has written so far."""

    name: str
    number: int
    question: str
    notes_file: str  # workspace-relative, checked
    depth: str
    max_steps: int
    cited: list[str] = field(default_factory=list)  # ids in the notes it wrote, in order
    writes: int = 0
    warned_no_notes: bool = False


@dataclass
class _Tasks:
    """The run's research tasks (a run service): the last task number, the running tasks by
    agent name (write_notes and finish find theirs by the agent they run in)."""

    last_number: int = 0
    running: dict[str, _Task] = field(default_factory=dict)

    @classmethod
    def from_log(cls, events_file: Path) -> _Tasks:
        """Numbering continues from the event log, so names stay unique across resumes."""
        numbers = [
            int(e["task"])
            for e in read_events(events_file)
            if e.get("event") == "agent_started" and str(e.get("agent", "")).startswith(AGENT_PREFIX)
            and isinstance(e.get("task"), int)
        ]  # fmt: skip
        return cls(last_number=max(numbers, default=0))

    def holding(self, notes_file: str) -> _Task | None:
        return next((t for t in self.running.values() if t.notes_file == notes_file), None)


def _tasks(ctx: ActionContext) -> _Tasks:
    return ctx.services.get(_Tasks, lambda: _Tasks.from_log(ctx.workspace.events_file))


def _task_of(ctx: ActionContext, what: str) -> _Task:
    task = _tasks(ctx).running.get(ctx.agent)
    if task is None:
        raise ActionError(f"{what} works only inside a research task")
    return task


# ----------------------------------------------------------------- notes files


def _checked_notes_file(policy: PathPolicy, notes_file: str) -> str:
    """The workspace-relative notes file, if it is a writable file path inside Notebook/."""
    target = policy.resolve(notes_file)  # escapes and invalid paths are refused here, with their reason
    relative = policy.relative(target)
    if not relative.startswith(NOTEBOOK + "/"):
        raise ActionError(
            f"notes_file must be a file inside {NOTEBOOK}/, e.g. {NOTEBOOK}/02_<chapter>.md; {relative!r} is not "
            "(the dashboards, sources/ and other folders are not for notes)"
        )
    policy.check_writable(notes_file)  # a link from Notebook/ into a read-only area
    if target.is_dir():
        raise ActionError(f"notes_file {relative} is a folder; name a file in it, e.g. {relative}/notes.md")
    return relative


def describe_notes(policy: PathPolicy, notes_file: str) -> str:
    """`Notebook/x.md: 23 lines, 2.1 KB; headings: …; cites 4 sources: [S1] …` (or why not)."""
    return f"{notes_file}: {_notes_state(policy, notes_file)}"


def _notes_state(policy: PathPolicy, notes_file: str) -> str:
    try:
        size = policy.resolve(notes_file).stat().st_size
        data = policy.read_bytes(notes_file, limit=NOTES_READ_LIMIT)
    except FileNotFoundError:
        return "does not exist (nothing written)"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    except SandboxError as exc:
        return f"cannot be read ({exc})"
    if not data.strip():
        return "empty"
    text = data.decode("utf-8", errors="replace")
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    parts = [f"{plural(lines, 'line')}, {human_size(size)}"]
    headings = [h.strip()[:80] for h in _HEADING.findall(text)]
    if headings:
        more = f" … (+{len(headings) - MAX_HEADINGS})" if len(headings) > MAX_HEADINGS else ""
        parts.append("headings: " + " · ".join(headings[:MAX_HEADINGS]) + more)
    ids = cited_ids(text)
    if ids:
        shown = " ".join(f"[{i}]" for i in ids[:20]) + (" …" if len(ids) > 20 else "")
        parts.append(f"cites {plural(len(ids), 'source')}: {shown}")
    else:
        parts.append("cites no source")
    return "; ".join(parts)


# ----------------------------------------------------------------- the Research agent's own actions


@action(name="write_notes")
async def write_notes(
    ctx: ActionContext, content: str, mode: Literal["append", "overwrite"] = "append"
) -> str:
    """Write your findings into your notes file (the one named in your task), atomically. Every
    factual sentence cites the [S<n>] id of the source that states it; ids that no search or visit
    gave are refused, and nothing is written then. mode="append" (the usual) adds the content at
    the end; "overwrite" replaces the whole file (to reorganize your notes).

    Args:
        content: Markdown: headings, facts, figures and dates, each with its [S<n>] ids.
        mode: "append" or "overwrite".
    """
    task = _task_of(ctx, "write_notes")
    if not content.strip():
        raise ActionError("the content is empty: give the findings to write")
    ids = cited_ids(content)
    ledger = ledger_for(ctx)
    unknown = [sid for sid in ids if sid not in ledger]
    if unknown:
        raise ActionError(
            f"nothing was written: {', '.join(f'[{s}]' for s in unknown)} "
            f"{'is not a source id' if len(unknown) == 1 else 'are not source ids'} that any search or visit "
            "gave; cite only ids shown in your observations, then write again"
        )
    target = file_policy(ctx).resolve(task.notes_file)
    if mode == "append" and target.is_file() and target.stat().st_size and not content.startswith("\n"):
        content = "\n" + content  # a blank line between two appended parts keeps Markdown blocks apart
    if not content.endswith("\n"):
        content += "\n"
    written = await write_file.function(ctx, file_path=task.notes_file, content=content, mode=mode, line=None)
    task.writes += 1
    # After an overwrite the file holds only this content: the ids cited before may be gone.
    task.cited = list(dict.fromkeys([*task.cited, *ids])) if mode == "append" else ids
    cites = f" Cites {' '.join(f'[{s}]' for s in ids)}." if ids else " It cites no source: add the ids."
    return f"{written}{cites}"


@action(name="finish")
async def research_finish(ctx: ActionContext, answer: str) -> Observation:
    """End the research task and hand your answer to the main agent, which sees this answer and
    your notes file, nothing else of your work: the answer to the question in a few paragraphs,
    each fact with its [S<n>] ids, and what stays open.

    Args:
        answer: your summary for the main agent, with [S<n>] ids (under 3,000 characters).
    """
    task = _task_of(ctx, "finish")
    if not answer.strip():
        raise ActionError("the answer is empty: summarize what you found, with the [S<n>] ids")
    if not task.writes and not task.warned_no_notes:
        task.warned_no_notes = True  # only once: a task that found nothing may still finish
        raise ActionError(
            f"you have not written anything to your notes file {task.notes_file}: write your findings there "
            "with write_notes first (write_notes and finish can go in one reply); if there is nothing to "
            "write, call finish again"
        )
    unknown = [sid for sid in cited_ids(answer) if sid not in ledger_for(ctx)]
    if unknown:
        raise ActionError(
            f"{', '.join(f'[{s}]' for s in unknown)} in your answer {'is' if len(unknown) == 1 else 'are'} not "
            "a source id any search or visit gave; remove it or use the id the observation showed, then finish again"
        )
    return Observation("The answer was handed to the main agent.", finished=True, result=answer)


# ----------------------------------------------------------------- running one task


def research_tools() -> list[Action]:
    """The Research agent's tool list, in its fixed order. The research actions are the main
    agent's own objects (imported from their modules, as main_actions does: importing the list
    itself would be an import cycle); browse answers by itself where Chromium is missing, as it
    does for the main agent."""
    return [web_search, visit_url, browse, write_notes, file_operation, chart, research_finish]


def _base_messages(ctx: ActionContext, actions: ActionSet, task: _Task) -> list[Message]:
    # The system prompt is the same for every research task of the run (the endpoint's prompt cache
    # keeps it); the task itself, its notes file and its step limit go in the user message.
    prompt = ctx.prompts.render(
        "research_system.j2",
        tool_mode=ctx.tool_mode(),
        actions=list(actions),
        answer_limit=ANSWER_LIMIT,
        language=language_name(resolve_language(ctx.settings.language, ctx.meta.title, ctx.meta.purpose)),
    )
    notes = _notes_state(file_policy(ctx), task.notes_file)
    brief = (
        f"Research question: {task.question}\n\n"
        f"Notes file: {task.notes_file} (write_notes writes there). Now: {notes}.\n"
        f"Depth: {task.depth}: at most {task.max_steps} steps.\n"
        f"Research: {ctx.meta.title}" + (f" ({ctx.meta.purpose})" if ctx.meta.purpose else "")
    )
    return [system(prompt), user(brief)]


def _status(task: _Task, loop: list[AgentLoop]) -> list[str]:
    """The last message of each request: the step count, and on the last step, the call to make."""
    step = loop[0].local_steps if loop else 1
    lines = [f"[status] step {step} of {task.max_steps} of this research task"]
    if step >= task.max_steps:
        lines.append(
            "[note] This is your last step: write what you found with write_notes and call finish in this "
            "same reply."
        )
    return lines


def _next_action(task: _Task, trail: list[str]) -> tuple[str, dict[str, Any]]:
    """The call the task needs next, shown to a model stuck without an action."""
    if not trail:
        return "web_search", {"query": task.question[:120], "max_results": 8}
    if not task.writes:
        return "write_notes", {"content": "## Findings\n- … [S1]", "mode": "append"}
    return "finish", {"answer": "…"}


def _why(outcome: Outcome, name: str, steps: int) -> str:
    if outcome.kind == "max_steps":
        return f"The Research agent {name} used all its {steps} steps without finishing."
    if outcome.kind == "loop":
        return f"The Research agent {name} was stopped because it repeated itself ({outcome.reason})."
    return f"The Research agent {name} was stopped by the run's budget ({outcome.reason})."


def _unfinished(ctx: ActionContext, task: _Task, why: str, actions: RecordingActions) -> str:
    """What the main agent reads when the Research agent stopped without an answer."""
    lines = [
        why,
        f"Question: {' '.join(task.question.split())[:300]}",
        f"What it wrote: {describe_notes(file_policy(ctx), task.notes_file)}",
        *actions.what_it_did(),
        "Its notes are kept: read them with file_operation, continue with another research_task on the same "
        "notes file (it appends to it), or research the rest yourself.",
    ]
    return "\n".join(lines)


def _summary(ctx: ActionContext, task: _Task, answer: str, steps: int) -> str:
    """The bounded summary for the main agent: the notes file, the sources relied on (ids the
    ledger knows), and the answer; a longer one is saved whole, with a pointer."""
    ledger = ledger_for(ctx)
    ids = [sid for sid in dict.fromkeys([*task.cited, *cited_ids(answer)]) if sid in ledger]
    head = [
        f"Research task {task.name} finished in {plural(steps, 'step')}: {' '.join(task.question.split())[:200]}",
        f"Notes: {describe_notes(file_policy(ctx), task.notes_file)}",
        _sources_line(ledger, ids),
        "",
        # The answer retells web pages: fenced as untrusted, as the Browser agent's is.
        fence(answer, "RESEARCH AGENT ANSWER", new_boundary()),
    ]
    text = "\n".join(head)
    if len(text) <= ANSWER_LIMIT:
        return text
    path = ctx.workspace.observations_dir / f"step-{ctx.step:05d}-{task.name}-answer.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text, durable=False)
    return (
        text[:ANSWER_LIMIT] + f"\n\n[… {len(text) - ANSWER_LIMIT:,} more characters: the whole answer is in "
        f"{ctx.workspace.relative(path)}; its findings are in {task.notes_file}]"
    )


def _sources_line(ledger: Ledger, ids: list[str]) -> str:
    if not ids:
        return "Sources relied on: none cited"
    shown = []
    for sid in ids[:MAX_SOURCES_SHOWN]:
        record = ledger.get(sid)
        title = record.title[:60] if record is not None and record.title else ""
        shown.append(f"[{sid}] {title}".rstrip())
    rest = " ".join(f"[{s}]" for s in ids[MAX_SOURCES_SHOWN:])
    return f"Sources relied on ({len(ids)}): " + "; ".join(shown) + (f"; {rest}" if rest else "")


def _start(ctx: ActionContext, question: str, notes_file: str, depth: str) -> _Task:
    """Check the arguments, then name and register the task and log its start."""
    steps_by_depth = ctx.settings.research_steps
    if depth not in steps_by_depth:
        raise ActionError(
            f"unknown depth {depth[:40]!r}; use one of {', '.join(repr(d) for d in steps_by_depth)} "
            f"({', '.join(f'{d}: {n} steps' for d, n in steps_by_depth.items())})"
        )
    question = question.strip()
    if not question:
        raise ActionError("the question is empty; give the sub-question to research")
    notes = _checked_notes_file(file_policy(ctx), notes_file)
    tasks = _tasks(ctx)
    holder = tasks.holding(notes)
    if holder is not None:  # two agents appending to one file would interleave their notes
        raise ActionError(
            f"{notes} is the notes file of {holder.name}, which is still running; give this task its own notes file"
        )
    tasks.last_number += 1
    task = _Task(f"{AGENT_PREFIX}{tasks.last_number}", tasks.last_number, question, notes, depth,
                 steps_by_depth[depth])  # fmt: skip
    tasks.running[task.name] = task
    ctx.events.append(
        "agent_started", step=ctx.step, agent=task.name, task=task.number, question=" ".join(question.split())[:500],
        notes_file=notes, depth=depth, max_steps=task.max_steps,
    )  # fmt: skip
    return task


def _notes_key(arguments: dict[str, Any]) -> frozenset[str]:
    """What a research task touches, for running the calls of one reply together: its notes file
    (spelled as file_operation's keys are), so a task and an operation on one file keep their order."""
    return frozenset({file_key(str(arguments.get("notes_file") or ""))})


@action(concurrent=True, conflicts=_notes_key)
async def research_task(
    ctx: ActionContext, question: str, notes_file: str, depth: str = "standard"
) -> str | Observation:
    """Delegate one sub-question to a Research agent: in its own context it searches, reads, writes
    its cited findings into notes_file, and returns a short summary with the source ids. It sees
    only the question: make it complete. Several calls in one reply run in parallel.

    Args:
        question: the complete sub-question (period, region, figures wanted).
        notes_file: its own Notebook file for the findings, e.g. "Notebook/notes/02_<chapter>.md".
        depth: "quick", "standard" or "deep": how long it works.
    """
    task = _start(ctx, question, notes_file, depth)
    actions = RecordingActions(ActionSet.of([*research_tools(), *mcp_actions_for(ctx)]).actions)
    loops: list[AgentLoop] = []  # the status callback reads the loop's step count
    ended: dict[str, Any] = {"outcome": "interrupted", "reason": "the research task was cancelled"}
    try:  # from here on the task always ends in the log and lets its notes file go
        agent_ctx = ctx.for_agent(task.name, ctx.model)
        spec = AgentSpec(
            name=task.name,
            actions=actions,
            base_messages=lambda: _base_messages(agent_ctx, actions, task),
            model=ctx.model,
            tool_mode=ctx.tool_mode(),
            max_steps=task.max_steps,
            status=lambda: _status(task, loops),
            finish_action="finish",
            next_action=lambda: _next_action(task, actions.trail),
        )
        loops.append(AgentLoop(spec, agent_ctx))
        outcome = await loops[0].run()
        ended = {"outcome": outcome.kind, "reason": outcome.reason}
    except StorageError:  # a full or read-only disk stops the run, not just this task
        ended = {"outcome": "stopped", "reason": "storage error"}
        raise
    except DeepResearcherError as exc:
        ended = {"outcome": "error", "reason": str(exc)[:300]}
        why = f"The Research agent {task.name} stopped: {exc}"
        raise ActionError(_unfinished(ctx, task, why, actions)) from None
    finally:
        _tasks(ctx).running.pop(task.name, None)
        ctx.events.append(
            "agent_ended", step=ctx.step, agent=task.name, task=task.number,
            steps=loops[0].local_steps if loops else 0, **ended,
        )  # fmt: skip
    if outcome.kind == "finished" and outcome.result is not None:
        return _summary(ctx, task, outcome.result, loops[0].local_steps)
    why = _why(outcome, task.name, loops[0].local_steps)
    return Observation(_unfinished(ctx, task, why, actions), error=True)


# ----------------------------------------------------------------- from the event log


def _last_run(events: Iterable[dict[str, Any]]) -> list[ResearchTaskRecord]:
    """The research tasks of the last run that did anything: from its `run_started` on. A run killed
    before it did anything is skipped, so its predecessor's unfinished tasks are still reported.
    One pass that keeps the current run's tasks only: the log may be hundreds of MB."""
    tasks = ResearchTaskTracker()
    restarted = False  # a run_started was read and no event after it yet
    for event in events:
        if event.get("event") == "run_started":
            # Whether it begins the last run is known only when an event follows it: the log of a
            # run killed before it did anything ends with its run_started.
            restarted = True
            continue
        if restarted:
            tasks, restarted = ResearchTaskTracker(), False
        tasks.add(event)
    return tasks.records


def unfinished_research_note(workspace_root: Path, events: Iterable[dict[str, Any]]) -> str | None:
    """For the resume note: the research tasks the last run left unfinished (started without an
    end, interrupted, or cut by a budget), each with its question and what its notes file holds
    now; None when there are none. `events` is read once, as a stream."""
    return describe_unfinished(workspace_root, _last_run(events))


def describe_unfinished(workspace_root: Path, records: Iterable[ResearchTaskRecord]) -> str | None:
    """The note's words for the unfinished ones among `records`; None when none is unfinished."""
    unfinished = [r for r in records if r.outcome in UNFINISHED]
    if not unfinished:
        return None
    policy = workspace_policy(workspace_root)
    lines = [
        f"[research tasks] {plural(len(unfinished), 'research task')} did not finish before the run stopped; "
        "their notes are kept:"
    ]
    for record in unfinished:
        try:
            notes = describe_notes(policy, record.notes_file)
        except (SandboxError, ValueError):
            notes = f"{record.notes_file}: cannot be read"
        lines.append(
            f'- {record.agent} ({UNFINISHED[record.outcome]}): "{record.question[:300]}" (depth '
            f"{record.depth or 'standard'}); notes: {notes}"
        )
    lines.append(
        "Re-run research_task with the same question and notes file to complete it (it appends to the notes), "
        "or continue from the notes yourself; do not start over what the notes already hold."
    )
    return "\n".join(lines)
