"""The lexical pass: free, offline, always run first; it picks the passage and gives a first verdict.

1. **The passage.** The anchor is the source sentence sharing the most of the claim's words (its
   facts break ties). A neighbouring sentence (up to two away) joins it only when it brings one of
   the claim's ordinary words that the anchor lacks, as when a claim sums up two sentences; a
   neighbour that brings only a number, a date or a name does not join.
2. **Facts where they are said.** Each quantity, date and ordinal of the claim must be stated in the
   passage, at the claim's precision or within its bound (`facts.satisfies`: ``more than 120`` holds
   for 134, ``before May 2021`` for April 2021). A fact found only in a joined neighbour while the
   anchor states another value of the same kind is a swap, not support.
3. **Names** (capitalised words inside the sentence, or a capitalised first word the source never
   uses; jieba's person, place and organisation words in Chinese) must be in the passage, or where a
   reader of the page takes them from (`names.py`: the context, a surname, the kind "it" means).
   Word forms match (Norway/Norwegian).
4. **Polarity.** A negation in the claim and not in the passage's matching clauses (or the other way
   round), or an opposite word (won/lost, rose/fell, 增长/下降, 批准/否决), is a contradiction.
5. **Roles.** Two names in the other order around the same verb (A sued B / B sued A), when neither
   text is passive, are a swap.
6. **Coverage**, the share of the claim's words found in the passage, decides the rest: supported at
   ``SUPPORTED`` or more, unsupported under ``UNRELATED``, weak between. An ordinal the source does
   not state at all makes a claim weak at best.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.claims import clean
from agent_runtime.domain.citecheck.derived import derivable
from agent_runtime.domain.citecheck.names import check_names, claim_names
from agent_runtime.domain.citecheck.page import (
    Context,
    Sentence,
    context,
    heading_sentences,
    scoped_dates,
    scoped_ordinal,
    source_sentences,
)
from agent_runtime.domain.citecheck.relations import RELATIVE_TIME, check_relations, is_change
from agent_runtime.domain.citecheck.roles import check_actor, check_cause, check_roles
from agent_runtime.domain.citecheck.verdict import CitationCheck, Reason, Verdict

SUPPORTED = {"en": 0.6, "zh": 0.6}
UNRELATED = {"en": 0.25, "zh": 0.25}
_NEIGHBOURS = 2
_CLAUSE = re.compile(
    r"[,;:，；：]|\b(?:but|although|though|while|whereas|yet|after|before|when|because|which|until|unless)\b"
    r"|但是|但|而且|然而|不过|之后|以后|因为|由于",
    re.I,
)
def _word_score(word: str, zh: bool, text: str, tokens: frozenset[str]) -> float:
    if tx.is_latin(word) or not zh:
        return 1.0 if word in tokens else 0.0
    return tx.zh_found(word, text)


def _coverage(words: set[str], zh: bool, sentences: list[Sentence]) -> float:
    if not words:
        return 1.0
    text = "".join(s.text for s in sentences)
    tokens = frozenset().union(*(s.tokens for s in sentences)) if sentences else frozenset()
    return sum(_word_score(w, zh, text, tokens) for w in words) / len(words)


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE.split(text) if c and c.strip()]


def _matching_clauses(words: set[str], zh: bool, sentences: list[Sentence], facts: fx.Facts | None = None) -> str:
    """The clauses of the passage that share the most of the claim's ordinary words (a figure of
    the claim counting as a word: "0—14岁人口比重下降…，60岁及以上人口比重上升…" for a claim on 0—14岁)."""
    scored = []
    for sentence in sentences:
        for clause in _clauses(sentence.text):
            tokens = frozenset(tx.content_tokens(clause))
            score = sum(1 for w in words if _word_score(w, zh, clause, tokens) >= 1)
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
                {w for w in words if any(_word_score(w, zh, h.text, h.tokens) >= 1 for h in scope)},
                [d for d in claim_facts.dates if any(fx.date_satisfies(d, p) for h in scope for p in h.facts.dates)],
            )
        heading_words, heading_dates = in_headings[s.headings]
        if not heading_words and not heading_dates:
            return 0.0
        new_words = sum(1 for w in heading_words if _word_score(w, zh, s.text, s.tokens) < 1)
        new_dates = sum(1 for d in heading_dates if not any(fx.date_satisfies(d, p) for p in s.facts.dates))
        return 0.5 * (new_words + new_dates)

    hits = [fact_hits(s) for s in sentences]
    scored = []  # a tie goes to the sentence that states the claim's facts
    for k, s in enumerate(sentences):
        own = sum(_word_score(w, zh, s.text, s.tokens) for w in words)
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
    def said_where(fact: str, stating: list[tuple[Sentence, str]]) -> bool:
        """Whether the page states a fact of the claim where it speaks of what the claim's clause
        around that fact speaks of — half the clause's words at least, two at least, and
        as many as the anchor (which states another value) has — in the words leading to the
        figure (`_lead_to`): a summary gathers its figures from all over a page, each said where
        the page says it; a neighbour's figure for another item (面上项目 2.08万 for a claim about
        青年科学基金项目) is not. The claim's other facts in the same clause must be stated there too
        ("In the 2011 census the town had 3,207 people": 3,207 under the heading "2011 census")."""
        clause, (start, stop) = _clause_of(statement, fact)  # its names too: "the Ohio Senate" is the state senate
        together = [  # (a change, "fell by more than 90 percent", is worked out of figures said apart)
            q for q in claim_facts.quantities if q.text != fact and start <= statement.find(q.text) < stop and not is_change(statement, q)
        ]
        # (two dates of a clause are a span's ends, "between 1968 and 2015": said apart)
        is_date = any(d.text == fact for d in claim_facts.dates)
        dated = [] if is_date else [d for d in claim_facts.dates if start <= statement.find(d.text) < stop]

        def said(text: str) -> int:
            tokens = frozenset(tx.content_tokens(text))
            return sum(_word_score(w, zh, text, tokens) >= 1 for w in clause)

        def with_the_rest(x: Sentence) -> bool:
            return all(any(fx.satisfies(q, p) for p in x.facts.quantities) for q in together) and all(
                any(fx.date_satisfies(d, p) for p in scoped_dates(x)) for d in dated
            )

        need = max(2, said(sentences[anchor].text))
        return len(clause) >= 2 and any(said(_lead_to(x, figure)) >= need and with_the_rest(x) for x, figure in stating)

    near_figures = list(dict.fromkeys([*passage, *window, *elsewhere, *around.levels]))  # what a claim could work figures out of
    related = check_relations(statement, claim_facts, window)
    # a relation read against two figures the claim may not mean: when the page states the claim's
    # change, or two others of its figures give it, the claim is unconfirmed, not contradicted
    def worked_out(q: fx.Quantity, among: list[Sentence] | None = None) -> bool:
        """Whether two figures of the sentences near the claim's (or of `among`) give `q`."""
        pool = near_figures if among is None else among
        shares = any(x.kind == "percent" for x in claim_facts.amounts)
        return derivable(q, [p for x in pool for p in x.facts.quantities], [d for x in pool for d in scoped_dates(x)], products=shares)

    # (not when the claim names the two dates or ordinals its figures are paired by)
    paired_otherwise = len(claim_facts.dates) + len(claim_facts.ordinals) < 2 and any(
        is_change(statement, q) and (any(fx.satisfies(q, p) for x in sentences for p in x.facts.quantities) or worked_out(q))
        for q in claim_facts.amounts
    )
    (soft if paired_otherwise else hard).extend(related.hard)
    if related.words and words - related.words:  # "rose", "a week later": the figures say it
        coverage = _coverage(words - related.words, zh, [*passage, *around.levels])
    amount_hard, amount_soft = _check_amounts(
        claim_facts, sentences[anchor], [*passage, *around.levels], elsewhere, related.explained, sentences, said_where,
        worked_out,
        bool(_COMPARES.search(statement)), _gathers(statement),
    )  # fmt: skip
    hard += amount_hard
    soft += amount_soft
    date_hard, date_soft = _check_dates(
        claim_facts, sentences[anchor], [*passage, *around.levels, sentences[0], *elsewhere], sentences, said_where,
        _gathers(statement),
    )  # fmt: skip
    hard += date_hard
    soft += date_soft
    page: list[Sentence] = []  # the page's sentences and headings, read only for a claim of two ordinals
    if len(claim_facts.ordinals) > 1:
        headings = {h: None for s in sentences for h in s.headings}  # each heading once
        page = [*sentences, *heading_sentences("", tuple(headings))]
    ordinal_hard, ordinal_soft = _check_ordinals(claim_facts, sentences[anchor], passage, around, page, sentences, _gathers(statement))
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
    hard += absent
    soft += elsewhere_named
    for reasons in check_names(statement, openers, passage, around, sentences[0], elsewhere, inner, earlier, source_text, anchor=sentences[anchor]):
        soft += reasons
    matching = _matching_clauses(ordinary or words, zh, passage, claim_facts) or sentences[anchor].text
    negated = (
        tx.negation_count(statement, tx.content_tokens(matching), other=matching) % 2
        != tx.negation_count(matching, ordinary or words, other=statement) % 2  # what the claim says of its names
    )
    flip = tx.opposite(statement, matching)
    if negated and not flip:
        hard.append(Reason("negation"))
    elif flip and not negated:
        hard.append(Reason("opposite", said=flip[0], found=flip[1]))
    hard += check_roles(statement, sentences[anchor])
    page_tokens = frozenset().union(*(x.tokens for x in sentences)) if sentences else frozenset()
    soft += check_actor(statement, [c for x in passage for c in _clauses(x.text)], page_tokens)
    soft += check_cause(statement, [*passage, *around.before])
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


