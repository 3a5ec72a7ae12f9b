"""How far the batch is: a bar redrawn in place on a terminal (done / running / failed, cost so
far, ETA), one plain line per ended run otherwise (a log, CI, a pipe), nothing with -q."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from typing import Any, Literal, TextIO

from agent_runtime.app.batch.results import FAILED
from agent_runtime.engine.run_record import duration

Mode = Literal["bar", "lines", "quiet"]


@dataclass
class Counts:
    total: int
    done: int = 0  # ended, however (finished, stopped, failed), this time or before
    running: int = 0
    failed: int = 0
    cost: float = 0.0  # spent by every run of the batch so far, the running ones included


class Progress:
    def __init__(self, stream: TextIO, mode: Mode, already_done: int = 0, priced: bool = True) -> None:
        self.stream = stream
        self.mode = mode
        self.priced = priced  # the model's prices are known: without them a $0.0000 would be a lie
        self.started = time.monotonic()
        self.already_done = already_done  # skipped as finished: not counted in the ETA's pace
        self._drawn = False

    def draw(self, counts: Counts) -> None:
        if self.mode != "bar":
            return
        width = max(10, min(30, shutil.get_terminal_size((80, 20)).columns - 70))
        filled = int(width * counts.done / counts.total) if counts.total else width
        line = (
            f"[{'#' * filled}{'-' * (width - filled)}] {counts.done}/{counts.total} done · {counts.running} running"
            f" · {counts.failed} failed · {f'${counts.cost:.4f}' if self.priced else 'cost unknown'}"
            f" · ETA {self._eta(counts)}"
        )
        self.stream.write("\r\x1b[2K" + line)
        self.stream.flush()
        self._drawn = True

    def ended(self, row: dict[str, Any], counts: Counts) -> None:
        """One run ended: a line (on a terminal only the failed ones, above the bar)."""
        if self.mode == "quiet" or (self.mode == "bar" and row.get("status") not in FAILED):
            self.draw(counts)
            return
        self._clear()
        self.stream.write(f"[{counts.done}/{counts.total}] {describe(row, self.priced)}\n")
        self.stream.flush()
        self.draw(counts)

    def close(self) -> None:
        self._clear()

    def _clear(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False

    def _eta(self, counts: Counts) -> str:
        ended_now = counts.done - self.already_done
        if ended_now <= 0:
            return "?"
        pace = (time.monotonic() - self.started) / ended_now
        return duration(pace * (counts.total - counts.done))


def describe(row: dict[str, Any], priced: bool = True) -> str:
    """`t3 finished · 1,204 words · 9 sources · citation accuracy 92% · $0.0312 · 41s`"""
    head = f"{row['id']} {row['status']}"
    if row["status"] in FAILED or (row["status"] != "finished" and row.get("error")):
        return f"{head}: {row.get('error') or 'no reason given'}"
    parts = [head]
    if row.get("words") is not None:
        parts.append(f"{row['words']:,} words")
    if row.get("sources") is not None:
        parts.append(f"{row['sources']} sources")
    if row.get("citation_accuracy") is not None:
        parts.append(f"citation accuracy {row['citation_accuracy']:.0%}")
    if row.get("cost") is not None and priced:
        parts.append(f"${row['cost']:.4f}")
    if row.get("seconds") is not None:
        parts.append(duration(row["seconds"]))
    return " · ".join(parts)
