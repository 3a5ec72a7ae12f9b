"""A research run from start to stop: workspace, metadata, the main agent's loop, and resume.

result = await research("Solid-state batteries in 2026", purpose="an investment memo", workspace="ssb")
result = await resume("ssb", max_steps=400)
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import traceback
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import agent_runtime.language as language
from actions import main_actions
from actions.dashboards import DASHBOARD_UPDATES
from actions.mcp.config import check_mcp_config
from actions.research_task import unfinished_research_note
from actions.steering import COMPRESSES as STEERING_COMPRESSES
from actions.steering import REACHES_OUT, until_reviewed
from actions.unfinished_report import write_unfinished_report
from actions.web import check_search_settings
from actions.web.local_corpus import unread_files, unread_note
from agent_runtime.app.endpoint_notes import recall_tool_mode
from agent_runtime.app.steering_notes import steering_note, waiting_reason
from agent_runtime.app.wording import not_a_workspace
from agent_runtime.config import Settings, load_settings
from agent_runtime.domain.layout import (
    CURRENT_DASHBOARD,
    MAX_PURPOSE_CHARS,
    MAX_TITLE_CHARS,
    OVERALL_DASHBOARD,
    SOURCES,
    ResearchWorkspace,
    default_workspace,
)
from agent_runtime.domain.report_record import record_report, report_record
from agent_runtime.domain.sources.ledger import Ledger, ledger_for
from agent_runtime.domain.sources.records import CITED_ID
from agent_runtime.domain.steering import EARLIER_REPORT, load_steering
from agent_runtime.engine.calling import calling
from agent_runtime.engine.commands import command, resume_command
from agent_runtime.engine.loop import AgentLoop, AgentSpec, Outcome
from agent_runtime.engine.messages import Message, system, user
from agent_runtime.engine.model import Model, OpenAIModel, build_model
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.registry import Action, ActionSet
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_lock import RunLock
from agent_runtime.engine.run_record import (
    EventLog,
    RunMeta,
    RunStatus,
    Totals,
    load_meta,
    now_iso,
    read_events,
    save_meta,
)
from agent_runtime.errors import (
    EXIT_BUDGET,
    EXIT_ERROR,
    EXIT_FINISHED,
    EXIT_INTERRUPTED,
    ConfigError,
    DeepResearcherError,
    SettingValueError,
    StorageError,
    WorkspaceError,
)
from sandbox.redaction import redact

if TYPE_CHECKING:  # the SDK-backed servers are imported only when a run has some
    from actions.mcp.servers import McpServers

# Left out of the compact profile: a small model drives a delegated agent or a browser poorly,
# and each costs hundreds of tokens of tool description in every request.
COMPACT_LEAVES_OUT = frozenset({"browse", "research_task", "chart"})


@dataclass
class RunResult:
    status: str  # finished | stopped | interrupted | error
    exit_code: int
    workspace: Path
    reason: str | None
    result: str | None
    report_path: str | None
    totals: Totals
    summary: dict[str, Any]
    report_problems: list[str]
    crash: str | None = None  # the traceback, when an unexpected exception ended the run
    # The command that continues a run that did not finish, with the budget that stopped it raised.
    next_command: str | None = None


class Researcher:
    """One run in one workspace. `start` for a new run, `resume` for an existing workspace."""

    def __init__(
        self,
        workspace: ResearchWorkspace,
        meta: RunMeta,
        settings: Settings,
        model: Model,
        *,
        extra_actions: Iterable[Action] = (),
        resume_note: str | None = None,
        lock: RunLock | None = None,
    ) -> None:
        self.lock = lock
        self.workspace = workspace
        self.meta = meta
        self.settings = settings
        self.prompts = Prompts(settings.prompts)
        self.events = EventLog(workspace.events_file)
        # A person's save that never finished within the limit: the run went on, and says so.
        workspace.state.on_stuck_writer = self._log_stuck_writer
        self.ctx = ActionContext(workspace, settings, model, self.events, meta, self.prompts)
        compact = settings.compact()
        chosen = [a for a in main_actions(clarify=settings.clarify) if not (compact and a.name in COMPACT_LEAVES_OUT)]
        if settings.review_plan:  # nothing searched or fetched before the person had the plan
            chosen = [until_reviewed(a) if a.name in REACHES_OUT else a for a in chosen]
        self.actions = ActionSet.of([*chosen, *extra_actions], brief=compact)
        self._resume_note = resume_note
        if isinstance(model, OpenAIModel):  # retries and waits are worth a line: they cost time
            model.on_retry = self._log_retry
            model.on_wait = self._log_wait
            model.on_fallback = self._log_fallback
        self._system_prompts: dict[str, str] = {}
        # Also in the last message of every request, where a small model still sees it.
        self._language_name = language.name(language.resolve(settings.language, meta.title, meta.purpose))
        self.system_prompt()  # rendered now: a broken template is refused before the run starts

    def system_prompt(self) -> str:
        """The main agent's system prompt in the run's tool mode: rendered once per mode, so that
        it stays byte-identical within a run (a switch of --tool-mode auto renders it once more)."""
        mode = self.ctx.tool_mode()
        if mode not in self._system_prompts:
            meta = self.meta
            compact = self.settings.compact()
            self._system_prompts[mode] = self.prompts.render(
                "main_system_compact.j2" if compact else "main_system.j2",
                brief=compact,
                title=meta.title,
                purpose=meta.purpose,
                tool_mode=mode,
                actions=list(self.actions),
                language=self._language_name,
            )
        return self._system_prompts[mode]

    def _log_stuck_writer(self, file: str, seconds: float) -> None:
        self.events.append(
            "writer_wait_expired", step=self.meta.totals.steps + 1, file=file, seconds=seconds,
            limit=self.workspace.state.writer_wait_limit,
        )  # fmt: skip

    def _log_retry(self, attempt: int, reason: str, delay: float) -> None:
        step = self.meta.totals.steps + 1
        agent, what = calling.get()  # which agent's call, and which call: the File agent's, a judge's…
        self.events.append(
            "model_retry",
            step=step,
            agent=agent,
            call=what,
            attempt=attempt,
            reason=reason,
            delay=round(delay, 2),
        )

    def _log_fallback(self, parameter: str, before: str, after: str, refusal: str) -> None:
        """The server refused a forcing parameter: the run asks without it from now on."""
        agent, what = calling.get()
        self.events.append(
            "model_fallback", step=self.meta.totals.steps + 1, agent=agent, call=what,
            parameter=parameter, before=before, after=after, refusal=refusal,
        )  # fmt: skip

    def _log_wait(self, seconds: float) -> None:
        self.events.append("model_waiting", step=self.meta.totals.steps + 1, seconds=round(seconds))

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        title: str,
        *,
        purpose: str | None = None,
        workspace: str | Path | None = None,
        settings: Settings,
        model: Model | None = None,
        extra_actions: Iterable[Action] = (),
    ) -> Researcher:
        if not title.strip():
            raise ConfigError(
                'the research title is empty; give a title, e.g. "Solid-state batteries in 2026"'
            )
        check_input_lengths(title, purpose)
        settings.require_prices_for_cost_budget()
        check_search_settings(settings)  # a missing key is reported now, not mid-run
        check_mcp_config(settings)
        space = ResearchWorkspace(Path(workspace) if workspace else default_workspace(title))
        if not space.holds_nothing():
            raise WorkspaceError(_not_empty(space))
        if isinstance(model, OpenAIModel) and model.name != settings.model:
            settings = settings.model_copy(update={"model": model.name})  # record the model really used
        model = model or build_model(settings)
        lock = space.lock()
        try:
            if not space.holds_nothing():  # another process created it since the check above
                raise WorkspaceError(_not_empty(space))
            space.remove_stale_temp_files()
            # The language detected now is the run's: stored, so that a resume keeps it.
            settings = settings.model_copy(
                update={"language": language.resolve(settings.language, title, purpose)}
            )
            meta = RunMeta(title=title.strip(), purpose=purpose, settings=settings.stored())
            record_report(meta)  # the report's fields in run.json from the start, empty
            if settings.tool_mode == "auto" and recall_tool_mode(settings) == "json":
                meta.tool_mode = (
                    "json"  # `check` found that only json works here: no replies wasted on native
                )
            # run.json first, with the settings: a creation killed at any later point resumes with the
            # settings the user chose, and the missing files are made again by `resume`.
            save_meta(space.run_file, meta)
            space.create(title, purpose, settings.language)
            return cls(space, meta, settings, model, extra_actions=extra_actions, lock=lock)
        except BaseException:
            lock.release()
            raise

    @classmethod
    def resume(
        cls,
        workspace: str | Path,
        *,
        flags: Mapping[str, Any] | None = None,
        settings: Settings | None = None,
        model: Model | None = None,
        extra_actions: Iterable[Action] = (),
        config_file: str | Path | None = None,
        new_settings: bool = False,
    ) -> Researcher:
        """Continue the run in `workspace` with its stored settings (`flags` override them). Without
        its run.json only with `new_settings=True`: then the given settings are the run's."""
        space = ResearchWorkspace(Path(workspace))
        if not space.root.exists() or not space.root.is_dir():
            raise WorkspaceError(not_a_workspace(space.root))
        if space.holds_nothing():
            raise WorkspaceError(
                f"{space.root} holds no research run (none was started there, or its creation was "
                f"interrupted before it began); start one with `{command('run', 'TITLE', '--workspace', space.root)}`"
            )
        if not space.exists():
            raise WorkspaceError(not_a_workspace(space.root))
        lock = space.lock()
        try:
            return cls._resume_locked(
                space, lock, flags, settings, model, extra_actions, config_file, new_settings
            )
        except BaseException:
            lock.release()
            raise

    @classmethod
    def _resume_locked(
        cls,
        space: ResearchWorkspace,
        lock: RunLock,
        flags: Mapping[str, Any] | None,
        settings: Settings | None,
        model: Model | None,
        extra_actions: Iterable[Action],
        config_file: str | Path | None,
        new_settings: bool,
    ) -> Researcher:
        meta = load_meta(space.run_file)
        if meta is None:
            if not new_settings:  # never fall back silently to settings the user did not choose
                raise WorkspaceError(
                    f"{space.run_file} is missing, so the settings of this run (model, search, corpus, budgets) "
                    "are unknown; to continue from the dashboards with the settings you give now (flags, "
                    "environment, config file), resume with --new-settings"
                )
            title, purpose = space.title_from_dashboard()
            meta = RunMeta(title=title, purpose=purpose)
            record_report(meta)
        if settings is None:
            settings = load_settings(flags, stored=meta.settings, config_file=config_file)
        settings = settings.model_copy(
            update={"language": language.resolve(settings.language, meta.title, meta.purpose)}
        )  # a run stored before the setting existed gets the language of its title
        if (flags or {}).get("context_window") is not None:
            meta.context_windows.clear()  # the user says what the window is now: believe them
        if meta.status != "finished":
            settings.require_prices_for_cost_budget()
        check_search_settings(settings)
        check_mcp_config(settings)
        model = model or build_model(settings)
        space.remove_stale_temp_files()
        space.ensure_layout()
        space.create(meta.title, meta.purpose, settings.language)  # dashboards a killed creation did not write yet
        Ledger.load(space.root / SOURCES)  # a tampered ledger is refused now, before any step
        note = resume_note(space, meta, Prompts(settings.prompts))
        steered = steering_note(space.root, meta.status, space.state.read(OVERALL_DASHBOARD))
        if steered:
            note = f"{note.rstrip()}\n\n{steered}"
        meta.settings = settings.stored()
        meta.resumes += 1
        return cls(space, meta, settings, model, extra_actions=extra_actions, resume_note=note, lock=lock)

    def set_first_note(self, note: str) -> None:
        """A note for the model's first request only (a follow-up's earlier report and question)."""
        self._resume_note = note

    # -- the run -------------------------------------------------------------------------------
    def base_messages(self) -> list[Message]:
        """[system, dashboards] (+ the resume note, once): the whole history after every reset."""
        dashboards = self.prompts.render(
            "dashboards.j2",
            overall=self.workspace.state.read(OVERALL_DASHBOARD).strip(),
            current=self.workspace.state.read(CURRENT_DASHBOARD).strip(),
        )
        messages = [system(self.system_prompt()), user(dashboards)]
        if self._resume_note:
            messages.append(user(self._resume_note))
            self._resume_note = None
        elif (earlier := load_steering(self.workspace.root).follows) is not None:
            # a follow-up's task outlives the first request's note (the earlier report in full):
            # every rebuilt history says it again, briefly, as a resume does
            messages.append(user(self.prompts.render(
                "follow_up_reminder.j2", earlier=earlier, report_file=EARLIER_REPORT, question=self.meta.title,
            )))  # fmt: skip
        return messages

    def agent_spec(self) -> AgentSpec:
        return AgentSpec(
            name="main",
            actions=self.actions,
            base_messages=self.base_messages,
            model=self.ctx.model,
            tool_mode=self.ctx.tool_mode(),
            max_steps=self.settings.max_steps,
            counts_run_steps=True,
            compresses=DASHBOARD_UPDATES | STEERING_COMPRESSES,
            memory=CURRENT_DASHBOARD,
            kept_ids=CITED_ID,
            finish_action="all_finished",
            status=self._status,
            compress=self.settings.compression,
            next_action=self._next_action,
            base_changed=self._dashboards_edited,
            state_files_label="the dashboards",
            memory_edit_kept=self._summary_replaced_an_edit,
        )

    def _summary_replaced_an_edit(self, kept: str) -> None:
        """A person saved the current dashboard during a compaction's summarizing call: their
        version is kept in .trash/ (the model is told by the loop), and the log says where."""
        self.events.append("dashboard_edit_kept", agent="main", file=CURRENT_DASHBOARD, kept=kept)

    def _dashboards_edited(self) -> str | None:
        """A person edited a dashboard while the run works (in the live view or any editor): the
        agent continues from the edited text, and is told so."""
        edited = self.workspace.state.edited()
        if not edited:
            return None
        self.events.append("dashboard_edited", step=self.meta.totals.steps + 1, files=edited)
        return self.prompts.render("note_dashboard_edited.j2", files=edited)

    def _status(self) -> list[str]:
        """The run's figures for the last message of each request, and the nudge to finish."""
        lines = [f"[status] {self.ctx.status_line()}", f"[language] Write in {self._language_name}."]
        if self.ctx.in_writing_reserve():
            lines.append(self.prompts.render("nudge_writing_reserve.j2"))
        return lines

    def _next_action(self) -> tuple[str, dict[str, Any]]:
        """The call the method needs next, as an example for a model stuck without an action."""
        meta = self.meta
        if self.workspace.is_untouched(OVERALL_DASHBOARD, meta.title, meta.purpose, self.settings.language):
            words = language.dashboard_words(self.settings.language)
            blueprint = f"# {meta.title}\n\n" + "\n\n".join(
                f"## {words[key]}\n{words['form.' + key]}" for key in ("questions", "outline", "needs")
            )
            return "update_overall_dashboard", {"content": blueprint}
        return "web_search", {"query": meta.title, "max_results": 8}

    async def run(self) -> RunResult:
        """The run to its end; with traces on (app/tracing.py), inside its root span."""
        from agent_runtime.app.tracing import traced

        return await traced(self, self._run)

    async def _run(self) -> RunResult:
        meta = self.meta
        if meta.status == "finished":
            self.close()
            return self._result(EXIT_FINISHED)
        try:
            meta.status, meta.stop_reason = "running", None
            self.ctx.save()
            if self.settings.corpus is not None:  # files of a kind it cannot read: named, never skipped silently
                unread = await asyncio.to_thread(unread_files, self.settings.corpus)
                if unread:
                    self.events.append("corpus_skipped", count=len(unread), files=unread[:100])
                    if not self.settings.quiet:
                        print(unread_note(unread), file=sys.stderr)
            # The MCP servers first: the live view and `deep-researcher mcp` say "started" once they see
            # run_started, so a server that cannot start must end the run before it is written.
            servers = await self._start_mcp_servers()
            self.events.append(
                "run_started", title=meta.title, resumes=meta.resumes, model=self.settings.model,
                tool_mode=self.ctx.tool_mode(),
            )  # fmt: skip
            if servers is not None:
                self.events.append(
                    "mcp_servers_started", servers=[s.config.name for s in servers.servers],
                    tools=[tool.name for tool in servers.actions],
                )  # fmt: skip
            outcome = await AgentLoop(self.agent_spec(), self.ctx).run()
            return self._end(outcome)
        except (KeyboardInterrupt, asyncio.CancelledError):
            self._write_unfinished_report()
            return self._stop("interrupted", "interrupted by the user", EXIT_INTERRUPTED)
        except (DeepResearcherError, StorageError) as exc:
            return self._stop("error", str(exc), EXIT_ERROR)
        except Exception as exc:  # a bug: record it, keep the run resumable, show no traceback
            return self._crashed(exc)
        finally:
            await self.ctx.services.aclose()  # the fetcher, the search client, the browser
            self.events.close()
            self.close()

    async def _start_mcp_servers(self) -> McpServers | None:
        """The configured MCP servers, started for this run (stopped with the run's services, on
        every way out of run()); their tools join the main agent's list after its own, in a fixed
        order, and the Research agents' (actions.mcp.mcp_actions_for)."""
        if self.settings.mcp_config is None:
            return None
        from actions.mcp import McpServers, start_servers

        servers = await start_servers(self.settings.mcp_config)
        self.ctx.services.provide(McpServers, servers)
        for tool in servers.actions:
            # an MCP tool may search or fetch too: with --review-plan it waits for the review as they do
            self.actions.actions.setdefault(tool.name, until_reviewed(tool) if self.settings.review_plan else tool)
        self._system_prompts.clear()  # json mode lists the actions in the system prompt
        return servers

    def close(self) -> None:
        """Let the workspace go (run() does it when it ends)."""
        self.workspace.close()  # its file watch
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def _end(self, outcome: Outcome) -> RunResult:
        if outcome.kind == "finished":
            self.meta.result = outcome.result
            return self._stop("finished", None, EXIT_FINISHED)
        if outcome.kind == "waiting":  # a person answers or reviews, then resumes: nothing to write now
            status: RunStatus = "awaiting_answers" if outcome.reason == "awaiting_answers" else "awaiting_review"
            return self._stop(status, waiting_reason(status, self.workspace.root, self.settings.language), EXIT_BUDGET)
        self.meta.stop_reason = outcome.reason
        self._write_unfinished_report()
        return self._stop("stopped", outcome.reason, EXIT_BUDGET)

    def next_command(self) -> str:
        """`deep-researcher resume WS`, with the budget that stopped the run raised."""
        return resume_command(self.workspace.root, self.meta.stop_reason, self.settings.model_dump())

    def _write_unfinished_report(self) -> None:
        """The chapters written so far as report.md, marked unfinished: a stop keeps the work readable."""
        try:
            path = write_unfinished_report(self.ctx, self.next_command())
        except (DeepResearcherError, StorageError, OSError) as exc:  # the stop itself must not fail
            self.events.append("unfinished_report_failed", error=str(exc)[:300])
            return
        if path is not None:
            self.events.append("unfinished_report", path=path)

    def _crashed(self, exc: Exception) -> RunResult:
        text = "".join(traceback.format_exception(exc))
        log = self.workspace.runtime_dir / "crash.log"
        try:
            with log.open("a", encoding="utf-8", errors="replace") as handle:
                handle.write(redact(f"--- {now_iso()}\n{text}\n"))
            where = f"the traceback is in {log}"
        except OSError:
            where = "the traceback could not be saved"
        reason = f"crashed: {type(exc).__name__}: {str(exc)[:300]} ({where})"
        result = self._stop("error", reason, EXIT_ERROR)
        result.crash = text
        return result

    def _stop(self, status: RunStatus, reason: str | None, code: int) -> RunResult:
        self.meta.status = status
        self.meta.stop_reason = reason
        try:
            self.meta.summary = run_summary(self.ctx)
            self.ctx.save()
        except StorageError as exc:  # the disk refused even this: run.json keeps its last saved state
            self.meta.status, code = "error", EXIT_ERROR
            self.meta.stop_reason = f"{reason or status}, but the run's state could not be saved: {exc}"
            return self._result(code)
        with contextlib.suppress(StorageError):  # run.json holds the outcome; the log line is a copy
            self.events.append(
                "run_ended", status=status, reason=reason, totals=self.meta.totals.model_dump()
            )
        return self._result(code)

    def _result(self, code: int) -> RunResult:
        m, report = self.meta, report_record(self.meta)
        return RunResult(
            m.status, code, self.workspace.root, m.stop_reason, m.result, report.report_path, m.totals, m.summary,
            report.report_problems, next_command=None if m.status == "finished" else self.next_command(),
        )  # fmt: skip


