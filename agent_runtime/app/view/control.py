"""Stop and Resume from the page.

Stop sends SIGINT to the process holding the workspace's lock, as Ctrl-C in its terminal would: the
run saves its state and ends resumably (exit 130). The pid comes from the lock file, so it is
checked first: the lock must be held, and by that process (it has the lock file open), or nothing
is sent. Resume starts `deep-researcher resume WORKSPACE` (the installed package, run with `python -P`
so that no code is imported from the current folder) as a process of its own session, so that it
outlives the view and a Ctrl-C in the view's terminal does not reach it; it inherits the view's
environment (the API key and the endpoint come from there or the config file, the rest of the
settings from run.json) and writes its output to `.runtime/view-resume.log`.

New research (`start_run`) makes a workspace folder in the served folder, named as `run` names one
(the title's words, then -2, -3, … when taken), and starts `deep-researcher run` there the same
way, with the model flags `view` was given as defaults (RunDefaults). The API key is never put in
an argument (any local user can read a process's arguments) nor in a file: it reaches the run in
its environment, as OPENAI_API_KEY. A new workspace must stay empty until its run starts, so that
run's output goes to FOLDER/.view-logs/<name>.log (a hidden folder the list leaves out).

Both start through agent_runtime/app/background_runs.py (the command line, the key, `-P`), untied from the
view: unlike a batch's or the MCP server's runs, a run started from the page outlives the view.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agent_runtime.language as lang
from agent_runtime.app.background_runs import (
    environment,
    flag_arguments,
    launch,
    resume_arguments,
    run_arguments,
    working_folder,
)
from agent_runtime.app.run_state import EventTail, holds_lock_file, lock_state, utf8
from agent_runtime.domain.layout import MAX_PURPOSE_CHARS, MAX_TITLE_CHARS, ResearchWorkspace, title_slug
from agent_runtime.domain.steering import follow_up_workspace
from agent_runtime.engine.commands import command
from agent_runtime.engine.run_record import load_meta
from agent_runtime.engine.workspace import RUNTIME, Workspace
from agent_runtime.errors import DeepResearcherError, WorkspaceError

RESUME_LOG = "view-resume.log"
RUN_LOGS = ".view-logs"  # in the served folder: the output of runs started from the page
START_SECONDS = 15.0  # how long Resume waits for the new run to start working (or to fail)


def stop_run(workspace: Path) -> int:
    """SIGINT to the run working in `workspace`; returns its pid."""
    state = lock_state(workspace)
    if not state.held:
        raise WorkspaceError("no run is working in this workspace")
    if state.pid is None or not holds_lock_file(state.pid, workspace):
        raise WorkspaceError(
            "the process holding this workspace cannot be identified as the run; stop it from its terminal "
            "(Ctrl-C)"
        )
    try:
        os.kill(state.pid, signal.SIGINT)
    except OSError as exc:
        raise WorkspaceError(f"cannot stop process {state.pid}: {exc.strerror or exc}") from None
    return state.pid


def _open_log(workspace: Path, folder_name: str = RUNTIME, name: str = RESUME_LOG) -> int:
    """A log, appended to; opened without following a symlink planted at it or at its folder."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    folder = os.open(workspace / folder_name, flags)
    try:
        return os.open(
            name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
            dir_fd=folder,
        )  # fmt: skip
    finally:
        os.close(folder)


def _last_line(log: Path) -> str:
    with contextlib.suppress(OSError):
        lines = log.read_text("utf-8", errors="replace").strip().splitlines()
        if lines:
            return lines[-1][:500]
    return "no output"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def run_started(tail: EventTail) -> bool:
    """True once the events appended since the tail's last read hold a run_started: the resumed run
    got past its checks (the lock, the settings, the endpoint) and works."""
    events, _ = tail.read()
    return any(event.get("event") == "run_started" for event in events)


def resume_run(workspace: Path, defaults: RunDefaults | None = None) -> int:
    """Start the resume of a stopped run; returns the new process's pid once it has started working
    (or has already finished). A resume that fails at once (no API key, no endpoint) is an error
    carrying the last line of its output."""
    if lock_state(workspace).held:
        raise WorkspaceError("a run is already working in this workspace")
    space = Workspace(workspace)
    meta = load_meta(space.run_file)
    if meta is None:
        raise WorkspaceError(
            f"{workspace} has no run metadata; resume it from a terminal with "
            f"`{command('resume', workspace, '--new-settings')}` and the settings it should use"
        )
    if meta.status == "finished":
        raise WorkspaceError("this run has finished; there is nothing to resume")
    tail = EventTail(space.events_file, _size(space.events_file))  # the resumed run's events only
    try:
        log = _open_log(workspace)
    except OSError as exc:
        raise WorkspaceError(f"cannot write {RUNTIME}/{RESUME_LOG}: {exc.strerror or exc}") from None
    try:
        os.write(log, f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} resume from the live view\n".encode())
        # The folder stays the view's: relative settings the run keeps (--corpus, --prompts) and
        # DEEP_RESEARCHER_CONFIG resolve as a resume typed there would. Not tied to the view: a run
        # started from the page outlives it (background_runs.py says the rest).
        process = launch(
            resume_arguments(workspace), env=(defaults or RunDefaults()).environment(), log=log,
            cwd=working_folder(), die_with_parent=False,
        )  # fmt: skip
    finally:
        os.close(log)
    failed = _wait_for_start(process, tail)
    if failed is not None:
        raise WorkspaceError(
            f"the resumed run ended at once (exit {failed}): {_last_line(workspace / RUNTIME / RESUME_LOG)}"
        )
    return process.pid


