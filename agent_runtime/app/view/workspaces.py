"""What the live view reads: the workspaces under the folder it serves, each run's figures, its
documents, sources and report.

Read only, and from files only (the view imports none of the run's engine). A request names a
workspace by its folder name and a file by its workspace-relative path; both are untrusted: a
workspace must be one the list shows (a real folder directly in the served folder, or the folder
itself when it is a workspace), and a file is read through the project's path policy
(`sandbox.paths.PathPolicy`: no `..`, no absolute path, no symlink out, opened with O_NOFOLLOW) and
only from the parts of a workspace the page shows. Names that are not UTF-8 are left out of every
list: the page could not ask for them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_runtime.app.export.report import Citation, load_citations
from agent_runtime.app.markdown_html import reference_addresses
from agent_runtime.app.run_state import LockState, citation_figures, lock_state, unverified_note, utf8
from agent_runtime.domain.layout import (
    CITATIONS_FILE,
    CURRENT_DASHBOARD,
    DASHBOARDS,
    NOTEBOOK,
    OVERALL_DASHBOARD,
    REPORT,
    SOURCES,
)
from agent_runtime.domain.sources.front_matter import split_front_matter
from agent_runtime.domain.sources.journal import JOURNAL_FILE, LEDGER_FILE, read_records
from agent_runtime.domain.sources.records import SourceRecord
from agent_runtime.domain.sources.snapshots import SNAPSHOT_NAME
from agent_runtime.domain.sources.urls import canonical_url
from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.run_record import RunMeta, duration, load_meta
from agent_runtime.engine.workspace import RUNTIME, Workspace
from agent_runtime.errors import (
    ExportError,
    PathEscapeError,
    SandboxError,
    SettingValueError,
    WorkspaceError,
)
from sandbox.paths import PathPolicy

# Written by agent_runtime.domain.citation_audit, whose import would bring the model client (0.4 s) into
# the view; test_layering checks that the two names agree.
MAX_DOCUMENT_BYTES = 2_000_000  # a longer file is shown cut, with a note
MAX_LISTED_FILES = 2_000
MAX_LEDGER_BYTES = 256_000_000  # the ledger's two files are parsed, not shown: cut, they would not parse
OPENING_CHARS = 600  # of a snapshot, shown for a citation when the audit kept no passage
RACY_SECONDS = 2.0  # see _recent
# The view's side of agent_runtime/app/wording.py (one wording everywhere), for a command that also
# takes a folder of workspaces.
GIVE_A_FOLDER = "give a workspace, or a folder of workspaces"
RUN_FILE = f"{RUNTIME}/run.json"  # Workspace.run_file, as a string (see Folder.workspaces)
MAX_CACHED = 20_000  # summaries kept (one per workspace shown)


class Folder:
    """The folder `deep-researcher view` serves: one workspace, or a folder of them.

    Listing a folder of 1,000 workspaces must not cost a scan of every one at every request: the
    sub-folders' names are kept until the folder's own mtime changes (a folder created, renamed or
    removed under it changes it), and only whether each is a workspace is looked at again (two
    stats: a folder becomes one when its run writes run.json and its dashboards)."""

    def __init__(self, root: Path) -> None:
        root = Path(root).expanduser()
        if root.is_file():  # a usage error (exit 2), as a bad flag value is
            raise SettingValueError(f"{root} is a file, not a workspace folder: {GIVE_A_FOLDER}")
        if not root.is_dir():
            raise WorkspaceError(f"{root} does not exist: {GIVE_A_FOLDER}")
        self.root = root.resolve()
        self._names: tuple[tuple[int, int], list[str]] | None = None  # (root's mtime, ino) -> names
        self._lock = threading.Lock()

    def _subfolders(self) -> list[str]:
        """The names of the real (not symlinked), visible, UTF-8-named sub-folders, sorted."""
        try:
            info = os.stat(self.root)
        except OSError:
            return []
        key = (info.st_mtime_ns, info.st_ino)
        with self._lock:
            if self._names is not None and self._names[0] == key and not _recent(info.st_mtime_ns):
                return self._names[1]
        names = []
        with contextlib.suppress(OSError), os.scandir(self.root) as entries:
            for entry in entries:
                if entry.name.startswith(".") or entry.is_symlink() or not entry.is_dir():
                    continue
                if not utf8(entry.name):
                    continue  # a name the page could not send back (a URL is UTF-8)
                names.append(entry.name)
        names.sort()
        with self._lock:
            self._names = (key, names)
        return names

    def is_single(self) -> bool:
        """True when the folder is itself a workspace (then it is the only one shown)."""
        return _is_workspace(str(self.root))

    def workspaces(self) -> list[tuple[str, Path]]:
        """(id, path) of each workspace: "." for the folder itself, else each sub-folder's name.
        A symlinked sub-folder is left out: it could lead anywhere on the disk."""
        if self.is_single():
            return [(".", self.root)]
        # Plain strings and stats here: with pathlib (and Workspace's resolve()) a folder of 1,000
        # workspaces cost ~50 ms of path objects per listing. A name the kept listing holds is a real
        # folder (a symlink put in its place changes the folder's mtime, and so the listing).
        root = str(self.root)
        return [
            (name, self.root / name) for name in self._subfolders() if _is_workspace(os.path.join(root, name))
        ]

    def find(self, ws_id: str) -> Path:
        """The workspace a request names, or WorkspaceError: only an id the list shows. (Checking the
        name alone would take a folder inside a served workspace, such as a Notebook/ the agent gave
        a dashboard and a run.json naming another endpoint, for a workspace of its own.) Looked up
        by its name, not by listing the folder: its cost does not grow with the folder."""
        if self.is_single():
            if ws_id == ".":
                return self.root
        elif _listable(ws_id):
            path = self.root / ws_id
            with contextlib.suppress(OSError):  # a name too long for the file system, …
                if stat.S_ISDIR(os.lstat(path).st_mode) and _is_workspace(str(path)):
                    return path
        raise WorkspaceError(f"{ws_id[:80]!r} is not a research workspace in this folder")


def _is_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _is_workspace(folder: str) -> bool:
    """Workspace(folder).exists(), without its path objects: the overall dashboard or run.json."""
    return _is_file(os.path.join(folder, OVERALL_DASHBOARD)) or _is_file(os.path.join(folder, RUN_FILE))


def _listable(name: str) -> bool:
    """A name the list could show: one visible path component in UTF-8."""
    return bool(name) and not name.startswith(".") and "/" not in name and "\0" not in name and utf8(name)


def _recent(mtime_ns: int) -> bool:
    """A file changed within the last RACY_SECONDS: a second change in the same clock tick would
    leave its mtime (and maybe its size) as they were, so what was read of it is not kept."""
    return time.time_ns() - mtime_ns < RACY_SECONDS * 1_000_000_000


# -- a run's figures -------------------------------------------------------------------------------
def _title_from_dashboard(workspace: Path) -> str | None:
    with contextlib.suppress(OSError):
        text = (workspace / OVERALL_DASHBOARD).read_text("utf-8", errors="replace")[:4000]
        heading = re.search(r"^#\s+(.+?)\s*$", text, re.MULTILINE)
        if heading:
            return heading.group(1)
    return None


def _fingerprint(path: Path) -> str:
    """Changes when the file (or folder listing) changes: what tells the page to reload a view."""
    try:
        if path.is_dir():
            return str(sum(entry.stat(follow_symlinks=False).st_mtime_ns for entry in os.scandir(path)))
        info = path.stat()
        return f"{info.st_mtime_ns}-{info.st_size}"
    except OSError:
        return ""


def _stat_key(path: str | Path) -> tuple[int, int, int, int] | None:
    """What tells that a file changed: its mtime, ctime, size and inode (an atomic write replaces
    the inode); None when it is missing."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)


