"""The finished report as the exporters read it, and where and how an export is written.

`load_report` refuses, with one message that says what to do, a folder that is not a workspace and
a run that has no report.md yet. Everything else it reads is optional: run.json gives the language
(else it is detected from the title or the report), report.citations.json the cited passages
(a missing or damaged one only loses the hover titles).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from agent_runtime import language as lang
from agent_runtime.citation_audit import CITATIONS_FILE
from agent_runtime.errors import ExportError, WorkspaceError
from agent_runtime.run_record import RunMeta, load_meta
from agent_runtime.workspace import REPORT, Workspace

DRAFT = "report.draft.md"  # what all_finished checked, kept beside report.md (actions/finish.py)


@dataclass
class Report:
    workspace: Path
    text: str  # report.md as the finalizer wrote it (or as a person edited it since)
    title: str  # the report's first heading, as plain text
    language: str  # a code: "zh", "en", …
    # Citation number → the passages it was cited for, in document order (report.citations.json).
    passages: dict[int, list[str]] = field(default_factory=dict)


def load_report(workspace: Path) -> Report:
    root = workspace.expanduser()
    if not root.exists():
        raise ExportError(f"{root} does not exist: give the folder of a run (its workspace)")
    if not root.is_dir():
        raise ExportError(f"{root} is not a folder: give the folder of a run (its workspace)")
    if not Workspace(root).exists():
        raise ExportError(
            f"{root} is not a deep-researcher workspace (it has no overall_dashboard.md or .runtime/run.json)"
        )
    meta = _meta(root)
    try:
        text = (root / REPORT).read_text("utf-8", errors="replace")
    except FileNotFoundError:
        raise ExportError(_not_finished(root, meta)) from None
    except OSError as exc:
        raise ExportError(f"cannot read {root / REPORT}: {exc.strerror or exc}") from None
    if not text.strip():
        raise ExportError(f"{root / REPORT} is empty: there is no report to export")
    title = _first_heading(text) or (meta.title if meta else "") or root.name
    return Report(root, text, title, _language(meta, title, text), _passages(root / CITATIONS_FILE))


def _meta(root: Path) -> RunMeta | None:
    try:
        return load_meta(Workspace(root).run_file)
    except WorkspaceError:  # damaged metadata: the report itself is still worth exporting
        return None


def _not_finished(root: Path, meta: RunMeta | None) -> str:
    status = meta.status if meta else "unknown"
    why = f"{status}: {meta.stop_reason}" if meta and meta.stop_reason else status
    draft = f"; {DRAFT} holds an unfinished draft" if (root / DRAFT).is_file() else ""
    if status == "running":
        advice = "it is still running: export it when it has finished"
    else:
        advice = f"finish it with: deep-researcher resume {root}"
    return f"the run in {root} has not finished, so it has no report.md yet (status {why}){draft}; {advice}"


def _first_heading(text: str) -> str:
    from agent_runtime.markdown_html import parse_markdown

    tokens = parse_markdown(text)
    for i, token in enumerate(tokens[:-1]):
        if token.type == "heading_open":
            children = tokens[i + 1].children or []
            return "".join(c.content for c in children if c.type in ("text", "code_inline")).strip()
    return ""


def _language(meta: RunMeta | None, title: str, text: str) -> str:
    """The run's language as it was resolved at its start (stored in run.json), else detected."""
    if meta is not None:
        with contextlib.suppress(ValueError):
            stored = lang.normalize(str(meta.settings.get("language") or "") or None)
            if stored:
                return stored
        return lang.detect(meta.title, meta.purpose)
    return lang.detect(title, text[:2000])


def _passages(path: Path) -> dict[int, list[str]]:
    try:
        records = json.loads(path.read_text("utf-8")).get("citations", [])
    except (OSError, ValueError, AttributeError):
        return {}
    passages: dict[int, list[str]] = {}
    for record in records if isinstance(records, list) else []:
        if isinstance(record, dict) and isinstance(record.get("citation"), int):
            passage = record.get("passage")
            passages.setdefault(record["citation"], []).append(passage if isinstance(passage, str) else "")
    return passages


def output_path(report: Report, fmt: str, output: Path | None) -> Path:
    """Where the export goes: WORKSPACE/report.FORMAT by default; into a folder given as --output."""
    if output is None:
        return report.workspace / f"report.{fmt}"
    target = output.expanduser()
    if target.is_dir():
        target = target / f"report.{fmt}"
    if not target.parent.is_dir():
        why = "is not a folder" if target.parent.exists() else "does not exist"
        raise ExportError(f"cannot write {target}: {target.parent} {why}")
    if target.exists() and target.resolve() in {
        (report.workspace / name).resolve() for name in (REPORT, DRAFT, CITATIONS_FILE)
    }:
        raise ExportError(f"{target} is the run's own file: choose another --output")
    return target


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` with `data` (temp file in the same folder, fsync, rename): a reader, or a
    crash, sees the old file or the whole new one, never half of one."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # a file to share, not mkstemp's private 0600
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask, read without changing it (os.umask would, for a moment, for every
    thread); 022 where /proc does not say."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022