def _join_neighbours(
    anchor: int, ordinary: set[str], claim_facts: fx.Facts, zh: bool, sentences: tuple[Sentence, ...]
) -> list[int]:
    """The anchor, with the adjacent sentences that bring an ordinary word or a fact of the claim
    it lacks (a fact that the anchor states otherwise is caught as a swap later)."""
    chosen = [anchor]
    have = {w for w in ordinary if _word_score(w, zh, sentences[anchor].text, sentences[anchor].tokens) >= 1}
    held = _held(claim_facts, sentences[anchor])
    for step in (-1, 1):
        k = anchor + step
        while 0 <= k < len(sentences) and abs(k - anchor) <= _NEIGHBOURS and sentences[k].section == sentences[anchor].section:
            s = sentences[k]
            new = {w for w in ordinary - have if _word_score(w, zh, s.text, s.tokens) >= 1}
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


def _check_amounts(
    claim: fx.Facts,
    anchor: Sentence,
    passage: list[Sentence],
    elsewhere: list[Sentence],
    explained: frozenset[int],
    page: tuple[Sentence, ...],
    said_where: Callable[[str, list[tuple[Sentence, str]]], bool],
    worked_out: Callable[..., bool],
    compares: bool,
    gathers: bool = False,
) -> tuple[list[Reason], list[Reason]]:
    """Each quantity of the claim in the passage; or, when the anchor states no rival value, in a
    sentence elsewhere that shares the claim's words. A quantity the page states only where
    neither leads, or a small number word (two men) that is missing, makes the claim weak, not
    unsupported: a summary gathers figures from all over a page, and "two" is rarely the fact cited.
    A quantity the page never states is unsupported."""
    hard: list[Reason] = []
    soft: list[Reason] = []
    years = {float(d.y) for d in claim.dates if d.y is not None}
    for k, q in enumerate(claim.amounts):
        if k in explained:  # a change the source's two figures give (up 12%, six days later)
            continue
        holders = [s for s in passage if any(fx.satisfies(q, p) for p in fx.candidates(q, s.facts.quantities))]
        others = [o for o in claim.amounts if o is not q]  # "from 380 to 412": 380 is no rival of 412
        rivals = [
            p for p in fx.candidates(q, anchor.facts.quantities)
            if not fx.satisfies(q, p) and not any(fx.satisfies(o, p) for o in others)
            and p.value not in years  # "a plan adopted in 2019 closes…": the claim's year, read as a count
        ]  # fmt: skip
        if holders and (anchor in holders or not rivals):
            continue
        if not rivals and any(fx.satisfies(q, p) for s in elsewhere for p in s.facts.quantities):
            continue
        restated = [  # a bound only where the page writes the same bound ("more than £1.2 million")
            (s, p.text) for s in page for p in s.facts.quantities
            if fx.satisfies(q, p) and (q.bound in ("eq", "approx") or (p.bound == q.bound and p.value == q.value))
        ]  # fmt: skip
        if said_where(q.text, restated):
            continue  # a summary's figure, stated where the page speaks of what the claim's clause does
        small_word = q.value <= 10 and bool(re.fullmatch(r"[A-Za-z]+", q.text))
        # the passage gives the value, counting something the words call otherwise ("2,300 wild
        # reindeer" for "2,300 animals"): unconfirmed, not contradicted
        small_word = small_word or (
            _counts(q) and bool(q.measure) and any(
                fx.satisfies(_unmeasured(q), _unmeasured(p)) for p in anchor.facts.quantities if _counts(p) and p.measure not in ("", q.measure)
            )
        )  # fmt: skip
        stated = any(fx.satisfies(q, p) for s in page for p in s.facts.quantities)
        share = q.kind == "percent" and q.unit >= 2  # "a third", 六成, 三分之一: a share of a whole, no rate
        if rivals:
            reason = Reason("value", said=q.text, found=", ".join(dict.fromkeys(p.text for p in rivals)))
            # a figure the claim works out ("27.6 km more", "about 30% fewer") that the page never writes
            # (a share of percentage points only out of the passage's own shares: 16.8% against 21.3%)
            small_word = small_word or (stated and gathers) or (
                not stated and (compares or share) and (worked_out(q, passage) if q.kind == "percent" and not share else worked_out(q))
            )
        else:
            reason = Reason("value_absent", said=q.text)
            # stated elsewhere on the page, where the passage's words do not lead, or worked out of
            # two of its figures: unconfirmed, not wrong
            small_word = small_word or stated or worked_out(q)
        (soft if small_word else hard).append(reason)
    return hard, soft


