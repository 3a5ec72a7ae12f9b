"""The researches `serve` runs: one child process each (`deep-researcher run|resume … -q`, started as
agent_runtime/app/background_runs.py starts every background run), at most `--jobs` at once.

- Each child is tied to the server (die_with_parent): a server killed even by SIGKILL takes its runs
  with it within a step. It is started from the event loop's thread, which lives as long as the
  server (the kernel ties that signal to the thread that started the child).
- A request whose client goes away stops its run with SIGTERM to the run's process group: the run
  saves its state and ends resumably (status interrupted); its slot is free once it has ended.
- A message of a conversation whose earlier answer named a workspace (protocol.py's marker)
  resumes that run if it did not finish, and starts a follow-up of it if it did (continuation.py).
- The child's output (one line with -q, or a usage error) goes to FOLDER/.deep-researcher-serve/
  NAME.log; the key of `serve` itself is never in a child's environment.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from agent_runtime.app.background_runs import (
    environment,
    launch,
    resume_arguments,
    run_arguments,
    wait_or_kill,
)
from agent_runtime.app.run_state import lock_state
from agent_runtime.app.serve.continuation import follow_up_arguments
from agent_runtime.app.serve.protocol import Ask, OpenAIError
from agent_runtime.app.tracing import ATTRIBUTES_VARIABLE, encode_attributes
from agent_runtime.domain.layout import ResearchWorkspace, title_slug
from agent_runtime.engine.commands import raised_budget
from agent_runtime.engine.run_record import RunMeta, load_meta
from agent_runtime.engine.workspace import Workspace

LOGS = ".deep-researcher-serve"
KEY_VARIABLE = "DEEP_RESEARCHER_SERVE_KEY"
RETRY_AFTER_SECONDS = 30  # a research takes minutes: sooner, a slot is rarely free
STOP_GRACE = 20.0  # seconds a run has to save its state after SIGTERM before it is killed


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


@dataclass
class Job:
    """One research a request follows."""

    workspace: Path
    process: subprocess.Popen[bytes]
    log: IO[bytes]
    kind: str  # run | resume | follow-up
    offset: int  # the event log's size at the start: the request shows what comes after
    before: tuple[int, int] = (0, 0)  # prompt and completion tokens the run had spent before
    stopping: bool = field(default=False)

    @property
    def name(self) -> str:
        return self.workspace.name

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM to the run's process group (the browser it started too): it stops resumably."""
        self.stopping = True
        if self.alive():
            with contextlib.suppress(OSError):  # ended meanwhile
                os.killpg(self.process.pid, signal.SIGTERM)

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait (without blocking the event loop) until the run ended; False at the timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.alive():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.1)
        return True

    def meta(self) -> RunMeta | None:
        return load_meta(Workspace(self.workspace).run_file)


