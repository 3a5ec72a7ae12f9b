"""The workspace path policy: every path the model names stays inside the workspace folder.

`PathPolicy.resolve` turns a model-supplied path into the real absolute path it names, following
every symlink the way the kernel would, and refuses it unless that real path is inside the
workspace (a separator-aware check: a sibling `ws2/` is not inside `ws/`). The file operations
below then act on the resolved path without trusting it to stay the same: they open the final
component with O_NOFOLLOW (or replace it with `os.replace`), and create or read through folder
descriptors opened one level at a time with O_NOFOLLOW, so a symlink planted after the check is
refused instead of followed. Every refusal is a `SandboxError` whose text is meant for the model.

Names are compared in Unicode NFC: macOS writes file names decomposed (NFD), models write them
composed (NFC), and the two spellings look identical. When a name is missing from a folder inside
the workspace, the entry whose NFC form equals the name's is used instead, and a name that does
not exist yet is created in NFC. The entry found is then treated exactly as if it had been typed,
so the symlink and containment checks are the same for either spelling.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_runtime.errors import (
    InvalidPathError,
    PathEscapeError,
    ReadOnlyPathError,
    SandboxError,
    StorageError,
)
from sandbox.safe_write import atomic_write_text, is_temp_name, storage_error, write_new_file

MAX_PATH_CHARS = 1024
MAX_NAME_BYTES = 255
MAX_SYMLINK_HOPS = 40  # Linux's own limit (MAXSYMLINKS); more means a loop or an abuse
TRASH = ".trash"

_EXAMPLE = "give a path relative to the workspace, such as Notebook/chapter1.md"
_RELATIVE = "all paths are relative to the workspace folder"
_WRITES = frozenset({"create", "write", "move to the trash"})  # the _os_error actions that write
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_DEFAULT_REASON = "this part of the workspace is maintained by the runtime"


@dataclass(frozen=True)
class DirectoryEntry:
    """One listed entry. `path` is the entry itself (a symlink is not replaced by its target)."""

    name: str
    path: Path
    relative: str
    is_dir: bool
    is_symlink: bool


def _exists(name: str, dir_fd: int) -> bool:
    try:
        os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    return True


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _lstat_mode(path: str) -> int | None:
    """The entry's mode without following a symlink, or None when there is no such entry."""
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def _canonical_twin(directory: str, name: str) -> str | None:
    """The entry of `directory` spelled differently from `name` but equal to it in NFC; the NFC
    spelling (else the first by code point) when several are. None when there is none."""
    wanted = _nfc(name)
    try:
        with os.scandir(directory) as entries:
            twins = sorted(entry.name for entry in entries if _nfc(entry.name) == wanted)
    except OSError:  # a folder that does not exist (yet) or cannot be listed has no twin
        return None
    if wanted in twins:
        return wanted
    return twins[0] if twins else None


def _show(user_path: str) -> str:
    """The path as quoted in a message: repr (so odd characters are visible), cut when huge."""
    return repr(user_path if len(user_path) <= 120 else user_path[:120] + "…")


