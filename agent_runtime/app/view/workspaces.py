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
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import portalocker

from agent_runtime.app.export.report import Citation, load_citations
from agent_runtime.app.markdown_html import reference_addresses
from agent_runtime.domain.ledger import (
    JOURNAL_FILE,
    LEDGER_FILE,
    SourceRecord,
    canonical_url,
    read_records,
    split_front_matter,
)
from agent_runtime.engine.run_record import RunMeta, duration, load_meta
from agent_runtime.engine.workspace import (
    CITATIONS_FILE,
    CURRENT_DASHBOARD,
    DASHBOARDS,
    LOCK,
    NOTEBOOK,
    OVERALL_DASHBOARD,
    REPORT,
    RUNTIME,
    SOURCES,
    Workspace,
    try_lock,
)
from agent_runtime.errors import ExportError, PathEscapeError, SandboxError, WorkspaceError
from sandbox.paths import PathPolicy

# Written by agent_runtime.domain.citation_audit, whose import would bring the model client (0.4 s) into
# the view; test_layering checks that the two names agree.
MAX_DOCUMENT_BYTES = 2_000_000  # a longer file is shown cut, with a note
MAX_LISTED_FILES = 2_000
MAX_LEDGER_BYTES = 256_000_000  # the ledger's two files are parsed, not shown: cut, they would not parse
OPENING_CHARS = 600  # of a snapshot, shown for a citation when the audit kept no passage
_PID = re.compile(r"process (\d+)")
_SNAPSHOT_NAME = re.compile(r"^S([1-9][0-9]*)\.md$")


