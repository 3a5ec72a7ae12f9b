"""Atomic file writes: a reader (or a crash) sees the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from agent_runtime.errors import StorageError
from sandbox.redaction import redact_secrets

# Why a write failed, for the errors after which no write in the workspace can be expected to work.
_STORAGE_FAILURES = {
    errno.ENOSPC: "no space left on the disk",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}
# The temp files of atomic writes: `.NAME.<8 random characters>.tmp` (tempfile.mkstemp's).
_TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


def is_temp_name(name: str) -> bool:
    """True for the name of an atomic write's temp file (in flight, or left by a killed writer)."""
    return _TEMP_NAME.match(name) is not None


def storage_error(exc: OSError, path: Path) -> StorageError | None:
    """A StorageError naming the folder of `path` and the cause, if `exc` is a failing disk's."""
    cause = _STORAGE_FAILURES.get(exc.errno or 0)
    if cause is None:
        return None
    folder = path if path.is_dir() else path.parent
    name = errno.errorcode.get(exc.errno or 0, "")
    return StorageError(f"cannot write in {folder}: {cause} ({name})")


def fsync_directory(directory: Path) -> None:
    """Make a rename inside `directory` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """Replace `path` with `text` (UTF-8, newlines as given) through `atomic_write_bytes`, with any
    key redacted first (sandbox/redaction.py: no key is ever written down). A full, read-only or
    unwritable disk raises StorageError (the old file is left as it was)."""
    if not isinstance(text, str):  # a caller's bug, said as one before anything is touched
        raise TypeError(f"atomic_write_text writes text, not {type(text).__name__}")
    path = Path(path)
    data = redact_secrets(text).encode("utf-8")
    try:
        atomic_write_bytes(path, data, durable=durable)
    except OSError as exc:
        raise storage_error(exc, path) or exc from exc


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True, shared: bool = False) -> None:
    """Replace `path` with `data`: temp file in the same folder, fsync, `os.replace`, fsync the folder.

    `os.replace` swaps the directory entry, so a symlink planted at `path` is replaced,
    never followed: its target is not written. `durable=False` skips the fsyncs for files
    that only need to survive a killed process, not a power cut (the OS keeps the data).
    `shared`: the file gets the permissions the umask gives a new file (an export, made to be
    shared), not mkstemp's private 0600 (the workspace's files). An OSError propagates, and the
    old file is left as it was; the temp file is removed.
    """
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    if shared:
        try:
            os.fchmod(fd, 0o666 & ~_umask())
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
            raise
    write_new_file(
        fd,
        data,
        durable=durable,
        discard=lambda: os.unlink(tmp_name),
        then=lambda: os.replace(tmp_name, path),
    )
    if durable:
        fsync_directory(path.parent)


def _umask() -> int:
    """The process's umask, read without changing it (os.umask would, for a moment, for every
    thread); 022 where /proc does not say."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def write_new_file(
    fd: int,
    data: bytes,
    *,
    durable: bool,
    discard: Callable[[], object],
    then: Callable[[], object] | None = None,
) -> None:
    """Write `data` into the new file open at `fd`, close it (after an
    fsync if `durable`), then call `then` (the `os.replace` of a temp file). If any of it fails or
    is interrupted, `discard` removes the file (an OSError doing so is ignored) and the failure
    propagates: no half-written file is left behind. The caller opens the file and names it in
    `discard`, so how it is created (mkstemp, or O_EXCL|O_NOFOLLOW through a folder descriptor)
    stays the caller's."""
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if then is not None:
            then()
    except BaseException:
        with contextlib.suppress(OSError):
            discard()
        raise
