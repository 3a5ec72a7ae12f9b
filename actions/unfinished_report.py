"""The report of a run that stopped before all_finished: its Notebook chapters, assembled by code.

A slow model (a local one on a CPU) often runs out of time with chapters written and no report. The
chapters are the work: they are assembled as all_finished would assemble them, checked by the
lexical citation audit only (no model call: the budget is spent), and written to report.md under a
banner saying that the report is unfinished and how to continue. `resume` can then finish it: the
next all_finished replaces it.
"""

from __future__ import annotations

import re

import agent_runtime.language as lang
from actions.finish import DRAFT, assemble_chapters
from agent_runtime.domain.charts.inreport import redraw, review_figures
from agent_runtime.domain.citation_audit import audit, flags, write_citations
from agent_runtime.domain.finalize import finalize, strip_references
from agent_runtime.domain.layout import NOTEBOOK, OVERALL_DASHBOARD, REPORT, SOURCES
from agent_runtime.domain.report_record import record_report
from agent_runtime.domain.sources.ledger import ledger_for
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError
from sandbox import atomic_write_text
from sandbox.paths import PathPolicy

_NAMED_CHAPTER = re.compile(rf"{NOTEBOOK}/[^\s`'\"()\[\]<>*]+\.md")
_HEADING = re.compile(r"#{1,6} ")


def _has_text(markdown: str) -> bool:
    """A line that is neither blank nor a heading (line by line: a regex over the whole text
    backtracks exponentially on many headings)."""
    return any(line.strip() and not _HEADING.match(line.strip()) for line in markdown.splitlines())


def written_chapters(ctx: ActionContext) -> list[str]:
    """The chapter files with text in them: those the outline names, in its order, then the other
    Markdown files at the top of Notebook/ by name (research notes in subfolders are not chapters)."""
    root = ctx.workspace.root
    outline = ctx.workspace.read_text(OVERALL_DASHBOARD) if (root / OVERALL_DASHBOARD).is_file() else ""
    named = [
        name
        for name in dict.fromkeys(_NAMED_CHAPTER.findall(outline))
        if "/" not in name[len(NOTEBOOK) + 1 :]
    ]
    folder = root / NOTEBOOK
    present = sorted(f"{NOTEBOOK}/{path.name}" for path in folder.glob("*.md")) if folder.is_dir() else []
    chapters = []
    for name in [*named, *present]:
        path = root / name
        if name in chapters or not path.is_file() or path.is_symlink():
            continue
        if _has_text(path.read_text(encoding="utf-8", errors="replace")):
            chapters.append(name)
    return chapters


def write_unfinished_report(ctx: ActionContext, continue_with: str) -> str | None:
    """report.md from the chapters written so far, marked unfinished; its path, or None when no
    chapter has text yet."""
    chapters = written_chapters(ctx)
    if not chapters:
        return None
    try:
        draft = assemble_chapters(PathPolicy(ctx.workspace.root), ctx.meta.title, chapters)
    except ActionError:  # a chapter changed or vanished since it was listed: leave no half report
        return None
    ledger = ledger_for(ctx)
    sources = ctx.workspace.root / SOURCES
    root = ctx.workspace.root
    # figures as at a finish: checked by value, numbered, their paths from the report's folder
    figures = review_figures(draft, root, ledger, sources)
    pairs = audit(strip_references(figures.masked), ledger, sources)
    language = ctx.settings.language
    redraw(root, figures.to_redraw(root))
    numbered = figures.apply(draft, lang.resolve(language, ctx.meta.title, ctx.meta.purpose))
    final = finalize(
        numbered, ledger, force=True, language=language, flags=flags(pairs), more_problems=figures.problems_for_reader()
    )
    title, _, body = final.text.partition("\n")
    banner = lang.text(language or lang.DEFAULT, "unfinished", command=continue_with)
    meta = ctx.meta
    report = ctx.workspace.root / REPORT
    if report.is_file() and meta.summary.get("report") != "unfinished":
        ctx.workspace.keep_in_trash(REPORT)  # a report the agent or a person wrote there is kept
    atomic_write_text(ctx.workspace.root / DRAFT, draft)
    atomic_write_text(report, f"{title}\n\n> {banner}\n{body}")
    cited_pairs = sorted([*pairs, *figures.pairs], key=lambda p: (p.start, p.line))  # document order
    summary = write_citations(ctx.workspace.root, cited_pairs, final.cited, ledger, None)
    record_report(meta, report_path=REPORT, report_problems=[str(p) for p in final.problems] + final.flagged)
    meta.summary["sources_cited"] = len(final.cited)
    meta.summary["citations"] = {key: value for key, value in summary.items() if key != "judge"}
    meta.summary["report"] = "unfinished"
    return REPORT
