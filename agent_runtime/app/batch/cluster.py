"""The batch on an existing Dask distributed cluster (`dask scheduler`, `dask worker`): one Dask
task per run, whose function (runner.run_task) starts the run's CLI process on the worker.

The workers need the project installed and DIR on a shared filesystem at the same path. A worker
that dies mid-run: its child gets SIGTERM (die_with_parent.py) and stops resumably, the scheduler gives the
task to another worker, and the run resumes there from its files, after the lock is free.
`distributed` is imported only here, when --scheduler is given (the `cluster` extra).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Collection
from typing import Any

from agent_runtime.app.batch.runner import RunSpec, run_task
from agent_runtime.errors import DeepResearcherError

CONNECT_SECONDS = 5
POLL_SECONDS = 0.05


class ClusterError(DeepResearcherError):
    """The cluster cannot be used: not installed, or the scheduler does not answer."""


class DaskPool:
    def __init__(self, address: str, jobs: int | None) -> None:
        try:
            from distributed import Client as _Client
        except ImportError:
            raise ClusterError(
                "--scheduler needs Dask distributed: pip install 'deep-researcher[cluster]' "
                "(here and on every worker)"
            ) from None
        self.where = f"the Dask cluster at {address}"
        self.jobs = jobs
        try:
            client_class: Any = _Client  # distributed's API is not typed
            self.client: Any = client_class(address, timeout=f"{CONNECT_SECONDS}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {address} ({_first_line(exc)}); start it with "
                "`dask scheduler` and check the address (tcp://HOST:8786) and the firewall"
            ) from None
        self._batch = uuid.uuid4().hex[:8]

    def capacity(self) -> int:
        """--jobs, else every thread of the cluster's workers now (at least one: the tasks wait
        for workers to join). Submitted a few at a time, so that --batch-max-cost can stop new ones."""
        if self.jobs:
            return self.jobs
        try:
            threads: dict[str, int] = self.client.nthreads()
            return max(1, sum(threads.values()))
        except (OSError, TimeoutError):
            return 1

    def submit(self, spec: RunSpec) -> Any:
        # A key per batch call: Dask would otherwise hand back an earlier call's result.
        key = f"deep-researcher-{spec.task.id}-{self._batch}"
        return self.client.submit(run_task, spec, key=key, pure=False)

    def wait(self, handles: Collection[Any], timeout: float) -> set[Any]:
        # Polled: distributed.wait looks for a default client, and this one is not set as it.
        deadline = time.monotonic() + timeout
        while True:
            done = {handle for handle in handles if handle.done()}
            if done or time.monotonic() >= deadline:
                return done
            time.sleep(POLL_SECONDS)

    def result(self, handle: Any) -> dict[str, Any] | str:
        """The row, or what went wrong with the task itself (a worker that could not import the
        project, a task whose workers kept dying: Dask's KilledWorker)."""
        try:
            row: dict[str, Any] = handle.result()
        except Exception as exc:  # whatever the worker raised, as Dask sends it back
            return f"the cluster could not run it: {type(exc).__name__}: {_first_line(exc)}"
        return row

    def stop(self) -> bool:
        """Ctrl-C: the tasks not started are cancelled; the running ones finish on their workers
        (Dask cannot stop a running task). False: do not wait for them."""
        return False

    def close(self) -> None:
        self.client.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
