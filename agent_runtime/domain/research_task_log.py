"""The research tasks of a run as its event log tells them: which were delegated, and how each
ended (for `inspect`, and for the resume note of tasks a stop cut short)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

RESEARCH_AGENT_PREFIX = "research-"  # research tasks are the agents research-1, research-2…


@dataclass
class ResearchTaskRecord:
    """One research task as the event log tells it (`inspect`, the resume note)."""

    agent: str
    task: int
    question: str
    notes_file: str
    depth: str
    started: str
    outcome: str | None = None  # None: no agent_ended (the run stopped during it)
    steps: int | None = None
    reason: str = ""


class ResearchTaskTracker:
    """The research tasks of the events seen so far, one event at a time: a reader streaming a log
    of hundreds of MB keeps the task records, never the events."""

    def __init__(self) -> None:
        self._records: dict[str, ResearchTaskRecord] = {}

    def add(self, event: dict[str, Any]) -> None:
        agent = str(event.get("agent", ""))
        if not agent.startswith(RESEARCH_AGENT_PREFIX):
            return
        if event.get("event") == "agent_started":
            self._records[agent] = ResearchTaskRecord(
                agent, int(event.get("task") or 0), str(event.get("question", "")),
                str(event.get("notes_file", "")), str(event.get("depth", "")), str(event.get("time", "")),
            )  # fmt: skip
        elif event.get("event") == "agent_ended" and agent in self._records:
            record = self._records[agent]
            record.outcome = str(event.get("outcome"))
            record.steps = event.get("steps") if isinstance(event.get("steps"), int) else None
            record.reason = str(event.get("reason") or "")

    @property
    def records(self) -> list[ResearchTaskRecord]:
        """In the order they started (a name started again keeps its first place)."""
        return list(self._records.values())


def research_tasks(events: Iterable[dict[str, Any]]) -> list[ResearchTaskRecord]:
    """Every research task in the events, in the order they started, with how each ended."""
    tracker = ResearchTaskTracker()
    for event in events:
        tracker.add(event)
    return tracker.records
