"""The model as judge: claims of one source sent together, each answered with a quoted sentence.

`ask_judge` sends up to `BATCH` claims of one source in one call, with the source's text (or, for a
long source, the passages around what the lexical pass found for each claim). The judge answers each
claim with "supported", "contradicted" or "not stated" and quotes the sentence that decides it.
`apply_judgement` accepts a verdict only when its quote is really in the source (whitespace,
emphasis and quotation marks normalised; an elided quote's parts each found, in order): a judge that
invents a quote is not believed, and the lexical verdict stands, marked so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from agent_runtime.domain.citecheck.page import heading_of
from agent_runtime.domain.citecheck.verdict import CitationCheck, Reason

if TYPE_CHECKING:
    from agent_runtime.engine.model import Model
    from agent_runtime.engine.prompts import Prompts

BATCH = 10  # claims a call: a request and a reply of a modest size
EXCERPT_CHARS = 12_000  # a source up to this long is shown whole; a longer one by passages
_CONTEXT_LINES = 3  # lines shown around a passage of a long source

JudgeVerdict = Literal["supported", "contradicted", "not stated"]


@dataclass(frozen=True)
class Judgement:
    """A judge's answer on one claim: the verdict, the deciding sentence quoted from the source, its
    reason in a few words, and the model that judged."""

    verdict: JudgeVerdict
    quote: str = ""
    reason: str = ""
    model: str = "model"


def excerpt(source_text: str, checks: list[CitationCheck]) -> str:
    """What the judge reads: the whole source when it is short, else the lines around each claim's
    closest passage, each under the headings above it (a reader's context: which person or year
    the section is about), in order, with ``[…]`` where lines are left out."""
    if len(source_text) <= EXCERPT_CHARS:
        return source_text.strip()
    lines = source_text.split("\n")  # counted as the lexical pass counts them (a form feed is no line)
    share = EXCERPT_CHARS // max(1, len(checks))  # each claim gets its part: none crowds out another
    keep: set[int] = set()
    headings = [(number, len(m.group(1))) for number, line in enumerate(lines, 1) if (m := heading_of(line))]
    for check in checks:
        first, last = check.lines
        if not first:
            continue
        keep |= _heading_chain(headings, first)
        size = 0
        for number in range(max(1, first - _CONTEXT_LINES), min(len(lines), last + _CONTEXT_LINES) + 1):
            if size > share and not first <= number <= last:
                continue  # the passage itself always; its context while the share lasts
            keep.add(number)
            size += min(len(lines[number - 1]), share) + 1
    parts: list[str] = []
    previous = 0
    for number in sorted(keep):
        if number != previous + 1:
            parts.append("[…]")
        parts.append(lines[number - 1][: max(share, 2_000)])
        previous = number
    return "\n".join(parts).strip() or source_text[:EXCERPT_CHARS]


def _heading_chain(headings: list[tuple[int, int]], line: int) -> set[int]:
    """The lines of the headings in force at `line`: the nearest one of each shallower level."""
    chain: set[int] = set()
    deepest = 7
    for number, level in reversed(headings):
        if number < line and level < deepest:
            chain.add(number)
            deepest = level
    return chain


async def ask_judge(
    model: Model, prompts: Prompts, title: str, source_text: str, checks: list[CitationCheck]
) -> tuple[list[Judgement | None], int, int]:
    """One call for up to BATCH claims of one source: a judgement per claim (None where the reply
    gives none), and the call's prompt and completion tokens. A failing call raises ModelError."""
    from agent_runtime.engine.calling import calling
    from agent_runtime.engine.messages import user
    from agent_runtime.engine.replies import strip_thinking

    prompt = prompts.render("judge_citations.j2", title=title, source=excerpt(source_text, checks), claims=checks)
    calling.set(("citation_judge", f"{len(checks)} claims of {title or 'a source'}"[:120]))
    raw = await model.complete([user(prompt)], [])
    content, _ = strip_thinking(raw.content or "")
    # Servers that report no usage: four characters a token, as the runtime estimates.
    usage = (raw.prompt_tokens or len(prompt) // 4, raw.completion_tokens or len(raw.content or "") // 4)
    return parse_reply(content, len(checks), getattr(model, "name", "model")), *usage


def parse_reply(content: str, count: int, model_name: str) -> list[Judgement | None]:
    """The judgements of a reply, by claim number (or in order); a reply that is not JSON gives none."""
    from agent_runtime.engine.json_repair import loads_lenient

    try:
        data: Any = loads_lenient(content)
    except ValueError:
        return [None] * count
    items = data.get("verdicts") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return [None] * count
    out: list[Judgement | None] = [None] * count
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        number = item.get("claim", position + 1)
        index = number - 1 if isinstance(number, int) and not isinstance(number, bool) else position
        verdict = _verdict(item.get("verdict"))
        if verdict is None or not 0 <= index < count:
            continue
        quote, reason = item.get("quote"), item.get("reason")
        out[index] = Judgement(
            verdict, quote if isinstance(quote, str) else "", reason if isinstance(reason, str) else "", model_name
        )
    return out


def _verdict(value: object) -> JudgeVerdict | None:
    if not isinstance(value, str):
        return None
    word = re.sub(r"[\s_-]+", " ", value.strip().lower())
    if word in ("supported", "support", "stated", "true"):
        return "supported"
    if word in ("contradicted", "contradicts", "refuted", "false"):
        return "contradicted"
    if word in ("not stated", "unstated", "not supported", "unsupported", "not found", "not mentioned"):
        return "not stated"
    return None


_NOISE = re.compile(r"[*_`“”\"'‘’「」『』]")


def _normalise(text: str) -> str:
    collapsed = re.sub(r"\s+", " ", _NOISE.sub("", text)).strip().lower()
    return re.sub(r"(?<=[^\x00-\x7f]) | (?=[^\x00-\x7f])", "", collapsed)  # no space counts next to CJK


def quote_found(quote: str, source_text: str) -> bool:
    """Whether a quote is really in the source: each of its parts (split at an ellipsis), in order,
    after normalising whitespace, emphasis and quotation marks. A quote of under 8 characters, or
    one made only of an ellipsis, is not found."""
    parts = [p for p in (_normalise(part) for part in re.split(r"\.\.\.|…|\[…\]", quote)) if p]
    if not parts or sum(len(p) for p in parts) < 8:
        return False
    haystack = _normalise(source_text)
    position = 0
    for part in parts:
        found = haystack.find(part.strip(" .。"), position)
        if found < 0:
            return False
        position = found + len(part)
    return True


def _quote_lines(quote: str, source_text: str) -> tuple[int, int]:
    """The lines of the source where a quote's first words are (by a plain search), else (0, 0)."""
    head = re.split(r"\.\.\.|…", quote.strip())[0].strip()[:40]
    where = source_text.find(head) if head else -1
    if where < 0:
        return (0, 0)
    first = source_text.count("\n", 0, where) + 1
    return first, first + quote.count("\n")


_CONTRADICTIONS = ("value", "ordinal", "negation", "opposite", "roles")


def _contradictions(claim: str, quote: str) -> list[Reason]:
    """What the lexical pass finds against the claim in the judge's own quote: another value of the
    same kind, another ordinal, a negation or an opposite word, roles the other way round. A judge
    that says "supported" for those is not believed (a weak judge says yes to much)."""
    from agent_runtime.domain.citecheck.lexical import check_lexical

    return [r for r in check_lexical(claim, quote).reasons if r.kind in _CONTRADICTIONS]


def apply_judgement(lexical: CitationCheck, judgement: Judgement, source_text: str) -> CitationCheck:
    """The judge's verdict when its quote is in the source (a "not stated" needs none); otherwise the
    lexical verdict, with the rejected quote said."""
    name = judgement.model
    if judgement.verdict == "not stated":
        reason = Reason("judge_not_stated", detail=name)
        return replace(lexical, verdict="unsupported", reasons=[reason], judged_by=f"model:{name}")
    if not quote_found(judgement.quote, source_text):
        rejected = Reason("judge_quote_rejected", detail=name)
        return replace(lexical, reasons=[*lexical.reasons, rejected], judged_by="lexical")
    quote = " ".join(judgement.quote.split())
    lines = _quote_lines(judgement.quote, source_text)
    if judgement.verdict == "supported":
        contradictions = _contradictions(lexical.claim, quote)
        if lexical.verdict != "unsupported":
            # another figure in the quote, where the whole page gives the claim's elsewhere or two of
            # its figures give it (the page's check left it unconfirmed): the judge's to read; a
            # negation, an opposite word, roles the other way round still overrule it
            contradictions = [r for r in contradictions if r.kind not in ("value", "ordinal")]
        if contradictions:  # the sentence it quotes states another value, a negation, the opposite
            overruled = Reason("judge_overruled", detail=name)
            return replace(
                lexical, verdict="unsupported", passage=quote, lines=lines if lines != (0, 0) else lexical.lines,
                reasons=[overruled, *contradictions], judged_by="lexical", quote=quote,
            )  # fmt: skip
        return replace(
            lexical, verdict="supported", passage=quote, lines=lines if lines != (0, 0) else lexical.lines,
            reasons=[], judged_by=f"model:{name}", quote=quote,
        )  # fmt: skip
    reason = Reason("judge_contradicted", found=quote, detail=name)
    return replace(
        lexical, verdict="unsupported", passage=quote, lines=lines if lines != (0, 0) else lexical.lines,
        reasons=[reason], judged_by=f"model:{name}", quote=quote,
    )  # fmt: skip
