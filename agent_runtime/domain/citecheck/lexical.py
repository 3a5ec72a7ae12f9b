"""The lexical pass: free, offline, always run first; it picks the passage and gives a first verdict.

1. **The passage.** The anchor is the source sentence sharing the most of the claim's words (its
   facts break ties). A neighbouring sentence (up to two away) joins it only when it brings one of
   the claim's ordinary words that the anchor lacks, as when a claim sums up two sentences; a
   neighbour that brings only a number, a date or a name does not join.
2. **Facts where they are said** (`stated.py`). Each quantity, date and ordinal of the claim must be
   stated in the passage, or where the page says what the claim's clause says, at the claim's
   precision or within its bound (`facts.satisfies`: ``more than 120`` holds for 134, ``before May
   2021`` for April 2021). A fact found only in a joined neighbour while the anchor states another
   value of the same kind is a swap, not support. One the page gives only elsewhere, or that two of
   its figures give (`derived.py`), leaves the claim weak; one it never gives is unsupported.
3. **Names** (capitalised words inside the sentence, or a capitalised first word the source never
   uses; jieba's person, place and organisation words in Chinese) must be in the passage, or where a
   reader of the page takes them from (`names.py`: the context, a surname, the kind "it" means).
   Word forms match (Norway/Norwegian). A name the page gives elsewhere leaves the claim weak,
   unless the passage speaks of someone else; one the page never gives is unsupported.
4. **Polarity.** A negation in the claim and not in the passage's matching clauses (or the other way
   round), or an opposite word (won/lost, rose/fell, 增长/下降, 批准/否决), is a contradiction.
5. **Roles.** Two names in the other order around the same verb (A sued B / B sued A), when neither
   text is passive, are a swap.
6. **Coverage**, the share of the claim's words found in the passage, decides the rest: supported at
   ``SUPPORTED`` or more, unsupported under ``UNRELATED``, weak between. An ordinal the source does
   not state at all makes a claim weak at best.
"""

from __future__ import annotations

import re

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.claims import clean
from agent_runtime.domain.citecheck.derived import AVERAGES, TOTALS, averaged, derivable, totalled
from agent_runtime.domain.citecheck.names import check_names, claim_names, display_name, named_in
from agent_runtime.domain.citecheck.page import (
    Sentence,
    context,
    heading_sentences,
    scoped_dates,
    scoped_ordinal,
    source_sentences,
)
from agent_runtime.domain.citecheck.relations import check_relations, is_change, span_days
from agent_runtime.domain.citecheck.roles import (
    check_actor,
    check_acts,
    check_cause,
    check_compared,
    check_roles,
    check_slot,
)
from agent_runtime.domain.citecheck.speakers import check_speaker
from agent_runtime.domain.citecheck.stated import (
    COMPARES,
    check_amounts,
    check_dates,
    check_ordinals,
    gathers,
    where_said,
    word_score,
)
from agent_runtime.domain.citecheck.verdict import CitationCheck, Reason, Verdict

SUPPORTED = {"en": 0.6, "zh": 0.6}
UNRELATED = {"en": 0.25, "zh": 0.25}
_NEIGHBOURS = 2
_CLAUSE = re.compile(
    r"[,;:，；：]|\b(?:but|although|though|while|whereas|yet|after|before|when|because|which|until|unless)\b"
    r"|但是|但|而且|然而|不过|之后|以后|因为|由于",
    re.I,
)


def _coverage(words: set[str], zh: bool, sentences: list[Sentence]) -> float:
    if not words:
        return 1.0
    text = "".join(s.text for s in sentences)
    tokens = frozenset().union(*(s.tokens for s in sentences)) if sentences else frozenset()
    return sum(word_score(w, zh, text, tokens) for w in words) / len(words)


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE.split(text) if c and c.strip()]


