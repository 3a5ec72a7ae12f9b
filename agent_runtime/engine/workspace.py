"""The workspace folder: everything a run knows between steps lives here, in files.

The engine knows only the generic part; what else a workspace holds is the `Layout` the domain
hands it (the research's is agent_runtime/domain/layout.py):

```
WORKSPACE/
  <state files>          the files the agent's context is rebuilt from (Layout.state_files): read
                         once no one is writing them, replaced atomically, every version a person
                         saved kept
  <folders>              created with the workspace, recreated on resume (Layout.folders)
  .runtime/run.json      run metadata: settings, status, totals
  .runtime/events.jsonl  append-only event log, one JSON object per line
  .runtime/observations/ full text of observations that were cut or compacted out of the context
  .runtime/lock          held (flock) by the one process running in this workspace
  .runtime/<record>      which version of each state file the runtime itself wrote last
                         (Layout.versions_record)
  .trash/                deleted files, and every version of a state file a person edited that the
                         runtime replaced (`<UTC time>-<name>`): no save of a person's is ever lost
```

A new run takes a new or empty folder only: a folder of the user's own files is never adopted (the
File agent could overwrite or trash them).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import portalocker

from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.writers import WAIT_LIMIT, Key, Writers, file_key, quiet_wait
from agent_runtime.errors import StateEditedError, WorkspaceError
from agent_runtime.language import text as language_text
from sandbox import atomic_write_text, is_temp_name, storage_error
from sandbox.safe_write import fsync_directory

RUNTIME = ".runtime"
TRASH = ".trash"
LOCK = "lock"
OBSERVATIONS = f"{RUNTIME}/observations"


@dataclass(frozen=True)
class Layout:
    """What an agent keeps in its workspace besides the runtime's own files, handed to the engine
    by the domain that wires the run (the engine names none of it)."""

    # The files the context is rebuilt from, in the order they are shown: read once no one is
    # writing them, written only whole (`write_state`), a person's edit noticed and kept.
    state_files: tuple[str, ...] = ()
    # Folders a new workspace starts with and a resumed one gets back (a person may delete them).
    folders: tuple[str, ...] = ()
    # In .runtime/: which version of each state file the runtime itself wrote last (named by the
    # domain: workspaces already on disk keep their record).
    versions_record: str = "state_versions.json"


# Of a state file a person edited, the characters a note or an observation shows (the whole text
# is in the file, or comes with the state files at the head of the conversation from the next step).
EDITED_TEXT_CHARS = 4_000


def framed(name: str, text: str, whole: str) -> str:
    """A state file's text for a note or an observation, bounded, between the marker lines the
    request puts around the state files; `whole` says where the rest is."""
    text = text.strip()
    if len(text) > EDITED_TEXT_CHARS:
        text = f"{text[:EDITED_TEXT_CHARS]}\n[… {len(text) - EDITED_TEXT_CHARS:,} more characters; {whole}]"
    return f"<<< {name} >>>\n{text}\n<<< end of {name} >>>"


def kept_edit_note(code: str | None, name: str, replaced: Replaced) -> str | None:
    """What the model is told, in the run's language, of a person's save that a write of the
    runtime's replaced without the model having seen it (kept in .trash/); None when there was none."""
    if replaced.unseen_text is None or replaced.kept is None:
        return None
    text = framed(name, replaced.unseen_text, f"the whole text is in {replaced.kept}")
    return language_text(code, "note.edit_kept", name=name, kept=replaced.kept, text=text)


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
    """One run per workspace: an exclusive flock on `.runtime/lock`. The kernel releases it when
    the process ends, however it ends (SIGKILL included), so a dead run never leaves it stuck."""

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


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def settled_read(
    path: Path, known: Collection[Key | None] = (), writers: Writers | None = None, limit: float = WAIT_LIMIT
) -> tuple[str, Key | None]:
    """The text of a file a person may be saving at this moment, and the key of the version read.

    A version in `known` (one read or written whole before) is read at once. Any other is read once
    no one is writing it (`Writers.wait`: the writer closed it, or, without inotify, it has not changed
    for a while), and read again if it changed while it was read; after `limit` seconds, as it is."""
    deadline = time.monotonic() + limit
    key = file_key(path)
    settled = key in known and not (writers is not None and writers.state(path))
    while True:
        if not settled:
            settled = writers.wait(path, deadline) if writers else quiet_wait(path, deadline)
            key = file_key(path)
        text = _read(path)
        after = file_key(path)
        if after == key or time.monotonic() >= deadline:
            # Changed while read past the deadline: the key before the read is kept, so that the
            # version on disk is never taken for the one read.
            return text, key
        key, settled = after, False


