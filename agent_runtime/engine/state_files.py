"""The state files of a workspace: the files an agent's context is rebuilt from (a research run's
dashboards), which a person may edit while the run works.

Three guarantees hold whatever the person and the model do:
- a file is read once no one is writing it (`settled_read`: a person mid-save is waited for);
- it is replaced only whole, atomically, and never over a save half made;
- no version a person saved is ever lost: a version the runtime replaces, unless it wrote that
  version itself, is kept in the trash (`<UTC time>-<name>`), and a save the model never saw comes
  back to the caller (`Replaced.unseen_text`), who tells the model.

Which version the runtime wrote last is kept in a small record in `.runtime/` (also across
processes); which version it last read or wrote, in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from agent_runtime.engine.file_exchange import exchange_files
from agent_runtime.engine.file_key import FileKey, file_key
from agent_runtime.engine.writers import WAIT_LIMIT, Writers, quiet_wait
from agent_runtime.errors import StateEditedError, WorkspaceError
from agent_runtime.language import text as language_text
from sandbox import atomic_write_text, storage_error
from sandbox.safe_write import fsync_directory

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


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def read_whole(path: Path) -> str:
    """A file's text as the runtime reads it ("" when missing; undecodable bytes replaced)."""
    try:
        return path.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def settled_read(
    path: Path, known: Collection[FileKey | None] = (), writers: Writers | None = None, limit: float = WAIT_LIMIT
) -> tuple[str, FileKey | None]:
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
        text = read_whole(path)
        after = file_key(path)
        if after == key or time.monotonic() >= deadline:
            # Changed while read past the deadline: the key before the read is kept, so that the
            # version on disk is never taken for the one read.
            return text, key
        key, settled = after, False


@dataclass(frozen=True)
class Version:
    """One version of a state file: its file's key and the digest of its text (as read back)."""

    key: FileKey | None
    digest: str


@dataclass(frozen=True)
class Replaced:
    """What a state file write replaced. `kept`: where the replaced version is kept in .trash/
    (workspace-relative), None when the runtime had written it itself (or there was none).
    `unseen_text`: that version's text when it is a person's save the model never saw (one that fell
    between the check and the swap, or came during the summarizing call): nobody merged it."""

    kept: str | None = None
    unseen_text: str | None = None


