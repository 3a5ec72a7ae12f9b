"""A real Dask cluster on 127.0.0.1 (a scheduler and workers as processes) for batch tests and
benchmarks, and how to find which process holds a run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.cli import cli_env

DASK = str(Path(sys.executable).parent / "dask")


def wait_for(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Cluster:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.scheduler = self._start(
            [
                DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.file),
            ]
        )
        wait_for(self.file.exists, "the scheduler's file")
        self.address: str = json.loads(self.file.read_text())["address"]

    def _start(self, command: list[str]) -> subprocess.Popen[bytes]:
        # No model settings in the workers' environment: the batch's travel with each task.
        log = (self.folder / f"log-{len(self.processes)}.txt").open("wb")
        process = subprocess.Popen(
            command, env=cli_env(), stdout=log, stderr=subprocess.STDOUT, cwd=self.folder
        )
        self.processes.append(process)
        return process

    def worker(self, threads: int = 2) -> subprocess.Popen[bytes]:
        return self._start(
            [DASK, "worker", "--scheduler-file", str(self.file), "--nthreads", str(threads), "--no-nanny",
             "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{len(self.processes)}"]
        )  # fmt: skip

    def workers_seen(self) -> int:
        from distributed import Client

        connect: Any = Client  # distributed's API is not typed
        with connect(self.address, timeout="5s") as client:
            return len(client.scheduler_info()["workers"])

    def stop_workers(self) -> None:
        for process in self.processes[1:]:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes[1:]:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        del self.processes[1:]
        wait_for(lambda: self.workers_seen() == 0, "the workers to leave")

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(10)


def holder(workspace: Path) -> int | None:
    """The pid of the process holding the run's lock, as the lock file names it."""
    try:
        text = (workspace / ".runtime" / "lock").read_text()
    except OSError:
        return None
    return int(text.split()[-1]) if text.startswith("process ") else None


def parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None