# renameat2(2)'s RENAME_EXCHANGE swaps two names in one step: the new state file takes the place of
# the old one, and the old one (whatever it is at that instant, even a file an editor is still
# writing) lands in the trash. Where the system or the file system cannot (macOS, some network
# file systems), the old version is linked or copied to the trash first and then replaced.
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EPERM}


@functools.cache
def _renameat2() -> Any:
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    function.restype = ctypes.c_int
    return function


def exchange_files(a: Path, b: Path) -> bool:
    """Swap the files at `a` and `b` atomically; False where that cannot be done (nothing changed).
    FileNotFoundError when one of them is missing."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(b))


@dataclass(frozen=True)
class Version:
    """One version of a state file: its file's key and the digest of its text (as read back)."""

    key: Key | None
    digest: str


@dataclass(frozen=True)
class Replaced:
    """What a state file write replaced. `kept`: where the replaced version is kept in .trash/
    (workspace-relative), None when the runtime had written it itself (or there was none).
    `unseen_text`: that version's text when it is a person's save the model never saw (one that fell
    between the check and the swap, or came during the summarizing call): nobody merged it."""

    kept: str | None = None
    unseen_text: str | None = None


class Workspace:
    """A workspace folder as the engine knows it: the runtime's own files, the lock, the trash,
    and the state files of `layout` (none by default: a workspace opened only for its run record
    or its event log)."""

    def __init__(self, root: Path, layout: Layout = Layout()) -> None:
        self.root = Path(root).expanduser().resolve()
        self.layout = layout
        # Each state file as the runtime last wrote it or read it into the context: a file that no
        # longer matches was edited from outside (a person steering the run).
        self._seen: dict[str, Version] = {}
        # Each state file as the runtime itself last wrote it (also across processes: .runtime/):
        # replacing any other version keeps that version in .trash/.
        self._own: dict[str, Version] | None = None
        self._settled: dict[str, Key | None] = {}  # the key of the last version read settled
        # Who is still writing a state file (agent_runtime/engine/writers), watched from the first
        # state read or write; `on_stuck_writer(file, seconds)` hears of a wait that reached
        # `writer_wait_limit` (the run logs it).
        self._writers: Writers | None = None
        self.writer_wait_limit = WAIT_LIMIT
        self.on_stuck_writer: Callable[[str, float], None] | None = None

    # -- locations ---------------------------------------------------------------------------
    @property
    def runtime_dir(self) -> Path:
        return self.root / RUNTIME

    @property
    def run_file(self) -> Path:
        return self.runtime_dir / "run.json"

    @property
    def events_file(self) -> Path:
        return self.runtime_dir / "events.jsonl"

    @property
    def observations_dir(self) -> Path:
        return self.runtime_dir / "observations"

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    # -- life cycle --------------------------------------------------------------------------
    def exists(self) -> bool:
        """True when the folder holds a run: its record, or one of its state files."""
        return self.run_file.is_file() or any((self.root / name).is_file() for name in self.layout.state_files)

    def _skeleton(self) -> set[str]:
        """The folders a creation makes before anything else (empty if it was killed then)."""
        return {*self.layout.folders, RUNTIME, OBSERVATIONS}

    def holds_nothing(self) -> bool:
        """True when the folder is absent, empty, or holds only what a creation killed before its
        run.json leaves (the empty skeleton folders, the lock, temp files of atomic writes)."""
        if not self.root.exists():
            return True
        if not self.root.is_dir():
            return False
        skeleton = self._skeleton()
        for folder, dirs, files in os.walk(self.root):
            relative = Path(folder).relative_to(self.root).as_posix()
            if relative != "." and relative not in skeleton:
                return False
            if any(not is_temp_name(name) and not (relative == RUNTIME and name == LOCK) for name in files):
                return False
            if any(os.path.islink(Path(folder) / name) for name in dirs):
                return False
        return True

    def lock(self) -> RunLock:
        """Take the workspace for this process (creating `.runtime/` if needed); WorkspaceError if
        another run holds it."""
        try:
            self.runtime_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            failing_disk = storage_error(exc, self.root)
            raise WorkspaceError(
                str(failing_disk or f"cannot use {self.root}: {exc.strerror or exc}")
            ) from None
        lock = RunLock(self.runtime_dir / LOCK)
        lock.acquire()
        return lock

    def remove_stale_temp_files(self) -> list[str]:
        """Delete the temp files that killed writers left (call holding the lock: then no writer is
        alive). Returns their workspace-relative paths."""
        removed = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d != TRASH]
            for name in files:
                if is_temp_name(name):
                    path = Path(folder) / name
                    with contextlib.suppress(OSError):
                        path.unlink()
                        removed.append(path.relative_to(self.root).as_posix())
        return removed

    def lay_out(self, state_texts: Mapping[str, str]) -> None:
        """Make a new workspace: the layout's folders, and each state file with its first text
        (`state_texts`: the domain's templates). Never overwrites a file: on a resume it only
        writes what a killed creation had not written yet."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            for folder in (*self.layout.folders, RUNTIME, OBSERVATIONS):
                (self.root / folder).mkdir(exist_ok=True)
            for name in self.layout.state_files:
                target = self.root / name
                if not target.exists():
                    atomic_write_text(target, state_texts[name])
                    self._remember_own(name, Version(file_key(target), _digest(_read(target))))
        except OSError as exc:
            failing_disk = storage_error(exc, self.root)
            raise WorkspaceError(
                str(failing_disk or f"cannot create the workspace {self.root}: {exc.strerror or exc}")
            ) from None

    def ensure_layout(self) -> None:
        """Recreate the folders a resumed workspace may have lost (a person may delete them)."""
        try:
            for folder in (*self.layout.folders, RUNTIME, OBSERVATIONS):
                (self.root / folder).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WorkspaceError(f"cannot use the workspace {self.root}: {exc.strerror or exc}") from None

    # -- state files -------------------------------------------------------------------------
    def read_text(self, name: str) -> str:
        """A file's text ("" when missing); a state file's once it has stopped changing."""
        if name in self.layout.state_files:
            return self._settled_text(name)[0]
        return _read(self.root / name)

    def _settled_text(self, name: str) -> tuple[str, Key | None]:
        seen, own = self._seen.get(name), self._own_versions().get(name)
        known = {v.key for v in (seen, own) if v is not None}
        if name in self._settled:
            known.add(self._settled[name])
        text, key = settled_read(self.root / name, known, self.writers(), self.writer_wait_limit)
        self._settled[name] = key
        return text, key

    def writers(self) -> Writers:
        """The watch on the workspace's and the trash's files, started at the first use."""
        if self._writers is None:
            self._writers = Writers(on_expired=self._stuck_writer)
            self._writers.watch(self.root)
            trash = self.root / TRASH
            if trash.is_dir() and not trash.is_symlink():
                self._writers.watch(trash)
        return self._writers

    def _stuck_writer(self, path: Path, seconds: float) -> None:
        if self.on_stuck_writer is not None:
            try:
                name = self.relative(path)
            except ValueError:
                name = str(path)
            self.on_stuck_writer(name, seconds)

    def close(self) -> None:
        """Stop watching the files (the workspace object may be used again: it watches anew)."""
        if self._writers is not None:
            self._writers.close()
            self._writers = None

    def read_state(self, name: str) -> str:
        """A state file's text as it goes into the context (once it has stopped changing: a person
        may be saving it); remembered, so an edit made after it is noticed (`edited_state_files`)
        and an update is refused until the edit was shown (`write_state(unless_edited=True)`)."""
        text, key = self._settled_text(name)
        self._seen[name] = Version(key, _digest(text))
        return text

    def edited_since_read(self, name: str) -> bool:
        """True when the state file's text changed since the runtime last wrote or read it."""
        seen = self._seen.get(name)
        if seen is None or file_key(self.root / name) == seen.key:
            return False
        text, key = self._settled_text(name)
        if _digest(text) != seen.digest:
            return True
        self._seen[name] = Version(key, seen.digest)  # saved again unchanged (or touched)
        return False

    def edited_state_files(self) -> list[str]:
        """The state files that changed since the runtime last wrote or read them."""
        return [name for name in self.layout.state_files if self.edited_since_read(name)]

    def write_state(
        self, name: str, content: str, *, unless_edited: bool = False, based_on: str | None = None
    ) -> Replaced:
        """Replace a state file with `content` (a final newline added), atomically.

        First it waits until no one is writing the file (a person mid-save; at most
        `writer_wait_limit`, then it goes on and `on_stuck_writer` hears of it). With `unless_edited`,
        nothing is written when the file changed since the runtime last read it into the context or
        wrote it (StateEditedError with the text now on disk): a person edited it, and the update
        was made without their edit. Whatever version is replaced, unless the runtime wrote it
        itself, is kept in .trash/ (a person's edit, merged or not): the new file is written there,
        then swapped with the state file in one step, so even an editor still writing the old file
        finishes writing into the trash. When that version is one the model never saw (neither the
        one last shown to it nor `based_on`, the text the content was made from), its text, read
        once its writer closed it, comes back as `unseen_text`: the caller tells the model."""
        if name not in self.layout.state_files:
            raise ValueError(f"not a state file: {name}")
        text = content if content.endswith("\n") else content + "\n"
        path = self.root / name
        self._wait_for_writers(name)
        staged = self._trash_path(name)
        atomic_write_text(staged, text)  # as every file: redacted, fsynced; StorageError on a full disk
        try:
            # As it reads back (read_text turns \r\n into \n): its own write is never taken for an edit.
            new = Version(file_key(staged), _digest(_read(staged)))
            seen = self._seen.get(name)
            if unless_edited:
                self._unchanged(name)
        except BaseException:
            with contextlib.suppress(OSError):
                staged.unlink()
            raise
        replaced, _ = self._put_in_place(staged, path, name)
        self._seen[name] = new
        self._settled[name] = new.key
        self._remember_own(name, new)
        if replaced is None:
            return Replaced()
        shown = {seen.digest} if seen is not None else set()
        if based_on is not None:
            shown.add(_digest(based_on))
        # An editor caught mid-save by the swap finishes into the trash copy: read it once it has.
        kept_text, _ = settled_read(replaced, (), self.writers(), self.writer_wait_limit)
        unseen = kept_text if _digest(kept_text) not in shown else None
        return Replaced(kept=self.relative(replaced), unseen_text=unseen)

    def _wait_for_writers(self, name: str) -> None:
        """Wait until no one is writing the state file: never replace a save half made."""
        path, writers = self.root / name, self.writers()
        versions = (self._seen.get(name), self._own_versions().get(name))
        known = {v.key for v in versions if v is not None} | {self._settled.get(name)}
        if file_key(path) not in known or writers.state(path):
            writers.wait(path, time.monotonic() + self.writer_wait_limit)

    def _unchanged(self, name: str) -> Key | None:
        """The key of the state file on disk; StateEditedError if its text is not the one seen."""
        seen = self._seen.get(name)
        key = file_key(self.root / name)
        if seen is None or key == seen.key:
            return key
        text, key = self._settled_text(name)
        if _digest(text) != seen.digest:
            raise StateEditedError(name, text)
        self._seen[name] = Version(key, seen.digest)
        return key

    def _put_in_place(self, staged: Path, path: Path, name: str) -> tuple[Path | None, Key | None]:
        """Move the file staged in the trash to `path`. Returns where the version it replaced is
        kept (None when the runtime wrote it, or there was none) and that version's key. Until the
        new file is in place a failure removes it; after, the replaced version is never removed
        unless it is the runtime's own."""
        trash = staged.parent
        try:
            try:
                swapped = exchange_files(staged, path)
            except FileNotFoundError:  # no state file (a person deleted it): nothing to keep
                os.replace(staged, path)
                fsync_directory(self.root)
                return None, None
            if not swapped:  # no exchange here: keep the old version first, then replace it
                key = file_key(path)
                kept = None if self._is_own(name, path, key) else self._keep_copy(path, name)
                os.replace(staged, path)
                fsync_directory(self.root)
                return kept, key
        except BaseException:
            with contextlib.suppress(OSError):
                staged.unlink()
            raise
        # Swapped: the replaced version is now at `staged`, in the trash.
        fsync_directory(self.root)
        fsync_directory(trash)
        key = file_key(staged)
        if self._is_own(name, staged, key):
            staged.unlink()
            return None, key
        return staged, key

    def _keep_copy(self, path: Path, name: str) -> Path | None:
        """Keep the file at `path` in the trash before it is replaced (without an exchange)."""
        kept = self._trash_path(name)
        try:
            # The same file: an editor still writing it writes into the trash. A symbolic link is
            # kept as itself, never the file it points to.
            os.link(path, kept, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError:  # no hard links on this file system: a copy
            try:
                shutil.copyfile(path, kept, follow_symlinks=False)
            except FileNotFoundError:
                return None
            except OSError as exc:
                with contextlib.suppress(OSError):
                    kept.unlink()
                raise storage_error(exc, kept) or exc from exc
        fsync_directory(kept.parent)
        return kept

    def _is_own(self, name: str, path: Path, key: Key | None) -> bool:
        """True for the version the runtime itself wrote last (a version in doubt is a person's)."""
        own = self._own_versions().get(name)
        if own is None or key != own.key:
            return False
        try:
            return _digest(_read(path)) == own.digest
        except OSError:
            return False

    def keep_in_trash(self, name: str) -> Path:
        """A copy of the workspace file `name` in .trash/, before the runtime replaces a version of
        it that a person may have written (the report `audit` rewrites)."""
        target = self._trash_path(name)
        shutil.copy2(self.root / name, target)
        return target

    def _trash_path(self, name: str) -> Path:
        """A free name in .trash/ for a version of `name`, as deleted files are named there."""
        trash = self.root / TRASH
        if os.path.islink(trash) or (trash.exists() and not trash.is_dir()):
            raise WorkspaceError(
                f"{trash} is not a folder (a symbolic link or a file); the trash must be a real folder: "
                "move it away, then resume"
            )
        trash.mkdir(exist_ok=True)
        self.writers().watch(trash)  # before the swap: a writer moved into the trash stays known
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        candidate, counter = trash / f"{stamp}-{name}", 1
        while os.path.lexists(candidate):
            counter += 1
            candidate = trash / f"{stamp}-{counter}-{name}"
        return candidate

    def _own_versions(self) -> dict[str, Version]:
        if self._own is None:
            self._own = {}
            try:
                stored = json.loads((self.runtime_dir / self.layout.versions_record).read_text("utf-8"))
            except (OSError, ValueError):
                stored = {}
            for name in self.layout.state_files:
                entry = stored.get(name) if isinstance(stored, dict) else None
                if (
                    isinstance(entry, dict)
                    and isinstance(entry.get("digest"), str)
                    and isinstance(entry.get("key"), list)
                    and len(entry["key"]) == 3
                    and all(isinstance(n, int) for n in entry["key"])
                ):
                    ino, size, mtime = entry["key"]
                    self._own[name] = Version((ino, size, mtime), entry["digest"])
        return self._own

    def _remember_own(self, name: str, version: Version) -> None:
        own = self._own_versions()
        own[name] = version
        record = {n: {"key": list(v.key) if v.key else None, "digest": v.digest} for n, v in own.items()}
        self.runtime_dir.mkdir(parents=True, exist_ok=True)
        # A lost record only makes the runtime keep one of its own versions in the trash.
        record_file = self.runtime_dir / self.layout.versions_record
        atomic_write_text(record_file, json.dumps(record, indent=1), durable=False)