def _check_dates(
    claim: fx.Facts,
    anchor: Sentence,
    passage: list[Sentence],
    page: tuple[Sentence, ...],
    said_where: Callable[[str, list[tuple[Sentence, str]]], bool],
    gathers: bool = False,
) -> tuple[list[Reason], list[Reason]]:
    """Each date of the claim in the passage, its context or the sentences that share its words
    (each read with the date of its section). The anchor's own dates, or else the date of the
    nearest heading above it, are its rivals: a section headed "2021 census" speaks of 2021, not
    of 2019 (a claim's own other date is no rival: "from 2011 to 2021"). A date the page gives only
    elsewhere leaves the claim unconfirmed (weak), as does one the page gives elsewhere while the
    anchor gives another, when the claim `gathers` several facts; one it never gives is unsupported."""
    reasons: list[Reason] = []
    soft: list[Reason] = []
    own = scoped_dates(anchor)
    for d in claim.dates:
        others = [o for o in claim.dates if o is not d]
        holders = [s for s in passage if any(fx.date_satisfies(d, p) for p in scoped_dates(s))]
        rivals = [
            p for p in own
            if not fx.date_satisfies(d, p) and (p.y is not None) == (d.y is not None)
            and not any(fx.date_satisfies(o, p) for o in others)
        ]  # fmt: skip
        if any(fx.date_satisfies(d, p) for p in own) or (holders and not rivals):
            continue
        if d.bound == "eq" and said_where(d.text, [(s, p.text) for s in page for p in scoped_dates(s) if fx.date_satisfies(d, p)]):
            continue
        stated = any(fx.date_satisfies(d, p) for s in page for p in scoped_dates(s)) or _told_relatively(d, page)
        if rivals and not (stated and gathers):
            reasons.append(Reason("value", said=d.text, found=", ".join(dict.fromkeys(p.text for p in rivals))))
        elif stated:
            soft.append(Reason("value_absent", said=d.text))
        else:
            reasons.append(Reason("value_absent", said=d.text))
    return reasons, soft


