"""`deep-researcher mcp`: the research as an MCP server over stdio, for Claude Desktop, Cursor or
VS Code.

Tools: `start_research(title, purpose?, language?, clarify?, review_plan?)` starts a run and returns
its workspace at once; `research_status(workspace)` tells how it goes (and what a paused run waits
for); `answer_research(workspace, answers?, plan?)` answers a paused run and resumes it;
`follow_up(workspace, question)` starts research building on a finished one; `read_report(workspace)`
returns the report. Each run
is a child process `deep-researcher run … -q` in the background of this server, with this
process's environment (so the model settings the client put in the server's "env" — or a
config file — hold), its output in FOLDER/.deep-researcher-mcp/<workspace>.log. A run's state is
its workspace files: starting research on a title whose workspace holds an unfinished run resumes
it (`deep-researcher resume`), also after this server was restarted. When the client closes the
server, its runs are stopped as Ctrl-C stops them: resumably; a server killed outright (even by
SIGKILL) takes its runs with it within a step (agent_runtime/app/background_runs.py), and a run another
process still works in is reported as running, never started a second time.

Only workspaces inside FOLDER are read: the tools take no other path.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from agent_runtime.app.background_runs import (
    environment,
    launch,
    resume_arguments,
    run_arguments,
    wait_or_kill,
)
from agent_runtime.app.inspect_command import workspace_state
from agent_runtime.app.run_state import lock_state
from agent_runtime.app.steering_notes import answer_waiting_run
from agent_runtime.app.wording import not_a_workspace
from agent_runtime.domain.layout import ResearchWorkspace, title_slug
from agent_runtime.domain.report_record import report_record
from agent_runtime.domain.steering import follow_up_workspace, parents
from agent_runtime.engine.run_record import WAITING_STATUSES, load_meta
from agent_runtime.engine.workspace import Workspace
from agent_runtime.errors import ConfigError, DeepResearcherError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

LOG_FOLDER = ".deep-researcher-mcp"
STOP_GRACE = 20.0  # seconds a run has to save its state after SIGTERM before it is killed
REPORT_LIMIT = 400_000  # characters of a report returned at once (a report is far shorter)


@dataclass
class _Child:
    process: subprocess.Popen[bytes]
    log: IO[bytes]
    command: str  # run | resume
    title: str  # the research it does: a workspace it has not made yet is taken for this title only


class Runs:
    """The runs this server started, by workspace."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.children: dict[Path, _Child] = {}

    # -- the tools --------------------------------------------------------------------------
    def start(
        self, title: str, purpose: str | None, language: str | None, clarify: bool = False, review_plan: bool = False
    ) -> dict[str, Any]:
        title = " ".join(title.split())
        if not title:
            raise ValueError(
                "the research title is empty; give a title, e.g. 'Solid-state batteries in 2026'"
            )
        workspace = self._workspace_for(title)
        if self._working(workspace):  # by a run of ours, or one this server's predecessor left
            return {
                "workspace": str(workspace),
                "status": "running",
                "note": "this research is already running",
            }
        meta = load_meta(Workspace(workspace).run_file) if workspace.exists() else None
        if meta is not None and meta.status != "finished" and meta.title == title:
            self._spawn(workspace, resume_arguments(workspace, ["-q"]), "resume", title)
            return {"workspace": str(workspace), "status": "resumed",
                    "note": f"an unfinished run of this title was resumed from its files (it was {meta.status})"}  # fmt: skip
        options = [f"--language={language.strip()}"] if language and language.strip() else []
        options += ["--clarify"] * clarify + ["--review-plan"] * review_plan  # the run may then wait for you
        purpose = purpose.strip() if purpose and purpose.strip() else None
        self._spawn(workspace, run_arguments(title, workspace, [*options, "-q"], purpose), "run", title)
        return {"workspace": str(workspace), "status": "started",
                "note": "poll research_status(workspace) until it is finished, then read_report(workspace)"}  # fmt: skip

    def status(self, workspace: str) -> dict[str, Any]:
        path = self._inside(workspace)
        child = self.children.get(path)
        alive = self._working(path)
        meta = load_meta(Workspace(path).run_file) if Workspace(path).run_file.is_file() else None
        if meta is None:
            if alive:
                return {"workspace": str(path), "status": "starting"}
            return {"workspace": str(path), "status": "error" if child else "unknown",
                    "reason": self._log_tail(path) or "no run was started in this workspace"}  # fmt: skip
        status = meta.status
        if status == "running" and not alive:
            status = "stopped"  # killed, with no process left: run.json still says running
        answer: dict[str, Any] = {
            "workspace": str(path), "title": meta.title, "status": status,
            "steps": meta.totals.steps, "elapsed_seconds": round(meta.totals.elapsed_seconds),
            "sources_seen": meta.summary.get("sources_seen"), "sources_cited": meta.summary.get("sources_cited"),
        }  # fmt: skip
        if alive and status != "finished":
            answer["status"] = "running"
        if meta.stop_reason:
            answer["reason"] = meta.stop_reason
        report_path = report_record(meta).report_path
        report = self._report_file(path, report_path)
        if report_path and report is not None and report.is_file():
            answer["report"] = str(report)
        if answer["status"] in ("stopped", "interrupted", "error"):
            answer["next"] = "call start_research with the same title to resume it from its files"
        if answer["status"] in WAITING_STATUSES:
            state = workspace_state(path, last_events=0)
            answer["waiting"] = state["waiting"]
            answer["next"] = (
                "the research waits for you: call answer_research(workspace, answers=[one per question, \"\" for "
                "no preference]) to answer and continue"
                if answer["status"] == "awaiting_answers"
                else "the research waits for your review of its plan: call answer_research(workspace) to continue "
                "with it, or answer_research(workspace, plan=\"the whole new overall_dashboard.md\") to change it"
            )
        follows = parents(path)
        if follows:
            answer["follows"] = [str(p) for p in follows]
        return {k: v for k, v in answer.items() if v is not None}

    def answer_waiting(self, workspace: str, answers: list[str] | None, plan: str | None) -> dict[str, Any]:
        """Answer a paused run's questions (or keep or replace its plan) and resume it."""
        path = self._inside(workspace)
        if self._working(path):
            return {"workspace": str(path), "status": "running", "note": "this research is running, not waiting"}
        answer_waiting_run(path, answers, plan)
        meta = load_meta(Workspace(path).run_file)
        self._spawn(path, resume_arguments(path, ["-q"]), "resume", meta.title if meta else "")
        return {"workspace": str(path), "status": "resumed",
                "note": "poll research_status(workspace) until it is finished, then read_report(workspace)"}  # fmt: skip

    def follow_up(self, workspace: str, question: str) -> dict[str, Any]:
        """Start a follow-up of a finished run in a new workspace beside it."""
        path = self._inside(workspace)
        meta = load_meta(Workspace(path).run_file) if Workspace(path).run_file.is_file() else None
        if meta is None or meta.status != "finished":
            raise ValueError(f"{path} did not finish: a follow-up builds on a finished report; resume it first")
        question = " ".join(question.split())
        if not question:
            raise ValueError("the follow-up question is empty")
        target = follow_up_workspace(path)
        arguments = ["follow-up", f"--workspace={target}", "-q", "--", str(path), question]
        self._spawn(target, arguments, "follow-up", question)
        return {"workspace": str(target), "status": "started", "follows": str(path),
                "note": "poll research_status(workspace) until it is finished, then read_report(workspace)"}  # fmt: skip

    def report(self, workspace: str) -> str:
        path = self._inside(workspace)
        meta = load_meta(Workspace(path).run_file) if Workspace(path).run_file.is_file() else None
        report = self._report_file(path, (report_record(meta).report_path if meta else None) or "report.md")
        if report is None:
            raise ValueError(
                f"the run's record in {path} names a report outside its workspace; its run.json was changed "
                "by hand"
            )
        if not report.is_file():
            state = self.status(str(path))["status"]
            return f"No report yet: the research is {state}. Call research_status to follow it."
        text = report.read_text(encoding="utf-8", errors="replace")
        if meta is not None and meta.status != "finished":
            text = f"[The research is {meta.status}: this report is unfinished.]\n\n{text}"
        return text if len(text) <= REPORT_LIMIT else text[:REPORT_LIMIT] + f"\n\n[… the rest is in {report}]"

    # -- processes --------------------------------------------------------------------------
    def _working(self, workspace: Path) -> bool:
        """A run works in the workspace now: a child of ours, or any process holding its lock (a
        run the previous server left, which dies with it within a step, or one started by hand)."""
        child = self.children.get(workspace)
        return (child is not None and child.process.poll() is None) or lock_state(workspace).held

    def _spawn(self, workspace: Path, arguments: list[str], command: str, title: str) -> None:
        logs = self.folder / LOG_FOLDER
        logs.mkdir(parents=True, exist_ok=True)
        log = (logs / f"{workspace.name}.log").open("ab")
        # Tied to this server (background_runs.py): a server killed alone, even by SIGKILL, stops its runs
        # within a step. Spawned from the event loop's thread, which lives as long as the server.
        process = launch(arguments, env=environment(), log=log, cwd=self.folder, die_with_parent=True)
        self.children[workspace] = _Child(process, log, command, title)

    def stop_all(self) -> None:
        """SIGTERM to every live run (it stops resumably), then wait; a run that hangs is killed."""
        # A second SIGTERM must not cut the wait short; the handler is put back after, since a
        # process that keeps SIGTERM ignored passes that on to every child it starts later.
        previous: Any = None
        with contextlib.suppress(ValueError):  # not the main thread: nothing to change
            previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            self._stop_children()
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def _stop_children(self) -> None:
        live = [c for c in self.children.values() if c.process.poll() is None]
        for child in live:
            with contextlib.suppress(OSError):  # ended meanwhile
                os.killpg(child.process.pid, signal.SIGTERM)  # its group: the browser it started too
        wait_or_kill([child.process for child in live], STOP_GRACE)
        for child in self.children.values():
            child.log.close()

    # -- paths ------------------------------------------------------------------------------
    def _workspace_for(self, title: str) -> Path:
        """FOLDER/<slug of the title>; a finished run, or a folder that is no run, keeps its place
        and the new run gets `<slug>-2`, `-3`…"""
        base = self.folder / title_slug(title)
        for n in range(1, 1000):
            candidate = base if n == 1 else base.with_name(f"{base.name}-{n}")
            child = self.children.get(candidate)
            if child is not None and child.process.poll() is None and not candidate.is_dir():
                if child.title == title:
                    return candidate  # still starting: the same research
                continue  # taken by another title with the same slug, whose run has not made it yet
            space = ResearchWorkspace(candidate)
            if space.holds_nothing():
                return candidate
            meta = load_meta(space.run_file) if space.run_file.is_file() else None
            if meta is not None and meta.title == title and meta.status != "finished":
                return candidate  # the unfinished run of this title: resumed
        raise ValueError(f"too many workspaces for {title!r} in {self.folder}")

    def _inside(self, workspace: str) -> Path:
        raw = Path(workspace).expanduser()
        path = (raw if raw.is_absolute() else self.folder / raw).resolve()
        if path != self.folder and self.folder not in path.parents:
            raise ValueError(
                f"{workspace} is outside {self.folder}, the folder this server keeps its runs in; "
                "give the path start_research returned"
            )
        if not path.is_dir() and path not in self.children:  # a run just started may not have made it yet
            raise ValueError(f"{not_a_workspace(path)}, e.g. the path start_research returned")
        return path

    @staticmethod
    def _report_file(workspace: Path, name: str | None) -> Path | None:
        """The report run.json names, if it lies inside the workspace (a run.json edited to name
        another file must not hand that file to the client); None otherwise."""
        if not name:
            return None
        root = workspace.resolve()
        report = (root / name).resolve()
        return report if root in report.parents else None

    def _log_tail(self, workspace: Path) -> str:
        from sandbox.redaction import redact

        log = self.folder / LOG_FOLDER / f"{workspace.name}.log"
        try:
            return redact(log.read_text(encoding="utf-8", errors="replace").strip()[-1_500:])
        except OSError:
            return ""


