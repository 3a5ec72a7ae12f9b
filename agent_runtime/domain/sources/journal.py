"""The ledger's two files, and the journal's reading and appending.

Files: `sources/ledger.json` (the whole ledger as of the last compaction) and
`sources/ledger.journal.jsonl` (the changes since). A save appends one line to the journal, the changed records whole, and fsyncs it once: its cost
depends on what changed, not on how many sources the run has seen (rewriting the whole file on
every search made a long run's saving quadratic). Once the journal outgrows `ledger.json`, the
whole ledger is written to `ledger.json` atomically and the journal emptied (a compaction): the
bytes written per change stay bounded (each compaction is paid for by at least as many appended
bytes), and a load replays no more than it reads. Loading reads `ledger.json`, then replays the
journal line by line; a last line cut by a crash mid-append is ignored (that save never returned), and the
next append first cuts it off, so no line ever follows a torn one.

`ledger.json` (UTF-8, indented):

```
{
  "format": 1,
  "next_id": 4,                       # the next number; never below 1 + the highest id ever used
  "sources": [
    {
      "id": "S1",
      "url": "https://example.com/a?utm_source=x",   # the URL as first seen
      "canonical_url": "https://example.com/a",
      "aliases": ["https://example.com/final"],      # other canonical URLs of the same source
                                                     # (where a visit was redirected)
      "title": "Example article",
      "first_seen": "2026-01-05T10:00:00+00:00",
      "first_seen_via": "search",                    # "search" or "visit"
      "fetched_at": "2026-01-05T10:02:00+00:00",     # null: only seen in search results
      "final_url": "https://example.com/final",      # after redirects; null until fetched
      "snapshot": "sources/S1.md",                   # the saved full text; null until fetched
      "content_type": "text/html",
      "sha256": "…"                                  # of the bytes received
    }
  ]
}
```

`ledger.journal.jsonl`: one save per line, `{"next_id": 6, "sources": [<record>, …]}` (compact
JSON, each record whole as above). Replaying a line puts its records in place of those with the
same ids, and a compaction comes only when the journal holds every change (pending ones are
appended first): replaying lines that `ledger.json` already folded in ends in the same ledger, so
a crash after a compaction's new `ledger.json` but before the journal was emptied is harmless.
`ledger.json` alone is complete only right after a compaction: a reader that opens the files itself
goes through `read_records` (the live view), anything else through `Ledger.load`.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from contextlib import suppress
from pathlib import Path
from typing import Any

from agent_runtime.domain.sources.records import SourceRecord
from agent_runtime.errors import WorkspaceError
from sandbox import storage_error

LEDGER_FILE = "ledger.json"
JOURNAL_FILE = "ledger.journal.jsonl"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(
    os, "O_CLOEXEC", 0
)  # the journal's opens (see _open_regular)


def journal_changes(raw: bytes, *, strict: bool) -> tuple[list[dict[str, Any]], int]:
    """(the changes of the journal's complete lines, where the last good line ends). A line with
    no newline after it is a torn append and is left out; so is an unreadable last line (a power cut
    can leave a line's end written before its start). `strict`: an unreadable line before another
    is damage (ValueError); otherwise it is skipped (a reader that must not fail)."""
    changes: list[dict[str, Any]] = []
    start = end = 0
    while (newline := raw.find(b"\n", start)) >= 0:
        line, start = raw[start:newline], newline + 1
        if not line.strip():
            end = start
            continue
        change = _parse_change(line)
        if change is not None:
            changes.append(change)
            end = start
        elif strict and raw[start:].strip():
            number = raw.count(b"\n", 0, newline) + 1
            raise ValueError(f"line {number} is not a saved change")
    return changes, end


def _parse_change(line: bytes) -> dict[str, Any] | None:
    try:
        change = json.loads(line)
    except ValueError:  # UnicodeDecodeError included
        return None
    return change if isinstance(change, dict) and isinstance(change.get("sources"), list) else None


def _open_regular(path: Path, flags: int) -> int:
    """open(2) of a regular file only: a link at the name is refused, never followed (as
    `atomic_write_text` replaces one instead of writing where it leads), and a FIFO or a folder
    planted there is refused without blocking on it."""
    fd = os.open(path, flags | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), 0o600)  # as private as mkstemp's
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file")
    return fd


def read_journal(path: Path) -> bytes | None:
    """The journal's bytes (None when there is none)."""
    try:
        fd = _open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _read_error(exc, path) from None
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise _read_error(exc, path) from None


def open_journal(path: Path) -> tuple[int, bool]:
    """(a descriptor appending to the journal, whether this created it)."""
    flags = os.O_RDWR | os.O_APPEND  # read too: a repair looks for the last good line
    try:
        return _open_regular(path, flags), False
    except FileNotFoundError:
        return _open_regular(path, flags | os.O_CREAT | os.O_EXCL), True


def append_line(fd: int, data: bytes, repair: bool) -> int:
    """Append `data` at `fd` and fsync; the journal's size after. `repair`: first cut off a torn
    last line (a crash, or a failed append), so that the new line does not continue it."""
    size = os.fstat(fd).st_size
    if repair:
        size = _complete_size(fd)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        # An error or an interrupt: the half line goes, the last good line ends the file again (if
        # even that fails, the caller's repair flag cuts it before the next append).
        with suppress(OSError):
            os.ftruncate(fd, size)
        raise
    return size + len(data)


def _complete_size(fd: int) -> int:
    """Cut the journal open at `fd` after its last good line; its new size."""
    os.lseek(fd, 0, os.SEEK_SET)  # reads follow the offset; O_APPEND writes still go to the end
    chunks: list[bytes] = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    _, end = journal_changes(b"".join(chunks), strict=False)
    os.ftruncate(fd, end)
    return end


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def empty_journal(path: Path) -> None:
    try:
        fd = _open_regular(path, os.O_WRONLY)
    except FileNotFoundError:
        return
    try:
        os.ftruncate(fd, 0)
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_error(exc: OSError, path: Path) -> WorkspaceError:
    if exc.errno == errno.ELOOP:
        return WorkspaceError(f"{path} is a link: the source ledger's journal is not read through one")
    return WorkspaceError(f"cannot read the source ledger's journal {path}: {exc.strerror or exc}")


def write_error(exc: OSError, path: Path) -> Exception:
    """A StorageError for a failing disk (as atomic_write_text raises), else a WorkspaceError."""
    failing_disk = storage_error(exc, path)
    if failing_disk is not None:
        return failing_disk
    if exc.errno == errno.ELOOP:
        return WorkspaceError(f"{path} is a link: the source ledger's journal is not written through one")
    return WorkspaceError(f"cannot write the source ledger's journal {path}: {exc.strerror or exc}")


def read_records(ledger_text: str | None, journal_text: str | None) -> list[SourceRecord]:
    """The records that `ledger.json` (`ledger_text`) and the journal (`journal_text`) hold
    together, in id order, for a reader that must neither write nor fail (the live view): what does
    not parse is skipped. Read the journal before `ledger.json`: a compaction between the two reads
    then replays changes the new `ledger.json` holds already (at worst a record shows an older
    state until the next read), where the other order would miss the sources it moved there."""
    records: dict[str, SourceRecord] = {}
    if ledger_text is not None:
        with suppress(ValueError):
            data = json.loads(ledger_text)
            if isinstance(data, dict) and isinstance(data.get("sources"), list):
                _put_lenient(records, data["sources"])
    if journal_text is not None:
        for change in journal_changes(journal_text.encode("utf-8", "replace"), strict=False)[0]:
            _put_lenient(records, change["sources"])
    return sorted(records.values(), key=lambda r: r.number)


def _put_lenient(records: dict[str, SourceRecord], entries: list[Any]) -> None:
    for entry in entries:
        with suppress(ValueError, TypeError):
            record = SourceRecord.from_json(entry)
            records[record.id] = record
