"""all_finished: the main agent's finishing action, and the report's finalization.

The draft is checked against the ledger (see agent_runtime/domain/finalize.py). Problems come back to
the agent as an observation and it goes on working; after the third refusal, or when the budget
is nearly spent, the runtime finalizes anyway and lists every problem in an appendix. The
finished report is written to report.md; the draft stays where it was. With `chapters`, code
assembles the draft from the Notebook files, so no model re-emits the report.
"""

from __future__ import annotations

import asyncio
import re

from agent_runtime.domain.charts.inreport import redraw, review_figures
from agent_runtime.domain.citation_audit import JudgeAnswers, audit, flags, judge_pairs, write_citations
from agent_runtime.domain.citation_audit import problems as citation_problems
from agent_runtime.domain.finalize import finalize, find_problems, strip_references
from agent_runtime.domain.layout import REPORT, SOURCES
from agent_runtime.domain.report_record import record_report, report_record
from agent_runtime.domain.sources.ledger import ledger_for
from agent_runtime.engine import tracing
from agent_runtime.engine.registry import Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError
from agent_runtime.language import resolve as resolve_language
from sandbox import atomic_write_text
from sandbox.paths import PathPolicy

MAX_REFUSALS = 3
DRAFT = "report.draft.md"
# The figures of report.citations.json a trace carries (the verdict counts and FACT's).
FIGURES = frozenset(
    {"checked", "supported", "weak", "unsupported", "unverified", "citation_accuracy", "effective_citations"}
)
_HEADING_ONLY = re.compile(r"#{1,6} [^\n]*")  # the assembled (or replaced) draft, as it was checked


def _judge_usage(ctx: ActionContext, prompt_tokens: int, completion_tokens: int) -> None:
    """A judge call counts in the run's budgets and shows in the event log like any model call."""
    ctx.record_usage(prompt_tokens, completion_tokens)
    ctx.events.append(
        "model_call", step=ctx.step, agent="citation_judge", model=ctx.model.name,
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, calls=[], problems=[],
    )  # fmt: skip


def assemble_chapters(policy: PathPolicy, title: str, chapters: list[str]) -> str:
    """The report from its chapter files, in order, as they are, under the research title. A
    chapter that starts with its own `# ` title has its headings moved one level down, so that the
    report has one title."""
    if not chapters:
        raise ActionError("chapters is empty: list the Notebook files of the report, in order")
    folders = [c for c in chapters if policy.resolve(c).is_dir()]
    if folders:
        raise ActionError(
            f"{', '.join(folders[:5])}: a folder, not a chapter file; list the files in it, in order"
        )
    missing = [c for c in chapters if not policy.resolve(c).is_file()]
    if missing:
        raise ActionError(
            f"these chapter files do not exist: {', '.join(missing[:10])}; list existing Notebook files "
            "(file_operation can list them)"
        )
    parts = [f"# {title}"]
    for chapter in dict.fromkeys(chapters):  # a file listed twice is used once
        text = policy.read_bytes(chapter).decode("utf-8", errors="replace").strip()
        if not text or _HEADING_ONLY.fullmatch(text):
            raise ActionError(f"{chapter} is empty: write the chapter, or leave it out of chapters")
        if text.startswith("# "):
            text = re.sub(r"^(#{1,5}) ", r"#\1 ", text, flags=re.MULTILINE)
        parts.append(text)
    return "\n\n".join(parts) + "\n"


