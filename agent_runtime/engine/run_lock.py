"""One run per workspace: an exclusive lock on `.runtime/lock`, held by the process that runs.

The kernel releases it when the process ends, however it ends (SIGKILL included), so a dead run
never leaves it stuck; `try_lock` lets a reader (the view, a batch) ask without waiting.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import portalocker

from agent_runtime.engine.commands import resume_command
from agent_runtime.errors import WorkspaceError

LOCK = "lock"  # the lock file's name in the workspace's .runtime/


def try_lock(fd: int, shared: bool = False) -> bool:
    """A non-blocking lock on the open file `fd` (portalocker: flock on POSIX, the Windows API
    there): True when taken, False when another process holds a conflicting one. A file system
    without locks raises portalocker.LockException."""
    kind = portalocker.LockFlags.SHARED if shared else portalocker.LockFlags.EXCLUSIVE
    try:
        portalocker.lock(fd, kind | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.AlreadyLocked:
        return False
    return True


class RunLock:
    """The exclusive flock on `path` (a workspace's `.runtime/lock`) for as long as the run works."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise WorkspaceError(
                f"cannot use the workspace {self.path.parent.parent}: {exc.strerror or exc}"
            ) from None
        workspace = self.path.parent.parent
        try:
            taken = try_lock(fd)
        except portalocker.LockException as exc:
            os.close(fd)
            raise WorkspaceError(
                f"cannot lock the workspace {workspace}: this file system does not support file locks "
                f"({exc}); use a folder on a local disk"
            ) from None
        if not taken:
            try:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            except OSError:
                holder = "another process"
            os.close(fd)
            raise WorkspaceError(
                f"{workspace} is in use by a run still working ({holder}); wait for it to end or stop it "
                f"(Ctrl-C, or kill its process), then `{resume_command(workspace)}`"
            ) from None
        with contextlib.suppress(OSError):  # who holds it, for the message above (best effort)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"process {os.getpid()}".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None
