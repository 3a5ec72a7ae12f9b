"""What a run's own files say about it, for the parts of the app that watch runs from outside
(the live view, `batch`, `serve`): whether a process is working in the workspace now, the citation
audit's figures of its report, and the events its log gained since the last look (EventTail). Read only, from files only: nothing here imports the run's engine
beyond the workspace's names and its lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import portalocker

from agent_runtime.engine.run_lock import LOCK, try_lock
from agent_runtime.engine.workspace import RUNTIME

_PID = re.compile(r"process (\d+)")


def utf8(name: str) -> bool:
    """False for a name that is not valid UTF-8 on disk (Python decodes it with surrogateescape)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- is it running? ------------------------------------------------------------------------------
@dataclass(frozen=True)
class LockState:
    held: bool
    pid: int | None  # the process the lock file names (None when it names none)


def lock_state(workspace: Path) -> LockState:
    """Whether a run holds the workspace's lock: a non-blocking shared flock on `.runtime/lock`,
    released at once, fails while a run holds its exclusive one (agent_runtime.engine.run_lock.RunLock).
    The file is opened read-only and never created: the view changes nothing in the workspace."""
    path = os.path.join(workspace, RUNTIME, LOCK)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return LockState(False, None)  # never run, or not readable: nothing to stop
    try:
        try:
            taken = try_lock(fd, shared=True)
        except portalocker.LockException:
            return LockState(False, None)  # a file system without locks: no run can hold one
        if not taken:
            named = _PID.search(os.pread(fd, 200, 0).decode("utf-8", "replace"))
            return LockState(True, int(named.group(1)) if named else None)
        portalocker.unlock(fd)
        return LockState(False, None)
    finally:
        os.close(fd)


def holds_lock_file(pid: int, workspace: Path) -> bool:
    """True if process `pid` has the workspace's lock file open: the check before it is sent a
    signal, so that a stale pid in the file (the holder writes it just after locking) never gets
    another process stopped. Linux shows a process's open files in /proc; elsewhere, a process of
    that pid must at least exist."""
    if pid <= 1 or pid == os.getpid():
        return False
    try:
        lock = os.stat(workspace / RUNTIME / LOCK, follow_symlinks=False)
    except OSError:
        return False
    fds = Path(f"/proc/{pid}/fd")
    if not Path("/proc/self/fd").is_dir():
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    try:
        for link in fds.iterdir():
            with contextlib.suppress(OSError):
                opened = os.stat(link)  # follows the /proc link to the open file itself
                if (opened.st_dev, opened.st_ino) == (lock.st_dev, lock.st_ino):
                    return True
    except OSError:  # gone, or another user's process: not ours to signal
        return False
    return False


# -- a run's figures ---------------------------------------------------------------------------
_COUNTS = ("checked", "supported", "weak", "unsupported", "effective_citations", "unverified")


def _count(value: object) -> int | None:
    # bool is an int to Python, not a count
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def citation_figures(summary: dict[str, Any]) -> dict[str, Any] | None:
    """The citation audit's figures of a finished report, from run.json's `summary.citations`
    (actions/finish.py and `audit` write them): the verdict counts, citation accuracy, effective
    citations, how many could not be verified and what checked them. None when the run has none
    (not finished yet, or from before the audit) or they are not counts; a damaged field is None."""
    given = summary.get("citations")
    if not isinstance(given, dict) or _count(given.get("checked")) is None:
        return None
    figures: dict[str, Any] = {key: _count(given.get(key)) for key in _COUNTS}
    if figures["unverified"] is None and figures["supported"] is not None:
        figures["unverified"] = max(0, figures["checked"] - figures["supported"])
    accuracy = given.get("citation_accuracy")
    if isinstance(accuracy, bool) or not isinstance(accuracy, int | float) or not 0 <= accuracy <= 1:
        accuracy = None  # nothing checked (null), or not a share
    figures["citation_accuracy"] = float(accuracy) if accuracy is not None else None
    checked_by = given.get("checked_by")
    figures["checked_by"] = checked_by[:200] if isinstance(checked_by, str) and utf8(checked_by) else None
    return figures


def unverified_note(status: str, figures: dict[str, Any] | None) -> str | None:
    """The line "finished with N citations that could not be verified", for a finished run that has some."""
    unverified = figures.get("unverified") if figures else None
    if status != "finished" or not unverified:
        return None
    return f"finished with {unverified} citation{'s' if unverified != 1 else ''} that could not be verified"


CHUNK_BYTES = 1_000_000  # one read of the event log: a long log is read in a few large batches


class EventTail:
    """The complete events appended to a JSON-lines file since the last read."""

    def __init__(self, path: Path, offset: int = 0) -> None:
        self.path = path
        self.offset = max(0, offset)

    def read(self) -> tuple[list[dict[str, Any]], bool]:
        """(new events, whether the file was replaced and reading started again from its start)."""
        try:
            size = os.stat(self.path).st_size
        except OSError:
            return [], False  # not there yet
        reset = size < self.offset  # an append-only log never shrinks: this is another file
        if reset:
            self.offset = 0
        if size == self.offset:
            return [], reset
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                data = handle.read(min(size - self.offset, CHUNK_BYTES))
        except OSError:
            return [], reset
        end = data.rfind(b"\n")
        if end < 0:
            if len(data) == CHUNK_BYTES:  # one line longer than a chunk: no event is that long, skip it
                self.offset += len(data)
            return [], reset  # the last line is still being written
        self.offset += end + 1
        events = []
        for line in data[:end].split(b"\n"):
            try:
                event = json.loads(line)
            except ValueError:
                continue  # a line torn by a killed run (the next append starts a new line)
            if isinstance(event, dict):
                events.append(event)
        return events, reset

    def start_near_end(self, keep: int) -> int:
        """Move to the first line that starts within the last `keep` bytes of the file, when it is
        longer; returns the offset moved to (the bytes skipped, counted from the start)."""
        try:
            with self.path.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size <= self.offset + keep:
                    return 0
                start = size - keep
                handle.seek(start - 1)  # the byte before: a newline there means a line starts here
                while True:
                    block = handle.read(65_536)
                    end = block.find(b"\n")
                    if end >= 0:
                        self.offset = handle.tell() - len(block) + end + 1
                        return self.offset
                    if not block:  # no line starts in the rest: it is one line still being written
                        self.offset = size
                        return size
        except OSError:
            return 0

    @property
    def more(self) -> bool:
        try:
            return os.stat(self.path).st_size > self.offset
        except OSError:
            return False
