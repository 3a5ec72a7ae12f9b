"""The research workspace: what a research run keeps in its folder, and how a title names it.

```
WORKSPACE/
  overall_dashboard.md   research blueprint (changed only by update_overall_dashboard)
  current_dashboard.md   task at hand, findings, next steps, lessons (update_current_dashboard)
  Notebook/              one chapter = one note file
  sources/               snapshots of retrieved sources and the ledger (written by code)
  report.md              the finished report
  report.citations.json  each citation of report.md with its passage (the audit)
  .runtime/, .trash/     the runtime's own files (agent_runtime/engine/workspace)
  .runtime/dashboards.json  which version of each dashboard the runtime itself wrote last
```

The engine knows none of these names: `RESEARCH_LAYOUT` hands it the two dashboards as the state
files the main agent's context is rebuilt from, and `ResearchWorkspace` lays the folder out.
`--corpus` is how documents are given to the agent (a new run takes only a new or empty folder).
"""

from __future__ import annotations

import re
import unicodedata
from importlib import resources
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from agent_runtime.engine.workspace import Layout, Workspace
from agent_runtime.errors import WorkspaceError
from agent_runtime.language import DASHBOARD_WORDS, dashboard_words

OVERALL_DASHBOARD = "overall_dashboard.md"
CURRENT_DASHBOARD = "current_dashboard.md"
DASHBOARDS = (OVERALL_DASHBOARD, CURRENT_DASHBOARD)  # in the order the context shows them
NOTEBOOK = "Notebook"
SOURCES = "sources"
REPORT = "report.md"
CITATIONS_FILE = "report.citations.json"  # each citation of report.md with its passage (the audit)
# A title names the workspace folder and heads every prompt; the purpose is in every prompt too.
# Longer ones are a paste gone wrong far more often than a wish: refused (`run`, the view, `batch`).
MAX_TITLE_CHARS = 1_000
MAX_PURPOSE_CHARS = 10_000
_SLUG_CHARS = 60  # characters of the title in a default workspace name

RESEARCH_LAYOUT = Layout(
    state_files=DASHBOARDS,
    folders=(NOTEBOOK, SOURCES),
    versions_record="dashboards.json",  # the name workspaces on disk already have
)


def template_text(name: str, title: str, purpose: str | None, language: str | None = None) -> str:
    """A dashboard as a new workspace starts with it, its sections named in the run's language."""
    env = Environment(
        undefined=StrictUndefined, keep_trailing_newline=True, trim_blocks=True, autoescape=False
    )
    template = env.from_string(resources.files("workspace_template").joinpath(name).read_text("utf-8"))
    return template.render(title=title, purpose=purpose or "", words=dashboard_words(language))


def title_and_purpose(overall: str) -> tuple[str, str | None] | None:
    """The title (the `# ` heading) and the purpose (the `**Purpose:**` line, in any language the
    template speaks) written in an overall dashboard; None without a title."""
    heading = re.search(r"^#\s+(.+?)\s*$", overall, re.MULTILINE)
    if not heading:
        return None
    named = "|".join(re.escape(words["purpose"]) for words in DASHBOARD_WORDS.values())
    purpose = re.search(rf"^\*\*(?:{named}):\*\*\s*(.+?)\s*$", overall, re.MULTILINE)
    return heading.group(1), purpose.group(1) if purpose else None


def title_slug(title: str, empty: str = "research") -> str:
    """The folder name a title gives (`run`, the view, `mcp` and `batch` name workspaces alike):
    its words, lower-cased and joined by "-", in any script; `empty` when it has none."""
    words = re.findall(r"\w+", unicodedata.normalize("NFC", title).lower())
    return "-".join(words)[:_SLUG_CHARS].strip("-_") or empty


def default_workspace(title: str, parent: Path | None = None) -> Path:
    """`./<title-slug>` in any script (`./固态电池的产业化进展`), made unique with -2, -3, … when
    the folder exists and is not empty."""
    parent = Path.cwd() if parent is None else parent
    slug = title_slug(title)
    candidate, n = parent / slug, 1
    while not ResearchWorkspace(candidate).holds_nothing():
        n += 1
        candidate = parent / f"{slug}-{n}"
    return candidate


class ResearchWorkspace(Workspace):
    """A research run's workspace: the engine's workspace with the research layout."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, RESEARCH_LAYOUT)

    @property
    def overall_dashboard(self) -> Path:
        return self.root / OVERALL_DASHBOARD

    @property
    def current_dashboard(self) -> Path:
        return self.root / CURRENT_DASHBOARD

    def exists(self) -> bool:
        """A research workspace: its run record, or its blueprint (a resume without run.json)."""
        return self.overall_dashboard.is_file() or self.run_file.is_file()

    def create(self, title: str, purpose: str | None, language: str | None = None) -> None:
        """Lay out a new workspace from `workspace_template/` (never overwrites a file)."""
        self.lay_out({name: template_text(name, title, purpose, language) for name in DASHBOARDS})

    def is_untouched(self, name: str, title: str, purpose: str | None, language: str | None = None) -> bool:
        """True while a dashboard is still the template it was created from."""
        return self.read_text(name) == template_text(name, title, purpose, language)

    def title_from_dashboard(self) -> tuple[str, str | None]:
        """Title and purpose recovered from the overall dashboard (for a resume without run.json)."""
        found = title_and_purpose(self.read_text(OVERALL_DASHBOARD))
        if found is None:
            raise WorkspaceError(
                f"cannot resume {self.root}: no run metadata and no '# Title' heading in {OVERALL_DASHBOARD}"
            )
        return found

    def notebook_files(self) -> list[str]:
        notebook = self.root / NOTEBOOK
        if not notebook.is_dir():
            return []
        return sorted(p.relative_to(self.root).as_posix() for p in notebook.rglob("*") if p.is_file())