def build_server(runs: Runs) -> MCPServer[Any]:
    """The MCP server and its three tools (the SDK's MCPServer: schemas from the signatures). A
    wrong argument is a ToolError, whose message the client shows (any other exception's is hidden)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    def answer(work: Callable[[], Any]) -> Any:
        try:
            return work()
        except (ValueError, OSError, DeepResearcherError) as exc:
            raise ToolError(str(exc)) from None

    server: MCPServer[Any] = MCPServer(
        "deep-researcher",
        instructions=(
            "Deep research with a cited report. start_research starts a run in the background and returns "
            "its workspace; a run takes minutes to hours. Poll research_status(workspace) now and then; "
            "when its status is finished, read_report(workspace) returns the report."
        ),
    )

    @server.tool()
    async def start_research(
        title: str, purpose: str | None = None, language: str | None = None, clarify: bool = False,
        review_plan: bool = False,
    ) -> str:  # fmt: skip
        """Start a deep research run in the background and return its workspace path at once. The
        run searches, reads sources, keeps notes and writes a report whose every claim cites a
        source. Starting the same title again resumes an unfinished run.

        Args:
            title: what to research, e.g. "Solid-state batteries in 2026".
            purpose: optional: what the report is for, e.g. "an investment memo".
            language: optional: the report's language, e.g. "en" or "zh" (default: that of the title).
            clarify: optional: the agent may ask you 1-3 questions first (research_status then says
                awaiting_answers; answer with answer_research).
            review_plan: optional: the run pauses once its plan is written (awaiting_review) for you to
                review it with answer_research.
        """
        return json.dumps(
            answer(lambda: runs.start(title, purpose, language, clarify, review_plan)), ensure_ascii=False
        )

    @server.tool()
    async def research_status(workspace: str) -> str:
        """How a research run goes: its status (starting, running, finished, stopped, error, or
        awaiting_answers / awaiting_review: it waits for you, see `waiting` and `next`), steps, sources,
        and the report's path once finished.

        Args:
            workspace: the workspace path start_research returned.
        """
        return json.dumps(answer(lambda: runs.status(workspace)), ensure_ascii=False)

    @server.tool()
    async def read_report(workspace: str) -> str:
        """The report of a research run (Markdown, with its references), or what state it is in.

        Args:
            workspace: the workspace path start_research returned.
        """
        return str(answer(lambda: runs.report(workspace)))

    @server.tool()
    async def answer_research(workspace: str, answers: list[str] | None = None, plan: str | None = None) -> str:
        """Continue a research that waits for you (research_status says "awaiting_answers" or
        "awaiting_review"): give the answers to its questions, or keep or replace its plan.

        Args:
            workspace: the workspace path start_research returned.
            answers: for awaiting_answers: one answer per question, in order ("" for no preference).
            plan: for awaiting_review: optional, the whole new overall_dashboard.md (omit to keep the plan).
        """
        return json.dumps(answer(lambda: runs.answer_waiting(workspace, answers, plan)), ensure_ascii=False)

    @server.tool()
    async def follow_up(workspace: str, question: str) -> str:
        """Start research that builds on a finished report, in a new workspace: the earlier report,
        notes and sources (same ids) are carried over, and the new report answers the question.
        The earlier workspace is not changed.

        Args:
            workspace: the workspace of a finished research.
            question: the follow-up question, e.g. "What changed in 2026?".
        """
        return json.dumps(answer(lambda: runs.follow_up(workspace, question)), ensure_ascii=False)

    return server


def serve_mcp(folder: Path) -> int:
    """Serve until the client closes stdin; then stop the runs (resumably) and return 0."""
    folder = folder.expanduser().resolve()
    if not folder.is_dir():
        raise ConfigError(f"--folder {folder} is not a folder; create it or give another")
    # The protocol owns stdout: the redacting wrapper the CLI puts there must not stand in the way
    # (the SDK takes the file descriptor itself).
    sys.stdout = sys.__stdout__
    runs = Runs(folder)

    def terminated(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM as Ctrl-C: the runs are stopped resumably below

    signal.signal(signal.SIGTERM, terminated)
    try:
        build_server(runs).run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        runs.stop_all()
    return 0
