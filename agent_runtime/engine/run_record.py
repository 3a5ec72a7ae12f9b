"""The run's record on disk: its metadata (`.runtime/run.json`) and its append-only event log
(`.runtime/events.jsonl`).

run.json is replaced atomically at every step, so a killed process leaves the last complete
version. The event log is appended one line per model call and per action and flushed at once:
a killed process loses nothing written before it; a reader skips a torn last line.
"""

from __future__ import annotations

import json
import os
import reprlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_runtime.engine.replies import ToolMode, repair_surrogates
from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text, storage_error
from sandbox.redaction import redact

# awaiting_*: the run stopped resumably to wait for a person (answers to its questions, a review of
# its plan); `resume` goes on.
RunStatus = Literal[
    "new", "running", "finished", "stopped", "interrupted", "error", "awaiting_answers", "awaiting_review"
]
WAITING_STATUSES = ("awaiting_answers", "awaiting_review")


def duration(seconds: float) -> str:
    """Elapsed time as people read it: 45s, 3m07s."""
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Totals(BaseModel):
    """What the run has spent so far, across every resume."""

    steps: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    elapsed_seconds: float = 0.0
    invalid_replies: int = 0
    compactions: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class RunMeta(BaseModel):
    """What any agent run records of itself. The run's input (`title`, the task as given, and an
    optional `purpose`), its state and totals, the finishing action's answer (`result`) and the
    figures the run computed at its end (`summary`, untyped) are the engine's. What a domain records
    besides (the research: its report's path, problems and refusals, agent_runtime/domain/report_record)
    lives in `extra`, kept at the top level of run.json as before: a run.json written by an earlier
    version loads as it is, and one written now is read by it."""

    model_config = ConfigDict(extra="allow")

    title: str
    purpose: str | None = None
    created_at: str = Field(default_factory=now_iso)
    updated_at: str = Field(default_factory=now_iso)
    status: RunStatus = "new"
    stop_reason: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    totals: Totals = Field(default_factory=Totals)
    result: str | None = None
    summary: dict[str, Any] = Field(default_factory=dict)
    resumes: int = 0
    # Model name → the context window its endpoint enforces, learned from a refusal for length:
    # smaller than --context-window, it holds for the rest of the run and after a resume.
    context_windows: dict[str, int] = Field(default_factory=dict)
    # With --tool-mode auto: the mode the run switched to (the model wrote its actions as JSON text).
    tool_mode: ToolMode | None = None

    @property
    def extra(self) -> dict[str, Any]:
        """The fields a domain keeps in the record (typed by the domain, stored as JSON values)."""
        extra = self.__pydantic_extra__
        assert extra is not None  # extra="allow": always a dict
        return extra


def load_meta(path: Path) -> RunMeta | None:
    """The stored metadata, or None when the file is missing (resume falls back to the state files)."""
    try:
        return RunMeta.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValidationError, ValueError) as exc:
        raise WorkspaceError(
            f"{path} is not valid run metadata ({type(exc).__name__}); move it aside, then resume from the "
            "workspace's files alone with --new-settings and the settings the run should use"
        ) from None


def save_meta(path: Path, meta: RunMeta) -> None:
    meta.updated_at = now_iso()
    # what the runtime says about itself: a stop reason quoting a URL's credentials, a base URL's
    atomic_write_text(path, redact(meta.model_dump_json(indent=2)) + "\n", durable=False)


EventListener = Callable[[dict[str, Any]], None]
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


class EventLog:
    """Append-only JSON lines; listeners (the CLI's live view) see every event as it is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.listeners: list[EventListener] = []
        self._handle: BinaryIO | None = None
        self._writing = threading.Lock()  # a line is never split by another thread's (a worker's)

    def append(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Write one event. Whatever the fields hold, this never fails on them: the log is how a
        run is understood afterwards, and a field a model wrote must not end the run."""
        event = {"time": now_iso(), "t": round(time.time(), 3), "event": kind, **fields}
        try:
            line = json.dumps(event, ensure_ascii=False, default=str, skipkeys=True)
        except (ValueError, RecursionError):  # a circular or absurdly deep value
            event = {**{k: event[k] for k in ("time", "t", "event")}, "fields": reprlib.repr(fields)}
            line = json.dumps(event, ensure_ascii=False)
        masked = redact(line)  # the serialized line: values turned to text by default=str too
        if masked != line:
            line, event = masked, json.loads(masked)
        repaired = repair_surrogates(line)
        if repaired != line:  # a lone surrogate cannot be written as UTF-8: U+FFFD stands in for it
            line, event = repaired, json.loads(repaired)
        # One event, one line, for every reader: json.dumps leaves the separators other than \n that
        # str.splitlines and JavaScript break lines at unescaped (they occur only inside strings).
        line = line.translate(_LINE_BREAKS)
        try:
            with self._writing:
                self._write((line + "\n").encode("utf-8"))
        except OSError as exc:
            self.close()  # reopened by the next append, which first ends a torn line
            raise storage_error(exc, self.path) or exc from exc
        for listener in self.listeners:
            listener(event)
        return event

    def _write(self, data: bytes) -> None:
        # Unbuffered: a line is on its way to the disk when append returns, and a write that
        # fails (a full disk) leaves nothing in a buffer that a later flush would write half of.
        if self._handle is None:
            self._handle = self.path.open("ab", buffering=0)
            if self._handle.tell() and not _ends_with_newline(self.path):
                self._handle.write(b"\n")  # a line torn by a failed write stays alone on its line
        while data:
            written = self._handle.write(data)
            data = data[written or 0 :]

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    """Every complete event; a line torn by a killed process is skipped."""
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    with handle:
        for line in handle:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                yield event
