"""The source ledger: one stable id `S<n>` per source, owned by code, never by the model.

Every search result and every visited page gets an id the first time it is seen; the model cites
that id as `[S<n>]`, and the finalization builds the References from the ledger. So an id must
never change meaning: it is assigned once per *canonical* URL, kept for the whole run, stored in
the workspace and loaded again on resume, and never reused, not even after a record is lost.

See `urls` for the canonical URL, `journal` for the two files and their format, `front_matter` for
the snapshots' heads and `snapshots` for their paths.

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

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_runtime.domain.sources.front_matter import read_front_matter
from agent_runtime.domain.sources.journal import (
    JOURNAL_FILE,
    LEDGER_FILE,
    append_line,
    empty_journal,
    journal_changes,
    open_journal,
    read_journal,
    write_error,
)
from agent_runtime.domain.sources.records import SourceRecord, Via, clean_title, now
from agent_runtime.domain.sources.snapshots import SNAPSHOT_NAME, check_snapshot_name, snapshot_file
from agent_runtime.domain.sources.urls import canonical_url
from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text
from sandbox.redaction import redact_secrets
from sandbox.safe_write import fsync_directory

if TYPE_CHECKING:
    from agent_runtime.engine.run_context import ActionContext

FORMAT = 1


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
        raw = read_journal(self.journal_path)
        if raw is None:
            return
        try:
            changes, end = journal_changes(raw, strict=True)
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
            names = sorted(p.name for p in self.sources_dir.iterdir() if SNAPSHOT_NAME.match(p.name))
        except OSError:
            return
        for name in names:
            match = SNAPSHOT_NAME.match(name)
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
            fetched_at = fields.get("fetched_at") or now()
            if record is None:
                record = SourceRecord(
                    id=source_id,
                    url=url,
                    canonical_url=canonical_url(url),
                    first_seen=fetched_at,
                    first_seen_via="visit",
                )
                self._add(record)
            record.title = record.title or clean_title(fields.get("title", ""))
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
                existing.title = clean_title(title)
                self._changed(existing)
            if snippet and not existing.snippet:
                existing.snippet = snippet.strip()[:2000]
                self._changed(existing)
            return existing
        record = SourceRecord(
            id=f"S{self._next}",
            url=url.strip(),
            canonical_url=canonical_url(url),
            title=clean_title(title or ""),
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
        record.fetched_at = fetched_at or now()
        record.final_url = final_url
        record.snapshot = snapshot
        record.content_type = content_type
        record.sha256 = sha256
        if title:
            record.title = clean_title(title)
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
            fd, created = open_journal(self.journal_path)
            try:
                self._journal_bytes = append_line(fd, data, repair)
            finally:
                os.close(fd)
            if created:
                fsync_directory(self.sources_dir)  # the new name survives a power cut too
        except OSError as exc:
            raise write_error(exc, self.journal_path) from exc
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
            empty_journal(self.journal_path)
        except OSError as exc:
            raise write_error(exc, self.journal_path) from exc
        self._journal_bytes = 0
        self._repair = False


def ledger_for(ctx: ActionContext) -> Ledger:
    """The run's ledger, loaded from `sources/` on first use and kept in the run's services."""
    return ctx.services.get(Ledger, lambda: Ledger.load(ctx.workspace.root / "sources"))
