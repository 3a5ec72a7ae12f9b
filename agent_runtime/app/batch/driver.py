"""The batch's loop, the same for the local pool and a Dask cluster: skip what is finished, hand
out the rest a few at a time (never more than the pool's capacity, so that --batch-max-cost can
stop new runs), record each row as its run ends, and say how it went."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent_runtime.app.batch.progress import Counts, Progress
from agent_runtime.app.batch.results import COLUMNS, FAILED, read_row, workspace_meta, write_results
from agent_runtime.app.batch.runner import RunSpec, plan
from agent_runtime.app.batch.task_file import Task
from agent_runtime.errors import EXIT_BUDGET, EXIT_ERROR, EXIT_FINISHED, EXIT_INTERRUPTED

WAIT_SECONDS = 1.0  # between two redraws of the progress bar while nothing ends


class Pool(Protocol):
    where: str

    def capacity(self) -> int: ...
    def submit(self, spec: RunSpec) -> Any: ...
    def wait(self, handles: Collection[Any], timeout: float) -> set[Any]: ...
    def result(self, handle: Any) -> dict[str, Any] | str: ...
    def stop(self) -> bool: ...
    def close(self) -> None: ...


@dataclass
class Outcome:
    rows: list[dict[str, Any]]
    interrupted: bool
    budget_reached: bool

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        if any(row["status"] in FAILED for row in self.rows):
            return EXIT_ERROR
        if any(row["status"] != "finished" for row in self.rows):
            return EXIT_BUDGET  # stopped on a budget, or not started: resumable by the same command
        return EXIT_FINISHED


class Batch:
    def __init__(
        self,
        tasks: list[Task],
        out: Path,
        pool: Pool,
        spec_for: Callable[[Task], RunSpec],
        progress: Progress,
        max_cost: float | None,
    ) -> None:
        self.tasks, self.out, self.pool, self.spec_for = tasks, out, pool, spec_for
        self.progress, self.max_cost = progress, max_cost
        self.rows: dict[str, dict[str, Any]] = {}
        self.in_flight: dict[Any, Task] = {}
        self.todo: deque[Task] = deque()
        self.budget_reached = False

    def run(self) -> Outcome:
        todo = self.todo
        for task in self.tasks:
            action, reason = plan(task, self.out)
            if action == "refuse":
                self.rows[task.id] = read_row(task, self.out, status="failed", error=reason)
            else:
                self.rows[task.id] = read_row(task, self.out)
                if action != "skip":
                    todo.append(task)
        self.progress.already_done = self._counts().done
        self._save()
        interrupted = False
        try:
            self._loop(todo)
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (the command turns it into this)
            interrupted = True
            if self.pool.stop():
                self._loop(deque())  # the runs stop resumably: their rows say how far they got
        if interrupted or self.budget_reached:
            for task in [*todo, *self.in_flight.values()]:
                self.rows[task.id] = self._not_started(task) if task in todo else read_row(task, self.out)
        self._save()
        self.progress.close()
        return Outcome([self.rows[t.id] for t in self.tasks], interrupted, self.budget_reached)

    def _loop(self, todo: deque[Task]) -> None:
        while todo or self.in_flight:
            while todo and len(self.in_flight) < self.pool.capacity():
                if self.max_cost is not None and self._spent() >= self.max_cost:
                    self.budget_reached = True
                    break
                task = todo.popleft()
                self.in_flight[self.pool.submit(self.spec_for(task))] = task
            if self.budget_reached and not self.in_flight:
                return
            for handle in self.pool.wait(list(self.in_flight), WAIT_SECONDS):
                self._ended(self.in_flight.pop(handle), self.pool.result(handle))
            self.progress.draw(self._counts())

    def _ended(self, task: Task, result: dict[str, Any] | str) -> None:
        row = result if isinstance(result, dict) else read_row(task, self.out, status="failed", error=result)
        self.rows[task.id] = row
        self._save()
        self.progress.ended(row, self._counts())

    def _not_started(self, task: Task) -> dict[str, Any]:
        row = read_row(task, self.out)
        if self.budget_reached and row["status"] == "pending":
            row["error"] = (
                f"not started: the batch's budget (--batch-max-cost ${self.max_cost:g}) was reached"
            )
        return row

    def _live_cost(self) -> float:
        """What the runs working now have spent: their run.json, saved at every step."""
        total = 0.0
        for task in self.in_flight.values():
            meta, _ = workspace_meta(self.out / task.id)
            total += meta.totals.cost if meta else 0.0
        return total

    def _spent(self) -> float:
        """The whole batch's cost: every run's, from this call and the earlier ones alike."""
        working = {task.id for task in self.in_flight.values()}
        ended = sum(row.get("cost") or 0.0 for key, row in self.rows.items() if key not in working)
        return float(ended) + self._live_cost()

    def _counts(self) -> Counts:
        working = {task.id for task in self.in_flight.values()}
        waiting = working | {task.id for task in self.todo}
        ended = [row for key, row in self.rows.items() if key not in waiting]
        return Counts(
            total=len(self.tasks),
            done=len(ended),
            running=len(working),
            failed=sum(1 for row in ended if row["status"] in FAILED),
            cost=self._spent(),
        )

    def _save(self) -> None:
        write_results(self.out, ({k: self.rows[t.id].get(k) for k in COLUMNS} for t in self.tasks))