def _matching_clauses(words: set[str], zh: bool, sentences: list[Sentence], facts: fx.Facts | None = None) -> str:
    """The clauses of the passage that share the most of the claim's ordinary words (a figure of
    the claim counting as a word: "0—14岁人口比重下降…，60岁及以上人口比重上升…" for a claim on 0—14岁)."""
    scored = []
    for sentence in sentences:
        for clause in _clauses(sentence.text):
            tokens = frozenset(tx.content_tokens(clause))
            score = sum(1 for w in words if word_score(w, zh, clause, tokens) >= 1)
            if facts is not None and facts.quantities and re.search(r"\d", clause):
                stated = fx.extract(clause, strict=False).quantities
                score += sum(1 for q in facts.quantities if any(fx.satisfies(q, p) for p in stated))
            scored.append((score, clause))
    best = max((score for score, _ in scored), default=0)
    return " ".join(clause for score, clause in scored if best and score >= max(1, best - 1))


def check_lexical(claim: str, source_text: str, title: str = "") -> CitationCheck:
    """The lexical verdict on `claim` against `source_text`, whose title is `title` (see the
    module's docstring). A summary sentence that joins facts of several of the source's sentences
    ("The bridge reopened after a three-day closure, with engineers finding no damage") finds no
    one passage saying it all: when the whole finds none (only names or words missing, no fact
    contradicted), each of its parts is checked on its own, and the sentence stands if every
    part does."""
    whole = _check_whole(claim, source_text, title)
    if whole.verdict == "supported" or not all(r.kind in _UNREACHED for r in whole.reasons):
        return whole
    parts = _claim_parts(clean(claim))
    if len(parts) < 2:
        return whole
    checks = [_check_whole(part, source_text, title) for part in parts]
    if any(c.verdict == "unsupported" for c in checks):
        return whole
    verdict: Verdict = "supported" if all(c.verdict == "supported" for c in checks) else "weak"
    if verdict == whole.verdict:
        return whole
    joined = [c for c in checks if c.passage]
    return CitationCheck(
        whole.claim,
        verdict,
        " … ".join(dict.fromkeys(c.passage for c in joined)),
        (min(c.lines[0] for c in joined), max(c.lines[1] for c in joined)) if joined else (0, 0),
        [r for c in checks for r in c.reasons],
        "lexical",
        min(c.score for c in checks),
        context=joined[0].context if joined else "",
    )


# The reasons a whole summary sentence may fail for only because no one passage says it all.
_UNREACHED = frozenset({"name", "coverage_low", "coverage_partial", "no_passage", "value_absent"})
# Where a sentence joins two facts: ", with …", "; ", ", while …", "；" (not ", and …", which often
# leaves out its verb: "…went to Osei, and this year's to Tanner").
# (not at a Chinese comma: the clauses after it leave out the subject, which the check must see)
_PART = re.compile(r"\s*(?:;|,\s+(?=(?:with|while|after|before|but|which|as|where)\b))\s*|；", re.I)


def _claim_parts(statement: str) -> list[str]:
    """The parts of a sentence that each state a fact of their own; none when one part is too
    short to be checked alone (under three words that carry meaning)."""
    parts = [p.strip() for p in _PART.split(statement) if p and p.strip()]
    return parts if all(len(tx.content_tokens(p)) >= 3 for p in parts) else []


