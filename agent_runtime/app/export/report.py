"""The finished report as the exporters read it, and where and how an export is written.

`load_report` refuses, with one message that says what to do, a folder that is not a workspace and
a run that has no report.md yet. Everything else it reads is optional: run.json gives the language
(else it is detected from the title or the report), report.citations.json the cited passages
(a missing or damaged one only loses the hover titles). A passage is shown as the support of its
statement only when the audit found the source supports it; any other is labelled "closest passage —
not verified" with the reason (`hover_text`).

Every file is read through the workspace's path policy (`sandbox.paths.PathPolicy`), as the live
view reads them: a link inside the workspace is followed, a link to outside it is refused (an export
is often sent to others: it must never carry a file the run did not write, such as ~/.ssh/id_rsa
behind a report.md link), and so is a file over MAX_FILE_BYTES.

`load_citations` is the one reader of report.citations.json, for the exports and the live view.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agent_runtime.language as lang
from agent_runtime.app.wording import not_a_workspace
from agent_runtime.domain.layout import CITATIONS_FILE, REPORT, ResearchWorkspace
from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.replies import repair_surrogates
from agent_runtime.engine.run_record import RunMeta
from agent_runtime.engine.workspace import RUNTIME
from agent_runtime.errors import ExportError, PathEscapeError, SandboxError
from sandbox.paths import PathPolicy

DRAFT = "report.draft.md"  # what all_finished checked, kept beside report.md (actions/finish.py)
RUN_FILE = f"{RUNTIME}/run.json"
MAX_FILE_BYTES = 20_000_000  # a report is a few hundred kB; more is no report, or no sane export


@dataclass
class Report:
    workspace: Path
    text: str  # report.md as the finalizer wrote it (or as a person edited it since)
    title: str  # the report's first heading, as plain text
    language: str  # a code: "zh", "en", …
    # Citation number → what a reader hovering over it is shown, one per statement it backs, in
    # document order (report.citations.json): the supporting passage, or a closest passage labelled
    # "closest passage — not verified" with the reason (`hover_text`).
    passages: dict[int, list[str]] = field(default_factory=dict)
    # The figures an export could not show (a deleted or damaged file), each named with why.
    broken_figures: list[str] = field(default_factory=list)


def load_report(workspace: Path) -> Report:
    root = workspace.expanduser()
    if not root.is_dir() or not ResearchWorkspace(root).exists():
        raise ExportError(not_a_workspace(root))
    meta = _meta(root)
    data = read_workspace_file(root, REPORT)
    if data is None:
        raise ExportError(_not_finished(root, meta))
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        raise ExportError(f"{root / REPORT} is empty: there is no report to export")
    # The title may come from a folder name (any bytes: lone surrogates) or from run.json: made
    # into text every writer can encode, on one line.
    title = _first_heading(text) or (meta.title if meta else "") or root.name
    title = " ".join(repair_surrogates(title).split())
    passages = hover_texts_by_number(load_citations(root))
    return Report(root, text, title, _language(meta, title, text), passages)


def read_workspace_file(root: Path, name: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The bytes of the file `name` (relative) of the workspace `root`, read through its path
    policy; None when there is no such file. An ExportError when it is, or is reached through, a
    link to outside the workspace, is not a regular file, cannot be read, or is over `limit` bytes."""
    path = root / name
    if not os.path.lexists(path):
        return None
    try:
        data = PathPolicy(root).read_bytes(name, limit=limit + 1)
    except PathEscapeError:
        raise ExportError(
            f"{path} leads through a symbolic link to outside the workspace: refused, as an export "
            "holds only the run's own files (put the file itself in the workspace instead of a link)"
        ) from None
    except SandboxError as exc:
        raise ExportError(f"cannot read {path}: {exc}") from None
    if len(data) > limit:
        raise ExportError(f"{path} is larger than {limit // 1_000_000} MB: it is too large to export")
    return data


def _meta(root: Path) -> RunMeta | None:
    data = read_workspace_file(root, RUN_FILE)
    try:
        return RunMeta.model_validate_json(data) if data is not None else None
    except ValueError:  # damaged metadata (pydantic's ValidationError): the report is still worth exporting
        return None


def _not_finished(root: Path, meta: RunMeta | None) -> str:
    status = meta.status if meta else "unknown"
    why = f"{status}: {meta.stop_reason}" if meta and meta.stop_reason else status
    draft = f"; {DRAFT} holds an unfinished draft" if (root / DRAFT).is_file() else ""
    if status == "running":
        advice = "it is still running: export it when it has finished"
    else:
        advice = f"finish it with `{resume_command(root)}`"
    return f"the run in {root} has not finished, so it has no report.md yet (status {why}){draft}; {advice}"


def _first_heading(text: str) -> str:
    from agent_runtime.app.markdown_html import parse_markdown

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


# -- report.citations.json ----------------------------------------------------------------------
PASSAGE_KINDS = ("supporting", "closest")
NOT_VERIFIED = "closest passage — not verified"  # a passage shown for a citation the check did not confirm
NO_PASSAGE = "no passage found — not verified"
REASON_CHARS = 160  # of the first reason, in a hover title