def _told_relatively(d: fx.Date, page: tuple[Sentence, ...]) -> bool:
    """Whether the page gives a year only from another ("…in 1974. Mercer published his
    observations the following year", "次年即加印"): a relative date within a year of `d`, with
    the year it counts from in its sentence or the one before."""
    if d.y is None or d.m is not None:
        return False
    for k, s in enumerate(page):
        if RELATIVE_TIME.search(s.text):
            years = [p.y for x in page[max(0, k - 1) : k + 1] for p in x.facts.dates if p.y is not None]
            if any(abs(y - d.y) <= 1 for y in years):
                return True
    return False


def _check_ordinals(
    claim: fx.Facts,
    anchor: Sentence,
    passage: list[Sentence],
    around: Context,
    page: list[Sentence],
    everywhere: tuple[Sentence, ...] = (),
    gathers: bool = False,
) -> tuple[list[Reason], list[Reason]]:
    """Each ordinal of the claim in the passage or the headings above it ("## 第七次人口普查");
    another ordinal there is a contradiction (unless the claim `gathers` facts and the page gives
    its ordinal `everywhere` else), none at all leaves the claim weak."""
    hard, soft = [], []
    stated = [p for s in passage for p in s.facts.ordinals]
    scoped = [p for h in around.headings for p in h.facts.ordinals]
    met = [q for q in claim.ordinals if any(p.value == q.value for p in (*stated, *scoped))]
    for q in claim.ordinals:
        if q in met:
            continue
        # "与第六次普查相比…第七次普查时": one ordinal is the passage's, the other another section's
        if met and any(q.value == p.value for s in page for p in s.facts.ordinals):
            continue
        reason = Reason("ordinal", said=q.text, found=", ".join(dict.fromkeys(p.text for p in stated)))
        if stated and not (gathers and any(q.value == p.value for s in everywhere for p in s.facts.ordinals)):
            hard.append(reason)
        elif stated:  # a summary's "第12届", said where the page names the event, not in this passage
            soft.append(reason)
        else:
            soft.append(Reason("ordinal_absent", said=q.text))
    return hard, soft