def _utf8(name: str) -> bool:
    """False for a name that is not valid UTF-8 on disk (Python decodes it with surrogateescape)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Folder:
    """The folder `deep-researcher view` serves: one workspace, or a folder of them."""

    def __init__(self, root: Path) -> None:
        root = Path(root).expanduser()
        if not root.is_dir():
            raise WorkspaceError(f"{root} is not a folder: give a workspace or a folder of workspaces")
        self.root = root.resolve()

    def workspaces(self) -> list[tuple[str, Path]]:
        """(id, path) of each workspace: "." for the folder itself, else each sub-folder's name.
        A symlinked sub-folder is left out: it could lead anywhere on the disk."""
        if Workspace(self.root).exists():
            return [(".", self.root)]
        found = []
        with contextlib.suppress(OSError), os.scandir(self.root) as entries:
            for entry in entries:
                if entry.name.startswith(".") or entry.is_symlink() or not entry.is_dir():
                    continue
                if not _utf8(entry.name):
                    continue  # a name the page could not send back (a URL is UTF-8)
                if Workspace(Path(entry.path)).exists():
                    found.append((entry.name, Path(entry.path)))
        return sorted(found)

    def find(self, ws_id: str) -> Path:
        """The workspace a request names, or WorkspaceError: only an id the list shows. (Checking the
        name alone would take a folder inside a served workspace, such as a Notebook/ the agent gave
        a dashboard and a run.json naming another endpoint, for a workspace of its own.)"""
        for listed, path in self.workspaces():
            if listed == ws_id:
                return path
        raise WorkspaceError(f"no workspace {ws_id[:80]!r} here")


# -- is it running? ------------------------------------------------------------------------------
@dataclass(frozen=True)
class LockState:
    held: bool
    pid: int | None  # the process the lock file names (None when it names none)


def lock_state(workspace: Path) -> LockState:
    """Whether a run holds the workspace's lock: a non-blocking shared flock on `.runtime/lock`,
    released at once, fails while a run holds its exclusive one (agent_runtime.engine.workspace.RunLock).
    The file is opened read-only and never created: the view changes nothing in the workspace."""
    path = workspace / RUNTIME / LOCK
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return LockState(False, None)  # never run, or not readable: nothing to stop
    try:
        try:
            taken = try_lock(fd, shared=True)
        except portalocker.LockException:
            return LockState(False, None)  # a file system without locks: no run can hold one
        if not taken:
            named = _PID.search(os.pread(fd, 200, 0).decode("utf-8", "replace"))
            return LockState(True, int(named.group(1)) if named else None)
        portalocker.unlock(fd)
        return LockState(False, None)
    finally:
        os.close(fd)


def holds_lock_file(pid: int, workspace: Path) -> bool:
    """True if process `pid` has the workspace's lock file open: the check before it is sent a
    signal, so that a stale pid in the file (the holder writes it just after locking) never gets
    another process stopped. Linux shows a process's open files in /proc; elsewhere, a process of
    that pid must at least exist."""
    if pid <= 1 or pid == os.getpid():
        return False
    try:
        lock = os.stat(workspace / RUNTIME / LOCK, follow_symlinks=False)
    except OSError:
        return False
    fds = Path(f"/proc/{pid}/fd")
    if not Path("/proc/self/fd").is_dir():
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    try:
        for link in fds.iterdir():
            with contextlib.suppress(OSError):
                opened = os.stat(link)  # follows the /proc link to the open file itself
                if (opened.st_dev, opened.st_ino) == (lock.st_dev, lock.st_ino):
                    return True
    except OSError:  # gone, or another user's process: not ours to signal
        return False
    return False


# -- a run's figures -------------------------------------------------------------------------------
def _seconds_since(stamp: str) -> float:
    try:
        return max(0.0, time.time() - datetime.fromisoformat(stamp).timestamp())
    except ValueError:
        return 0.0


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


_COUNTS = ("checked", "supported", "weak", "unsupported", "effective_citations", "unverified")


def _count(value: object) -> int | None:
    # bool is an int to Python, not a count
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def citation_figures(summary: dict[str, Any]) -> dict[str, Any] | None:
    """The citation audit's figures of a finished report, from run.json's `summary.citations`
    (actions/finish.py and `audit` write them): the verdict counts, citation accuracy, effective
    citations, how many could not be verified and what checked them. None when the run has none
    (not finished yet, or from before the audit) or they are not counts; a damaged field is None."""
    given = summary.get("citations")
    if not isinstance(given, dict) or _count(given.get("checked")) is None:
        return None
    figures: dict[str, Any] = {key: _count(given.get(key)) for key in _COUNTS}
    if figures["unverified"] is None and figures["supported"] is not None:
        figures["unverified"] = max(0, figures["checked"] - figures["supported"])
    accuracy = given.get("citation_accuracy")
    if isinstance(accuracy, bool) or not isinstance(accuracy, int | float) or not 0 <= accuracy <= 1:
        accuracy = None  # nothing checked (null), or not a share
    figures["citation_accuracy"] = float(accuracy) if accuracy is not None else None
    checked_by = given.get("checked_by")
    figures["checked_by"] = checked_by[:200] if isinstance(checked_by, str) and _utf8(checked_by) else None
    return figures


def unverified_note(status: str, figures: dict[str, Any] | None) -> str | None:
    """The line "finished with N citations that could not be verified", for a finished run that has some."""
    unverified = figures.get("unverified") if figures else None
    if status != "finished" or not unverified:
        return None
    return f"finished with {unverified} citation{'s' if unverified != 1 else ''} that could not be verified"


def summary(ws_id: str, workspace: Path) -> dict[str, Any]:
    """One workspace's title, status and figures, as the list and the status line show them."""
    problem = None
    try:
        meta: RunMeta | None = load_meta(Workspace(workspace).run_file)
    except WorkspaceError as exc:
        meta, problem = None, str(exc)
    lock = lock_state(workspace)
    status = meta.status if meta else "unknown"
    if lock.held:
        status = "running"
    elif status == "running":
        status = "interrupted"  # run.json says running but no process holds the lock: it was killed
    totals = meta.totals if meta else None
    elapsed = totals.elapsed_seconds if totals else 0.0
    if lock.held and meta is not None:
        elapsed += _seconds_since(meta.updated_at)  # run.json is saved once a step
    settings = meta.settings if meta else {}
    figures = citation_figures(meta.summary) if meta else None
    return {
        "id": ws_id,
        "folder": workspace.name,
        "title": (meta.title if meta else None) or _title_from_dashboard(workspace) or workspace.name,
        "purpose": meta.purpose if meta else None,
        "status": status,
        "running": lock.held,
        "stop_reason": meta.stop_reason if meta else problem,
        "resumable": meta is not None and not lock.held and status != "finished",
        "steps": totals.steps if totals else 0,
        "max_steps": settings.get("max_steps"),
        "model": settings.get("model"),
        "tokens": totals.total_tokens if totals else 0,
        "cost": round(totals.cost, 4) if totals else 0.0,
        "elapsed": round(elapsed, 1),
        "elapsed_text": duration(elapsed),
        "updated_at": meta.updated_at if meta else None,
        "has_report": (workspace / REPORT).is_file(),
        "citations": figures,  # the citation audit's figures (citation_figures), or None
        "citation_note": unverified_note(status, figures),
        "versions": {
            OVERALL_DASHBOARD: _fingerprint(workspace / OVERALL_DASHBOARD),
            CURRENT_DASHBOARD: _fingerprint(workspace / CURRENT_DASHBOARD),
            NOTEBOOK: _fingerprint(workspace / NOTEBOOK),
            SOURCES: _fingerprint(workspace / SOURCES),
            REPORT: _fingerprint(workspace / REPORT),
        },
    }


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
            if not _utf8(entry.relative):
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
        match = _SNAPSHOT_NAME.match(name)
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
