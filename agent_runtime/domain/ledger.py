"""The source ledger: one stable id `S<n>` per source, owned by code, never by the model.

Every search result and every visited page gets an id the first time it is seen; the model cites
that id as `[S<n>]`, and the finalization builds the References from the ledger. So an id must
never change meaning: it is assigned once per *canonical* URL, kept for the whole run, stored in
the workspace and loaded again on resume, and never reused, not even after a record is lost.

Canonical URL (`canonical_url`): scheme and host lower-cased, default port and fragment dropped,
`/a/` and `/a` the same page, tracking parameters (`utm_*`, `fbclid`, `gclid`, …) removed. Other
query parameters keep their order: on many sites they select the content. URLs that are not
http(s) (`corpus:notes/a.md`, the local corpus's documents) are kept as they are.

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

Each fetched source's snapshot `sources/S<n>.md` repeats its id, URLs, title, time and hash in
YAML front matter, so a ledger lost or damaged by hand can be rebuilt from the snapshots
(`Ledger.load` does that for snapshots the ledger does not list), and ids found there are never
handed out again.

    ledger = Ledger.load(workspace.root / "sources")
    record = ledger.register("https://example.com/a", "Example", via="search")   # -> S1
    ledger.mark_fetched(record.id, final_url=..., title=..., content_type=..., sha256=..., snapshot=...)
    ledger.get("S1").fetched       # True
    ledger_for(ctx)                # the run's one ledger, kept in its services
    read_records(ledger_json_text, journal_text)   # the same records, for a reader that must not write
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text, storage_error
from sandbox.redaction import redact_secrets
from sandbox.safe_write import fsync_directory

if TYPE_CHECKING:
    from agent_runtime.engine.context import ActionContext

LEDGER_FILE = "ledger.json"
JOURNAL_FILE = "ledger.journal.jsonl"
FORMAT = 1

Via = Literal["search", "visit"]

_ID = re.compile(r"^S([1-9][0-9]*)$")
_SNAPSHOT_NAME = re.compile(r"^S([1-9][0-9]*)\.md$")

# Query parameters that only say where a click came from; they never change the page.
_TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_")
_TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid",
        "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id",
        "oly_enc_id", "vero_id", "rb_clickid", "s_cid", "ref_src", "spm",
    }
)  # fmt: skip
_DEFAULT_PORTS = {"http": 80, "https": 443}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(
    os, "O_CLOEXEC", 0
)  # the journal's opens (see _open_regular)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in _TRACKING_PARAMS or lowered.startswith(_TRACKING_PREFIXES)


def canonical_url(url: str) -> str:
    """The form under which a URL gets its id (see the module docstring)."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return url
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    path = parts.path or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    query_pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    query = urlencode(query_pairs, doseq=True) if query_pairs else ""
    return urlunsplit((scheme, netloc, path, query, ""))


def _number(source_id: str) -> int | None:
    match = _ID.match(source_id)
    return int(match.group(1)) if match else None


@dataclass
class SourceRecord:
    """What the ledger knows about one source."""

    id: str
    url: str
    canonical_url: str
    title: str = ""
    first_seen: str = field(default_factory=_now)
    first_seen_via: Via = "search"
    aliases: list[str] = field(default_factory=list)
    fetched_at: str | None = None
    final_url: str | None = None
    snapshot: str | None = None
    content_type: str | None = None
    sha256: str | None = None
    snippet: str | None = None  # what the search result said: the evidence for a source never read

    @property
    def fetched(self) -> bool:
        """True once the page itself was retrieved and saved (not only seen in search results)."""
        return self.fetched_at is not None

    @property
    def number(self) -> int:
        number = _number(self.id)
        assert number is not None  # ids are validated on load and made by the ledger
        return number

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> SourceRecord:
        if not isinstance(data, dict):
            raise ValueError("a source entry is not an object")
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        record = cls(**known)
        if _number(record.id) is None:
            raise ValueError(f"invalid source id {record.id!r}")
        if record.first_seen_via not in ("search", "visit"):
            record.first_seen_via = "search"
        return record