class Jobs:
    """The runs this server started, by workspace."""

    def __init__(
        self, folder: Path, limit: int, options: list[str], api_key: str | None = None, base_url: str | None = None
    ) -> None:
        self.folder = folder
        self.base_url = base_url  # the model endpoint's, to find at once when nothing listens there
        self.limit = limit
        self.options = options  # the run flags `serve` was given, as a child's arguments
        self.env = environment(api_key=api_key)
        self.env.pop(KEY_VARIABLE, None)  # a run has no use for the server's key
        self.jobs: dict[Path, Job] = {}

    def live(self) -> list[Job]:
        """The runs still working (or stopping); ended ones are let go."""
        for path, job in list(self.jobs.items()):
            if not job.alive():
                job.log.close()
                del self.jobs[path]
        return list(self.jobs.values())

    async def begin(self, ask: Ask) -> Job:
        """Start the research `ask` asks for: a resume or a follow-up of the conversation's
        workspace, or new research. OpenAIError 429 when --jobs runs already work, 409 when the
        conversation's research is working for another request."""
        earlier = self._marked(ask.marked)
        meta: RunMeta | None = None
        if earlier is not None:
            job = self.jobs.get(earlier)
            if job is not None and job.alive():
                if not job.stopping:
                    raise OpenAIError(
                        409, f"the research of this conversation ({earlier.name}) is still working for another "
                        "request; wait for its answer", code="research_running",
                    )  # fmt: skip
                await job.wait(STOP_GRACE)  # its client left a moment ago: it is saving its state
            self.live()
            if (again := self.jobs.get(earlier)) is not None and again is not job and again.alive():
                raise OpenAIError(  # another request of this conversation resumed it while this one waited
                    409, f"the research of this conversation ({earlier.name}) was resumed by another request; "
                    "wait for its answer", code="research_running",
                )  # fmt: skip
            if lock_state(earlier).held:
                raise OpenAIError(
                    409, f"another process works in {earlier.name}; wait until it ends", code="research_running"
                )
            meta = load_meta(Workspace(earlier).run_file)
        if len(self.live()) >= self.limit:
            raise OpenAIError(
                429, f"{self.limit} researches are running, as many as this server runs at once (--jobs); "
                f"try again in {RETRY_AFTER_SECONDS} s", kind="rate_limit_error", code="too_many_researches",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )  # fmt: skip
        if earlier is not None and meta is not None and meta.status != "finished":
            budget = raised_budget(meta.stop_reason, meta.settings)
            options = [*self.options, *(["=".join(budget)] if budget else [])]
            before = (meta.totals.prompt_tokens, meta.totals.completion_tokens)
            return self._spawn(earlier, resume_arguments(earlier, options), "resume", before)
        workspace = self._claim(ask.title)
        if earlier is not None and meta is not None:
            return self._spawn(workspace, follow_up_arguments(earlier, ask.title, workspace, self.options), "follow-up")
        # the run writes in the request's language unless serve was given one (its purpose, the
        # conversation, may be in another: an English system prompt over a Chinese title)
        told = any(o.startswith("--language") for o in self.options)
        options = [*self.options, *([] if told else [f"--language={ask.language}"])]
        return self._spawn(workspace, run_arguments(ask.title, workspace, options, ask.purpose), "run")

    def _marked(self, name: str | None) -> Path | None:
        """The folder's workspace a marker names; None for a name that is no research workspace
        directly inside the folder (a marker is the client's text: it never leads elsewhere)."""
        if not name or name.startswith(".") or name in (LOGS, ".."):
            return None
        path = self.folder / name
        if path.is_symlink() or not path.is_dir() or path.resolve().parent != self.folder.resolve():
            return None
        space = ResearchWorkspace(path)
        return path if space.run_file.is_file() else None

    def _claim(self, title: str) -> Path:
        """A new folder for `title`, named as `run` names one (its words, then -2, -3…), made here so
        that no two requests get the same one."""
        base = title_slug(title)
        for n in range(1, 10_000):
            path = self.folder / (base if n == 1 else f"{base}-{n}")
            try:
                path.mkdir()
                return path
            except FileExistsError:
                continue
            except OSError as exc:
                raise OpenAIError(
                    500, f"cannot make a workspace in {self.folder}: {exc.strerror or exc}", kind="server_error"
                ) from None
        raise OpenAIError(500, f"too many workspaces named {base} in {self.folder}", kind="server_error")

    def _spawn(self, workspace: Path, arguments: list[str], kind: str, before: tuple[int, int] = (0, 0)) -> Job:
        logs = self.folder / LOGS
        logs.mkdir(exist_ok=True)
        log = (logs / f"{workspace.name}.log").open("ab")
        log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {kind}\n".encode())
        log.flush()
        offset = _size(Workspace(workspace).events_file)
        # each served request is its own trace: its id, kind and workspace name it (issue 38)
        request = {"deep_researcher.serve.request": uuid.uuid4().hex, "deep_researcher.serve.kind": kind,
                   "deep_researcher.serve.workspace": workspace.name}  # fmt: skip
        env = {**self.env, ATTRIBUTES_VARIABLE: encode_attributes(request)}
        try:
            process = launch(arguments, env=env, log=log, cwd=self.folder, die_with_parent=True)
        except OSError as exc:
            log.close()
            raise OpenAIError(500, f"cannot start the research: {exc.strerror or exc}", kind="server_error") from None
        job = Job(workspace, process, log, kind, offset, before)
        self.jobs[workspace] = job
        return job

    def log_tail(self, job: Job) -> str:
        """The child's last words (a usage error, a crash): its log's last line."""
        from sandbox.redaction import redact

        with contextlib.suppress(OSError):
            lines = (self.folder / LOGS / f"{job.name}.log").read_text("utf-8", errors="replace").strip().splitlines()
            if lines:
                return redact(lines[-1][:500])
        return "no output"

    def terminate_all(self) -> None:
        """SIGTERM to every live run, without waiting (the server is stopping). Called from a signal
        handler: it changes nothing but the jobs' stopping flags."""
        for job in list(self.jobs.values()):
            job.stop()

    def stop_all(self) -> None:
        """SIGTERM to every live run, then wait for them to save their state; one that hangs is killed."""
        live = self.live()
        for job in live:
            job.stop()
        wait_or_kill([job.process for job in live], STOP_GRACE)
        self.live()