class PathPolicy:
    """Confines paths to one workspace folder; see the module docstring."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        read_only: Mapping[str, str] | Iterable[str] = (),
        hidden: Iterable[str] = (TRASH,),
    ) -> None:
        # realpath once: a workspace reached through a symlinked parent folder is then compared
        # with other real paths, and the check below is not fooled by the alias.
        self.root = Path(os.path.realpath(root))
        self._root = str(self.root)
        reasons = dict(read_only) if isinstance(read_only, Mapping) else dict.fromkeys(read_only, "")
        self._read_only = {self._area(rel): reason or _DEFAULT_REASON for rel, reason in reasons.items()}
        self._hidden = [self._area(rel) for rel in hidden]

    def _area(self, rel: str) -> str:
        norm = os.path.normpath(rel)
        if os.path.isabs(norm) or norm == "." or norm == ".." or norm.startswith("../"):
            raise ValueError(f"a policy area must be a relative path below the workspace: {rel!r}")
        return os.path.join(self._root, norm)

    # ----------------------------------------------------------------- resolving

    def resolve(self, user_path: object) -> Path:
        """The real absolute path `user_path` names inside the workspace, or a SandboxError."""
        text = self._check_text(user_path)
        real = self._real_path(text)
        if not self._inside(real):
            raise PathEscapeError(
                f"path escapes the workspace: {_show(text)} leads through a symbolic link to "
                f"outside the workspace ({_RELATIVE})"
            )
        return Path(real)

    def relative(self, path: Path) -> str:
        """The workspace-relative POSIX form of a resolved path, for display ('.' for the root)."""
        real = os.path.normpath(path)
        if not self._inside(real):
            raise PathEscapeError(f"path escapes the workspace: {_show(str(path))} ({_RELATIVE})")
        return Path(os.path.relpath(real, self._root)).as_posix()

    def is_hidden(self, path: str | os.PathLike[str]) -> bool:
        """True inside a hidden area (`.trash/`), which listings and searches skip."""
        full = os.path.normpath(os.path.join(self._root, path))
        return any(full == area or full.startswith(area + "/") for area in self._hidden)

    def check_writable(self, user_path: object) -> Path:
        """`resolve`, then refuse paths in a read-only area, saying why."""
        target = self.resolve(user_path)
        self._refuse_read_only(str(target), contains=False)
        return target

    def _check_text(self, user_path: object) -> str:
        """The checks that need no file system: type, emptiness, size, absolute, `~`, `..`."""
        if not isinstance(user_path, str):
            raise InvalidPathError(
                f"invalid path: expected text, got {type(user_path).__name__} — {_EXAMPLE}"
            )
        if not user_path.strip():
            raise InvalidPathError(f"invalid path: empty path — {_EXAMPLE}")
        if "\x00" in user_path:
            raise InvalidPathError(f"invalid path: {_show(user_path)} contains a NUL byte — {_EXAMPLE}")
        if any(ord(ch) < 0x20 or ch == "\x7f" for ch in user_path):
            raise InvalidPathError(
                f"invalid path: {_show(user_path)} contains a control character (newline, tab…) — remove it"
            )
        if len(user_path) > MAX_PATH_CHARS:
            raise InvalidPathError(
                f"invalid path: the path is {len(user_path)} characters long; the limit is "
                f"{MAX_PATH_CHARS} — use shorter folder and file names"
            )
        try:
            # Strict UTF-8, not os.fsencode: its surrogateescape would turn "\udc80" into a raw byte
            # and so a file name that is not UTF-8, which no observation could show back.
            names = [name.encode("utf-8") for name in user_path.split("/")]
        except UnicodeEncodeError:
            raise InvalidPathError(
                f"invalid path: {_show(user_path)} contains characters that cannot be a file name"
            ) from None
        if any(len(name) > MAX_NAME_BYTES for name in names):
            raise InvalidPathError(
                f"invalid path: a name in {_show(user_path)} is longer than {MAX_NAME_BYTES} bytes — "
                "use a shorter name"
            )
        if user_path.startswith("/"):
            raise PathEscapeError(
                f"path escapes the workspace: {_show(user_path)} is an absolute path ({_RELATIVE}: "
                "write Notebook/chapter1.md, not /Notebook/chapter1.md)"
            )
        if user_path.startswith("~"):
            raise PathEscapeError(
                f"path escapes the workspace: {_show(user_path)} starts with '~', which means a home "
                f"folder ({_RELATIVE})"
            )
        # Lexical `..` above the root is refused even when it would come back in (`../ws/x`):
        # the model has no business naming the folders around its workspace.
        norm = os.path.normpath(user_path)
        if norm == ".." or norm.startswith("../"):
            raise PathEscapeError(f"path escapes the workspace: {_show(user_path)} ({_RELATIVE})")
        return user_path

    def _real_path(self, text: str) -> str:
        """Resolve `text` from the root as the kernel would, one component at a time.

        Every symlink is followed (chains included); components that do not exist yet are
        appended as they are, so a file about to be created resolves too. Unlike
        `os.path.realpath` in Python 3.11, a symlink loop is an error, not a silent partial result.
        """
        resolved = self._root
        pending = text.split("/")[::-1]  # a stack: symlink targets are pushed onto it
        hops = 0
        while pending:
            name = pending.pop()
            if name in ("", "."):
                continue
            if name == "..":
                resolved = os.path.dirname(resolved)  # `resolved` is real: its parent is the real parent
                continue
            try:
                name, mode = self._spelled_on_disk(resolved, name)
            except OSError as exc:
                raise self._os_error(exc, text, "examine") from exc
            candidate = os.path.join(resolved, name)
            if mode is None:
                resolved = candidate  # does not exist (yet): the operation itself will say so
                continue
            if not stat.S_ISLNK(mode):
                resolved = candidate
                continue
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise InvalidPathError(
                    f"invalid path: {_show(text)} goes through a loop of symbolic links (or more than "
                    f"{MAX_SYMLINK_HOPS} in a row)"
                )
            try:
                target = os.readlink(candidate)
            except OSError as exc:
                raise self._os_error(exc, text, "examine") from exc
            if target.startswith("/"):
                resolved = "/"
            pending.extend(target.split("/")[::-1])
        return resolved

    def _spelled_on_disk(self, directory: str, name: str) -> tuple[str, int | None]:
        """`name` as the entry of `directory` is spelled on disk, with its lstat mode; for a
        missing entry, the NFC spelling (new names are created in NFC) and None.

        The other spellings are looked for only in folders inside the workspace: outside it the
        path is refused anyway, and nothing there is listed on the model's behalf."""
        mode = _lstat_mode(os.path.join(directory, name))
        if mode is not None:
            return name, mode
        twin = _canonical_twin(directory, name) if self._inside(directory) else None
        if twin is not None and (mode := _lstat_mode(os.path.join(directory, twin))) is not None:
            return twin, mode
        return _nfc(name), None

    def _inside(self, real: str) -> bool:
        # commonpath compares whole components: '/x/ws2' is not inside '/x/ws' (CVE-2025-53110).
        return os.path.isabs(real) and os.path.commonpath([self._root, real]) == self._root

    def _refuse_read_only(self, target: str, *, contains: bool) -> None:
        """Refuse `target` inside a read-only area, or (`contains`) a folder holding one."""
        for area, reason in self._read_only.items():
            candidates = {area}
            # The area's real path too, in case the area itself is a symlink inside the workspace.
            with contextlib.suppress(SandboxError):
                candidates.add(self._real_path(os.path.relpath(area, self._root)))
            for candidate in candidates:
                if target == candidate or target.startswith(candidate + "/"):
                    where = self.relative(Path(target))
                    inside = "" if target == candidate else f" (inside {self.relative(Path(area))}/)"
                    raise ReadOnlyPathError(f"{where} is read-only here{inside}: {reason}")
                if contains and candidate.startswith(target + "/"):
                    raise ReadOnlyPathError(
                        f"{self.relative(Path(target))} holds {self.relative(Path(area))}, which is "
                        f"read-only here: {reason}"
                    )

    # ----------------------------------------------------------------- file operations

    def create_new(self, user_path: object, text: str, *, durable: bool = True) -> Path:
        """Create a new file (and missing parent folders); refuse if anything is already there."""
        target = self._writable_file(user_path, text)
        try:
            with self._open_parent(target, create=True) as dir_fd:
                # O_EXCL never follows a symlink at the last component, and O_NOFOLLOW says so twice:
                # a link planted after the check makes this fail instead of writing its target.
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                data = text.encode("utf-8")  # before the file exists: text that cannot be written makes none
                fd = os.open(target.name, flags, 0o666, dir_fd=dir_fd)
                # A failed write removes the file it made: no half-written file is left behind.
                write_new_file(
                    fd, data, durable=durable, discard=lambda: os.unlink(target.name, dir_fd=dir_fd)
                )
        except OSError as exc:
            raise self._os_error(exc, str(user_path), "create") from exc
        return target

    def replace_text(self, user_path: object, text: str, *, durable: bool = True) -> Path:
        """Write `text` as the whole content of a file, atomically; missing folders are created.

        A symlink inside the workspace is followed by `resolve` (its in-workspace target is
        written). A symlink planted at the resolved path afterwards is replaced by `os.replace`,
        never followed. (A parent folder swapped between the two steps is not caught here:
        `atomic_write_text` works on paths, not folder descriptors.)
        """
        target = self._writable_file(user_path, text)
        try:
            with self._open_parent(target, create=True):
                pass  # creates the missing folders, each checked with O_NOFOLLOW
            atomic_write_text(target, text, durable=durable)
        except OSError as exc:
            raise self._os_error(exc, str(user_path), "write") from exc
        return target

    def read_bytes(self, user_path: object, limit: int | None = None) -> bytes:
        """The content of a regular file (at most `limit` bytes), opened without following links."""
        target = self.resolve(user_path)
        shown = str(user_path)
        try:
            with self._open_parent(target, create=False) as dir_fd:
                # O_NONBLOCK: opening a FIFO must not hang the run; it is refused just below.
                flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
                fd = os.open(self._name_in_parent(target), flags, dir_fd=dir_fd)
            with os.fdopen(fd, "rb") as handle:
                mode = os.fstat(handle.fileno()).st_mode
                if stat.S_ISDIR(mode):
                    raise SandboxError(f"{_show(shown)} is a folder, not a file — list it instead")
                if not stat.S_ISREG(mode):
                    raise SandboxError(f"{_show(shown)} is not a regular file")
                return handle.read() if limit is None else handle.read(max(limit, 0))
        except OSError as exc:
            raise self._os_error(exc, shown, "read") from exc

    def iter_directory(self, user_path: object = ".") -> Iterator[DirectoryEntry]:
        """The entries of a folder, sorted by name; hidden areas, symlinks leading outside the
        workspace (or into a loop) and the temp files of atomic writes (in flight, or left by a
        killed writer) are left out. Checked when called, not when iterated."""
        directory = self.resolve(user_path)
        skip_hidden = not self.is_hidden(directory)  # listing .trash/ itself shows its content
        entries: list[DirectoryEntry] = []
        try:
            # The parent of `directory/x` is `directory`: opened level by level with O_NOFOLLOW.
            with self._open_parent(directory / "x", create=False) as dir_fd, os.scandir(dir_fd) as it:
                for item in it:
                    path = directory / item.name
                    if (skip_hidden and self.is_hidden(path)) or is_temp_name(item.name):
                        continue
                    is_link = item.is_symlink()
                    if is_link:
                        try:
                            real = self._real_path(self.relative(path))
                        except SandboxError:
                            continue  # a loop
                        if not self._inside(real) or (skip_hidden and self.is_hidden(real)):
                            continue
                        is_dir = os.path.isdir(real)
                    else:
                        is_dir = item.is_dir(follow_symlinks=False)
                    entries.append(DirectoryEntry(item.name, path, self.relative(path), is_dir, is_link))
        except OSError as exc:
            raise self._os_error(exc, str(user_path), "list") from exc
        return iter(sorted(entries, key=lambda entry: entry.name))

    def move_to_trash(self, user_path: object) -> Path:
        """Move a file or folder to `.trash/<timestamp>-<path with / as __>`; nothing is deleted.

        A symlink is moved itself, not its target (even a link to outside may be put away).
        """
        entry = self._entry(user_path)
        shown = str(user_path)
        if str(entry) == self._root:
            raise SandboxError(f"{_show(shown)} is the workspace folder itself; it cannot be trashed")
        if self.is_hidden(entry):
            raise SandboxError(f"{_show(shown)} is already in {TRASH}/")
        self._refuse_read_only(str(entry), contains=True)
        if not os.path.lexists(entry):
            raise SandboxError(f"{_show(shown)} does not exist")
        if os.path.islink(os.path.join(self._root, TRASH)):
            raise SandboxError(f"{TRASH} is a symbolic link; the trash must be a real folder")
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        # Keep the end of a long path (it has the file name): one name may not exceed 255 bytes.
        flat = os.fsencode(self.relative(entry).replace("/", "__"))[-200:].decode(errors="ignore")
        try:
            # Both folders are reached through O_NOFOLLOW descriptors, so neither the source's
            # folder nor .trash/ can be swapped for a link to outside between check and move.
            with (
                self._open_parent(entry, create=False) as source_fd,
                self._open_parent(Path(self._root, TRASH, "x"), create=True) as trash_fd,
            ):
                name, counter = f"{stamp}-{flat}", 1
                while _exists(name, trash_fd):  # os.rename would silently replace a file there
                    counter += 1
                    name = f"{stamp}-{counter}-{flat}"
                os.rename(entry.name, name, src_dir_fd=source_fd, dst_dir_fd=trash_fd)
        except OSError as exc:
            raise self._os_error(exc, shown, "move to the trash") from exc
        return Path(self._root, TRASH, name)

    # ----------------------------------------------------------------- helpers

    def _writable_file(self, user_path: object, text: object) -> Path:
        target = self.check_writable(user_path)
        if not isinstance(text, str):
            raise SandboxError(f"the content for {_show(str(user_path))} must be text")
        try:
            text.encode("utf-8")  # checked before the disk is touched: no half-written file
        except UnicodeEncodeError:
            raise SandboxError(
                f"the content for {_show(str(user_path))} has characters that are not valid UTF-8 "
                "(lone surrogates); remove them"
            ) from None
        if str(target) == self._root or target.is_dir():
            raise SandboxError(f"{_show(str(user_path))} is a folder; give a file path inside it")
        return target

    def _name_in_parent(self, target: Path) -> str:
        return "." if target == self.root else target.name

    def _entry(self, user_path: object) -> Path:
        """The path of the entry itself: the parent resolved, the last component not followed."""
        text = self._check_text(user_path)
        head, _, name = text.rstrip("/").rpartition("/")
        if name in ("", ".", ".."):
            return self.resolve(text)
        parent = self.resolve(head or ".")
        try:
            spelled, _ = self._spelled_on_disk(str(parent), name)  # the link itself, not followed
        except OSError as exc:
            raise self._os_error(exc, text, "examine") from exc
        return parent / spelled

    @contextlib.contextmanager
    def _open_parent(self, target: Path, *, create: bool) -> Iterator[int]:
        """A descriptor for the folder holding `target`, opened from the root one level at a time
        with O_NOFOLLOW: a folder swapped for a symlink after `resolve` is refused, not followed.
        With `create`, missing folders are made on the way."""
        fd = os.open(self._root, _DIR_FLAGS)  # the root's own path is trusted (chosen by the user)
        try:
            for name in target.relative_to(self.root).parts[:-1]:
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, dir_fd=fd)
                try:
                    next_fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
                except NotADirectoryError:
                    # Linux says ENOTDIR for a symlink opened with O_DIRECTORY|O_NOFOLLOW: say what it is.
                    if stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode):
                        raise OSError(errno.ELOOP, "symbolic link") from None
                    raise
                os.close(fd)
                fd = next_fd
            yield fd
        finally:
            os.close(fd)

    def _folder_of(self, user_path: str) -> Path:
        """The workspace folder a write to `user_path` went to, for a message (the root if unsure)."""
        folder = Path(os.path.normpath(self.root / user_path)).parent
        return folder if folder == self.root or self.root in folder.parents else self.root

    def _os_error(self, exc: OSError, user_path: str, action: str) -> SandboxError | StorageError:
        """An OSError the input could cause, as a message for the model; a write the disk refused
        (full, read-only, not writable) as a StorageError, which stops the run."""
        if action in _WRITES:
            failing_disk = storage_error(exc, self._folder_of(user_path))
            if failing_disk is not None:
                return failing_disk
        shown = _show(user_path)
        messages = {
            errno.ENOENT: f"{shown} does not exist",
            errno.EEXIST: f"{shown} already exists — read it, or overwrite it instead of creating it",
            errno.EISDIR: f"{shown} is a folder, not a file",
            errno.ENOTDIR: f"a part of {shown} is a file, not a folder",
            # O_NOFOLLOW met a symlink that was not there when the path was checked.
            errno.ELOOP: f"{shown} met a symbolic link that appeared after the path was checked; refused",
            errno.ENAMETOOLONG: f"invalid path: {shown} is too long",
            errno.EACCES: f"permission denied: cannot {action} {shown}",
            errno.EPERM: f"permission denied: cannot {action} {shown}",
            errno.ENOSPC: f"cannot {action} {shown}: no space left on the disk",
        }
        text = messages.get(exc.errno or 0, f"cannot {action} {shown}: {exc.strerror or exc}")
        cls = InvalidPathError if exc.errno in (errno.ENAMETOOLONG, errno.ELOOP) else SandboxError
        return cls(text)
