"""The workspace folder: everything a run knows between steps lives here, in files.

The engine knows only the generic part; what else a workspace holds is the `Layout` the domain
hands it (the research's is agent_runtime/domain/layout.py):

```
WORKSPACE/
  <state files>          the files the agent's context is rebuilt from (Layout.state_files): read
                         once no one is writing them, replaced atomically, every version a person
                         saved kept
  <folders>              created with the workspace, recreated on resume (Layout.folders)
  .runtime/run.json      run metadata: settings, status, totals
  .runtime/events.jsonl  append-only event log, one JSON object per line
  .runtime/observations/ full text of observations that were cut or compacted out of the context
  .runtime/lock          held (flock) by the one process running in this workspace
  .runtime/<record>      which version of each state file the runtime itself wrote last
                         (Layout.versions_record)
  .trash/                deleted files, and every version of a state file a person edited that the
                         runtime replaced (`<UTC time>-<name>`): no save of a person's is ever lost
```

A new run takes a new or empty folder only: a folder of the user's own files is never adopted (the
File agent could overwrite or trash them).

This module is where things are and how a workspace comes to be; the state files' reads and writes
are agent_runtime/engine/state_files (`Workspace.state`), the lock agent_runtime/engine/run_lock.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_runtime.engine.run_lock import LOCK, RunLock
from agent_runtime.engine.state_files import StateFiles, read_whole
from agent_runtime.errors import WorkspaceError
from sandbox import is_temp_name, storage_error

RUNTIME = ".runtime"
TRASH = ".trash"
OBSERVATIONS = f"{RUNTIME}/observations"


@dataclass(frozen=True)
class Layout:
    """What an agent keeps in its workspace besides the runtime's own files, handed to the engine
    by the domain that wires the run (the engine names none of it)."""

    # The files the context is rebuilt from, in the order they are shown: read once no one is
    # writing them, written only whole (`Workspace.state`), a person's edit noticed and kept.
    state_files: tuple[str, ...] = ()
    # Folders a new workspace starts with and a resumed one gets back (a person may delete them).
    folders: tuple[str, ...] = ()
    # In .runtime/: which version of each state file the runtime itself wrote last (named by the
    # domain: workspaces already on disk keep their record).
    versions_record: str = "state_versions.json"


class Workspace:
    """A workspace folder as the engine knows it: the runtime's own files, the lock, the trash,
    and the state files of `layout` (none by default: a workspace opened only for its run record
    or its event log)."""

    def __init__(self, root: Path, layout: Layout = Layout()) -> None:
        self.root = Path(root).expanduser().resolve()
        self.layout = layout
        # The layout's state files: read settled, written whole, every person's version kept.
        self.state = StateFiles(
            self.root, layout.state_files, self.root / RUNTIME / layout.versions_record, self.root / TRASH
        )

    # -- locations ---------------------------------------------------------------------------
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
        """True when the folder holds a run: its record, or one of its state files."""
        return self.run_file.is_file() or any((self.root / name).is_file() for name in self.layout.state_files)

    def _skeleton(self) -> set[str]:
        """The folders a creation makes before anything else (empty if it was killed then)."""
        return {*self.layout.folders, RUNTIME, OBSERVATIONS}

    def holds_nothing(self) -> bool:
        """True when the folder is absent, empty, or holds only what a creation killed before its
        run.json leaves (the empty skeleton folders, the lock, temp files of atomic writes)."""
        if not self.root.exists():
            return True
        if not self.root.is_dir():
            return False
        skeleton = self._skeleton()
        for folder, dirs, files in os.walk(self.root):
            relative = Path(folder).relative_to(self.root).as_posix()
            if relative != "." and relative not in skeleton:
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

    def lay_out(self, state_texts: Mapping[str, str]) -> None:
        """Make a new workspace: the layout's folders, and each state file with its first text
        (`state_texts`: the domain's templates). Never overwrites a file: on a resume it only
        writes what a killed creation had not written yet."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            for folder in (*self.layout.folders, RUNTIME, OBSERVATIONS):
                (self.root / folder).mkdir(exist_ok=True)
            for name in self.layout.state_files:
                self.state.first_write(name, state_texts[name])
        except OSError as exc:
            failing_disk = storage_error(exc, self.root)
            raise WorkspaceError(
                str(failing_disk or f"cannot create the workspace {self.root}: {exc.strerror or exc}")
            ) from None

    def ensure_layout(self) -> None:
        """Recreate the folders a resumed workspace may have lost (a person may delete them)."""
        try:
            for folder in (*self.layout.folders, RUNTIME, OBSERVATIONS):
                (self.root / folder).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WorkspaceError(f"cannot use the workspace {self.root}: {exc.strerror or exc}") from None

    # -- files -------------------------------------------------------------------------------
    def read_text(self, name: str) -> str:
        """A file's text ("" when missing); a state file's once it has stopped changing."""
        if name in self.layout.state_files:
            return self.state.read_settled(name)[0]
        return read_whole(self.root / name)

    def keep_in_trash(self, name: str) -> Path:
        """A copy of the workspace file `name` in .trash/, before the runtime replaces a version of
        it that a person may have written (the report `audit` rewrites)."""
        target = self.state.trash_path(name)
        shutil.copy2(self.root / name, target)
        return target

    def close(self) -> None:
        """Stop watching the state files (the workspace object may be used again: it watches anew)."""
        self.state.close()
