"""One task of a batch, wherever it runs (a thread of the local batch, or a Dask worker): decide
from the workspace's own files whether to skip, resume or start it, then run the real CLI in a
child process and return the task's row.

A child process, not a call: a run that crashes, leaks or hangs takes nothing else down, and the
workspace lock (held by the child) keeps one process per run. The child dies with the process
that started it (`background_runs.py` asks Linux for SIGTERM when its parent dies): a killed Dask worker
leaves no run working behind the cluster's back. If one still holds the lock (it is finishing its
step, or another machine's batch runs it), the task waits for it and decides again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_runtime.app.background_runs import environment, launch, resume_arguments, run_arguments
from agent_runtime.app.batch.results import read_row, workspace_meta
from agent_runtime.app.batch.task_file import Task
from agent_runtime.app.run_state import lock_state
from agent_runtime.domain.layout import ResearchWorkspace

Plan = Literal["skip", "start", "resume", "wait", "refuse"]
_IN_USE = "is in use by a run still working"  # RunLock's message: another process took the lock first
LOCK_POLL_SECONDS = 0.5


@dataclass(frozen=True)
class RunSpec:
    """What a task needs to run anywhere: picklable, and the key never shown by its repr (Dask
    prints a failed task's arguments in its logs)."""

    task: Task
    out: str  # DIR, absolute: the same path on every machine of the cluster
    flags: tuple[str, ...]  # the run flags for each child, without the key
    env: dict[str, str] = field(default_factory=dict, repr=False)  # the child's environment on top
    cwd: str | None = None


def plan(task: Task, out: Path) -> tuple[Plan, str | None]:
    """What to do with the task now, from its workspace's files; a reason with "refuse"."""
    root = out / task.id
    space = ResearchWorkspace(root)
    if lock_state(root).held:
        return "wait", None
    if space.holds_nothing():
        return "start", None
    meta, problem = workspace_meta(root)
    if problem:
        return "refuse", problem
    if meta is None:
        return "refuse", (
            f"{root} is not empty and holds no run (no .runtime/run.json): move its files away, or give the "
            "task another id"
        )
    if meta.title != task.title:  # the line was edited since: its old research is not this task's
        return "refuse", (
            f"{root} holds the research {meta.title[:200]!r}, not this task's title {task.title[:200]!r}: give "
            "the task another id (or remove that workspace) to research the new title"
        )
    return ("skip", None) if meta.status == "finished" else ("resume", None)


class Children:
    """The child processes this process started, so that a stopping batch can end them (each
    gets SIGTERM and stops resumably, as after Ctrl-C) and start no more."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self.stopping = threading.Event()

    def add(self, process: subprocess.Popen[bytes]) -> bool:
        with self._lock:
            if self.stopping.is_set():
                return False
            self._live.add(process)
            return True

    def remove(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(process)

    def stop(self) -> None:
        with self._lock:
            self.stopping.set()
            live = list(self._live)
        for process in live:
            with contextlib.suppress(OSError):  # ended meanwhile
                os.killpg(process.pid, signal.SIGTERM)  # its own group: the browser it started too


CHILDREN = Children()


def child_arguments(spec: RunSpec, action: Plan) -> list[str]:
    """The child's CLI arguments: the batch's flags, and the task's language over its --language."""
    task, root = spec.task, str(Path(spec.out) / spec.task.id)
    options = list(spec.flags)
    if task.language:
        options = [o for o in options if not o.startswith("--language=")] + [f"--language={task.language}"]
    options.append("-q")
    if action == "start":
        return run_arguments(task.title, root, options, purpose=task.purpose)
    return resume_arguments(root, options)


def run_task(spec: RunSpec) -> dict[str, Any]:
    """Run the task to its end (or its budget) and return its row. Never raises for a run's
    failure: that is the row's status and error."""
    out, task = Path(spec.out), spec.task
    while True:
        action, reason = plan(task, out)
        if action == "wait":
            if CHILDREN.stopping.wait(LOCK_POLL_SECONDS):
                return read_row(task, out)
            continue
        if action == "skip":
            return read_row(task, out)
        if action == "refuse":
            return read_row(task, out, status="failed", error=reason)
        code, stderr = _run_child(spec, action)
        if code is None:  # the batch is stopping: this one never started
            return read_row(task, out)
        if code == 1 and _IN_USE in stderr:
            continue  # another process took the lock between the look and the start: wait for it
        return read_row(task, out, **_outcome(code, stderr))


def _run_child(spec: RunSpec, action: Plan) -> tuple[int | None, str]:
    cwd = spec.cwd if spec.cwd and os.path.isdir(spec.cwd) else None
    # No log: with -q the child says only its outcome line, which the row says better, and its
    # stderr (piped) gives a failed run's last word. Its own session: a Ctrl-C at the terminal
    # reaches the batch, which stops its runs.
    process = launch(child_arguments(spec, action), env=environment(extra=spec.env), log=None, cwd=cwd)
    if not CHILDREN.add(process):
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        return None, ""
    try:
        _, err = process.communicate()
    finally:
        CHILDREN.remove(process)
    return process.returncode, err.decode("utf-8", "replace")


def _outcome(code: int, stderr: str) -> dict[str, Any]:
    """What the batch adds to the files' word: the child's own message when it failed."""
    if code in (0, 3, 130):
        return {}
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return {
            "status": "interrupted",
            "error": f"the run's process was ended by {name}; it resumes next time",
        }
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = [line for line in lines if line.startswith("deep-researcher:")]
    message = (said or lines or [f"the run's process ended with exit code {code}"])[-1]
    message = message.removeprefix("deep-researcher: error: ").removeprefix("deep-researcher: ")
    return {"status": "failed", "error": message[:1000]}