def run_summary(ctx: ActionContext) -> dict[str, Any]:
    """The run's figures for run.json, the closing message and `inspect`."""
    t = ctx.meta.totals
    try:
        records = ledger_for(ctx).records()
    except WorkspaceError:  # a ledger damaged by hand must not keep the run from stopping cleanly
        records = []
    return {
        "steps": t.steps,
        "model_calls": t.model_calls,
        "prompt_tokens": t.prompt_tokens,
        "completion_tokens": t.completion_tokens,
        "cost": round(t.cost, 6),
        "elapsed_seconds": round(ctx.elapsed(), 1),
        "sources_seen": len(records),
        "sources_fetched": sum(1 for r in records if r.fetched),
        "sources_cited": int(ctx.meta.summary.get("sources_cited", 0)),
        **({"report": "unfinished"} if ctx.meta.summary.get("report") == "unfinished" else {}),
        **({"citations": ctx.meta.summary["citations"]} if "citations" in ctx.meta.summary else {}),
    }


def check_input_lengths(title: str, purpose: str | None) -> None:
    if len(title) > MAX_TITLE_CHARS:
        raise SettingValueError(
            f"the title is {len(title):,} characters long; a title may have at most {MAX_TITLE_CHARS:,}: "
            f"give a short title and put the details in --purpose (up to {MAX_PURPOSE_CHARS:,} characters)"
        )
    if purpose is not None and len(purpose) > MAX_PURPOSE_CHARS:
        raise SettingValueError(
            f"the purpose is {len(purpose):,} characters long; a purpose may have at most "
            f"{MAX_PURPOSE_CHARS:,}: say what the report is for, and give long material as documents "
            "with --search local --corpus DIR"
        )