def _sources_version(workspace: Path) -> str:
    """sources/ changes by code only: snapshots and ledger.json written atomically (which changes
    the folder's mtime) and ledger journal lines appended (which changes the journal's). Three
    stats, however many thousand snapshots the folder holds."""
    keys = [_stat_key(workspace / SOURCES / name) for name in ("", JOURNAL_FILE, LEDGER_FILE)]
    return "-".join(f"{key[0]}.{key[2]}" if key else "0" for key in keys)


def _from_files(workspace: Path) -> dict[str, Any]:
    """What a summary reads from the workspace's files (run.json, the overall dashboard's title,
    whether there is a report): the costly part, kept by `_read_files` until those files change."""
    problem = None
    try:
        meta: RunMeta | None = load_meta(Workspace(workspace).run_file)
    except WorkspaceError as exc:
        meta, problem = None, str(exc)
    totals = meta.totals if meta else None
    settings = meta.settings if meta else {}
    return {
        "title": (meta.title if meta else None) or _title_from_dashboard(workspace) or workspace.name,
        "titled": bool(meta and meta.title),  # else the title came from the overall dashboard
        "purpose": meta.purpose if meta else None,
        "status": meta.status if meta else "unknown",
        "stop_reason": meta.stop_reason if meta else problem,
        # How to go on from a terminal, printed as `run` and `inspect` print it.
        "resume_command": (
            resume_command(workspace, meta.stop_reason, settings)
            if meta and meta.status != "finished"
            else None
        ),
        "has_meta": meta is not None,
        "steps": totals.steps if totals else 0,
        "max_steps": settings.get("max_steps"),
        "model": settings.get("model"),
        "tokens": totals.total_tokens if totals else 0,
        "cost": round(totals.cost, 4) if totals else 0.0,
        "elapsed": totals.elapsed_seconds if totals else 0.0,
        "created_at": meta.created_at if meta else None,
        "updated_at": meta.updated_at if meta else None,
        "updated_ts": _timestamp(meta.updated_at) if meta else None,
        "has_report": (workspace / REPORT).is_file(),
        "citations": citation_figures(meta.summary) if meta else None,
    }


