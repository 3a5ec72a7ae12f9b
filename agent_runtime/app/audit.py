"""`deep-researcher audit WORKSPACE [--verify-citations lexical|model] [model flags]`.

Re-checks a finished report against its saved sources, without searching again: after a person
edited `report.md`, or with a stronger judge. The report's numbers are mapped back to their sources
(through report.citations.json, else the References' addresses), every (statement, source) pair is
checked, and report.md's † marks and appendix, report.citations.json and the run's figures are
rewritten. Exit 0, or 3 when a citation is unsupported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TextIO

import agent_runtime.domain.citation_audit as citation_audit
import agent_runtime.language as lang
from agent_runtime.app.wording import not_a_workspace
from agent_runtime.domain.charts.inreport import redraw, review_figures
from agent_runtime.domain.citecheck.figures import describe
from agent_runtime.domain.finalize import finalize, strip_references
from agent_runtime.domain.layout import REPORT, SOURCES, ResearchWorkspace
from agent_runtime.domain.report_record import record_report
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_record import load_meta, save_meta
from agent_runtime.errors import EXIT_BUDGET, WorkspaceError
from sandbox import atomic_write_text

_NUMBERS = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]†?")


def _without_appendix(text: str) -> str:
    """The report without the appendix a forced finalization (or an earlier audit) wrote."""
    titles = {table["appendix"] for table in lang.STRINGS.values()}
    for title in titles:
        heading = f"\n## {title}\n"
        if heading in text:
            text = text[: text.index(heading)]
    return text


def _numbers_to_sources(workspace: Path, report: str, ledger: Ledger) -> dict[int, str]:
    """The reader's [n] → the source id: from report.citations.json, else the References' addresses
    (read as the export and the view read them)."""
    from agent_runtime.app.export.report import load_citations
    from agent_runtime.app.markdown_html import reference_addresses

    mapping: dict[int, str] = {}
    for citation in load_citations(workspace):
        if citation.source:
            mapping.setdefault(citation.citation, citation.source)
    for number, address in reference_addresses(report).items():
        found = ledger.lookup(address)
        if number not in mapping and found is not None:
            mapping[number] = found.id
    return mapping


def draft_of(report: str, mapping: dict[int, str]) -> str:
    """The report as a draft again: [n] back to [S<id>], † marks and the appendix gone (the
    References are rebuilt by finalize)."""
    body = strip_references(_without_appendix(report))

    def back(m: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", m.group(1))]
        if not all(n in mapping for n in numbers):
            return m.group(0).rstrip("†")
        return "[" + ", ".join(mapping[n] for n in numbers) + "]"

    return _NUMBERS.sub(back, body)


async def audit_workspace(path: Path, flags: dict[str, Any], config_file: Path | None, out: TextIO) -> int:
    from agent_runtime.config import load_settings
    from agent_runtime.engine.model import build_model
    from agent_runtime.engine.prompts import Prompts

    space = ResearchWorkspace(path)
    if not space.root.is_dir() or not space.exists():
        raise WorkspaceError(not_a_workspace(space.root))
    report_file = space.root / REPORT
    if not report_file.is_file():
        raise WorkspaceError(f"{report_file} does not exist: audit checks a finished report; finish the run first")
    meta = load_meta(space.run_file)
    settings = load_settings(flags, stored=meta.settings if meta else None, config_file=config_file)
    lock = space.lock()
    try:
        ledger = Ledger.load(space.root / SOURCES)
        report = report_file.read_text("utf-8", errors="replace")
        draft = draft_of(report, _numbers_to_sources(space.root, report, ledger))
        figures_in = review_figures(draft, space.root, ledger, space.root / SOURCES)  # checked by value
        pairs = citation_audit.audit(figures_in.masked, ledger, space.root / SOURCES)
        if not pairs and not figures_in.figures:
            print(f"{REPORT} has no citation to check.", file=out)
            return 0
        judged = None
        used = [0, 0]
        use_judge = settings.verify_citations == "model"
        if use_judge and not (settings.api_key or settings.base_url) and "verify_citations" not in flags:
            use_judge = False  # the judge is the default only where a model is configured
            print(
                "No model is configured (OPENAI_API_KEY or --base-url), so only the lexical pass checks "
                "the citations; give one to let the model judge every pair.",
                file=out,
            )
        if use_judge:

            def count(prompt_tokens: int, completion_tokens: int) -> None:
                used[0] += prompt_tokens
                used[1] += completion_tokens

            judged = await citation_audit.judge_pairs(
                pairs, ledger, space.root / SOURCES, build_model(settings), Prompts(settings.prompts), count
            )
        flags_ = citation_audit.flags(pairs)
        language = lang.normalize(settings.language) or (meta and lang.resolve(None, meta.title, meta.purpose)) or None
        redraw(space.root, figures_in.to_redraw(space.root))
        final = finalize(
            figures_in.apply(draft, language or lang.detect(draft)), ledger, force=bool(flags_ or figures_in.problems()),
            language=language, flags=flags_, more_problems=figures_in.problems_for_reader(),
        )  # fmt: skip
        if final.text != report:  # the report as it was (maybe a person's edit) is kept, never lost
            space.keep_in_trash(REPORT)
        atomic_write_text(report_file, final.text)
        pairs = sorted([*pairs, *figures_in.pairs], key=lambda p: (p.start, p.line))  # document order
        figures = citation_audit.write_citations(space.root, pairs, final.cited, ledger, judged)
        if meta is not None:
            meta.summary["citations"] = {k: v for k, v in figures.items() if k != "judge"}
            record_report(meta, report_problems=[str(p) for p in final.problems] + final.flagged)
            save_meta(space.run_file, meta)
    finally:
        lock.release()
    print(describe(figures), file=out)
    if judged is not None:
        print(
            f"judge {judged.model}: {judged.pairs_judged} pairs judged in {judged.calls} calls, "
            f"{judged.quotes_rejected} quotes not found in the source, {judged.unanswered} claims unanswered, "
            f"{judged.failed_calls} failed calls; "
            f"{used[0]:,} tokens in, {used[1]:,} out",
            file=out,
        )
    for entry in final.flagged:
        print(f"  {entry}", file=out)
    for problem in figures_in.problems():
        print(f"  {problem}", file=out)
    return EXIT_BUDGET if figures["unsupported"] or figures_in.problems() else 0
