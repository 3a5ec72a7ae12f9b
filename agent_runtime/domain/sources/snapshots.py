"""Snapshot-path safety: a source's saved text is `sources/S<n>.md` and nothing else, and is never
read through a link that leads out of `sources/`."""

from __future__ import annotations

import re
from pathlib import Path

from agent_runtime.domain.sources.journal import LEDGER_FILE
from agent_runtime.domain.sources.records import SourceRecord
from agent_runtime.errors import WorkspaceError

SNAPSHOT_NAME = re.compile(r"^S([1-9][0-9]*)\.md$")


def check_snapshot_name(sources_dir: Path, record: SourceRecord, file: str = LEDGER_FILE) -> None:
    """A snapshot is `sources/S<n>.md` and nothing else: a ledger that names another file
    (absolute, `..`, another folder) was edited by hand or tampered with, and is refused before
    anything is read through it. `file`: the ledger's file the record was read from (the error
    names it: `ledger.json` or the journal)."""
    if record.snapshot is None:
        return
    folder, _, name = record.snapshot.partition("/")
    if folder != sources_dir.name or not SNAPSHOT_NAME.match(name):
        raise WorkspaceError(
            f"the source ledger {sources_dir / file} names {record.snapshot!r} as the saved text of "
            f"{record.id}, which is not a snapshot in {sources_dir.name}/ (S<n>.md): the ledger was edited by "
            "hand or tampered with; restore it, or move it aside to rebuild it from the snapshots in sources/"
        )


def snapshot_file(sources_dir: Path, record: SourceRecord) -> Path | None:
    """The file of a source's saved text, or None when it has none. WorkspaceError when the ledger
    names another file, or the file is a link (or under a link) that leads out of sources/: nothing
    outside is read."""
    if record.snapshot is None:
        return None
    check_snapshot_name(sources_dir, record)
    path = sources_dir / record.snapshot.partition("/")[2]
    try:
        inside = path.resolve().is_relative_to(sources_dir.resolve())
    except OSError:
        inside = False
    if path.is_symlink() or not inside:
        raise WorkspaceError(
            f"{sources_dir.name}/{path.name} (the saved text of {record.id}) is a link that leads "
            "out of the workspace; it is not read: remove it, and visit the source again"
        )
    return path