def _timestamp(stamp: str) -> float | None:
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


# workspace -> (the stat keys of the files _from_files read, what it read). A file changed within
# RACY_SECONDS is read again at the next request (see _recent), so a change always shows.
_READ: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
_READ_LOCK = threading.Lock()


def _read_files(workspace: Path) -> dict[str, Any]:
    """_from_files(workspace), kept until run.json or the report changes (or the overall dashboard,
    for a workspace whose title comes from it: one without run.json or a title in it)."""
    folder = str(workspace)
    keys: tuple[Any, ...] = (
        _stat_key(os.path.join(folder, RUN_FILE)),
        _stat_key(os.path.join(folder, REPORT)),
    )
    with _READ_LOCK:
        kept = _READ.get(folder)
    if (
        kept is not None
        and kept[0][:2] == keys
        and (len(kept[0]) == 2 or kept[0][2] == _stat_key(os.path.join(folder, OVERALL_DASHBOARD)))
    ):
        return kept[1]
    read = _from_files(workspace)
    if not read["titled"]:
        keys += (_stat_key(os.path.join(folder, OVERALL_DASHBOARD)),)
    # (A later write sets the mtime to now, whatever utime set before: the mtime alone is the racy part.)
    if not any(key is not None and _recent(key[0]) for key in keys):
        with _READ_LOCK:
            if len(_READ) >= MAX_CACHED:
                _READ.clear()
            _READ[folder] = (keys, read)
    return read


def versions(workspace: Path) -> dict[str, str]:
    """A fingerprint of each part of the workspace the page shows: what tells it to reload one."""
    return {
        OVERALL_DASHBOARD: _fingerprint(workspace / OVERALL_DASHBOARD),
        CURRENT_DASHBOARD: _fingerprint(workspace / CURRENT_DASHBOARD),
        NOTEBOOK: _fingerprint(workspace / NOTEBOOK),
        SOURCES: _sources_version(workspace),
        REPORT: _fingerprint(workspace / REPORT),
    }