def _whole_page(sentences: tuple[Sentence, ...], title: str) -> Sentence:
    """The whole page as one sentence, its title and headings with it: where a name the passage does
    not give may still be given (its words only; its facts are the sentences' own)."""
    headings = heading_sentences(title, tuple({h: None for s in sentences for h in s.headings}))
    parts = [*headings, *sentences]
    return Sentence(
        " ".join(p.text for p in parts), 0, 0, frozenset().union(*(p.tokens for p in parts)), fx.Facts((), ()), frozenset(), frozenset(), ()
    )


# Words of a claim that works a figure out of two: a difference, a change, a multiple, a span.
_COMPARES = re.compile(
    r"\b(?:more|fewer|less|than|times|up|down|rose|risen|fell|fallen|grew|grown|increased?|decreased?|dropped|higher|lower|"
    r"longer|shorter|later|earlier|gap|difference|combined|total|together|since|for)\b|多|少|增|减|降|升|倍|比|差|共|合计|总",
    re.I,
)
_FACT_CLAUSE = re.compile(r"[,;:，；：、]|\s(?:and|while|whereas|but|as|after|before|with|which)\s|并且|而且|同时|其中", re.I)


def _counts(q: fx.Quantity) -> bool:
    """Whether a quantity counts things named by a word (not a unit, a currency or a share)."""
    return q.kind == "number" and q.measure not in fx.UNIT_MEASURES | fx.CURRENCIES


