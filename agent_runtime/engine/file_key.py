"""The one answer to "has this file changed since I last looked?", without reading it.

A file's key is (inode, size, mtime_ns): a save in place changes the size or the modification time;
a save by rename (what most editors and sync tools do) brings another inode under the same name,
even when it keeps the size and the time (`cp -p`, rsync). The dashboards' settled reads
(agent_runtime/engine/state_files), the save-waits (writers) and the local corpus index
(actions/web/local_corpus) all compare this key, so they agree on what a new version is.
"""

from __future__ import annotations

import os
from pathlib import Path

FileKey = tuple[int, int, int]


def stat_key(info: os.stat_result) -> FileKey:
    """The key of a file whose stat (or lstat) is already at hand."""
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def file_key(path: Path | str) -> FileKey | None:
    """The key of the file at `path` (None when there is none)."""
    try:
        return stat_key(os.stat(path))
    except (FileNotFoundError, NotADirectoryError):
        return None
