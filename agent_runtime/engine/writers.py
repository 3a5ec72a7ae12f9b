"""Is someone still writing this file? Asked before the runtime reads a person's edit of a dashboard
as final, and before it replaces a dashboard.

Editors and sync tools may save in place: truncate the file, write part, pause (0.1–0.6 s was seen),
write the rest, close. Read during the pause, the edit is half; replaced during the pause, the rest
of it lands in the version the runtime moved away.

On Linux the kernel says when a writer is done: inotify (through `inotify_simple`, a small wrapper
read synchronously here, no thread) reports IN_MODIFY for every write (a truncation too) and
IN_CLOSE_WRITE when a writer closes the file. A name modified and not closed since is mid-save. The
folders are watched, not the files: a rename-save brings another inode under the same name, and the
runtime's own swap (renameat2 exchange) moves the old inode, with the writer still on it, into
.trash/ — the move's cookie carries "still being written" to its new name there.

Elsewhere (or when inotify cannot be had: no instances left, an overflowed queue, a name not seen
since the watch began) a file is taken as saved once it has not changed for QUIET seconds: longer
than one such pause.

Every wait has a limit (WAIT_LIMIT): a writer that never closes (a crashed editor keeping the file
open) must not hang the run. Past it the runtime goes on and says so (`on_expired`, the event log).
"""

from __future__ import annotations

import sys
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.engine.file_key import file_key

# Longer than the longest pause seen inside one in-place save (0.6 s), with room.
QUIET = 1.0
LOOK = 0.1  # how often the quiet wait looks at the file
WAIT_LIMIT = 5.0  # the longest wait for one writer, then the runtime goes on (and logs it)

def quiet_wait(path: Path, deadline: float) -> bool:
    """Wait until the file has not changed for QUIET seconds: True; False at `deadline`."""
    key, since = file_key(path), time.monotonic()
    while time.monotonic() - since < QUIET:
        if time.monotonic() >= deadline:
            return False
        time.sleep(LOOK)
        later = file_key(path)
        if later != key:
            key, since = later, time.monotonic()
    return True


def _inotify() -> Any:
    """inotify_simple's module, or None where there is no inotify (not Linux, not installed)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import inotify_simple
    except ImportError:  # pragma: no cover - a dependency on Linux; a broken install falls back
        return None
    return inotify_simple


class Writers:
    """Knows, for the files of a few watched folders, whether a writer is mid-save.

    `wait(path, deadline)` returns True once no one is writing the file, False when `deadline`
    passed first (and calls `on_expired(path, seconds)`). Thread-safe; `close()` frees the watch."""

    def __init__(self, on_expired: Callable[[Path, float], None] | None = None) -> None:
        self.on_expired = on_expired
        self._lock = threading.Lock()
        self._folders: dict[Path, int] = {}  # watched folder → watch descriptor
        self._paths: dict[int, Path] = {}
        self._writing: dict[tuple[int, str], bool] = {}  # (wd, name) → modified and not closed since
        self._moving: dict[int, bool | None] = {}  # a rename's cookie → the state it carries
        # renameat2's exchange reports the move in (MOVED_TO name) before the move out (MOVED_FROM
        # name): the state the move in displaced is the one the move out carries.
        self._displaced: tuple[tuple[int, str], bool | None] | None = None
        self._notify: Any = None
        module = _inotify()
        if module is not None:
            try:
                self._notify = module.INotify()
            except OSError:  # no inotify instance left (fs.inotify.max_user_instances): settle times
                self._notify = None
            else:
                self._flags = module.flags
                self._finalizer = weakref.finalize(self, self._notify.close)

    @property
    def kernel(self) -> bool:
        """True when the kernel reports writers (inotify); False: the quiet wait decides."""
        return self._notify is not None

    def watch(self, folder: Path) -> None:
        """Watch the files of `folder` from now on (idempotent; a folder that cannot be watched is left
        to the quiet wait)."""
        if self._notify is None:
            return
        with self._lock:
            if folder in self._folders:
                return
            f = self._flags
            mask = f.MODIFY | f.CLOSE_WRITE | f.MOVED_FROM | f.MOVED_TO | f.CREATE | f.DELETE | f.ONLYDIR
            try:
                wd = self._notify.add_watch(folder, mask)
            except OSError:  # gone, not a folder, or no watch left (fs.inotify.max_user_watches)
                return
            self._folders[folder] = wd
            self._paths[wd] = folder

    def wait(self, path: Path, deadline: float) -> bool:
        """Wait until no one is writing `path` (True) or until `deadline` (False, reported)."""
        started = time.monotonic()
        while True:
            state = self.state(path)
            if state is False:
                return True
            remaining = deadline - time.monotonic()
            if state is None:  # not known from the kernel: the quiet wait decides
                settled = remaining > 0 and quiet_wait(path, deadline)
            elif remaining > 0:
                self._drain(timeout=remaining)
                continue
            else:
                settled = False
            if not settled and self.on_expired is not None:
                self.on_expired(path, round(time.monotonic() - started, 3))
            return settled

    def close(self) -> None:
        if self._notify is not None:
            self._finalizer()
            self._notify = None

    # -- the kernel's reports ------------------------------------------------------------------
    def state(self, path: Path) -> bool | None:
        """True: modified and not closed by its writer; False: no one is writing it; None: unknown."""
        if self._notify is None:
            return None
        self._drain(timeout=0)
        with self._lock:
            wd = self._folders.get(path.parent)
            if wd is None:
                return None
            return self._writing.get((wd, path.name))

    def _drain(self, timeout: float) -> None:
        """Take in what the kernel reported (waiting up to `timeout` seconds for a first report)."""
        with self._lock:
            if self._notify is None:
                return
            try:
                events = self._notify.read(timeout=max(0, round(timeout * 1000)))
            except OSError:
                events = []
            for event in events:
                self._take(event.wd, event.mask, event.cookie, event.name)

    def _take(self, wd: int, mask: int, cookie: int, name: str) -> None:
        f = self._flags
        if mask & f.Q_OVERFLOW:  # reports were lost: nothing is known until the next ones
            self._writing.clear()
            self._moving.clear()
            return
        if mask & f.IGNORED:  # the folder was removed: watch it again when it is back
            folder = self._paths.pop(wd, None)
            if folder is not None:
                self._folders.pop(folder, None)
            self._writing = {k: v for k, v in self._writing.items() if k[0] != wd}
            return
        if mask & f.ISDIR:
            return
        here = (wd, name)
        displaced, self._displaced = self._displaced, None
        if mask & f.MODIFY:
            self._writing[here] = True
        elif mask & f.CLOSE_WRITE:
            # With two writers at once the first close clears it; the other's next write sets it again.
            self._writing[here] = False
        elif mask & f.MOVED_FROM:
            # A writer may still hold it (None: unknown).
            self._moving[cookie] = displaced[1] if displaced and displaced[0] == here else self._writing.get(here)
            self._writing[here] = False  # nothing is under this name now
        elif mask & f.MOVED_TO:
            # From a watched folder: its state. From anywhere else: a file written whole (a rename-save).
            carried = self._moving.pop(cookie, False)
            self._displaced = (here, self._writing.get(here))
            if carried is None:
                self._writing.pop(here, None)
            else:
                self._writing[here] = carried
        elif mask & (f.CREATE | f.DELETE):
            # A new file's writes come as MODIFY; a deleted name has no writer. (A creator that pauses
            # before its first byte is not seen: an empty file reads as an empty dashboard.)
            self._writing[here] = False
        if len(self._moving) > 1000:  # a move out of the watched folders never gets its pair
            self._moving.clear()