def _unmeasured(q: fx.Quantity) -> fx.Quantity:
    return dataclasses.replace(q, measure="") if _counts(q) else q


def _gathers(statement: str) -> bool:
    """Whether a sentence gathers several facts in clauses of their own (a summary: "X, founded in
    1998, employs 400 people", "…，并…"), so that its anchor is one of several places it rests on."""
    parts = [p for p in _FACT_CLAUSE.split(statement) if p and len(tx.content_tokens(p)) >= 2]
    return len(parts) >= 2


def _clause_of(statement: str, fact: str) -> tuple[set[str], tuple[int, int]]:
    """The words of the clause of `statement` in which `fact` (its text) is said, with the clauses
    before it while it has fewer than two words ("re-elected in 1987 and 1991": 1991 is re-elected
    too; "After settling in Mobile, Alabama, in 1946"); and where the clause itself is."""
    at = statement.find(fact)
    if at < 0:
        return set(), (0, 0)
    marks = [m.end() for m in _FACT_CLAUSE.finditer(statement, 0, at)]
    stop = next((m.start() for m in _FACT_CLAUSE.finditer(statement, at + len(fact))), len(statement))
    words: set[str] = set()
    for start in [*reversed(marks), 0]:
        words = {w for w in tx.content_tokens(statement[start:stop]) if not w[0].isdigit()}
        if len(words) >= 2:
            break
    return words, ((marks or [0])[-1], stop)  # the words, and the clause's own place


def _lead_to(sentence: Sentence, figure: str) -> str:
    """The words of a sentence that speak of one of its figures: those of its clause before it,
    from the figure before it on, with the clause's opening (its subject: "Revenue grew from €142
    million to €318 million"), and a little past it; the whole sentence and its headings when the
    figure is a heading's. ("At its peak 61,000 homes were without power; about 9,000 were still
    without electricity": 9,000 is not said of the peak.)"""
    text = sentence.text
    at = text.find(figure)
    headings = " ".join(sentence.headings)  # the section's subject ("### 青铜器": 此类藏品约2,400件)
    if at < 0:
        return f"{text} {headings}"
    if len(sentence.tokens) <= 8 and (re.search(r"[:：]", text) or not re.search(r"[;；、]|[\u4e00-\u9fff]", text)):
        return f"{text} {headings}"  # a list item, a label and its value ("Libraries, leisure and culture: £14m"): all of it
    # the clause the figure is in, with those before it while it has fewer than three words
    # ("The couple settled in Mobile, Alabama, in 1946")
    # ("The couple settled in Mobile, Alabama, in 1946"), never across a semicolon ("At its peak
    # 61,000 homes were without power; about 9,000 were still without electricity")
    marks = [m for m in _CLAUSE_MARK.finditer(text, 0, at)]
    clause = marks.pop().end() if marks else 0
    while marks and marks[-1].group(0) not in ";；" and len(tx.content_tokens(re.sub(r"\d[\d,.]*", " ", text[clause:at]))) < 3:
        clause = marks.pop().end()
    if clause and not marks and text[clause - 1] not in ";；" and len(tx.content_tokens(re.sub(r"\d[\d,.]*", " ", text[clause:at]))) < 3:
        clause = 0
    previous = max((m.end() for m in fx.NUMBER_RE.finditer(text, clause, at)), default=clause)
    zh = tx.is_chinese(text)
    opening = text[clause : clause + 12] if zh else " ".join(text[clause:].split()[:6])
    return f"{opening} {text[previous : at + len(figure) + (6 if zh else 20)]} {headings}"


_CLAUSE_MARK = re.compile(r"[,;:，；：、]")


def _shares(ordinary: set[str], zh: bool, sentence: Sentence) -> bool:
    return any(_word_score(w, zh, sentence.text, sentence.tokens) >= 1 for w in ordinary)