def _check_whole(claim: str, source_text: str, title: str) -> CitationCheck:
    statement = clean(claim)
    if not re.search(r"[^\W\d_]", statement):
        return CitationCheck(statement, "weak", reasons=[Reason("no_words")])
    if not source_text.strip():
        return CitationCheck(statement, "weak", reasons=[Reason("empty_source")])
    zh = tx.is_chinese(statement)
    code = "zh" if zh else "en"
    sentences = source_sentences(source_text)
    plain = frozenset().union(*(s.plain for s in sentences)) if sentences else frozenset()
    named = frozenset().union(*(s.names for s in sentences)) if sentences else frozenset()
    names, openers = claim_names(statement, plain, named)
    words = tx.content_tokens(statement)
    claim_facts = fx.extract(statement, strict=True)
    ordinary = {w for w in words if w not in {tx.stem(n) for n in names if tx.is_latin(n)} and w not in names}

    def fact_hits(s: Sentence) -> int:
        hits = sum(1 for q in claim_facts.quantities if any(fx.satisfies(q, p) for p in s.facts.quantities))
        return hits + sum(1 for d in claim_facts.dates if any(fx.date_satisfies(d, p) for p in s.facts.dates))

    in_headings: dict[tuple[str, ...], tuple[set[str], list[fx.Date]]] = {}  # per chain of headings, read once

    def heading_hits(s: Sentence) -> float:
        """Half a point for each of the claim's words and facts that only the headings above the
        sentence give: a tie goes to the sentence in the section the claim names."""
        if not s.headings:
            return 0.0
        if s.headings not in in_headings:
            scope = heading_sentences("", s.headings)
            in_headings[s.headings] = (
                {w for w in words if any(word_score(w, zh, h.text, h.tokens) >= 1 for h in scope)},
                [d for d in claim_facts.dates if any(fx.date_satisfies(d, p) for h in scope for p in h.facts.dates)],
            )
        heading_words, heading_dates = in_headings[s.headings]
        if not heading_words and not heading_dates:
            return 0.0
        new_words = sum(1 for w in heading_words if word_score(w, zh, s.text, s.tokens) < 1)
        new_dates = sum(1 for d in heading_dates if not any(fx.date_satisfies(d, p) for p in s.facts.dates))
        return 0.5 * (new_words + new_dates)

    hits = [fact_hits(s) for s in sentences]
    scored = []  # a tie goes to the sentence that states the claim's facts
    for k, s in enumerate(sentences):
        own = sum(word_score(w, zh, s.text, s.tokens) for w in words)
        scored.append((own + hits[k] + heading_hits(s), hits[k], -k))
    if not scored or max(scored)[0] <= 0:
        return CitationCheck(statement, "unsupported", reasons=[Reason("no_passage")])
    anchor = -max(scored)[2]
    passage_ids = _join_neighbours(anchor, ordinary, claim_facts, zh, sentences)
    passage = [sentences[k] for k in passage_ids]
    around = context(sentences, passage_ids, title)
    coverage = _coverage(words, zh, [*passage, *around.levels])
    hard: list[Reason] = []
    soft: list[Reason] = []
    elsewhere = [s for k, s in enumerate(sentences) if k not in passage_ids and _shares(ordinary, zh, s)]
    near = range(max(0, anchor - _NEIGHBOURS), anchor + _NEIGHBOURS + 1)
    # the figures of what the claim measures (2.6 metres longer: the lengths), wherever the page gives them
    measures = {q.measure for q in claim_facts.amounts if q.measure}
    ranks = {q.value for q in claim_facts.ordinals}  # 从第六次到第七次普查: the figures filed under both
    window = [  # the anchor's section around it, and wherever else the claim's figures are stated
        s for k, s in enumerate(sentences)
        if (k in near and s.section == sentences[anchor].section)
        or (claim_facts.amounts and hits[k])
        or (claim_facts.dates and any(fx.date_satisfies(d, p) for d in claim_facts.dates for p in scoped_dates(s)) and _shares(ordinary, zh, s))
        or (measures and any(p.measure in measures for p in s.facts.amounts) and _shares(ordinary, zh, s))
        or (len(ranks) > 1 and s.facts.amounts and scoped_ordinal(s) in ranks and _shares(ordinary, zh, s))
    ]  # fmt: skip
    said_where = where_said(statement, claim_facts, zh, sentences[anchor])
    near_figures = list(dict.fromkeys([*passage, *window, *elsewhere, *around.levels]))  # what a claim could work figures out of
    related = check_relations(statement, claim_facts, window)
    # a relation read against two figures the claim may not mean: when the page states the claim's
    # change, or two others of its figures give it, the claim is unconfirmed, not contradicted
    totals, averages = bool(TOTALS.search(statement)), bool(AVERAGES.search(statement))

    def worked_out(q: fx.Quantity, among: list[Sentence] | None = None) -> bool:
        """Whether two figures of the sentences near the claim's (or of `among`) give `q`; a share
        of a whole too where the claim gives a share, or the passage does ("40 percent were island
        residents": roughly 24,000 of 61,000)."""
        pool = near_figures if among is None else among
        shares = any(x.kind == "percent" for x in claim_facts.amounts)
        dates = [d for x in pool for d in scoped_dates(x)]
        figures = [p for x in pool for p in x.facts.quantities]
        return (
            derivable(q, figures, dates, products=shares)
            or derivable(q, [p for x in passage for p in x.facts.quantities], [], products=True)
            or (totals and totalled(q, figures))
            or (averages and averaged(q, figures))
        )

    page_dates = [d for x in sentences for d in scoped_dates(x)]

    def spanned_elsewhere(reason: Reason) -> bool:
        """A span of time ("35 years after Okafor") that two of the page's dates give, though not
        two of the passage's: the claim counts from a date another section gives."""
        span = span_days(reason.said) if reason.kind == "relation" else None
        return span is not None and derivable(fx.Quantity(span[0], span[1], "duration", reason.said, "eq", True, "day"), [], page_dates)

    # (when the claim names the two dates or ordinals its figures are paired by, only the passage's
    # own figures giving its change: "rose by about 120 percent between the first and second
    # seasons" where the passage gives 3,100 and 6,840)
    paired_by_name = len(claim_facts.dates) + len(claim_facts.ordinals) >= 2
    paired_otherwise = any(
        is_change(statement, q)
        and (
            # (a small difference too, of two of the anchor's own figures: "fell by 14", 23 to 9)
            (worked_out(q, passage) or derivable(q, list(sentences[anchor].facts.quantities), [], small=True))
            if paired_by_name
            else any(fx.satisfies(q, p) for x in sentences for p in x.facts.quantities) or worked_out(q)
        )
        for q in claim_facts.amounts
    )
    for reason in related.hard:
        (soft if paired_otherwise or spanned_elsewhere(reason) else hard).append(reason)
    if related.words and words - related.words:  # "rose", "a week later": the figures say it
        coverage = _coverage(words - related.words, zh, [*passage, *around.levels])
    amount_hard, amount_soft = check_amounts(
        claim_facts, sentences[anchor], [*passage, *around.levels], elsewhere, related.explained, sentences, said_where,
        worked_out,
        bool(COMPARES.search(statement)), gathers(statement), statement,
    )  # fmt: skip
    hard += amount_hard
    soft += amount_soft
    date_hard, date_soft = check_dates(
        claim_facts, sentences[anchor], [*passage, *around.levels, sentences[0], *elsewhere], sentences, said_where,
        gathers(statement),
    )  # fmt: skip
    hard += date_hard
    soft += date_soft
    page: list[Sentence] = []  # the page's sentences and headings, read only for a claim of two ordinals
    if len(claim_facts.ordinals) > 1:
        headings = {h: None for s in sentences for h in s.headings}  # each heading once
        page = [*sentences, *heading_sentences("", tuple(headings))]
    ordinal_hard, ordinal_soft = check_ordinals(claim_facts, sentences[anchor], passage, around, page, sentences, gathers(statement))
    hard += ordinal_hard
    soft += ordinal_soft
    # the page's names: words it capitalises inside sentences and never writes in lower case (a
    # table's "Population" column is no name where the page speaks of "the population")
    inner = (frozenset().union(*(s.names - {s.opener} for s in sentences)) - plain) if sentences else frozenset()
    acronyms = frozenset(w.lower() for w in re.findall(r"\b[A-Z]{2,6}\b", statement))
    # Where a reader last met a person's full name: the title, the headings, the page's first
    # sentence, then the sentences of the passage's own section before it.
    # nearest first: the passage's section, then the title, headings and first sentence, then the rest
    # (compared by section number: a sentence is a dataclass, and == on thousands of them is slow)
    section = sentences[anchor].section
    before = sentences[1 : passage_ids[0]]
    section_before = [x for x in sentences[: passage_ids[0]] if x.section == section]
    rest = [x for x in before if x.section != section]
    lead_apart = [sentences[0]] if passage_ids[0] > 0 and sentences[0].section != section else []
    earlier = [*rest, *reversed(around.headings), *lead_apart, *section_before]
    whole_page = _whole_page(sentences, title)
    absent, elsewhere_named = check_names(
        statement, names, passage, around, sentences[0], elsewhere, inner, earlier, source_text, acronyms, sentences[anchor], whole_page
    )
    # a one-fact claim's name that only a sentence joined after the anchor gives is not what the
    # anchor speaks of ("…社员发展至412户，管护油茶林2.6万亩。同乡的岭下油茶合作社成立更早…"): unconfirmed
    after = [sentences[k] for k in passage_ids if k > anchor]
    if after and not gathers(statement):
        before_too = [*(sentences[k] for k in passage_ids if k <= anchor), *around.levels]
        said = {r.said for r in [*absent, *elsewhere_named]}
        elsewhere_named += [
            Reason("name", said=display_name(n)) for n in [*names, *openers]
            if display_name(n) not in said and not any(named_in(n, x) for x in before_too) and any(named_in(n, x) for x in after)
        ]  # fmt: skip
    if zh and gathers(statement):
        # a Chinese summary's "name" the page never gives is as often a word jieba took for a name in
        # reworded text (加盟, 连胜, 何用途) as a name made up: unconfirmed, not †
        never = [r for r in absent if not tx.is_latin(r.said) and not tx.zh_name_found(r.said, source_text)]
        absent = [r for r in absent if r not in never]
        soft += never
    hard += absent
    soft += elsewhere_named
    for reasons in check_names(statement, openers, passage, around, sentences[0], elsewhere, inner, earlier, source_text, anchor=sentences[anchor]):
        soft += reasons
    matching = _matching_clauses(ordinary or words, zh, passage, claim_facts) or sentences[anchor].text
    negated = (
        tx.negation_count(statement, tx.content_tokens(matching), other=matching) % 2
        != tx.negation_count(matching, ordinary or words, other=statement) % 2  # what the claim says of its names
    )
    if negated and gathers(statement) and _negations_hold(statement, zh, sentences):
        negated = False  # a summary's negated clause ("…无人值守") said so where the page says it
    flip = tx.opposite(statement, matching)
    if negated and not flip:
        hard.append(Reason("negation"))
    elif flip and not negated:
        hard.append(Reason("opposite", said=flip[0], found=flip[1]))
    hard += check_roles(statement, sentences[anchor])
    hard += check_compared(statement, sentences[anchor])
    hard += check_acts(statement, sentences[anchor].text)
    speaker_hard, speaker_soft = check_speaker(statement, sentences)
    hard += speaker_hard
    soft += speaker_soft
    # the anchor, then (for a sentence of one fact) the sentences joined to it, where the claim's
    # other words may stand ("…2019年，华夏航空开通经停…" after the anchor's 天骄航空)
    for k in sorted(passage_ids if not gathers(statement) else [anchor], key=lambda k: k != anchor):
        slot_hard, slot_soft = check_slot(statement, sentences[k].text, sentences[k - 1].text if k else "")
        if slot_hard or slot_soft:
            hard += slot_hard
            soft += slot_soft
            break
    page_tokens = frozenset().union(*(x.tokens for x in sentences)) if sentences else frozenset()
    soft += check_actor(statement, [c for x in passage for c in _clauses(x.text)], page_tokens)
    subject = frozenset().union(*(h.tokens for h in around.headings)) if around.headings else frozenset()
    soft += check_cause(statement, [*passage, *around.before], subject)
    hard, soft = list(dict.fromkeys(hard)), list(dict.fromkeys(soft))  # (two rules may see one swap)
    verdict: Verdict
    if hard:
        verdict = "unsupported"
    elif coverage < UNRELATED[code]:
        verdict = "unsupported"
        hard.append(Reason("coverage_low", detail=f"{coverage:.0%}"))
    elif coverage >= SUPPORTED[code] and not soft:
        verdict = "supported"
    else:
        verdict = "weak"
        if coverage < SUPPORTED[code]:
            soft.append(Reason("coverage_partial", detail=f"{coverage:.0%}"))
    text = ("" if zh else " ").join(s.text for s in passage)
    lines = (passage[0].first, passage[-1].last)
    return CitationCheck(
        statement, verdict, text, lines, hard + soft, "lexical", round(min(1.0, coverage), 3), context=around.describe()
    )


