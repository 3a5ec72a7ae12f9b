"""One scripted endpoint that every run of a batch shares, answering each request from the
request alone: which run asks (its title, shown in the request), and how far it is (the
`progress k/N` its current dashboard shows). It also records, per run, how many of its requests
are in flight at once: two means two processes worked on one run."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, call, reply
from tests.support.cli import write_cited_report

PROGRESS = re.compile(r"progress (\d+)/")


@dataclass
class BatchScript:
    out: Path
    titles: dict[str, str]  # title → task id (its workspace's name under `out`)
    steps: int = 3  # dashboard updates before the report
    delay: float = 0.0  # seconds each answer takes, as a model would
    in_flight: Counter[str] = field(default_factory=Counter)
    most_at_once: Counter[str] = field(default_factory=Counter)
    requests: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def task_of(self, shown: str) -> str:
        found = [task for title, task in self.titles.items() if title in shown]
        assert len(found) == 1, f"cannot tell which run asks: {found}"
        return found[0]

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> Reply:
        shown = json.dumps(messages, ensure_ascii=False)
        task = self.task_of(shown)
        with self.lock:
            self.in_flight[task] += 1
            self.requests[task] += 1
            self.most_at_once[task] = max(self.most_at_once[task], self.in_flight[task])
        try:
            time.sleep(self.delay)
            done = max((int(n) for n in PROGRESS.findall(shown)), default=0)
            if done >= self.steps:
                name = write_cited_report(self.out / task)
                return reply(call("all_finished", result=f"done {task}", report_path=name))
            # Words of its own at each step: a model rewriting one dashboard with a word changed is
            # a loop the runtime stops (engine/repeats.py), and this one is making progress.
            fresh = " ".join(f"finding{done + 1}{letter}" for letter in "abcdefgh")
            content = f"# Current\n\nprogress {done + 1}/{self.steps}\n\n{fresh}\n"
            return reply(call("update_current_dashboard", content=content))
        finally:
            with self.lock:
                self.in_flight[task] -= 1


def progress_writes(workspace: Path) -> list[int]:
    """The progress value of every dashboard update in the run's event log, in order."""
    from agent_runtime.engine.run_record import read_events

    found = []
    for event in read_events(workspace / ".runtime" / "events.jsonl"):
        if event.get("event") == "action" and event.get("action") == "update_current_dashboard":
            found += [
                int(n) for n in PROGRESS.findall(json.dumps(event.get("arguments"), ensure_ascii=False))
            ]
    return found


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def results(out: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row for row in rows}