def summary(ws_id: str, workspace: Path, with_versions: bool = True, probe: bool = True) -> dict[str, Any]:
    """One workspace's title, status and figures, as the list and the status line show them. The
    files' part is kept until they change (_read_files); whether a run holds the lock is asked at
    every call (a killed run changes no file). The list leaves out the parts' versions
    (`with_versions=False`): only the open workspace's page reloads its tabs by them, and asks the
    lock only of runs that may be running (`probe=False`)."""
    read = _read_files(workspace)
    status = read["status"]
    # `probe=False` (the list): the lock is asked only of a run whose run.json says it runs (or that
    # has none); a run that ended says so in run.json, and one starting writes "running" at once.
    asked = probe or status in ("running", "unknown")
    lock = lock_state(workspace) if asked else LockState(False, None)
    if lock.held:
        status = "running"
    elif status == "running":
        status = "interrupted"  # run.json says running but no process holds the lock: it was killed
    elapsed = read["elapsed"]
    if lock.held and read["updated_ts"] is not None:
        elapsed += max(0.0, time.time() - read["updated_ts"])  # run.json is saved once a step
    shown = {
        "id": ws_id,
        "folder": workspace.name,
        "title": read["title"],
        "purpose": read["purpose"],
        "status": status,
        "running": lock.held,
        "stop_reason": read["stop_reason"],
        "resumable": read["has_meta"] and not lock.held and status != "finished",
        "resume_command": None if lock.held else read["resume_command"],
        "steps": read["steps"],
        "max_steps": read["max_steps"],
        "model": read["model"],
        "tokens": read["tokens"],
        "cost": read["cost"],
        "elapsed": round(elapsed, 1),
        "elapsed_text": duration(elapsed),
        "created_at": read["created_at"],
        "updated_at": read["updated_at"],
        "has_report": read["has_report"],
        "citations": read["citations"],  # the citation audit's figures (citation_figures), or None
        # the two a list of runs (a batch folder) is compared by: citation accuracy, effective citations
        "cited": _cited(read["citations"]),
        "citation_note": unverified_note(status, read["citations"]),
    }
    if with_versions:
        shown["versions"] = versions(workspace)
    return shown


def _cited(figures: dict[str, Any] | None) -> list[float | int | None] | None:
    if not figures:
        return None
    return [figures.get("citation_accuracy"), figures.get("effective_citations")]


# -- files ------------------------------------------------------------------------------------------
def _shown(relative: str) -> bool:
    """The parts of a workspace the page shows: the dashboards, the report, Notebook/ and sources/."""
    top = relative.split("/", 1)[0]
    return relative in (*DASHBOARDS, REPORT, CITATIONS_FILE) or top in (NOTEBOOK, SOURCES)


def read_text(workspace: Path, relative: str, limit: int = MAX_DOCUMENT_BYTES) -> tuple[str, bool]:
    """(text, cut) of a file the page may show; SandboxError for any other path."""
    policy = PathPolicy(workspace)
    target = policy.resolve(relative)  # refuses `..`, absolute paths, links out of the workspace
    if not _shown(policy.relative(target)):
        raise PathEscapeError(f"{relative!r} is not a file the view shows")
    data = policy.read_bytes(relative, limit=limit + 1)
    return data[:limit].decode("utf-8", errors="replace"), len(data) > limit


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def dashboard_text(workspace: Path, name: str) -> tuple[str, bool]:
    """(text, cut) of a dashboard; ("", False) when it does not exist yet."""
    if name not in DASHBOARDS:
        raise PathEscapeError(f"{name!r} is not a dashboard")
    try:
        return read_text(workspace, name)
    except SandboxError:
        if not (workspace / name).exists():
            return "", False
        raise


def list_files(workspace: Path, folder: str) -> list[str]:
    """The files under one shown folder, workspace-relative, sorted; links out are left out."""
    policy = PathPolicy(workspace)
    found: list[str] = []
    pending = [folder]
    while pending and len(found) < MAX_LISTED_FILES:
        current = pending.pop()
        try:
            entries = list(policy.iter_directory(current))
        except SandboxError:
            continue  # missing, or not a folder
        for entry in entries:
            if not utf8(entry.relative):
                continue  # a name the page could not ask for (a URL is UTF-8)
            if entry.is_dir:
                pending.append(entry.relative)
            elif not entry.name.startswith("."):
                found.append(entry.relative)
    return sorted(found)[:MAX_LISTED_FILES]