def _negations_hold(statement: str, zh: bool, sentences: tuple[Sentence, ...]) -> bool:
    """Whether each clause of a sentence that gathers several facts is negated as the clause of the
    page that says most of what it says (a summary takes each from where the page says it)."""
    page = [(c, frozenset(tx.content_tokens(c))) for s in sentences for c in _clauses(s.text)]
    for clause in _clauses(statement):
        words = tx.content_tokens(clause)
        if len(words) < 2:
            continue
        score, best = max(((sum(word_score(w, zh, c, t) >= 1 for w in words), c) for c, t in page), default=(0, ""))
        if score < 2:
            return False
        tokens = frozenset(tx.content_tokens(best))
        if tx.negation_count(clause, tokens, other=best) % 2 != tx.negation_count(best, words, other=clause) % 2:
            return False
    return True


def _join_neighbours(
    anchor: int, ordinary: set[str], claim_facts: fx.Facts, zh: bool, sentences: tuple[Sentence, ...]
) -> list[int]:
    """The anchor, with the adjacent sentences that bring an ordinary word or a fact of the claim
    it lacks (a fact that the anchor states otherwise is caught as a swap later)."""
    chosen = [anchor]
    have = {w for w in ordinary if word_score(w, zh, sentences[anchor].text, sentences[anchor].tokens) >= 1}
    held = _held(claim_facts, sentences[anchor])
    for step in (-1, 1):
        k = anchor + step
        while 0 <= k < len(sentences) and abs(k - anchor) <= _NEIGHBOURS and sentences[k].section == sentences[anchor].section:
            s = sentences[k]
            new = {w for w in ordinary - have if word_score(w, zh, s.text, s.tokens) >= 1}
            facts = _held(claim_facts, s) - held
            if not new and not facts:
                break
            have |= new
            held |= facts
            chosen.append(k)
            k += step
    return sorted(chosen)


def _held(claim: fx.Facts, sentence: Sentence) -> set[int]:
    """Which of the claim's facts (by position) the sentence states."""
    out = {k for k, q in enumerate(claim.quantities) if any(fx.satisfies(q, p) for p in sentence.facts.quantities)}
    offset = len(claim.quantities)
    return out | {offset + k for k, d in enumerate(claim.dates) if any(fx.date_satisfies(d, p) for p in sentence.facts.dates)}


def _whole_page(sentences: tuple[Sentence, ...], title: str) -> Sentence:
    """The whole page as one sentence, its title and headings with it: where a name the passage does
    not give may still be given (its words only; its facts are the sentences' own)."""
    headings = heading_sentences(title, tuple({h: None for s in sentences for h in s.headings}))
    parts = [*headings, *sentences]
    return Sentence(
        " ".join(p.text for p in parts), 0, 0, frozenset().union(*(p.tokens for p in parts)), fx.Facts((), ()), frozenset(), frozenset(), ()
    )


def _shares(ordinary: set[str], zh: bool, sentence: Sentence) -> bool:
    return any(word_score(w, zh, sentence.text, sentence.tokens) >= 1 for w in ordinary)