class Ledger:
    """The run's sources; one instance per run (see `ledger_for`): it alone appends to the journal,
    and its byte counts are what decide when to compact. Not thread-safe: use it from the event
    loop, as the actions do (every method runs to its end without awaiting, so the parallel actions
    of one reply never interleave inside a save)."""

    def __init__(self, sources_dir: Path) -> None:
        self.sources_dir = Path(sources_dir)
        self.path = self.sources_dir / LEDGER_FILE
        self.journal_path = self.sources_dir / JOURNAL_FILE
        self._records: dict[str, SourceRecord] = {}
        self._by_url: dict[str, str] = {}  # canonical URL or alias -> id
        self._next = 1
        self._deferred = 0
        self._pending: dict[str, None] = {}  # ids changed since the last save, in order
        self._compacted_bytes = 0  # the size of ledger.json as last read or written
        self._journal_bytes = 0  # of the journal's complete lines
        self._repair = False  # True: the journal may end in a torn line, cut off before appending

    # -- loading -------------------------------------------------------------------------------
    @classmethod
    def load(cls, sources_dir: Path) -> Ledger:
        """The ledger stored in `sources_dir` (an empty one if there is none yet): `ledger.json`,
        the journal replayed onto it, then completed with any snapshot `S<n>.md` it does not list.
        A damaged file is an error, not a silent reset: ids cited in notes must keep their meaning.
        Only a torn last journal line is let go: a crash cut that save before it returned."""
        ledger = cls(sources_dir)
        ledger._load_compacted()
        ledger._load_journal()
        ledger._recover_from_snapshots()
        if ledger._pending:  # a load writes only what it recovered from the snapshots
            ledger._flush()
        return ledger

    def _load_compacted(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise WorkspaceError(
                f"cannot read the source ledger {self.path}: {exc.strerror or exc}"
            ) from None
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or not isinstance(data.get("sources"), list):
                raise ValueError("no 'sources' list")
            for entry in data["sources"]:
                record = SourceRecord.from_json(entry)
                check_snapshot_name(self.sources_dir, record)
                self._add(record)
            self._next = max(self._next, int(data.get("next_id", 1)))
        except (ValueError, TypeError) as exc:
            raise WorkspaceError(
                f"the source ledger {self.path} is damaged ({exc}); restore it, or move it aside "
                "to rebuild it from the snapshots in sources/ (sources seen only in search results "
                "are then forgotten)"
            ) from None
        self._compacted_bytes = len(raw)

    def _load_journal(self) -> None:
        raw = _read_journal(self.journal_path)
        if raw is None:
            return
        try:
            changes, end = _journal_changes(raw, strict=True)
            for change in changes:
                self._replay(change)
        except (ValueError, TypeError) as exc:
            raise WorkspaceError(
                f"the source ledger's journal {self.journal_path} is damaged ({exc}); restore it, or move "
                f"it aside to go on from {LEDGER_FILE} and the snapshots in sources/ (what only the journal "
                "holds, such as sources seen only in search results since, is then forgotten)"
            ) from None
        self._journal_bytes = end
        self._repair = end < len(raw)  # cut off before the next append, not now: a load writes nothing

    def _replay(self, change: dict[str, Any]) -> None:
        """One journal line: its records take the place of those with the same ids."""
        for entry in change["sources"]:
            record = SourceRecord.from_json(entry)
            check_snapshot_name(self.sources_dir, record, JOURNAL_FILE)
            self._put(record)
        self._next = max(self._next, int(change.get("next_id", 1)))

    def snapshot_path(self, record: SourceRecord) -> Path | None:
        """The file of a source's saved text (see `snapshot_file`)."""
        return snapshot_file(self.sources_dir, record)

    def _recover_from_snapshots(self) -> None:
        """Complete the ledger from snapshot files it does not account for (a crash between the
        snapshot write and the ledger write, or a ledger lost by hand); what changed is pending."""
        try:
            names = sorted(p.name for p in self.sources_dir.iterdir() if _SNAPSHOT_NAME.match(p.name))
        except OSError:
            return
        for name in names:
            match = _SNAPSHOT_NAME.match(name)
            assert match is not None
            number = int(match.group(1))
            source_id = f"S{number}"
            self._next = max(self._next, number + 1)  # an id seen anywhere is never handed out again
            record = self._records.get(source_id)
            if record is not None and record.fetched:
                continue
            try:
                with (self.sources_dir / name).open(encoding="utf-8", errors="replace") as handle:
                    fields = read_front_matter(handle.read(16_384))
            except OSError:
                continue
            url = fields.get("url")
            if not url or fields.get("id") != source_id:
                continue
            fetched_at = fields.get("fetched_at") or _now()
            if record is None:
                record = SourceRecord(
                    id=source_id,
                    url=url,
                    canonical_url=canonical_url(url),
                    first_seen=fetched_at,
                    first_seen_via="visit",
                )
                self._add(record)
            record.title = record.title or _clean_title(fields.get("title", ""))
            record.fetched_at = fetched_at
            record.final_url = fields.get("final_url") or url
            record.snapshot = f"{self.sources_dir.name}/{name}"
            record.content_type = fields.get("content_type")
            record.sha256 = fields.get("sha256")
            self._pending[source_id] = None

    def _add(self, record: SourceRecord) -> None:
        if record.id in self._records:
            raise ValueError(f"duplicate source id {record.id}")
        self._records[record.id] = record
        self._index(record)
        self._next = max(self._next, record.number + 1)

    def _put(self, record: SourceRecord) -> None:
        """Add `record`, or replace the one with its id (a journal line's newer state of it)."""
        if record.id not in self._records:
            self._add(record)
            return
        self._records[record.id] = record
        self._index(record)  # aliases only grow: the URLs of the older state map to it already

    def _index(self, record: SourceRecord) -> None:
        for url in (record.canonical_url, *record.aliases):
            self._by_url.setdefault(url, record.id)

    # -- queries -------------------------------------------------------------------------------
    def get(self, source_id: str) -> SourceRecord | None:
        """The record of `source_id` ("S3"; "[S3]" and "s3" are accepted too), or None."""
        key = source_id.strip().strip("[]").upper()
        return self._records.get(key)

    def lookup(self, url: str) -> SourceRecord | None:
        """The record whose canonical URL (or alias) is that of `url`, or None."""
        source_id = self._by_url.get(canonical_url(url))
        return None if source_id is None else self._records[source_id]

    def records(self) -> list[SourceRecord]:
        """Every record, in id order."""
        return sorted(self._records.values(), key=lambda r: r.number)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, source_id: object) -> bool:
        return isinstance(source_id, str) and self.get(source_id) is not None

    # -- changes -------------------------------------------------------------------------------
    def register(
        self, url: str, title: str | None = None, via: Via = "search", snippet: str | None = None
    ) -> SourceRecord:
        """The record for `url`, created with the next id at first sight. A known source keeps its
        id; its title and its search snippet are filled in if it had none."""
        existing = self.lookup(url)
        if existing is not None:
            if title and not existing.title:
                existing.title = _clean_title(title)
                self._changed(existing)
            if snippet and not existing.snippet:
                existing.snippet = snippet.strip()[:2000]
                self._changed(existing)
            return existing
        record = SourceRecord(
            id=f"S{self._next}",
            url=url.strip(),
            canonical_url=canonical_url(url),
            title=_clean_title(title or ""),
            first_seen_via=via,
            snippet=snippet.strip()[:2000] if snippet else None,
        )
        self._add(record)
        self._changed(record)
        return record

    def mark_fetched(
        self,
        source_id: str,
        *,
        final_url: str,
        title: str | None,
        content_type: str,
        sha256: str,
        snapshot: str,
        fetched_at: str | None = None,
    ) -> SourceRecord:
        """Record that the source was retrieved and saved as `snapshot` (a workspace-relative
        path). The final URL becomes an alias of the same id, unless another source owns it."""
        record = self.get(source_id)
        if record is None:
            raise KeyError(f"unknown source id {source_id}")
        record.fetched_at = fetched_at or _now()
        record.final_url = final_url
        record.snapshot = snapshot
        record.content_type = content_type
        record.sha256 = sha256
        if title:
            record.title = _clean_title(title)
        self._alias(record, final_url)
        self._changed(record)
        return record

    def add_alias(self, record: SourceRecord, url: str) -> None:
        """`url` (where the source's URL led) names the same source from now on, unless another
        source owns it already."""
        if self._alias(record, url):
            self._changed(record)

    def _alias(self, record: SourceRecord, url: str) -> bool:
        final = canonical_url(url)
        if final in self._by_url:
            return False
        self._by_url[final] = record.id
        record.aliases.append(final)
        return True

    @contextmanager
    def batch(self) -> Iterator[Ledger]:
        """Save once at the end instead of after each change (a page of search results): one
        journal line, all of its changes or none."""
        self._deferred += 1
        try:
            yield self
        finally:
            self._deferred -= 1
            if self._deferred == 0:
                self._flush()

    def _changed(self, record: SourceRecord) -> None:
        self._pending[record.id] = None
        if self._deferred == 0:
            self._flush()

    # -- writing -------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the whole ledger to `ledger.json` now and empty the journal (a compaction).
        Pending changes are appended first, so that the journal ends with every record's state as
        `ledger.json` now holds it: a crash before the emptying replays to the same ledger."""
        self._append_pending()
        self._compact()

    def _flush(self) -> None:
        """Append the pending changes; compact once the journal has outgrown `ledger.json`."""
        self._append_pending()
        if self._journal_bytes > self._compacted_bytes:
            self._compact()

    def _append_pending(self) -> None:
        if not self._pending:
            return
        change = {"next_id": self._next, "sources": [self._records[i].to_json() for i in self._pending]}
        line = json.dumps(change, ensure_ascii=False, separators=(",", ":"))
        # Redacted as atomic_write_text redacts: no key is ever written down.
        self._append((redact_secrets(line) + "\n").encode("utf-8"))
        self._pending.clear()

    def _append(self, data: bytes) -> None:
        """One line at the journal's end, fsynced: durable once this returns. A failed or
        interrupted write is cut off again, so the journal never ends in half a line we wrote."""
        self.sources_dir.mkdir(parents=True, exist_ok=True)
        repair, self._repair = self._repair, True  # stays True if this append fails in any way
        try:
            fd, created = _open_journal(self.journal_path)
            try:
                self._journal_bytes = _append_line(fd, data, repair)
            finally:
                os.close(fd)
            if created:
                fsync_directory(self.sources_dir)  # the new name survives a power cut too
        except OSError as exc:
            raise _write_error(exc, self.journal_path) from exc
        self._repair = False

    def _compact(self) -> None:
        """`ledger.json` := the whole ledger (atomic, durable), then the journal emptied. A crash
        in between leaves lines `ledger.json` already holds: replaying them changes nothing."""
        data = {
            "format": FORMAT,
            "next_id": self._next,
            "sources": [record.to_json() for record in self.records()],
        }
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        self.sources_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, text)
        self._compacted_bytes = len(text.encode("utf-8"))
        try:
            _empty_journal(self.journal_path)
        except OSError as exc:
            raise _write_error(exc, self.journal_path) from exc
        self._journal_bytes = 0
        self._repair = False


def _journal_changes(raw: bytes, *, strict: bool) -> tuple[list[dict[str, Any]], int]:
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


def _read_journal(path: Path) -> bytes | None:
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


def _open_journal(path: Path) -> tuple[int, bool]:
    """(a descriptor appending to the journal, whether this created it)."""
    flags = os.O_RDWR | os.O_APPEND  # read too: a repair looks for the last good line
    try:
        return _open_regular(path, flags), False
    except FileNotFoundError:
        return _open_regular(path, flags | os.O_CREAT | os.O_EXCL), True


def _append_line(fd: int, data: bytes, repair: bool) -> int:
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
    _, end = _journal_changes(b"".join(chunks), strict=False)
    os.ftruncate(fd, end)
    return end


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _empty_journal(path: Path) -> None:
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


def _write_error(exc: OSError, path: Path) -> Exception:
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
        for change in _journal_changes(journal_text.encode("utf-8", "replace"), strict=False)[0]:
            _put_lenient(records, change["sources"])
    return sorted(records.values(), key=lambda r: r.number)


def _put_lenient(records: dict[str, SourceRecord], entries: list[Any]) -> None:
    for entry in entries:
        with suppress(ValueError, TypeError):
            record = SourceRecord.from_json(entry)
            records[record.id] = record


def render_front_matter(fields: dict[str, str | int | bool | None]) -> str:
    """YAML front matter for a snapshot: one `key: value` line each, strings JSON-quoted (a JSON
    string is a valid YAML double-quoted scalar, so any title or URL is safe)."""
    lines = ["---"]
    for key, value in fields.items():
        if value is None:
            lines.append(f"{key}: null")
        elif isinstance(value, bool):
            lines.append(f"{key}: {'true' if value else 'false'}")
        elif isinstance(value, int):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def read_front_matter(text: str) -> dict[str, str]:
    """The string fields of front matter written by `render_front_matter` (others are skipped)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    fields: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep or not value:
            continue
        if value.startswith('"'):
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, str):
                fields[key.strip()] = parsed
        elif value != "null":
            fields[key.strip()] = value
    return fields


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """(front matter fields, the body after it) of a snapshot."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 3)
    if end < 0:
        return {}, text
    return read_front_matter(text[: end + 5]), text[end + 5 :].lstrip("\n")


def _clean_title(title: str) -> str:
    return " ".join(title.split())[:300]


def ledger_for(ctx: ActionContext) -> Ledger:
    """The run's ledger, loaded from `sources/` on first use and kept in the run's services."""
    return ctx.services.get(Ledger, lambda: Ledger.load(ctx.workspace.root / "sources"))


def check_snapshot_name(sources_dir: Path, record: SourceRecord, file: str = LEDGER_FILE) -> None:
    """A snapshot is `sources/S<n>.md` and nothing else: a ledger that names another file
    (absolute, `..`, another folder) was edited by hand or tampered with, and is refused before
    anything is read through it. `file`: the ledger's file the record was read from (the error
    names it: `ledger.json` or the journal)."""
    if record.snapshot is None:
        return
    folder, _, name = record.snapshot.partition("/")
    if folder != sources_dir.name or not _SNAPSHOT_NAME.match(name):
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
