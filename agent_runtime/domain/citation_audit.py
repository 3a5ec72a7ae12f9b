"""The citation audit of a report: every (cited statement, source) pair checked with
`agent_runtime.domain.citecheck.check_citation` against the saved text of the source (`sources/S<n>.md`, or
the search snippet of a source never read).

- `audit(draft, ledger, sources_dir)`: the lexical verdict of every pair, with the passage's lines
  counted in the snapshot file itself.
- `judge_pairs(...)`: with `--verify-citations model` (the default), every pair goes to the judge,
  per source, `judge.BATCH` claims a call; a verdict is believed only with a quote found in the
  source. A failing call leaves the lexical verdicts of its claims, and is recorded.
- `problems(pairs)`: the agent's list (by [S<n>], so it can fix its draft); `flags(pairs)`: what a
  forced finalization marks † and lists in the appendix; `citation_records` and `summary`: what
  report.citations.json holds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_runtime.domain.citecheck import CitationCheck, check_citation
from agent_runtime.domain.citecheck.claims import claims
from agent_runtime.domain.citecheck.figures import fact_figures
from agent_runtime.domain.citecheck.judge import BATCH, Judgement, ask_judge
from agent_runtime.domain.finalize import Flag, Problem, shorten
from agent_runtime.domain.layout import CITATIONS_FILE
from agent_runtime.domain.sources.front_matter import split_front_matter
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.domain.sources.records import SourceRecord
from agent_runtime.domain.sources.snapshots import snapshot_file
from agent_runtime.errors import ModelError
from sandbox import atomic_write_text

if TYPE_CHECKING:
    from agent_runtime.engine.model import Model
    from agent_runtime.engine.prompts import Prompts


UsageSink = Callable[[int, int], None]  # prompt tokens, completion tokens of one judge call


@dataclass
class CitedPair:
    """One cited statement and one of the sources it cites, with the verdict."""

    source_id: str
    line: int  # the statement's (first) line in the checked draft
    check: CitationCheck
    offset: int = 0  # lines of the snapshot file before the source's text (its front matter)
    start: tuple[int, int] = (0, 0)  # where the statement stands in the draft: (line, column)
    end: tuple[int, int] = (0, 0)
    # A figure's caption (agent_runtime/domain/charts): its file and the values checked in the source.
    figure: dict[str, Any] | None = None

    @property
    def statement(self) -> str:
        return self.check.claim

    @property
    def file_lines(self) -> tuple[int, int]:
        first, last = self.check.lines
        return (first + self.offset, last + self.offset) if first else (0, 0)


class JudgeAnswers(dict[tuple[str, str, str], Judgement]):
    """The judge's answers of one run, by (model, digest of the source's text, claim): a refused
    report is checked again after the agent's fix, and only the claims it changed are sent again.
    One per run, kept in the run's services."""


@dataclass
class JudgeRun:
    """What the judge did: for report.citations.json's summary and the run's events."""

    model: str
    pairs_judged: int = 0
    quotes_rejected: int = 0
    unanswered: int = 0  # claims a reply gave no readable verdict for (not JSON, missing, unknown word)
    calls: int = 0
    failed_calls: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "pairs_judged": self.pairs_judged, "quotes_rejected": self.quotes_rejected,
            "unanswered": self.unanswered, "calls": self.calls, "failed_calls": self.failed_calls, "errors": self.errors[:5],
        }  # fmt: skip


def source_text(record: SourceRecord, sources_dir: Path) -> tuple[str, int]:
    """(the text to check against, the lines before it in its file) for one source. A snapshot
    that leads out of the workspace is refused (WorkspaceError), never read."""
    path = snapshot_file(sources_dir, record)
    if path is not None:
        try:
            text = path.read_text("utf-8", errors="replace")
        except OSError:
            text = ""
        if text:
            _fields, body = split_front_matter(text)  # the front matter is not the source's text
            return body, text[: len(text) - len(body)].count("\n")
    return record.snippet or "", 0


def audit(draft: str, ledger: Ledger, sources_dir: Path) -> list[CitedPair]:
    """Every (cited statement, source) pair of the draft, checked lexically; ids no source has are
    left to finalize."""
    texts: dict[str, tuple[str, int]] = {}
    pairs = []
    for claim in claims(draft):
        for source_id in claim.ids:
            record = ledger.get(source_id)
            if record is None:
                continue
            if source_id not in texts:
                texts[source_id] = source_text(record, sources_dir)
            text, offset = texts[source_id]
            check = check_citation(claim.statement, text, title=record.title or "")
            pairs.append(CitedPair(source_id, claim.line, check, offset, claim.start, claim.end))
    return pairs


