"""What is in a corpus folder now, known without walking it again before every search.

The first look walks the whole folder (os.scandir, one lstat per document). After that the folder's
changes are followed with `watchfiles` (the Rust `notify` crate: inotify on Linux, FSEvents on
macOS, ReadDirectoryChangesW on Windows): each look lists again only the folders an event named,
and looks again only at the files an event named. Chosen over `watchdog`, whose inotify observer
gives every watched path a thread and an inotify instance of its own: the barrier below needs the
corpus and the index's folder in one stream of events.

Events arrive on the library's thread, a moment after the change. So that a file saved just before
a search is seen by that search, every look first writes a marker file in the index's own folder
(`scratch`, watched with the corpus by the same watcher, never in the corpus, which may be
read-only) and takes the events until the marker's own arrives: everything that happened before it
has arrived too. An edit in place (which changes a file's mtime but not its folder's) is seen, and
one that keeps the size and lands in the same timestamp tick too, since the event names the file
whatever its mtime says.

A folder is known by its (st_dev, st_ino) as well as by its name: one replaced under the same name
(`mv a a.old; mkdir a`), or deleted and made again, is dropped and listed again whole.

Where no watch can be had (the library cannot start, runs out of watches, or a marker does not come
back in time: a lost or overflowed event queue), every look walks the folder again and compares each
document's key (agent_runtime/engine/file_key): slower, never wrong. So it does on a network or FUSE
file system (NFS, SMB/CIFS, sshfs, 9p, Ceph, AFS, Lustre, GPFS...), the corpus itself or a folder
mounted inside it: events there report only the changes made on this machine, not those made by
another host or by the server. Which file system a folder is on is read with `psutil`.

Hidden files and folders (a leading dot) and symbolic links are never followed or listed: a link
may lead outside the corpus, and one to a file inside it would only index that file twice. (The
library's watch does follow a linked folder, and its events there are ignored: a link to a very
large tree costs watches, and when they run out the folder is walked as above.)
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from watchfiles import Change, watch

# File systems whose changes by other hosts (or by a FUSE daemon) no local event reports: watching
# them would miss edits, so they are walked at every look instead (names as the mount table gives
# them: /proc/self/mounts on Linux, getfsstat on macOS). Any `fuse.*` is one too.
REMOTE_FILESYSTEMS = {
    "nfs": "NFS", "nfs4": "NFS", "cifs": "CIFS", "smb3": "SMB3", "smb": "SMB", "smbfs": "SMB",
    "fuse": "FUSE", "fuseblk": "FUSE", "9p": "9p", "ceph": "Ceph", "afs": "AFS", "lustre": "Lustre",
    "gpfs": "GPFS", "gfs2": "GFS2", "ocfs2": "OCFS2", "coda": "Coda", "glusterfs": "GlusterFS",
    "afpfs": "AFP", "webdav": "WebDAV", "davfs": "WebDAV",
}  # fmt: skip
BARRIER_LIMIT = 5.0  # seconds a look waits for its marker, then walks the folder instead
STEP_MS = 2  # how often the library's collected events are looked at while waiting


def filesystem_type(path: str) -> str | None:
    """The type of the file system `path` is on, as the mount table names it (None: not known)."""
    try:
        real = os.path.realpath(path, strict=True)
        mounts = psutil.disk_partitions(all=True)
    except (OSError, RuntimeError):
        return None
    best: tuple[int, str] | None = None
    for mount in mounts:
        point = mount.mountpoint.rstrip(os.sep) or os.sep
        inside = real == point or real.startswith(point if point == os.sep else point + os.sep)
        if inside and (best is None or len(point) > best[0]):
            best = (len(point), mount.fstype)
    return best[1] if best else None


def remote_filesystem(path: str) -> str | None:
    """The name of the network or FUSE file system `path` is on, whose changes by other hosts no
    local event reports (None: a local one, or not known)."""
    kind = filesystem_type(path)
    if kind is None:
        return None
    kind = kind.casefold()
    return REMOTE_FILESYSTEMS.get(kind) or ("FUSE" if kind.startswith("fuse.") else None)


@dataclass
class _Folder:
    files: dict[str, os.stat_result] = field(default_factory=dict)  # name -> lstat, documents only
    skipped: set[str] = field(default_factory=set)  # names of files of a kind that is not read
    subfolders: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (st_dev, st_ino)


class FolderState:
    """The documents of one folder tree (relative POSIX path -> lstat), kept up to date by `look`.
    `scratch`: a folder of the caller's own (outside the tree) where the watch's marker is written;
    without it, or with `watch=False`, every look walks. Not thread-safe: its owner holds a lock
    around every call."""

    def __init__(
        self, root: Path, readable: Callable[[str], bool], *, watch: bool = True, scratch: Path | None = None
    ) -> None:
        self.root = root
        self.readable = readable  # does this file name have a kind that is read?
        self.files: dict[str, os.stat_result] = {}
        # The paths of `files` added, removed or listed again since `take_dirty`; None: all of them.
        self._dirty: set[str] | None = None
        self._folders: dict[str, _Folder] = {}
        self._watch = watch and scratch is not None
        self._marker = scratch / f".corpus-watch-{uuid.uuid4().hex}" if scratch is not None else None
        self._events: Iterator[set[tuple[Change, str]]] | None = None
        self._looked = False
        self._devices: dict[int, bool] = {}  # st_dev -> do local events see all its changes?
        self.remote: str | None = None  # the network file system that turned the watch off, if any

    @property
    def watching(self) -> bool:
        return self._events is not None

    def skipped(self) -> list[str]:
        """Files of a kind that is not read, relative paths sorted."""
        return sorted(_join(rel, name) for rel, folder in self._folders.items() for name in folder.skipped)

    def look(self) -> set[str]:
        """Bring `files` up to date; returns the documents an event named since the last look (an
        edit that may have kept size and mtime): the caller reads those again whatever they say."""
        if not self._looked or self._events is None:
            self._full()  # the first look, or no watch
            return set()
        changes = self._changes_until_now()
        if changes is None:  # the watch failed or fell behind: walk, and watch anew
            self._full()
            return set()
        dirty: set[str] = set()
        touched: set[str] = set()
        fresh: set[str] = set()  # folders made, moved or deleted under this name
        for change, path in changes:
            rel = self._relative(path)
            if rel is None:
                continue
            if not rel:  # the corpus folder itself changed (moved, deleted): start again
                self._full()
                return set()
            folder = rel in self._folders or _is_folder(path)
            if folder and change == Change.modified:
                dirty.add(rel)  # its attributes changed: listed again, as it is
            elif folder:
                fresh.add(rel)
                dirty.add(_parent(rel))
            else:
                touched.add(rel)
                dirty.add(_parent(rel))
        for rel in sorted(dirty, key=len):  # parents first: a vanished folder takes its subtree along
            if rel in self._folders:  # else gone with its parent, or new: its parent lists it whole
                self._rescan(rel, fresh)
        return {path for path in touched if path in self.files}

    def take_dirty(self) -> set[str] | None:
        """The documents added, removed or looked at again since the last call (None: the whole
        folder was walked again, compare everything); only these can differ from what was indexed."""
        dirty, self._dirty = self._dirty, set()
        return dirty

    def close(self) -> None:
        self._stop_watching()

    # -- the watch -----------------------------------------------------------------------------
    def _start_watching(self) -> None:
        """Start the watch on the tree and the scratch folder, and wait until it reports (its marker
        came back): from then on nothing done in the tree goes unnoticed. Off for good where it
        cannot start (no watches left, no file system events here)."""
        assert self._marker is not None
        try:
            self._marker.parent.mkdir(parents=True, exist_ok=True)
            self._events = watch(
                self.root, self._marker.parent, watch_filter=None, debounce=1_000, step=STEP_MS,
                rust_timeout=STEP_MS * 10, yield_on_timeout=True, raise_interrupt=True,
                ignore_permission_denied=True,
            )  # fmt: skip
            next(self._events)  # the watcher starts with the generator's first step
            started = self._changes_until_now() is not None
        except (StopIteration, OSError, RuntimeError):  # no watches left (max_user_watches), or none here
            started = False
        if not started:
            self._stop_watching()
            self._watch = False

    def _changes_until_now(self) -> set[tuple[Change, str]] | None:
        """Every change reported since the last call, up to this moment: the marker is written and
        the reports are taken until its own comes back. None when it does not in BARRIER_LIMIT
        seconds, or the watch ended (its reports cannot be trusted: the caller walks)."""
        assert self._events is not None and self._marker is not None
        marker = str(self._marker)
        try:
            self._marker.write_text(uuid.uuid4().hex)
        except OSError:
            return None
        deadline = time.monotonic() + BARRIER_LIMIT
        changes: set[tuple[Change, str]] = set()
        while time.monotonic() < deadline:
            try:
                batch = next(self._events)
            except (StopIteration, OSError, RuntimeError):
                return None
            changes |= batch
            if any(path == marker for _, path in batch):
                return changes
        return None

    def _stop_watching(self) -> None:
        if self._events is not None:
            close = getattr(self._events, "close", None)
            if close is not None:
                close()  # the generator's exit closes the library's watcher and its thread
            self._events = None
        if self._marker is not None:
            with contextlib.suppress(OSError):
                self._marker.unlink()

    def _relative(self, path: str) -> str | None:
        """The tree-relative POSIX path of an event's path; None outside the tree or hidden."""
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        if rel == ".":
            return ""
        return None if any(part.startswith(".") for part in rel.split("/")) else rel

    # -- walking -------------------------------------------------------------------------------
    def _full(self) -> None:
        """Walk the whole tree again (the first look, a watch that failed, or no watch)."""
        self._stop_watching()
        if self._watch and self._sees_all_changes(str(self.root)):
            self._start_watching()
        self._folders, self.files = {}, {}
        self._scan_tree("")
        self._looked = True
        self._dirty = None

    def _sees_all_changes(self, path: str, device: int | None = None) -> bool:
        """Do local events report every change under `path` (a folder on device `device`)? Not on a
        network or FUSE file system: then the watch is turned off for good and every look walks.
        Asked once per file system (st_dev), so a mount inside the corpus is checked too."""
        if device is None:
            try:
                device = os.stat(path).st_dev
            except OSError:
                return True  # nothing there to watch yet: the look finds it empty
        if device not in self._devices:
            remote = remote_filesystem(path)
            self._devices[device] = remote is None
            if remote is not None:
                self.remote = remote
                self._stop_watching()
                self._watch = False
        return self._devices[device]

    def _scan_tree(self, rel: str) -> None:
        pending = [rel]
        while pending:
            current = pending.pop()
            self._scan(current)
            folder = self._folders.get(current)
            if folder is not None:
                pending.extend(_join(current, name) for name in folder.subfolders)

    def _scan(self, rel: str) -> None:
        """List one folder (the watch, already on the whole tree, reports what is done meanwhile)."""
        path = os.path.join(self.root, rel) if rel else str(self.root)
        folder = _Folder()
        try:
            entries = list(os.scandir(path))
        except OSError:
            entries = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    # Its identity now: one that replaces it later changes its parent, and so is
                    # found by the parent's next listing.
                    info = entry.stat(follow_symlinks=False)
                    folder.subfolders[name] = (info.st_dev, info.st_ino)
                    if self._events is not None:
                        self._sees_all_changes(entry.path, info.st_dev)  # a network mount here?
                    continue
                if entry.is_symlink():
                    continue
                if not self.readable(name):
                    if entry.is_file(follow_symlinks=False):
                        folder.skipped.add(name)
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):  # not a FIFO or a device
                folder.files[name] = info
                self.files[_join(rel, name)] = info
                if self._dirty is not None:
                    self._dirty.add(_join(rel, name))
        self._folders[rel] = folder

    def _drop(self, rel: str) -> None:
        """Forget a folder and everything under it."""
        folder = self._folders.pop(rel, None)
        if folder is None:
            return
        for name in folder.files:
            self._forget(_join(rel, name))
        for name in folder.subfolders:
            self._drop(_join(rel, name))

    def _rescan(self, rel: str, fresh: set[str]) -> None:
        """List one folder again: its files afresh, its new subfolders whole, its gone ones dropped."""
        old = self._folders.get(rel, _Folder())
        for name in old.files:
            self._forget(_join(rel, name))
        self._scan(rel)
        new = self._folders[rel]
        # A subfolder is the same one only if it has the same identity and no event said it was
        # made, moved or deleted (a new folder may get a deleted one's inode number).
        same = {
            name
            for name, ident in new.subfolders.items()
            if old.subfolders.get(name) == ident and _join(rel, name) not in fresh and _join(rel, name) in self._folders
        }
        for name in old.subfolders.keys() - same:  # gone, or another folder under the same name
            self._drop(_join(rel, name))
        for name in new.subfolders.keys() - same:
            self._scan_tree(_join(rel, name))

    def _forget(self, path: str) -> None:
        self.files.pop(path, None)
        if self._dirty is not None:
            self._dirty.add(path)


def _is_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""
