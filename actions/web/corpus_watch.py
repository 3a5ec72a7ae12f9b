"""What is in a corpus folder now, known without walking it again before every search.

The first look walks the whole folder (os.scandir, one lstat per document). After that, on Linux,
an inotify watch on every folder of the corpus says which folders had anything created, deleted,
moved, written or re-attributed in them since the last look, and which files: only those folders
are listed again, and only those files are looked at again. The kernel queues an event before the
system call that caused it returns, and the queue is read at the start of every look, so a file
written just before a search is seen by that search: an edit in place (which changes a file's
mtime but not its folder's) included, and one that keeps the size and lands in the same
timestamp tick too, since the event names the file whatever its mtime says.

A folder is known by its (st_dev, st_ino) as well as by its name: one replaced under the same name
(`mv a a.old; mkdir a`), or deleted and made again, is dropped and listed again whole, with a watch
of its own; a watch follows its folder when it is renamed, so a watch found to belong to another
name moves to that name, and is removed only by the folder that still owns it.

Where inotify is missing (macOS, Windows, a container without it) or runs out of watches
(fs.inotify.max_user_watches), or when its queue overflows, every look walks the folder again and
compares each document's size and mtime, as before: slower, never wrong. So it does on a network or
FUSE file system (NFS, SMB/CIFS, sshfs, 9p, Ceph, AFS, Lustre, GPFS...), the corpus itself or a
folder mounted inside it: inotify works there but sees only the changes made on this machine, not
those made by another host or by the server.

Hidden files and folders (a leading dot) and symbolic links are never followed or listed: a link
may lead outside the corpus, and one to a file inside it would only index that file twice.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import stat
import struct
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# inotify(7)
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF = 0x400, 0x800
_IN_Q_OVERFLOW, _IN_IGNORED, _IN_ISDIR = 0x4000, 0x8000, 0x40000000
_IN_ONLYDIR, _IN_DONT_FOLLOW, _IN_EXCL_UNLINK = 0x01000000, 0x02000000, 0x04000000
_MASK = (
    _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
    | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW | _IN_EXCL_UNLINK
)  # fmt: skip
_EVENT = struct.Struct("iIII")
# statfs(2) f_type of file systems whose changes by other hosts (or by a FUSE daemon) inotify does
# not report: watching them would miss edits, so they are walked at every look instead.
REMOTE_FILESYSTEMS = {
    0x6969: "NFS",
    0xFF534D42: "CIFS",
    0xFE534D42: "SMB2",
    0x517B: "SMB",
    0x65735546: "FUSE",  # sshfs, rclone, s3fs, virtiofs...
    0x01021997: "9p",
    0x00C36400: "Ceph",
    0x5346414F: "AFS",
    0x6B414653: "AFS",  # kAFS
    0x0BD00BD0: "Lustre",
    0x47504653: "GPFS",
    0x01161970: "GFS2",
    0x7461636F: "OCFS2",
    0x73757245: "Coda",
}
_statfs: Callable[[bytes, ctypes.Array[ctypes.c_char]], int] | None = None


def filesystem_type(path: str) -> int | None:
    """statfs(2)'s f_type for `path` (Linux only; None when it cannot be read). Python's os.statvfs
    does not give it, hence ctypes."""
    global _statfs
    if not sys.platform.startswith("linux"):
        return None
    try:
        if _statfs is None:
            _statfs = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).statfs
        buffer = ctypes.create_string_buffer(256)  # struct statfs is 120 bytes on 64-bit Linux
        if _statfs(os.fsencode(path), buffer) != 0:
            return None
    except (OSError, AttributeError):
        return None
    # f_type comes first: a long (__fsword_t), except on s390x where it is an unsigned int.
    kind = ctypes.c_uint if platform.machine() == "s390x" else ctypes.c_long
    return int(kind.from_buffer(buffer).value) & 0xFFFFFFFF


def remote_filesystem(path: str) -> str | None:
    """The name of the network or FUSE file system `path` is on, whose changes by other hosts
    inotify does not see (None: a local one, or not known)."""
    kind = filesystem_type(path)
    return REMOTE_FILESYSTEMS.get(kind) if kind is not None else None


class _Inotify:
    """A non-blocking inotify descriptor (no thread: its queue is read when the folder is looked at)."""

    def __init__(self) -> None:
        name = ctypes.util.find_library("c") or None
        self._libc = ctypes.CDLL(name, use_errno=True)
        fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.fd = fd
        self._finalizer = weakref.finalize(self, os.close, fd)

    def add(self, path: str) -> int:
        wd = int(self._libc.inotify_add_watch(self.fd, os.fsencode(path), _MASK))
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch failed for {path}")
        return wd

    def remove(self, wd: int) -> None:
        self._libc.inotify_rm_watch(self.fd, wd)  # fails harmlessly if the kernel dropped it already

    def read(self) -> list[tuple[int, int, str]]:
        """(watch, mask, name) of every event queued so far."""
        events: list[tuple[int, int, str]] = []
        while True:
            try:
                data = os.read(self.fd, 256 * 1024)
            except BlockingIOError:
                return events
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                raw = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
                events.append((wd, mask, os.fsdecode(raw)))
                offset += _EVENT.size + length

    def close(self) -> None:
        self._finalizer()


@dataclass
class _Folder:
    files: dict[str, os.stat_result] = field(default_factory=dict)  # name -> lstat, documents only
    skipped: set[str] = field(default_factory=set)  # names of files of a kind that is not read
    subfolders: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (st_dev, st_ino)
    wd: int | None = None


class FolderState:
    """The documents of one folder tree (relative POSIX path -> lstat), kept up to date by `look`.
    Not thread-safe: its owner holds a lock around every call."""

    def __init__(self, root: Path, readable: Callable[[str], bool], *, watch: bool = True) -> None:
        self.root = root
        self.readable = readable  # does this file name have a kind that is read?
        self.files: dict[str, os.stat_result] = {}
        # The paths of `files` added, removed or listed again since `take_dirty`; None: all of them.
        self._dirty: set[str] | None = None
        self._folders: dict[str, _Folder] = {}
        self._by_wd: dict[int, str] = {}
        self._watch = watch and sys.platform.startswith("linux")
        self._inotify: _Inotify | None = None
        self._looked = False
        # Folders an event said were made, moved or deleted: listed again whole (see _rescan).
        self._fresh: set[str] = set()
        self._devices: dict[int, bool] = {}  # st_dev -> is it a file system inotify sees fully?
        self.remote: str | None = None  # the network file system that turned the watch off, if any

    @property
    def watching(self) -> bool:
        return self._inotify is not None

    def skipped(self) -> list[str]:
        """Files of a kind that is not read, relative paths sorted."""
        return sorted(_join(rel, name) for rel, folder in self._folders.items() for name in folder.skipped)

    def look(self) -> set[str]:
        """Bring `files` up to date; returns the documents an event named since the last look (an
        edit that may have kept size and mtime): the caller reads those again whatever they say."""
        root = self._folders.get("")
        if not self._looked or self._inotify is None or root is None or root.wd is None:
            self._full()  # the first look, no inotify, or the corpus folder itself could not be watched
            return set()
        dirty: set[str] = set()
        touched: set[str] = set()
        self._fresh = set()
        for wd, mask, name in self._inotify.read():
            if mask & _IN_Q_OVERFLOW:
                self._full()
                return set()
            rel = self._by_wd.get(wd)
            if rel is None:
                continue
            if mask & (_IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF):
                if not rel:  # the corpus folder itself was moved or deleted: start again
                    self._full()
                    return set()
                if mask & _IN_IGNORED:  # the watch is gone (the folder was deleted)
                    self._by_wd.pop(wd, None)
                    if rel in self._folders:
                        self._folders[rel].wd = None
                # Whatever now has this name (if anything) is another folder: its parent lists it whole.
                self._fresh.add(rel)
                dirty.add(_parent(rel))
                continue
            dirty.add(rel)
            if not name:
                continue
            if not mask & _IN_ISDIR:
                touched.add(_join(rel, name))
            elif mask & (_IN_CREATE | _IN_MOVED_TO | _IN_MOVED_FROM | _IN_DELETE):
                self._fresh.add(_join(rel, name))  # a folder made, moved or deleted under this name
        for rel in sorted(dirty, key=len):  # parents first: a vanished folder takes its subtree along
            if rel in self._folders:
                self._rescan(rel)
        self._fresh = set()
        return {path for path in touched if path in self.files}

    def take_dirty(self) -> set[str] | None:
        """The documents added, removed or looked at again since the last call (None: the whole
        folder was walked again, compare everything); only these can differ from what was indexed."""
        dirty, self._dirty = self._dirty, set()
        return dirty

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None

    # -- internals -----------------------------------------------------------------------------
    def _full(self) -> None:
        """Walk the whole tree again (the first look, an overflow, or no inotify)."""
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None
        if self._watch and self._sees_all_changes(str(self.root)):
            try:
                self._inotify = _Inotify()
            except (OSError, AttributeError):  # no inotify here: walk at every look
                self._watch = False
        self._folders, self._by_wd, self.files = {}, {}, {}
        self._scan_tree("")
        self._looked = True
        self._dirty = None

    def _sees_all_changes(self, path: str, device: int | None = None) -> bool:
        """Does inotify see every change under `path` (a folder on device `device`)? Not on a
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
        return self._devices[device]

    def _stop_watching(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
        self._inotify, self._watch = None, False

    def _scan_tree(self, rel: str) -> None:
        pending = [rel]
        while pending:
            current = pending.pop()
            self._scan(current)
            folder = self._folders.get(current)
            if folder is not None:
                pending.extend(_join(current, name) for name in folder.subfolders)

    def _scan(self, rel: str) -> None:
        """List one folder (watched first, so nothing done meanwhile goes unnoticed)."""
        path = os.path.join(self.root, rel) if rel else str(self.root)
        folder = _Folder()
        if self._inotify is not None:
            try:
                folder.wd = self._inotify.add(path)
            except OSError as exc:
                if exc.errno in (28, 24):  # ENOSPC (watch limit), EMFILE: walk at every look instead
                    self._stop_watching()
                # a folder that vanished or is not one any more: listed as empty below
            else:
                # The same wd as another folder's: that folder was renamed to this one (a watch
                # follows its inode), so the watch is this name's now and no longer the other's.
                owner = self._by_wd.get(folder.wd)
                if owner is not None and owner != rel and owner in self._folders:
                    self._folders[owner].wd = None
                self._by_wd[folder.wd] = rel
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
                    # Its identity now, taken before it is watched: one that replaces it later
                    # changes its parent, and so is found by the parent's next listing.
                    info = entry.stat(follow_symlinks=False)
                    folder.subfolders[name] = (info.st_dev, info.st_ino)
                    if self._inotify is not None:
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
        if folder.wd is not None and self._by_wd.get(folder.wd) == rel:  # not taken by a new name
            self._by_wd.pop(folder.wd)
            if self._inotify is not None:
                self._inotify.remove(folder.wd)
        for name in folder.files:
            self._forget(_join(rel, name))
        for name in folder.subfolders:
            self._drop(_join(rel, name))

    def _rescan(self, rel: str) -> None:
        """List one folder again: its files afresh, its new subfolders whole, its gone ones dropped."""
        old = self._folders.get(rel, _Folder())
        for name in old.files:
            self._forget(_join(rel, name))
        owned = old.wd if old.wd is not None and self._by_wd.get(old.wd) == rel else None
        if owned is not None:
            self._by_wd.pop(owned)
        self._scan(rel)
        new = self._folders[rel]
        if owned is not None and new.wd != owned and owned not in self._by_wd and self._inotify is not None:
            self._inotify.remove(owned)  # it watches a folder that is no longer this one
        # A subfolder is the same one only if it has the same identity and no event said it was
        # made, moved or deleted (a new folder may get a deleted one's inode number).
        same = {
            name
            for name, ident in new.subfolders.items()
            if old.subfolders.get(name) == ident
            and _join(rel, name) not in self._fresh
            and _join(rel, name) in self._folders
        }
        for name in old.subfolders.keys() - same:  # gone, or another folder under the same name
            self._drop(_join(rel, name))
        for name in new.subfolders.keys() - same:
            self._scan_tree(_join(rel, name))

    def _forget(self, path: str) -> None:
        self.files.pop(path, None)
        if self._dirty is not None:
            self._dirty.add(path)


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""