class StateFiles:
    """The state files `names` of the workspace at `root`: read settled, written whole, every
    version a person saved kept in `trash`; `record` is the file (in .runtime/) that remembers which
    version of each the runtime wrote last."""

    def __init__(self, root: Path, names: tuple[str, ...], record: Path, trash: Path) -> None:
        self.root, self.names, self.record, self.trash = root, names, record, trash
        # Each state file as the runtime last wrote it or read it into the context: a file that no
        # longer matches was edited from outside (a person steering the run).
        self._seen: dict[str, Version] = {}
        # Each state file as the runtime itself last wrote it (also across processes: the record):
        # replacing any other version keeps that version in the trash.
        self._own: dict[str, Version] | None = None
        self._settled: dict[str, FileKey | None] = {}  # the key of the last version read settled
        # Who is still writing a state file (agent_runtime/engine/writers), watched from the first
        # state read or write; `on_stuck_writer(file, seconds)` hears of a wait that reached
        # `writer_wait_limit` (the run logs it).
        self._writers: Writers | None = None
        self.writer_wait_limit = WAIT_LIMIT
        self.on_stuck_writer: Callable[[str, float], None] | None = None

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    # -- reading -----------------------------------------------------------------------------
    def read_settled(self, name: str) -> tuple[str, FileKey | None]:
        """The state file's text once it has stopped changing, and the key of the version read."""
        seen, own = self._seen.get(name), self._own_versions().get(name)
        known = {v.key for v in (seen, own) if v is not None}
        if name in self._settled:
            known.add(self._settled[name])
        text, key = settled_read(self.root / name, known, self.writers(), self.writer_wait_limit)
        self._settled[name] = key
        return text, key

    def read(self, name: str) -> str:
        """A state file's text as it goes into the context (once it has stopped changing: a person
        may be saving it); remembered, so an edit made after it is noticed (`edited`) and an update
        is refused until the edit was shown (`write(unless_edited=True)`)."""
        text, key = self.read_settled(name)
        self._seen[name] = Version(key, _digest(text))
        return text

    def edited_since_read(self, name: str) -> bool:
        """True when the state file's text changed since the runtime last wrote or read it."""
        seen = self._seen.get(name)
        if seen is None or file_key(self.root / name) == seen.key:
            return False
        text, key = self.read_settled(name)
        if _digest(text) != seen.digest:
            return True
        self._seen[name] = Version(key, seen.digest)  # saved again unchanged (or touched)
        return False

    def edited(self) -> list[str]:
        """The state files that changed since the runtime last wrote or read them."""
        return [name for name in self.names if self.edited_since_read(name)]

    # -- the watch on writers ----------------------------------------------------------------
    def writers(self) -> Writers:
        """The watch on the workspace's and the trash's files, started at the first use."""
        if self._writers is None:
            self._writers = Writers(on_expired=self._stuck_writer)
            self._writers.watch(self.root)
            if self.trash.is_dir() and not self.trash.is_symlink():
                self._writers.watch(self.trash)
        return self._writers

    def _stuck_writer(self, path: Path, seconds: float) -> None:
        if self.on_stuck_writer is not None:
            try:
                name = self.relative(path)
            except ValueError:
                name = str(path)
            self.on_stuck_writer(name, seconds)

    def close(self) -> None:
        """Stop watching the files (the object may be used again: it watches anew)."""
        if self._writers is not None:
            self._writers.close()
            self._writers = None

    # -- writing -----------------------------------------------------------------------------
    def first_write(self, name: str, text: str) -> None:
        """Write a state file of a new workspace (never over an existing one), as the runtime's own."""
        target = self.root / name
        if not target.exists():
            atomic_write_text(target, text)
            self._remember_own(name, Version(file_key(target), _digest(read_whole(target))))

    def write(self, name: str, content: str, *, unless_edited: bool = False, based_on: str | None = None) -> Replaced:
        """Replace a state file with `content` (a final newline added), atomically.

        First it waits until no one is writing the file (a person mid-save; at most
        `writer_wait_limit`, then it goes on and `on_stuck_writer` hears of it). With `unless_edited`,
        nothing is written when the file changed since the runtime last read it into the context or
        wrote it (StateEditedError with the text now on disk): a person edited it, and the update
        was made without their edit. Whatever version is replaced, unless the runtime wrote it
        itself, is kept in the trash (a person's edit, merged or not): the new file is written there,
        then swapped with the state file in one step, so even an editor still writing the old file
        finishes writing into the trash. When that version is one the model never saw (neither the
        one last shown to it nor `based_on`, the text the content was made from), its text, read
        once its writer closed it, comes back as `unseen_text`: the caller tells the model."""
        if name not in self.names:
            raise ValueError(f"not a state file: {name}")
        text = content if content.endswith("\n") else content + "\n"
        path = self.root / name
        self._wait_for_writers(name)
        staged = self.trash_path(name)
        atomic_write_text(staged, text)  # as every file: redacted, fsynced; StorageError on a full disk
        try:
            # As it reads back (read_text turns \r\n into \n): its own write is never taken for an edit.
            new = Version(file_key(staged), _digest(read_whole(staged)))
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

    def _unchanged(self, name: str) -> FileKey | None:
        """The key of the state file on disk; StateEditedError if its text is not the one seen."""
        seen = self._seen.get(name)
        key = file_key(self.root / name)
        if seen is None or key == seen.key:
            return key
        text, key = self.read_settled(name)
        if _digest(text) != seen.digest:
            raise StateEditedError(name, text)
        self._seen[name] = Version(key, seen.digest)
        return key

    def _put_in_place(self, staged: Path, path: Path, name: str) -> tuple[Path | None, FileKey | None]:
        """Move the file staged in the trash to `path`. Returns where the version it replaced is
        kept (None when the runtime wrote it, or there was none) and that version's key. Until the
        new file is in place a failure removes it; after, the replaced version is never removed
        unless it is the runtime's own."""
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
        fsync_directory(staged.parent)
        key = file_key(staged)
        if self._is_own(name, staged, key):
            staged.unlink()
            return None, key
        return staged, key

    def _keep_copy(self, path: Path, name: str) -> Path | None:
        """Keep the file at `path` in the trash before it is replaced (without an exchange)."""
        kept = self.trash_path(name)
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

    def trash_path(self, name: str) -> Path:
        """A free name in the trash for a version of `name`, as deleted files are named there."""
        trash = self.trash
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

    # -- which versions the runtime wrote itself ----------------------------------------------
    def _is_own(self, name: str, path: Path, key: FileKey | None) -> bool:
        """True for the version the runtime itself wrote last (a version in doubt is a person's)."""
        own = self._own_versions().get(name)
        if own is None or key != own.key:
            return False
        try:
            return _digest(read_whole(path)) == own.digest
        except OSError:
            return False

    def _own_versions(self) -> dict[str, Version]:
        if self._own is None:
            self._own = {}
            try:
                stored = json.loads(self.record.read_text("utf-8"))
            except (OSError, ValueError):
                stored = {}
            for name in self.names:
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
        self.record.parent.mkdir(parents=True, exist_ok=True)
        # A lost record only makes the runtime keep one of its own versions in the trash.
        atomic_write_text(self.record, json.dumps(record, indent=1), durable=False)
