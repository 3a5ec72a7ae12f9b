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
```
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text

OVERALL_DASHBOARD = "overall_dashboard.md"
CURRENT_DASHBOARD = "current_dashboard.md"
NOTEBOOK = "Notebook"
SOURCES = "sources"
REPORT = "report.md"
RUNTIME = ".runtime"
TRASH = ".trash"
DASHBOARDS = (OVERALL_DASHBOARD, CURRENT_DASHBOARD)


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = Path(root).expanduser().resolve()

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

    def create(self, title: str, purpose: str | None) -> None:
        """Lay out a new workspace from `workspace_template/` (never overwrites a file)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            for folder in (NOTEBOOK, SOURCES, RUNTIME, f"{RUNTIME}/observations"):
                (self.root / folder).mkdir(exist_ok=True)
            env = Environment(
                undefined=StrictUndefined, keep_trailing_newline=True, trim_blocks=True, autoescape=False
            )
            template_root = resources.files("workspace_template")
            for name in DASHBOARDS:
                target = self.root / name
                if not target.exists():
                    text = env.from_string(template_root.joinpath(name).read_text("utf-8"))
                    atomic_write_text(target, text.render(title=title, purpose=purpose or ""))
        except OSError as exc:
            raise WorkspaceError(f"cannot create the workspace {self.root}: {exc.strerror or exc}") from None

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