def _wait_for_start(process: subprocess.Popen[bytes], tail: EventTail) -> int | None:
    """Wait until the started run works (its run_started event) or ends; the exit code of a run
    that failed at once, else None."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if process.returncode != 0:
                return process.returncode
            break
        if run_started(tail):
            break
        time.sleep(0.05)
    # Waited for in a thread (after the polling above, which a blocked wait() would keep from seeing
    # the exit): the run ends long after this request, and must not stay a zombie of the view.
    threading.Thread(target=process.wait, name="reap-run", daemon=True).start()
    return None


# -- new research from the page ---------------------------------------------------------------------


@dataclass(frozen=True)
class RunDefaults:
    """What `view` was given for the runs it starts: `run` flags (the model, the endpoint, budgets…)
    and the API key, which goes into the child's environment only."""

    flags: Mapping[str, Any] = field(default_factory=dict)  # as the CLI's _flags() gives them
    config: Path | None = None

    def arguments(self, **overrides: Any) -> list[str]:
        """The flags as a child's arguments, with `overrides` (the form's fields) over them."""
        given = {**self.flags, **{k: v for k, v in overrides.items() if v is not None}}
        return flag_arguments(given, self.config)

    def environment(self) -> dict[str, str]:
        key = self.flags.get("api_key")  # flags over the environment, as on the command line
        return environment(api_key=key if isinstance(key, str) else None)


class BadRequest(DeepResearcherError):
    """A new-research request the view refuses as it is (400), with what to change."""


@dataclass(frozen=True)
class NewRun:
    title: str
    purpose: str | None = None
    language: str | None = None
    max_steps: int | None = None
    max_cost: float | None = None
    folder: str | None = None  # the workspace's name in the served folder (default: from the title)

    @classmethod
    def from_json(cls, body: object) -> NewRun:
        if not isinstance(body, dict):
            raise BadRequest(
                'the body must be a JSON object: {"title": "…", "purpose": "…", "max_steps": 50}'
            )
        unknown = sorted(set(body) - {"title", "purpose", "language", "max_steps", "max_cost", "folder"})
        if unknown:
            raise BadRequest(
                f"unknown field {unknown[0]!r}: the fields are title, purpose, language, max_steps, max_cost"
            )
        title = _text(body, "title", MAX_TITLE_CHARS)
        if not title:
            raise BadRequest(
                'the title is empty: give the research title, e.g. "Solid-state batteries in 2026"'
            )
        language = _text(body, "language", 40) or None
        if language is not None:
            try:
                language = lang.normalize(language)
            except ValueError as exc:
                raise BadRequest(str(exc)) from None
        folder = _text(body, "folder", 200) or None
        if folder is not None and (
            folder.startswith(".") or "/" in folder or "\\" in folder or "\0" in folder
        ):
            raise BadRequest(
                f"folder {folder[:80]!r} must be one visible folder name (no /, not starting with .)"
            )
        return cls(
            title=title, purpose=_text(body, "purpose", MAX_PURPOSE_CHARS) or None, language=language,
            max_steps=_number(body, "max_steps", int, 1, 100_000),
            max_cost=_number(body, "max_cost", float, 0.0001, 1_000_000.0), folder=folder,
        )  # fmt: skip


def _text(body: dict[str, Any], name: str, limit: int) -> str:
    value = body.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be text")
    value = value.strip()
    if len(value) > limit:
        raise BadRequest(f"the {name} has {len(value):,} characters; at most {limit:,} are accepted")
    if any(ord(c) < 32 and c not in "\t\n\r" for c in value) or not utf8(value):
        raise BadRequest(f"the {name} holds control characters or broken Unicode: give plain text")
    return value


def _number(body: dict[str, Any], name: str, kind: type[int] | type[float], low: float, high: float) -> Any:
    value = body.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, str):  # a form's field: "50"
        try:
            value = kind(value.strip())
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and value != int(value)):
        raise BadRequest(
            f"{name} must be {'a whole number' if kind is int else 'a number'} from {low:g} to {high:g}"
        )
    if not low <= value <= high or value != value:
        raise BadRequest(
            f"{name} must be {'a whole number' if kind is int else 'a number'} from {low:g} to {high:g}"
        )
    return kind(value)