def _not_empty(space: ResearchWorkspace) -> str:
    if space.exists():
        return (
            f"{space.root} already holds a research run; continue it with `{resume_command(space.root)}` "
            "or choose another --workspace"
        )
    return (
        f"{space.root} is not empty; a new run needs a new or empty folder, so that none of your files "
        "can be changed by the agent: choose another --workspace (to give the agent documents, use "
        "--search local --corpus FOLDER)"
    )


def resume_note(workspace: ResearchWorkspace, meta: RunMeta, prompts: Prompts, last: int = 5) -> str:
    """ "Resumed after …; the last actions were …", built from the event log."""
    # One pass over a log that may hold hundreds of MB, keeping only what the note tells: the main
    # agent's last actions (here) and the last run's research tasks (unfinished_research_note).
    actions: deque[dict[str, Any]] = deque(maxlen=last)

    def noting_main_actions(events: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for event in events:
            if event.get("event") == "action" and event.get("agent") == "main":
                actions.append(event)
            yield event

    # Research tasks that were working when the run stopped: their notes are kept, their answers lost.
    tasks = unfinished_research_note(workspace.root, noting_main_actions(read_events(workspace.events_file)))
    lines = []
    for event in actions:
        args = ", ".join(f"{k}={str(v)[:60]!r}" for k, v in (event.get("arguments") or {}).items())
        status = " (failed)" if event.get("error") else ""
        lines.append(f"step {event.get('step')}: {event.get('action')}({args}){status}")
    # What happened to the research, in the model's terms: the stop reason itself is advice for the
    # user ("check --base-url … then resume"), which a weak model copies instead of working.
    stopped = {
        "stopped": "budget", "interrupted": "interrupted", "error": "error",
        "awaiting_answers": "waiting", "awaiting_review": "waiting",
    }.get(meta.status, "killed")  # fmt: skip
    if (meta.stop_reason or "").startswith("loop:"):
        stopped = "loop"
    note = prompts.render("resume_note.j2", stopped=stopped, last_actions=lines)
    return note if tasks is None else f"{note.rstrip()}\n\n{tasks}"


async def research(
    title: str,
    *,
    purpose: str | None = None,
    workspace: str | Path | None = None,
    model: Model | str | None = None,
    **settings: Any,
) -> RunResult:
    """Run a research to its end (or to a budget) and return the outcome; settings as in the CLI.
    `model` is a model name (as --model) or a Model object."""
    if isinstance(model, str):
        settings["model"], model = model, None
    resolved = load_settings(settings)
    return await Researcher.start(
        title, purpose=purpose, workspace=workspace, settings=resolved, model=model
    ).run()


async def resume(
    workspace: str | Path, *, model: Model | str | None = None, new_settings: bool = False, **overrides: Any
) -> RunResult:
    """Continue a stopped or interrupted run from its workspace files; overrides as in the CLI.
    Without `model`, the run's recorded model; a string is a model name (as --model)."""
    if isinstance(model, str):
        overrides["model"], model = model, None
    return await Researcher.resume(workspace, flags=overrides, model=model, new_settings=new_settings).run()