# -- sources ----------------------------------------------------------------------------------------
def sources(workspace: Path) -> list[SourceRecord]:
    """The ledger's records, read without the Ledger class (whose load may write a repaired ledger:
    the view must never write in a run's workspace), plus snapshots the ledger does not list yet
    (a run writes the snapshot first)."""
    texts: dict[str, str] = {}
    for name in (JOURNAL_FILE, LEDGER_FILE):  # the journal first (see read_records)
        with contextlib.suppress(SandboxError):
            texts[name] = read_text(workspace, f"{SOURCES}/{name}", limit=MAX_LEDGER_BYTES)[0]
    records = {r.id: r for r in read_records(texts.get(LEDGER_FILE), texts.get(JOURNAL_FILE))}
    for relative in list_files(workspace, SOURCES):
        name = relative.rsplit("/", 1)[-1]
        match = SNAPSHOT_NAME.match(name)
        if not match or f"S{match.group(1)}" in records:
            continue
        with contextlib.suppress(SandboxError):
            fields, _ = split_front_matter(read_text(workspace, relative, limit=16_384)[0])
            url = fields.get("url", "")
            records[f"S{match.group(1)}"] = SourceRecord(
                id=f"S{match.group(1)}", url=url, canonical_url=canonical_url(url) if url else "",
                title=fields.get("title", ""), fetched_at=fields.get("fetched_at"),
                final_url=fields.get("final_url"), snapshot=relative,
            )  # fmt: skip
    return sorted(records.values(), key=lambda r: r.number)


def source_json(record: SourceRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "title": record.title,
        "url": record.final_url or record.url,
        "fetched": record.fetched,
        "fetched_at": record.fetched_at,
        "first_seen": record.first_seen,
        "via": record.first_seen_via,
        "snapshot": record.snapshot,
        "content_type": record.content_type,
    }


def snapshot(workspace: Path, record: SourceRecord) -> tuple[dict[str, str], str, bool]:
    """(front matter, body, cut) of a source's saved text; its search snippet when never fetched."""
    if not record.snapshot:
        return {}, record.snippet or "", False
    text, cut = read_text(workspace, record.snapshot)
    fields, body = split_front_matter(text)
    return fields, body, cut


# -- the report's citations -------------------------------------------------------------------------
def _opening(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= OPENING_CHARS else text[:OPENING_CHARS] + "…"


def citations(workspace: Path, report: str) -> dict[str, list[dict[str, Any]]]:
    """For each citation number of report.md, what the page shows when it is pointed at: the
    passages the citation audit kept (report.citations.json), each with whether it supports the
    statement (`verified`) or is only the closest passage, and why; else the opening of the cited
    source's snapshot (the source found by the URL of its References entry)."""
    by_id = {record.id: record for record in sources(workspace)}
    by_url = {canonical_url(r.final_url or r.url): r for r in by_id.values()}
    for known in by_id.values():
        for alias in (known.canonical_url, *known.aliases):
            by_url.setdefault(alias, known)
    shown: dict[str, list[dict[str, Any]]] = {}
    audited: list[Citation] = []
    with contextlib.suppress(ExportError):  # a link out of the workspace, a file too large: none shown
        audited = load_citations(workspace)
    for item in audited:
        cited = by_id.get(str(item.source))
        shown.setdefault(str(item.citation), []).append(
            {
                "source": item.source,
                "title": cited.title if cited else "",
                "url": (cited.final_url or cited.url) if cited else None,
                "statement": item.statement,
                "passage": item.passage,
                "file": item.file,
                "lines": list(item.lines) if item.lines else None,
                "verdict": item.verdict,
                "judged_by": item.judged_by,
                # Whether the passage may be shown as the support: else it is only the closest one
                # the check found, shown as "closest passage — not verified" with the first reason.
                "passage_is": item.passage_is,
                "verified": item.verified,
                "reasons": list(item.reasons),
            }
        )
    for number, url in reference_addresses(report).items():  # numbers the audit did not cover
        if str(number) in shown:
            continue
        record = by_url.get(canonical_url(url))
        passage = ""
        if record is not None:
            with contextlib.suppress(SandboxError):
                passage = _opening(snapshot(workspace, record)[1])
        shown[str(number)] = [
            {
                "source": record.id if record else None,
                "title": record.title if record else "",
                "url": url,
                "statement": "",
                "passage": passage,
                "file": record.snapshot if record else None,
                "lines": None,
                "verdict": None,
                "judged_by": None,
                "passage_is": "opening",  # no audit record: the opening of the source, no claim
                "verified": False,
                "reasons": [],
            }
        ]
    return shown