_STARTING = threading.Lock()  # one start at a time: two starts with one title take -2 and -3, not one folder


def _claim(root: Path, wanted: NewRun) -> tuple[Path, bool]:
    """The new workspace's folder, made here (mkdir: no two requests get the same one), and whether
    it was made now."""
    if wanted.folder is not None:
        path = root / wanted.folder
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISLNK(os.lstat(path).st_mode):  # it would lead the run out of the served folder
                raise WorkspaceError(
                    f"{wanted.folder} is a symbolic link; a new run needs a real folder inside the served "
                    "folder: choose another name"
                )
        space = ResearchWorkspace(path)
        if space.exists() or lock_state(path).held:
            raise WorkspaceError(
                f"{wanted.folder} already holds a research run; open it in the list to resume it, or choose "
                "another folder"
            )
        if not space.holds_nothing():  # a person's own files: never handed to an agent
            raise WorkspaceError(f"{wanted.folder} is not empty; a new run needs a new or empty folder")
        made = not path.exists()
        path.mkdir(exist_ok=True)
        return path, made
    base, n = title_slug(wanted.title), 1
    while True:
        path = root / (base if n == 1 else f"{base}-{n}")
        try:
            path.mkdir()
            return path, True
        except FileExistsError:
            n += 1


def start_run(root: Path, wanted: NewRun, defaults: RunDefaults) -> tuple[str, int]:
    """Make a workspace for `wanted` in `root` and start its run; returns (the folder's name, the
    run's pid) once it works. A run that fails at once (no model, a bad setting) is a WorkspaceError
    carrying the last line of its output, and leaves the folder empty for the next try."""
    with _STARTING:
        try:
            path, made = _claim(root, wanted)
            logs = root / RUN_LOGS
            logs.mkdir(exist_ok=True)
            log = _open_log(root, RUN_LOGS, f"{path.name}.log")
        except OSError as exc:
            raise WorkspaceError(f"cannot make a workspace in {root}: {exc.strerror or exc}") from None
        options = defaults.arguments(
            language=wanted.language, max_steps=wanted.max_steps, max_cost=wanted.max_cost
        )
        try:
            os.write(
                log, f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} run started from the live view\n".encode()
            )
            process = launch(
                run_arguments(wanted.title, path, options, purpose=wanted.purpose),
                env=defaults.environment(), log=log, cwd=working_folder(), die_with_parent=False,
            )  # fmt: skip
        finally:
            os.close(log)
        failed = _wait_for_start(process, EventTail(Workspace(path).events_file))
        if failed is not None and made and ResearchWorkspace(path).holds_nothing():
            # Taken back: a failed start leaves no empty workspace in the list (its log stays).
            shutil.rmtree(path, ignore_errors=True)
    if failed is not None:
        raise WorkspaceError(
            f"the run ended at once (exit {failed}): {_last_line(logs / f'{path.name}.log')}"
        )
    return path.name, process.pid


def follow_up_run(root: Path, earlier: Path, question: object, defaults: RunDefaults) -> tuple[str, int]:
    """Start `deep-researcher follow-up` of the finished run in `earlier`, in a new workspace beside
    it in `root`, with the defaults of `view`; returns (the new folder's name, the pid) once it works."""
    if not isinstance(question, str) or not " ".join(question.split()):
        raise BadRequest('the body must be JSON with the follow-up question: {"question": "What changed in 2026?"}')
    question = " ".join(question.split())
    if len(question) > MAX_TITLE_CHARS:
        raise BadRequest(f"the question is {len(question):,} characters long; at most {MAX_TITLE_CHARS:,}")
    meta = load_meta(Workspace(earlier).run_file)
    if meta is None or meta.status != "finished":
        raise WorkspaceError("this run has not finished: a follow-up builds on a finished report; resume it first")
    with _STARTING:
        path = follow_up_workspace(earlier)
        try:
            (root / RUN_LOGS).mkdir(exist_ok=True)
            log = _open_log(root, RUN_LOGS, f"{path.name}.log")
        except OSError as exc:
            raise WorkspaceError(f"cannot start a follow-up in {root}: {exc.strerror or exc}") from None
        arguments = ["follow-up", f"--workspace={path}", *defaults.arguments(), "--", str(earlier), question]
        try:
            os.write(log, f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} follow-up started from the live view\n".encode())
            process = launch(arguments, env=defaults.environment(), log=log, cwd=working_folder(), die_with_parent=False)
        finally:
            os.close(log)
        failed = _wait_for_start(process, EventTail(Workspace(path).events_file))
    if failed is not None:
        raise WorkspaceError(f"the follow-up ended at once (exit {failed}): {_last_line(root / RUN_LOGS / f'{path.name}.log')}")
    return path.name, process.pid