async def judge_pairs(
    pairs: list[CitedPair],
    ledger: Ledger,
    sources_dir: Path,
    model: Model,
    prompts: Prompts,
    on_usage: UsageSink,
    answers: JudgeAnswers | None = None,
) -> JudgeRun:
    """Every pair to the judge, per source, BATCH claims a call. A call that fails, or a reply that
    gives no verdict for a claim, leaves that claim's lexical verdict."""
    run = JudgeRun(getattr(model, "name", "model"))
    answers = JudgeAnswers() if answers is None else answers
    by_source: dict[str, list[CitedPair]] = {}
    for pair in pairs:
        if pair.check.reasons and pair.check.reasons[0].kind in ("no_words", "empty_source"):
            continue  # nothing a judge could read
        by_source.setdefault(pair.source_id, []).append(pair)
    for source_id, all_items in by_source.items():
        record = ledger.get(source_id)
        text, _ = source_text(record, sources_dir) if record else ("", 0)
        title = (record.title or "") if record else ""
        digest = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()
        items = []
        for pair in all_items:
            known = answers.get((run.model, digest, pair.statement))
            if known is None:
                items.append(pair)
            else:
                _apply(pair, text, title, known, run)
        for start in range(0, len(items), BATCH):
            batch = items[start : start + BATCH]
            try:
                judgements, prompt_tokens, completion_tokens = await ask_judge(
                    model, prompts, title, text, [p.check for p in batch]
                )
            except ModelError as exc:  # the lexical verdicts stand: a judge that fails must not block
                run.failed_calls += 1
                run.errors.append(str(exc)[:200])
                continue
            run.calls += 1
            on_usage(prompt_tokens, completion_tokens)
            for pair, judgement in zip(batch, judgements, strict=True):
                if judgement is None:
                    run.unanswered += 1
                    continue
                answers[(run.model, digest, pair.statement)] = judgement
                _apply(pair, text, title, judgement, run)
    return run


def _apply(pair: CitedPair, text: str, title: str, judgement: Judgement, run: JudgeRun) -> None:
    pair.check = check_citation(pair.statement, text, title=title, judge=judgement)
    if pair.check.judged_by == "lexical":
        run.quotes_rejected += 1
    else:
        run.pairs_judged += 1


def problems(pairs: list[CitedPair]) -> list[Problem]:
    """For the agent: each unsupported pair, with the closest passage and why."""
    out = []
    for pair in pairs:
        if pair.check.verdict != "unsupported":
            continue
        closest = f"closest passage: «{shorten(pair.check.passage)}»" if pair.check.passage else "no passage comes close"
        why = pair.check.explain()
        out.append(
            Problem(
                "unsupported_citation",
                f"[{pair.source_id}] «{shorten(pair.statement)}» — {closest}{f'; {why}' if why else ''}",
            )
        )
    return out


def flags(pairs: list[CitedPair]) -> list[Flag]:
    """What a forced finalization marks † in the text and explains in the appendix."""
    return [
        Flag(p.line, p.source_id, p.statement, p.check.passage, list(p.check.reasons), p.check.judged_by, p.start, p.end)
        for p in pairs
        if p.check.verdict == "unsupported"
    ]


def citation_records(pairs: list[CitedPair], numbers: dict[str, int], ledger: Ledger) -> list[dict[str, Any]]:
    """Each numbered citation [n] of report.md: its source, statement, verdict, the passage (the one
    that supports it, or only the closest one), its lines in the source's file, and why."""
    records = []
    for pair in pairs:
        if pair.source_id not in numbers:
            continue
        record = ledger.get(pair.source_id)
        snapshot = record.snapshot if record and record.snapshot else None
        check = pair.check
        records.append(
            {
                "citation": numbers[pair.source_id],
                "source": pair.source_id,
                "statement": check.claim,
                "verdict": check.verdict,
                "judged_by": check.judged_by,
                "passage": check.passage,
                "passage_is": "supporting" if check.verdict == "supported" else "closest",
                "context": check.context,
                "file": snapshot,
                "lines": list(pair.file_lines) if snapshot and check.passage and pair.file_lines[0] else None,
                "score": check.score,
                "reasons": [reason.text() for reason in check.reasons],
                **({"figure": pair.figure} if pair.figure else {}),
            }
        )
    return records


def summary(pairs: list[CitedPair], numbers: dict[str, int], judge: JudgeRun | None) -> dict[str, Any]:
    """report.citations.json's summary: the verdicts, the FACT figures, and what the judge did."""
    kept = [p for p in pairs if p.source_id in numbers]
    figures = fact_figures([(p.statement, p.source_id, p.check.verdict) for p in kept])
    return {
        **figures,
        "unverified": figures["checked"] - figures["supported"],
        "checked_by": f"model:{judge.model}" if judge and judge.pairs_judged else "lexical",
        "judge": judge.as_dict() if judge else None,
    }


def write_citations(
    workspace: Path, pairs: list[CitedPair], cited: list[SourceRecord], ledger: Ledger, judge: JudgeRun | None
) -> dict[str, Any]:
    """report.citations.json for a report whose References list `cited` in order: the summary and
    each numbered citation. Returns the summary."""
    numbers = {record.id: number for number, record in enumerate(cited, start=1)}
    figures = summary(pairs, numbers, judge)
    records = citation_records(pairs, numbers, ledger)
    text = json.dumps({"summary": figures, "citations": records}, ensure_ascii=False, indent=2) + "\n"
    atomic_write_text(workspace / CITATIONS_FILE, text)
    return figures