@action
async def all_finished(
    ctx: ActionContext, result: str, report_path: str | None = None, chapters: list[str] | None = None
) -> Observation:
    """Finish the research. Give `chapters`: the Notebook files of the report, in order (e.g.
    ["Notebook/00_summary.md", "Notebook/01_<chapter>.md", …]); the report is assembled from them by
    code, as they are, under the research title, so you never copy it. (Or give `report_path`: a
    report you saved as one Markdown file.) The report is checked: every [S<n>] must be a source you
    retrieved, every URL one an observation showed, no [NEEDS RESEARCH: …] or [SOURCE NEEDED] marker
    may remain, no chapter may be empty. If a check fails you get the list of problems and keep
    working. The citations are then renumbered [1], [2], … and a References section is built from
    the sources (do not write one).

    Args:
        result: a short summary of what the research found, for the person who asked.
        report_path: a report saved as one file, relative to the workspace; leave it out with chapters.
        chapters: the chapter files of the report, in order, relative to the workspace.
    """
    policy = PathPolicy(ctx.workspace.root)
    report_path, chapters = report_path or None, chapters or None  # a model that fills every argument
    if (report_path is None) == (chapters is None):
        raise ActionError(
            "give exactly one of chapters (the Notebook files of the report, in order: the usual way) or "
            "report_path (a report saved as one file)"
        )
    if chapters is not None:
        draft, path = assemble_chapters(policy, ctx.meta.title, chapters), None
    else:
        assert report_path is not None
        path = policy.resolve(report_path)
        if not path.is_file():
            raise ActionError(
                f"the report {report_path!r} does not exist in the workspace; finish with chapters=[…] "
                "(the Notebook files, in order), or write the report into a file first"
            )
        draft = policy.read_bytes(report_path).decode("utf-8", errors="replace")
    ledger = ledger_for(ctx)
    meta = ctx.meta
    problems = find_problems(draft, ledger)
    sources = ctx.workspace.root / SOURCES
    figures = review_figures(draft, ctx.workspace.root, ledger, sources)  # captions are checked by value
    with tracing.tracer().span("citation_check", {"deep_researcher.report.problems": len(problems)}) as span:
        pairs = audit(strip_references(figures.masked), ledger, sources)
        refusals = report_record(meta).finish_refusals
        last_try = refusals >= MAX_REFUSALS - 1
        judged = None
        if ctx.settings.verify_citations == "model" and (not problems or last_try) and not ctx.budget_nearly_spent():
            answers = ctx.services.get(JudgeAnswers, JudgeAnswers)
            judged = await judge_pairs(
                pairs, ledger, sources, ctx.model, ctx.prompts, lambda p, c: _judge_usage(ctx, p, c), answers
            )
            if judged.failed_calls:
                ctx.events.append("citation_judge_failed", step=ctx.step, calls=judged.failed_calls, errors=judged.errors[:3])
        not_stated = citation_problems(pairs) + figures.problems()
        span.set(
            {
                "deep_researcher.citations.pairs": len(pairs),
                "deep_researcher.citations.not_stated": len(not_stated),
                "deep_researcher.citations.checked_by": "model" if judged is not None else "lexical",
            }
        )
    if (problems or not_stated) and not last_try and not ctx.budget_nearly_spent():
        refusals = record_report(meta, finish_refusals=refusals + 1).finish_refusals
        listing = "\n".join(f"- {problem}" for problem in [*problems, *not_stated])
        advice = (
            "For a source that does not state what it is cited for: cite the source that does, weaken the "
            "sentence to what the source says, or remove it.\n"
            if not_stated
            else ""
        )
        if figures.problems():
            advice += "For a figure: draw it again with chart from values its source states, or remove it.\n"
        return Observation(
            f"The report was not accepted ({refusals} of {MAX_REFUSALS} tries). Problems:\n{listing}\n"
            f"{advice}Fix them in the {'chapter files' if chapters is not None else 'report file'} (research what is missing, or remove claims you cannot "
            f"cite), then call all_finished again. At the {MAX_REFUSALS}rd try the report is finalized as it "
            "is, with these problems listed in an appendix.",
            error=True,
        )
    language = resolve_language(ctx.settings.language, meta.title, meta.purpose)
    redrawn = await asyncio.to_thread(redraw, ctx.workspace.root, figures.to_redraw(ctx.workspace.root))
    if redrawn:
        ctx.events.append("figures_redrawn", step=ctx.step, figures=redrawn)
    with tracing.tracer().span("assemble_report", {}) as span:
        final = finalize(
            figures.apply(draft, language),
            ledger,
            force=bool(problems or not_stated),
            language=ctx.settings.language,
            flags=flags(pairs),
            more_problems=figures.problems_for_reader(),
        )
        target = ctx.workspace.root / REPORT
        if path is None or path == target:  # what was checked stays readable next to report.md
            atomic_write_text(ctx.workspace.root / DRAFT, draft)
        atomic_write_text(target, final.text)
        cited_pairs = sorted([*pairs, *figures.pairs], key=lambda p: (p.start, p.line))  # document order
        summary = write_citations(ctx.workspace.root, cited_pairs, final.cited, ledger, judged)
        span.set(
            {
                "deep_researcher.sources_cited": len(final.cited),
                "deep_researcher.report.forced": final.forced,
                "deep_researcher.report.problems": len(final.problems) + len(final.flagged),
                **{f"deep_researcher.citations.{key}": value for key, value in summary.items() if key in FIGURES},
            }
        )
    record_report(meta, report_path=REPORT, report_problems=[str(p) for p in final.problems] + final.flagged)
    meta.result = result
    meta.summary.pop("report", None)  # an unfinished report of an earlier stop is replaced
    meta.summary["sources_cited"] = len(final.cited)
    meta.summary["citations"] = {key: value for key, value in summary.items() if key != "judge"}
    count = len(final.problems) + len(final.flagged)
    note = f" with {count} problem(s) listed in its appendix" if final.forced else ""
    return Observation(f"Finished. Report: {REPORT}{note}.", finished=True, result=result)
