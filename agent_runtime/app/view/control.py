"""Stop and Resume from the page.

Stop sends SIGINT to the process holding the workspace's lock, as Ctrl-C in its terminal would: the
run saves its state and ends resumably (exit 130). The pid comes from the lock file, so it is
checked first: the lock must be held, and by that process (it has the lock file open), or nothing
is sent. Resume starts `deep-researcher resume WORKSPACE` (the installed package, run with `python -P`
so that no code is imported from the current folder) as a process of its own session, so that it
outlives the view and a Ctrl-C in the view's terminal does not reach it; it inherits the view's
environment (the API key and the endpoint come from there or the config file, the rest of the
settings from run.json) and writes its output to `.runtime/view-resume.log`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from agent_runtime.app.view.events import EventTail
from agent_runtime.app.view.workspaces import holds_lock_file, lock_state
from agent_runtime.engine.run_record import load_meta
from agent_runtime.engine.workspace import RUNTIME, Workspace
from agent_runtime.errors import WorkspaceError

RESUME_LOG = "view-resume.log"
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


def _open_log(workspace: Path) -> int:
    """The resume log, appended to; opened without following a symlink planted at it or at .runtime."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    folder = os.open(workspace / RUNTIME, flags)
    try:
        return os.open(
            RESUME_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
            dir_fd=folder,
        )  # fmt: skip
    finally:
        os.close(folder)


def _last_line(workspace: Path) -> str:
    with contextlib.suppress(OSError):
        lines = (workspace / RUNTIME / RESUME_LOG).read_text("utf-8", errors="replace").strip().splitlines()
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


def _working_folder() -> str | None:
    with contextlib.suppress(OSError):
        return os.getcwd()
    return None  # removed since the view started: the child inherits it as it is


def resume_run(workspace: Path) -> int:
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
            "`deep-researcher resume WORKSPACE --new-settings` and the settings it should use"
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
        # -P: `python -m` would otherwise put the current folder first on sys.path, and a view
        # started inside a workspace would run an agent_runtime/app/cli.py the File agent wrote there.
        # The folder itself stays the view's (given explicitly): relative settings the run keeps
        # (--corpus, --prompts) and DEEP_RESEARCHER_CONFIG resolve as a resume typed there would.
        process = subprocess.Popen(
            [sys.executable, "-P", "-m", "agent_runtime.app.cli", "resume", str(workspace)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env=dict(os.environ), cwd=_working_folder(),
        )  # fmt: skip
    finally:
        os.close(log)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if process.returncode != 0:
                raise WorkspaceError(
                    f"the resumed run ended at once (exit {process.returncode}): {_last_line(workspace)}"
                )
            break
        if run_started(tail):
            break
        time.sleep(0.05)
    # Waited for in a thread (after the polling above, which a blocked wait() would keep from seeing
    # the exit): the run ends long after this request, and must not stay a zombie of the view.
    threading.Thread(target=process.wait, name="reap-resume", daemon=True).start()
    return process.pid
