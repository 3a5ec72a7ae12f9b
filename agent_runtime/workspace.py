"""The workspace folder: everything a run knows between steps lives here, in files.

```
WORKSPACE/
  overall_dashboard.md   research blueprint (changed only by update_overall_dashboard)
  current_dashboard.md   task at hand, findings, next steps, lessons (update_current_dashboard)
  Notebook/              one chapter = one note file
  sources/               snapshots of retrieved sources and the ledger (written by code)
  report.md              the finished report
  .runtime/run.json      run metadata: title, purpose, settings, status, totals
  .runtime/events.jsonl  append-only event log, one JSON object per line
  .runtime/observations/ full text of observations that were cut or compacted out of the context
  .runtime/lock          held (flock) by the one process running in this workspace
```

A new run takes a new or empty folder only: a folder of the user's own files is never adopted (the
File agent could overwrite or trash them); `--corpus` is how documents are given to the agent.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import unicodedata
from importlib import resources
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text, is_temp_name, storage_error

OVERALL_DASHBOARD = "overall_dashboard.md"
CURRENT_DASHBOARD = "current_dashboard.md"
NOTEBOOK = "Notebook"
SOURCES = "sources"
REPORT = "report.md"
CITATIONS_FILE = "report.citations.json"  # each citation of report.md with its passage (the audit)
RUNTIME = ".runtime"
TRASH = ".trash"
DASHBOARDS = (OVERALL_DASHBOARD, CURRENT_DASHBOARD)
LOCK = "lock"
# What a creation that was killed before run.json leaves: these folders, empty, and the lock.
_SKELETON = {NOTEBOOK, SOURCES, RUNTIME, f"{RUNTIME}/observations"}
_SLUG_CHARS = 60  # characters of the title in a default workspace name


def template_text(name: str, title: str, purpose: str | None) -> str:
    """A dashboard as a new workspace starts with it."""
    env = Environment(
        undefined=StrictUndefined, keep_trailing_newline=True, trim_blocks=True, autoescape=False
    )
    template = env.from_string(resources.files("workspace_template").joinpath(name).read_text("utf-8"))
    return template.render(title=title, purpose=purpose or "")


def default_workspace(title: str, parent: Path | None = None) -> Path:
    """`./<title-slug>` in any script (`./固态电池的产业化进展`), made unique with -2, -3, … when
    the folder exists and is not empty."""
    parent = Path.cwd() if parent is None else parent
    words = re.findall(r"\w+", unicodedata.normalize("NFC", title).lower())
    slug = "-".join(words)[:_SLUG_CHARS].strip("-_") or "research"
    candidate, n = parent / slug, 1
    while not Workspace(candidate).holds_nothing():
        n += 1
        candidate = parent / f"{slug}-{n}"
    return candidate


class RunLock:
    """One run per workspace: an exclusive flock on `.runtime/lock`. The kernel releases it when
    the process ends, however it ends (SIGKILL included), so a dead run never leaves it stuck."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise WorkspaceError(
                f"cannot use the workspace {self.path.parent.parent}: {exc.strerror or exc}"
            ) from None
        workspace = self.path.parent.parent
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            try:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            except OSError:
                holder = "another process"
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise WorkspaceError(
                    f"cannot lock the workspace {workspace}: this file system does not support file locks "
                    f"({exc.strerror or exc}); use a folder on a local disk"
                ) from None
            raise WorkspaceError(
                f"{workspace} is in use by a run still working ({holder}); wait for it to end or stop it "
                f"(Ctrl-C, or kill its process), then `deep-researcher resume {workspace}`"
            ) from None
        with contextlib.suppress(OSError):  # who holds it, for the message above (best effort)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"process {os.getpid()}".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = Path(root).expanduser().resolve()
        # The digest of each dashboard as the runtime last wrote it or read it into the context: a
        # file that no longer matches was edited from outside (a person steering the run).
        self._dashboard_digests: dict[str, str] = {}

    # -- locations ---------------------------------------------------------------------------
    @property
    def overall_dashboard(self) -> Path:
        return self.root / OVERALL_DASHBOARD

    @property
    def current_dashboard(self) -> Path:
        return self.root / CURRENT_DASHBOARD

    @property
    def runtime_dir(self) -> Path:
        return self.root / RUNTIME

    @property
    def run_file(self) -> Path:
        return self.runtime_dir / "run.json"

    @property
    def events_file(self) -> Path:
        return self.runtime_dir / "events.jsonl"

    @property
    def observations_dir(self) -> Path:
        return self.runtime_dir / "observations"

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    # -- life cycle --------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.overall_dashboard.is_file() or self.run_file.is_file()

    def holds_nothing(self) -> bool:
        """True when the folder is absent, empty, or holds only what a creation killed before its
        run.json leaves (the empty skeleton folders, the lock, temp files of atomic writes)."""
        if not self.root.exists():
            return True
        if not self.root.is_dir():
            return False
        for folder, dirs, files in os.walk(self.root):
            relative = Path(folder).relative_to(self.root).as_posix()
            if relative != "." and relative not in _SKELETON:
                return False
            if any(not is_temp_name(name) and not (relative == RUNTIME and name == LOCK) for name in files):
                return False
            if any(os.path.islink(Path(folder) / name) for name in dirs):
                return False
        return True

    def lock(self) -> RunLock:
        """Take the workspace for this process (creating `.runtime/` if needed); WorkspaceError if
        another run holds it."""
        try:
            self.runtime_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            failing_disk = storage_error(exc, self.root)
            raise WorkspaceError(
                str(failing_disk or f"cannot use {self.root}: {exc.strerror or exc}")
            ) from None
        lock = RunLock(self.runtime_dir / LOCK)
        lock.acquire()
        return lock

    def remove_stale_temp_files(self) -> list[str]:
        """Delete the temp files that killed writers left (call holding the lock: then no writer is
        alive). Returns their workspace-relative paths."""
        removed = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d != TRASH]
            for name in files:
                if is_temp_name(name):
                    path = Path(folder) / name
                    with contextlib.suppress(OSError):
                        path.unlink()
                        removed.append(path.relative_to(self.root).as_posix())
        return removed

    def create(self, title: str, purpose: str | None) -> None:
        """Lay out a new workspace from `workspace_template/` (never overwrites a file)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            for folder in (NOTEBOOK, SOURCES, RUNTIME, f"{RUNTIME}/observations"):
                (self.root / folder).mkdir(exist_ok=True)
            for name in DASHBOARDS:
                target = self.root / name
                if not target.exists():
                    atomic_write_text(target, template_text(name, title, purpose))
        except OSError as exc:
            failing_disk = storage_error(exc, self.root)
            raise WorkspaceError(
                str(failing_disk or f"cannot create the workspace {self.root}: {exc.strerror or exc}")
            ) from None

    def is_untouched(self, name: str, title: str, purpose: str | None) -> bool:
        """True while a dashboard is still the template it was created from."""
        return self.read_text(name) == template_text(name, title, purpose)

    def ensure_layout(self) -> None:
        """Recreate the folders a resumed workspace may have lost (a person may delete them)."""
        try:
            for folder in (NOTEBOOK, SOURCES, RUNTIME, f"{RUNTIME}/observations"):
                (self.root / folder).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WorkspaceError(f"cannot use the workspace {self.root}: {exc.strerror or exc}") from None

    # -- dashboards --------------------------------------------------------------------------
    def read_text(self, name: str) -> str:
        try:
            return (self.root / name).read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def write_dashboard(self, name: str, content: str) -> None:
        if name not in DASHBOARDS:
            raise ValueError(f"not a dashboard: {name}")
        text = content if content.endswith("\n") else content + "\n"
        atomic_write_text(self.root / name, text)
        # As it reads back (read_text turns \r\n into \n): its own write is never taken for an edit.
        self._dashboard_digests[name] = _digest(self.read_text(name))

    def read_dashboard(self, name: str) -> str:
        """A dashboard's text as it goes into the context; remembered, so an edit made after it
        by someone else is noticed (`edited_dashboards`)."""
        text = self.read_text(name)
        self._dashboard_digests[name] = _digest(text)
        return text

    def edited_since_read(self, name: str) -> bool:
        """True when the dashboard's file changed since the runtime last wrote or read it."""
        digest = self._dashboard_digests.get(name)
        return digest is not None and _digest(self.read_text(name)) != digest

    def edited_dashboards(self) -> list[str]:
        """The dashboards whose file changed since the runtime last wrote or read it."""
        return [name for name in DASHBOARDS if self.edited_since_read(name)]

    def title_from_dashboard(self) -> tuple[str, str | None]:
        """Title and purpose recovered from the overall dashboard (for a resume without run.json)."""
        text = self.read_text(OVERALL_DASHBOARD)
        heading = re.search(r"^#\s+(.+?)\s*$", text, re.MULTILINE)
        if not heading:
            raise WorkspaceError(
                f"cannot resume {self.root}: no run metadata and no '# Title' heading in {OVERALL_DASHBOARD}"
            )
        purpose = re.search(r"^\*\*Purpose:\*\*\s*(.+?)\s*$", text, re.MULTILINE)
        return heading.group(1), purpose.group(1) if purpose else None

    def notebook_files(self) -> list[str]:
        notebook = self.root / NOTEBOOK
        if not notebook.is_dir():
            return []
        return sorted(p.relative_to(self.root).as_posix() for p in notebook.rglob("*") if p.is_file())
