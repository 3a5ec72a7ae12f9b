"""The `local` search provider: research over one's own documents, fully offline.

A folder (`--corpus DIR`) of Markdown, text, HTML, PDF, DOCX, PPTX, XLSX, CSV and EPUB files
(documents.py turns the office formats into Markdown that says where each passage is) is indexed with
SQLite FTS5 and searched with bm25 ranking (a match in the title counts more than one in the
body) and FTS5 snippets.

Chinese and Japanese: FTS5's `unicode61` tokenizer keeps a whole run of Han or kana characters
(a clause, often a sentence) as ONE token, so a word inside it could not be found. Each title and
body is therefore indexed twice: as written (English and other spaced scripts, with Porter
stemming), and as CJK character bigrams in two more columns (`固态电池技术` -> `固态 态电 电池 池技
技术` and the run's last character alone, `术`), where the Latin letters and digits glued to a CJK
run (`在2026年`) are separate tokens too. A CJK query word is looked up in those columns as a
phrase of its bigrams, so a 2-, 3- or 4-character word matches anywhere inside a sentence and is
ranked by bm25 like any other term; a single character is a prefix query on the bigrams; a longer
run with no spaces (a question typed as one clause) is its whole phrase OR each of its bigrams,
so documents sharing more of it rank higher. The snippet for such a query is cut around the place
of the body that holds the most query words. Chosen over the `trigram` tokenizer (cannot match a
2-character word, the commonest length in Chinese) and over jieba (a dependency last released in
2020 whose dictionary segmentation would miss words it joins into longer ones: `电池` in `固态电池`).

Where the index lives: `WORKSPACE/.runtime/corpus/<hash of the corpus path>.sqlite`. It is
derived data, so it stays with the run and never writes into the corpus folder, which may be
read-only or shared; deleting it only costs a re-index.

Kept up to date before every search, without walking the whole folder each time: the first search
of a process walks it and compares each file's key (inode, size and mtime: engine/file_key) with
the index; after that only the folders and files that inotify says changed are looked at again (corpus_watch.py; without inotify
the folder is walked every time). New and changed files are (re-)extracted, deleted ones removed,
all in one transaction. A file that cannot be read is recorded with its error, so it is not retried
until it changes, and the next search names it once (`failure_note`). Files of a kind that is not
read are named by the run at its start (`unread_files`, `unread_note`).

A snippet starts with where its match is in the document, read from the markers the conversion
leaves (documents.location): `[page 3]`, `[slide 2]`, `[sheet Q1, row 12]`, `[row 7]`, `[chapter 4]`.

The index is derived data, so it is written without fsync (`synchronous = OFF`): a crash of the
machine may damage it, and a damaged index is deleted and built again. A counter in `meta` tells
an instance that another one (on the same index) changed it, so its picture of the index is read
again.

A document's URL is `corpus:<path relative to the corpus folder>`; `visit_url` opens such a URL
from the corpus folder only (`read_document`), never from anywhere else on the disk.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import sqlite3
import stat
import threading
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from actions.web.corpus_text import CJK, cjk_grams, cjk_snippet_at, fts_query
from actions.web.corpus_watch import FolderState
from actions.web.documents import CONTENT_TYPES, content_type_of, location, readable
from actions.web.extract import extract
from actions.web.providers.base import SearchResult
from agent_runtime.engine.file_key import FileKey, stat_key
from agent_runtime.errors import CorpusError, ExtractionError, SearchError

SCHEME = "corpus:"
SCHEMA_VERSION = 4  # 2: CJK bigram columns; 3: a generation counter (meta); 4: the file key's inode
MAX_FILE_BYTES = 50 * 1024 * 1024
T = TypeVar("T")
_SNIPPET_OPEN, _SNIPPET_CLOSE = "\x02", "\x03"  # match markers, removed before display


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    failed: int = 0


def _short(error: str, most: int = 160) -> str:
    error = " ".join(error.split())
    return error if len(error) <= most else error[: most - 1] + "…"


def index_path_for(runtime_dir: Path, corpus: Path) -> Path:
    digest = hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:16]
    return runtime_dir / "corpus" / f"{digest}.sqlite"


def document_url(relative: str) -> str:
    return SCHEME + relative


def read_document(corpus: Path, url: str) -> tuple[bytes, str, Path]:
    """(bytes, content type, path) of the corpus document `corpus:<relative path>`. Refuses any
    path that leads outside the corpus folder (`..`, absolute paths, symlinks pointing out)."""
    relative = url[len(SCHEME) :].strip().lstrip("/")
    pure = PurePosixPath(relative)
    root = corpus.resolve()
    if not relative or ".." in pure.parts:
        raise CorpusError(f"{url!r} is not a document of the local corpus; use a URL from web_search results")
    path = (root / pure).resolve()
    if not path.is_relative_to(root):
        raise CorpusError(f"{url!r} leads outside the local corpus; only its own documents can be opened")
    content_type = content_type_of(path.name)
    if content_type is None:
        kinds = ", ".join(sorted(CONTENT_TYPES))
        raise CorpusError(f"{url!r} is not a supported document type ({kinds})")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise CorpusError(f"{url!r} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        return path.read_bytes(), content_type, path
    except FileNotFoundError:
        raise CorpusError(f"{url!r} does not exist in the local corpus (it may have been deleted)") from None
    except OSError as exc:
        raise CorpusError(f"{url!r} cannot be read: {exc.strerror or exc}") from None


class LocalCorpus:
    """The FTS5 index of one corpus folder. Thread-safe: every operation holds one lock, and the
    async `search` runs it in a worker thread. `watch=False` walks the folder before every search
    instead of following its changes (see corpus_watch)."""

    name = "local"

    def __init__(self, corpus: Path, index_path: Path, *, watch: bool = True) -> None:
        self.corpus = Path(corpus).expanduser().resolve()
        self.index_path = index_path
        self._root = str(self.corpus)
        self._root_slash = self._root.rstrip(os.sep) + os.sep
        self._lock = threading.Lock()
        self._tree = FolderState(self.corpus, readable, watch=watch, scratch=Path(index_path).parent)
        # The index's files table as of the last sync (path -> file key, row id), and the
        # generation it was read at: another instance on the same index makes it stale.
        self._indexed: dict[str, tuple[FileKey, int]] | None = None  # path -> (file key, row id)
        self._generation = -1
        self._compared = False  # has the picture of the index been compared with the whole folder?
        self._failures: list[tuple[str, str]] = []  # (path, error) found since last taken
        self._touched: set[str] = set()  # documents an event named (see corpus_watch.FolderState.look)
        self._db: sqlite3.Connection | None = None
        self._closer: weakref.finalize[Any, Any] | None = None

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        return await asyncio.to_thread(self.search_sync, query, max_results)

    def search_sync(self, query: str, max_results: int) -> list[SearchResult]:
        if not self.corpus.is_dir():
            raise SearchError(f"the corpus folder {self.corpus} does not exist any more")
        match = fts_query(query)
        if not match:
            return []
        has_cjk = bool(CJK.search(query))

        def run(db: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
            self._sync(db)
            return db.execute(
                "SELECT f.path, f.title, snippet(docs, 1, ?, ?, '…', 40), docs.body FROM docs "
                "JOIN files f ON f.id = docs.rowid WHERE docs MATCH ? "
                "ORDER BY bm25(docs, 5.0, 1.0, 5.0, 1.0) LIMIT ?",
                (_SNIPPET_OPEN, _SNIPPET_CLOSE, match, max_results),
            ).fetchall()

        results = []
        for path, title, snippet, body in self._with_index(run):
            raw = str(snippet)
            if has_cjk and _SNIPPET_OPEN not in raw:
                start, clean = cjk_snippet_at(str(body), query)  # the match is in the bigram columns
            else:
                bare = raw.replace(_SNIPPET_OPEN, "").replace(_SNIPPET_CLOSE, "")
                # The snippet is the body's own text: where its first match is in the body.
                lead = len(bare) - len(bare.lstrip("…"))
                start = str(body).find(bare.strip("…"))
                if start >= 0 and _SNIPPET_OPEN in raw:
                    start += raw.index(_SNIPPET_OPEN) - lead
                clean = " ".join(bare.split())
            where = location(str(body), start) if start >= 0 else None
            shown = f"[{where}] {clean}" if where else clean
            results.append(SearchResult(str(title) or str(path), document_url(str(path)), shown))
        return results

    def sync(self) -> SyncReport:
        """Bring the index up to date with the folder (also done before every search)."""
        return self._with_index(self._sync)

    def skipped(self) -> list[str]:
        """Files of the corpus of a kind that is not read (as of the last sync), relative paths."""
        with self._lock:
            return self._tree.skipped()

    def unreadable(self) -> list[tuple[str, str]]:
        """(path, why) of every document that could not be read, as the index records them."""
        return self._with_index(
            lambda db: [
                (str(p), str(e)) for p, e in db.execute(
                    "SELECT path, error FROM files WHERE error IS NOT NULL ORDER BY path"
                )
            ]
        )  # fmt: skip

    def take_failures(self) -> list[tuple[str, str]]:
        """(path, why) of the documents found unreadable since the last call: a search names them once."""
        with self._lock:
            taken, self._failures = self._failures, []
            return taken

    def failure_note(self) -> str | None:
        """The documents found unreadable since the last call, named once in a search's observation."""
        failures = self.take_failures()
        if not failures:
            return None
        shown = "; ".join(f"{path} ({_short(error)})" for path, error in failures[:5])
        more = f"; and {len(failures) - 5} more" if len(failures) > 5 else ""
        plural = "s" if len(failures) != 1 else ""
        return f"{len(failures)} corpus file{plural} could not be read and {'are' if plural else 'is'} left out: {shown}{more}"

    def close(self) -> None:
        with self._lock:
            self._tree.close()
            self._disconnect()

    # -- internals -----------------------------------------------------------------------------
    def _with_index(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` on the connection to the index, under the lock. A damaged index file (a crash with
        synchronous off, a disk error) is derived data: it is deleted and built again, once."""
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._db is None:
                        self._db = self._connect()
                        self._closer = weakref.finalize(self, self._db.close)
                    return work(self._db)
                except sqlite3.DatabaseError as exc:
                    self._indexed = None
                    if isinstance(exc, sqlite3.OperationalError) or attempt == 2:
                        raise
                    self._disconnect()
                    for suffix in ("", "-journal", "-wal", "-shm"):
                        Path(f"{self.index_path}{suffix}").unlink(missing_ok=True)
            raise AssertionError("unreachable")

    def _disconnect(self) -> None:
        if self._closer is not None:
            self._closer()  # closes the connection
        self._db, self._closer = None, None

    def _connect(self) -> sqlite3.Connection:
        self.index_path.parent.mkdir(parents=True, exist_ok=True)
        # One connection for the instance's life (opening one costs more than a small query); used
        # by one thread at a time, under the lock, whichever worker thread that is.
        db = sqlite3.connect(self.index_path, check_same_thread=False)
        # A rebuildable index: no fsync (a crash of the machine may damage it, and a damaged index
        # is rebuilt, see _with_index); the rollback journal still undoes a half-done sync.
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA temp_store = MEMORY")
        db.execute("PRAGMA cache_size = -32768")  # 32 MB
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            db.executescript(
                "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS meta;"
                "CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, inode INTEGER, size INTEGER,"
                " mtime_ns INTEGER, title TEXT, error TEXT);"
                "CREATE VIRTUAL TABLE docs USING fts5(title, body, title_grams, body_grams,"
                " tokenize='porter unicode61 remove_diacritics 2');"
                "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER);"
                "INSERT INTO meta VALUES ('generation', 0);"
                f"PRAGMA user_version = {SCHEMA_VERSION};"
            )
        return db

    def _walk(self) -> dict[str, os.stat_result]:
        """The documents of the corpus folder now (relative path -> lstat); see corpus_watch for
        how it is kept up to date without walking the folder again."""
        self._touched |= self._tree.look()
        return self._tree.files

    def _sync(self, db: sqlite3.Connection) -> SyncReport:
        report = SyncReport()
        generation = int(db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])
        if self._indexed is None or generation != self._generation:
            self._indexed = {
                str(row[0]): ((row[1], row[2], row[3]), row[4])
                for row in db.execute("SELECT path, inode, size, mtime_ns, id FROM files")
            }
            self._compared = False  # a new picture of the index: compare it with the whole folder
        self._touched = set()
        on_disk = self._walk()
        touched, self._touched = self._touched, set()
        dirty = self._tree.take_dirty() if on_disk is self._tree.files else None
        indexed = self._indexed
        if dirty is None or not self._compared:
            candidates: Iterable[str] = {*on_disk, *indexed}
        elif dirty or touched:
            candidates = dirty | touched  # only what the folder's events named can differ
        else:
            return report  # nothing happened in the folder since the last sync
        removed = [path for path in candidates if path in indexed and path not in on_disk]
        changed = [
            (path, info)
            for path in candidates
            if (info := on_disk.get(path)) is not None
            and (
                path in touched
                or (known := indexed.get(path)) is None
                or known[0] != stat_key(info)
            )
        ]
        if removed or changed:
            try:
                self._apply(db, sorted(removed), sorted(changed, key=lambda item: item[0]), report)
            except BaseException:
                self._indexed = None  # the transaction was rolled back: read the table again
                raise
            self._generation = generation + 1
        else:
            self._generation = generation
        self._compared = on_disk is self._tree.files
        return report

    def _apply(
        self,
        db: sqlite3.Connection,
        removed: list[str],
        changed: list[tuple[str, os.stat_result]],
        report: SyncReport,
    ) -> None:
        """One transaction: a crash leaves the old index, never a half-updated one."""
        assert self._indexed is not None
        indexed = self._indexed
        parents: dict[str, str] = {}  # real path of each folder, resolved once per sync
        with db:
            for path in removed:
                row_id = indexed.pop(path)[1]
                db.execute("DELETE FROM docs WHERE rowid = ?", (row_id,))
                db.execute("DELETE FROM files WHERE id = ?", (row_id,))
                report.removed += 1
            for path, info in changed:
                known = indexed.get(path)
                title, body, error = self._read(path, info.st_size, parents)
                if known is None:
                    cursor = db.execute(
                        "INSERT INTO files(path, inode, size, mtime_ns, title, error) VALUES (?, ?, ?, ?, ?, ?)",
                        (path, *stat_key(info), title, error),
                    )
                    row_id = int(cursor.lastrowid or 0)
                    report.added += 1
                else:
                    row_id = known[1]
                    db.execute(
                        "UPDATE files SET inode = ?, size = ?, mtime_ns = ?, title = ?, error = ? WHERE id = ?",
                        (*stat_key(info), title, error, row_id),
                    )
                    db.execute("DELETE FROM docs WHERE rowid = ?", (row_id,))
                    report.updated += 1
                indexed[path] = (stat_key(info), row_id)
                if error is None:
                    db.execute(
                        "INSERT INTO docs(rowid, title, body, title_grams, body_grams) VALUES (?, ?, ?, ?, ?)",
                        (row_id, title, body, cjk_grams(title), cjk_grams(body)),
                    )
                else:
                    report.failed += 1
                    self._failures.append((path, error))
            db.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")

    def _read_inside(self, path: str, parents: dict[str, str] | None = None) -> bytes:
        """The bytes of a corpus file, refused unless its real folder is inside the corpus folder:
        the walk saw a regular file, but it may have been swapped for a link since. The file itself
        is opened without following a link, so a link planted after the check fails."""
        folder, name = os.path.split(path)
        real_folder = (parents or {}).get(folder) or os.path.realpath(folder)
        if parents is not None:
            parents[folder] = real_folder
        if real_folder != self._root and not real_folder.startswith(self._root_slash):
            raise OSError("it leads outside the corpus folder")
        try:
            fd = os.open(
                os.path.join(real_folder, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            )
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OSError("it is a link now, which is not followed") from None
            raise
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise OSError("it is not a regular file")
            # Not read(MAX_FILE_BYTES + 1): that allocates the whole 50 MB for every small file.
            return handle.read(min(info.st_size, MAX_FILE_BYTES) + 1)

    def _read(
        self, relative: str, size: int, parents: dict[str, str] | None = None
    ) -> tuple[str, str, str | None]:
        """(title, text, error) of one document."""
        if size > MAX_FILE_BYTES:
            return relative, "", f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"
        try:
            data = self._read_inside(os.path.join(self._root, relative), parents)
            if len(data) > MAX_FILE_BYTES:
                return relative, "", f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"
            extracted = extract(
                data, content_type=content_type_of(relative) or "", charset=None, url=relative
            )
        except OSError as exc:
            return relative, "", exc.strerror or str(exc) or type(exc).__name__
        except ExtractionError as exc:
            return relative, "", str(exc) or type(exc).__name__
        stem = os.path.splitext(relative.rsplit("/", 1)[-1])[0]
        return extracted.title or stem, extracted.text, None


def unread_files(corpus: Path) -> list[str]:
    """Files of the corpus folder of a kind that is not read (relative paths, sorted): one walk,
    for the run to name them at its start instead of leaving them out silently."""
    tree = FolderState(Path(corpus).expanduser().resolve(), readable, watch=False)
    tree.look()
    return tree.skipped()


def unread_note(files: list[str], most: int = 10) -> str:
    """ "Corpus: skipped 2 files of a kind that is not read: a.bin, b.dwg" """
    shown = ", ".join(files[:most]) + (f" and {len(files) - most} more" if len(files) > most else "")
    kinds = ", ".join(sorted(CONTENT_TYPES))
    plural = "s" if len(files) != 1 else ""
    return f"Corpus: skipped {len(files)} file{plural} of a kind that is not read: {shown} (read: {kinds})"