@dataclass(frozen=True)
class Citation:
    """One record of report.citations.json (`citation_audit.citation_records` writes them): the
    citation [n] of report.md, the source it stands for, the statement it backs, a passage of the
    source and where that is (its file and line range), the score, the verdict, whether the passage
    supports the statement (`passage_is`: "supporting") or is only the closest one the check found
    ("closest"), and the reasons in plain words.

    A file written before `passage_is` existed has none: it is inferred from the verdict (only a
    "supported" verdict has a supporting passage; a record with no verdict has none either)."""

    citation: int
    source: str | None = None
    statement: str = ""
    passage: str = ""
    file: str | None = None
    lines: tuple[int, int] | None = None
    score: float | None = None
    verdict: str | None = None
    judged_by: str | None = None
    passage_is: str = ""  # "supporting" or "closest"; anything else is inferred from the verdict
    reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.passage_is not in PASSAGE_KINDS:
            inferred = "supporting" if self.verdict == "supported" else "closest"
            object.__setattr__(self, "passage_is", inferred)

    @property
    def verified(self) -> bool:
        """True only when the check found the source supports the statement: its passage may be
        shown as the support. Any other record's passage is at most the closest one."""
        return self.verdict == "supported" and self.passage_is == "supporting"

    @property
    def reason(self) -> str:
        """The first reason, as the check wrote it ("" when it gave none)."""
        return next((r for r in self.reasons if r.strip()), "")


def hover_text(item: Citation) -> str:
    """What a reader pointing at the citation is shown: the passage itself when it supports the
    statement; else the label "closest passage — not verified", the first reason and the closest
    passage, so that a passage the check did not confirm is never read as the support. "" for a
    verified record without a passage (no title)."""
    if item.verified:
        return item.passage
    reason = " ".join(item.reason.split())
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 1].rstrip() + "…"
    head = NOT_VERIFIED if item.passage.strip() else NO_PASSAGE
    if reason:
        head = f"{head}: {reason}"
    return f"{head} — “{item.passage.strip()}”" if item.passage.strip() else head


def load_citations(workspace: Path) -> list[Citation]:
    """The records of the run's report.citations.json, in the file's (document) order.

    The one format is what actions/finish.py writes: `{"citations": [record, ...]}`. A missing file,
    one that is no JSON or of another shape, gives []; a record with no integer citation number is
    skipped, and a field of the wrong type is read as absent, so a damaged file costs only what it
    lost. ExportError (like every file read here) for a link to outside the workspace or a file
    over MAX_FILE_BYTES."""
    data = read_workspace_file(Path(workspace), CITATIONS_FILE)
    try:
        records = json.loads(data)["citations"] if data is not None else []
    except (ValueError, TypeError, KeyError, RecursionError):  # RecursionError: "[[[[…" nested deep
        return []
    return [_citation(r) for r in records if _number(r)] if isinstance(records, list) else []


def passages_by_number(citations: Iterable[Citation]) -> dict[int, list[str]]:
    """Citation number → the passages it was cited for, in document order ("" for none), whatever
    their verdict: for a reader, use `hover_texts_by_number`."""
    passages: dict[int, list[str]] = {}
    for item in citations:
        passages.setdefault(item.citation, []).append(item.passage)
    return passages


def hover_texts_by_number(citations: Iterable[Citation]) -> dict[int, list[str]]:
    """Citation number → what a reader hovering over it is shown (`hover_text`), in document order."""
    texts: dict[int, list[str]] = {}
    for item in citations:
        texts.setdefault(item.citation, []).append(hover_text(item))
    return texts


def _number(record: Any) -> int | None:
    number = record.get("citation") if isinstance(record, dict) else None
    # bool is an int to Python, not a citation number
    return number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else None


def _citation(record: dict[str, Any]) -> Citation:
    def text(key: str) -> str | None:
        # JSON may spell a lone surrogate ("\ud83d"), which no page or file can encode
        value = record.get(key)
        return repair_surrogates(value) if isinstance(value, str) else None

    lines = record.get("lines")
    span = None
    if isinstance(lines, list) and len(lines) == 2 and all(type(n) is int for n in lines):
        span = (lines[0], lines[1])
    score = record.get("score")
    reasons = record.get("reasons")
    said = reasons if isinstance(reasons, list) else []
    return Citation(
        citation=record["citation"],
        source=text("source"),
        statement=text("statement") or "",
        passage=text("passage") or "",
        file=text("file"),
        lines=span,
        score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
        verdict=text("verdict"),
        judged_by=text("judged_by"),
        passage_is=text("passage_is") or "",  # absent (an older file) or unknown: from the verdict
        reasons=tuple(repair_surrogates(r) for r in said if isinstance(r, str)),
    )


def output_path(report: Report, fmt: str, output: Path | str | None) -> Path:
    """Where the export goes: WORKSPACE/report.FORMAT by default; into a folder given as --output
    (an existing folder, or any path written with a trailing "/")."""
    if output is None:
        return report.workspace / f"report.{fmt}"
    as_folder = isinstance(output, str) and output.endswith(("/", os.sep))
    target = Path(output).expanduser()
    if as_folder and not target.is_dir():
        why = "is not a folder" if target.exists() else "does not exist"
        raise ExportError(f"cannot write into {target}: {target} {why}; create it first, or give a file name")
    if target.is_dir():
        target = target / f"report.{fmt}"
    if not target.parent.is_dir():
        why = "is not a folder" if target.parent.exists() else "does not exist"
        raise ExportError(f"cannot write {target}: {target.parent} {why}; create it first, or choose another --output")
    if target.exists() and target.resolve() in {
        (report.workspace / name).resolve() for name in (REPORT, DRAFT, CITATIONS_FILE)
    }:
        raise ExportError(f"{target} is the run's own file: choose another --output")
    return target
