"""The citation audit: every cited statement of a report checked, by code, against the saved text of
each source it cites (`sources/S<n>.md`, or the search snippet of a source never read), with the
lexical checker of `agent_runtime.citations`.

`audit(draft, ledger, sources_dir)` gives one Evidence per (statement, source) pair, its line range
counted in the snapshot file itself. `all_finished` turns the unsupported pairs into problems the
agent must fix; a forced finalization lists them in the appendix; `citation_records` is what
`report.citations.json` holds for the reader: each numbered citation with its statement, the
supporting passage and where it is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.citations import Evidence, check, claims
from agent_runtime.errors import ModelError
from agent_runtime.finalize import Problem
from agent_runtime.json_repair import loads_lenient
from agent_runtime.ledger import Ledger, SourceRecord, split_front_matter
from agent_runtime.messages import user
from agent_runtime.model import Model
from agent_runtime.prompts import Prompts
from agent_runtime.replies import strip_thinking

JUDGE_BATCH = 10  # claims of one source per judge call: a reply and a request of a modest size
_SHOWN = 300  # characters of a statement or passage in a problem


def _source_text(record: SourceRecord, sources_dir: Path) -> tuple[str, int, str | None]:
    """(the text to check against, the lines before it in its file, the file) for one source."""
    if record.snapshot:
        path = sources_dir.parent / record.snapshot
        try:
            text = path.read_text("utf-8", errors="replace")
        except OSError:
            text = ""
        if text:
            _fields, body = split_front_matter(text)  # the front matter is not the source's text
            offset = text[: len(text) - len(body)].count("\n")
            return body, offset, record.snapshot
    return record.snippet or "", 0, None


def audit(draft: str, ledger: Ledger, sources_dir: Path) -> list[Evidence]:
    """Every (cited statement, source) pair of the draft, judged; unknown ids are left to finalize."""
    texts: dict[str, tuple[str, int, str | None]] = {}
    found: list[Evidence] = []
    for claim in claims(draft):
        for source_id in claim.ids:
            record = ledger.get(source_id)
            if record is None:
                continue
            if source_id not in texts:
                texts[source_id] = _source_text(record, sources_dir)
            text, offset, _ = texts[source_id]
            if not text.strip():  # nothing saved to check against (a source registered without text)
                found.append(
                    Evidence(
                        claim.statement, source_id, "", (0, 0), 0.0, "weak", how="unchecked: no saved text"
                    )
                )
                continue
            evidence = check(claim.statement, source_id, text)
            if evidence.lines != (0, 0):
                evidence.lines = (evidence.lines[0] + offset, evidence.lines[1] + offset)
            found.append(evidence)
    return found


UsageSink = Callable[[int, int], None]  # prompt tokens, completion tokens of one judge call


async def judge(
    evidence: list[Evidence], ledger: Ledger, model: Model, prompts: Prompts, on_usage: UsageSink
) -> int:
    """The model judges the doubtful pairs ("weak" or "unsupported" with a passage to read), per
    source, up to JUDGE_BATCH claims a call; a verdict it gives replaces the lexical one (judged_by
    "model"). A reply it cannot read, or a call that fails, leaves the lexical verdicts. Returns the
    number of calls made."""
    doubtful: dict[str, list[Evidence]] = {}
    for item in evidence:
        if item.verdict != "supported" and item.passage and item.how == "lexical":
            doubtful.setdefault(item.source_id, []).append(item)
    calls = 0
    for source_id, all_items in doubtful.items():
        record = ledger.get(source_id)
        for start in range(0, len(all_items), JUDGE_BATCH):
            items = all_items[start : start + JUDGE_BATCH]
            title = record.title if record else ""
            prompt = prompts.render("judge_citations.j2", source_id=source_id, title=title, items=items)
            try:
                raw = await model.complete([user(prompt)], [])
            except ModelError:  # the lexical verdicts stand: a judge that fails must not block the run
                continue
            calls += 1
            # Servers that report no usage: four characters a token, as the runtime estimates.
            on_usage(
                raw.prompt_tokens or len(prompt) // 4, raw.completion_tokens or len(raw.content or "") // 4
            )
            _apply(items, raw.content or "")
    return calls


def _apply(items: list[Evidence], content: str) -> None:
    """The judge's verdicts, in order; a reply that cannot be read changes nothing."""
    text, _ = strip_thinking(content)
    try:
        verdicts = loads_lenient(text).get("verdicts")
    except (ValueError, AttributeError):
        return
    if not isinstance(verdicts, list):
        return
    for item, verdict in zip(items, verdicts, strict=False):
        if verdict in ("supported", "unsupported"):
            item.verdict, item.how = verdict, "model"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def unsupported(evidence: list[Evidence], ledger: Ledger) -> list[Problem]:
    """A problem for each pair whose source does not state the claim, with the closest passage."""
    problems = []
    for item in evidence:
        if item.verdict != "unsupported":
            continue
        record = ledger.get(item.source_id)
        where = (
            f"{record.snapshot} lines {item.lines[0]}-{item.lines[1]}"
            if record and record.snapshot
            else "its search snippet"
        )
        missing = f"; not found there: {', '.join(item.missing[:5])}" if item.missing else ""
        closest = (
            f"closest passage ({where}): «{_short(item.passage)}»"
            if item.passage
            else "no passage comes close"
        )
        problems.append(
            Problem(
                "unsupported_citation", f"[{item.source_id}] «{_short(item.statement)}» — {closest}{missing}"
            )
        )
    return problems


def citation_records(
    evidence: list[Evidence], numbers: dict[str, int], ledger: Ledger
) -> list[dict[str, Any]]:
    """What report.citations.json holds: each numbered citation [n] of report.md with its source,
    statement, supporting passage, its line range in the source's file, the score and the verdict."""
    records = []
    for item in evidence:
        if item.source_id not in numbers:
            continue
        record = ledger.get(item.source_id)
        records.append(
            {
                "citation": numbers[item.source_id],
                "source": item.source_id,
                "statement": item.statement,
                "passage": item.passage,
                "file": record.snapshot if record and record.snapshot else None,
                "lines": list(item.lines) if record and record.snapshot and item.passage else None,
                "score": round(item.score, 3),
                "verdict": item.verdict,
                "judged_by": item.how,
            }
        )
    return records


def counts(evidence: list[Evidence]) -> dict[str, int]:
    tally = {"supported": 0, "weak": 0, "unsupported": 0}
    for item in evidence:
        tally[item.verdict] += 1
    return tally
