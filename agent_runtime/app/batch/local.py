"""The batch on this machine: up to `jobs` runs at once, each in its own child process (started
by a thread that waits on it), with nothing to install or start."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Collection
from typing import Any

from agent_runtime.app.batch.runner import CHILDREN, RunSpec, run_task


class LocalPool:
    where = "this machine"

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        # The threads live until the batch ends: a child asks to die with the thread that started
        # it (PR_SET_PDEATHSIG), and each thread waits on its child to the end.
        self._executor = concurrent.futures.ThreadPoolExecutor(jobs, thread_name_prefix="batch-run")

    def capacity(self) -> int:
        return self.jobs

    def submit(self, spec: RunSpec) -> concurrent.futures.Future[dict[str, Any]]:
        return self._executor.submit(run_task, spec)

    def wait(self, handles: Collection[Any], timeout: float) -> set[Any]:
        done, _ = concurrent.futures.wait(handles, timeout, concurrent.futures.FIRST_COMPLETED)
        return set(done)

    def result(self, handle: Any) -> dict[str, Any]:
        row: dict[str, Any] = handle.result()  # run_task returns a row for every run's failure
        return row

    def stop(self) -> bool:
        """Ctrl-C: every child gets SIGTERM and stops resumably; True: wait for them to end."""
        CHILDREN.stop()
        return True

    def close(self) -> None:
        self._executor.shutdown(wait=True)
