"""Where the page states a claim's figures: each quantity, date and ordinal of a claim is looked
for in the passage, then where the page states it, read in the words that lead to it there
(`lead_to`); a figure the page gives only elsewhere, or one two of its figures give
(`derived.py`), leaves a claim unconfirmed, while one it never gives, or another where the claim's
clause is, contradicts it. The lexical pass (lexical.py) asks `check_amounts`, `check_dates` and
`check_ordinals`, each giving (contradictions, what is only unconfirmed)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.derived import derivable, multiplied
from agent_runtime.domain.citecheck.page import Context, Sentence, scoped_dates
from agent_runtime.domain.citecheck.relations import RELATIVE_TIME, YEAR_DAYS, is_change, span_days
from agent_runtime.domain.citecheck.verdict import Reason


def word_score(word: str, zh: bool, text: str, tokens: frozenset[str]) -> float:
    if tx.is_latin(word) or not zh:
        return 1.0 if word in tokens else 0.0
    return tx.zh_found(word, text)


def where_said(statement: str, claim_facts: fx.Facts, zh: bool, anchor: Sentence) -> Callable[[str, list[tuple[Sentence, str]]], bool]:
    """`said_where(fact, stating)` for one claim, whose passage's `anchor` is the sentence it was
    found closest to."""

    def said_where(fact: str, stating: list[tuple[Sentence, str]]) -> bool:
        """Whether one of the page's sentences `stating` a fact of the claim (with the figure as the
        page writes it) speaks of what the claim's clause around that fact speaks of: two of the
        clause's words at least, and as many as the anchor gives, in the words leading to the figure
        (`lead_to`). A summary gathers its figures from all over a page, each said where the page
        says it; a neighbour's figure for another item (面上项目 2.08万 for a claim about 青年科学基金项目)
        is not. The claim's other facts in the same clause must be stated there too ("In the 2011
        census the town had 3,207 people": 3,207 under the heading "2011 census")."""
        clause, (start, stop) = clause_of(statement, fact)  # its names too: "the Ohio Senate" is the state senate
        together = [  # (a change, "fell by more than 90 percent", is worked out of figures said apart)
            q for q in claim_facts.quantities if q.text != fact and start <= statement.find(q.text) < stop and not is_change(statement, q)
        ]
        # (two dates of a clause are a span's ends, "between 1968 and 2015": said apart)
        is_date = any(d.text == fact for d in claim_facts.dates)
        dated = [] if is_date else [d for d in claim_facts.dates if start <= statement.find(d.text) < stop]

        def said(text: str) -> int:
            tokens = frozenset(tx.content_tokens(text))
            return sum(word_score(w, zh, text, tokens) >= 1 for w in clause)

        def with_the_rest(x: Sentence) -> bool:
            return all(any(fx.satisfies(q, p) for p in x.facts.quantities) for q in together) and all(
                any(fx.date_satisfies(d, p) for p in scoped_dates(x)) for d in dated
            )

        need = max(2, said(anchor.text))
        if together and len(clause) >= 2:  # two figures of the clause stated together: one word to share will do
            return any(with_the_rest(x) and said(x.text) >= 1 for x, _ in stating)
        return len(clause) >= 2 and any(said(lead_to(x, figure)) >= need and with_the_rest(x) for x, figure in stating)

    return said_where


def check_amounts(
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
    statement: str = "",
) -> tuple[list[Reason], list[Reason]]:
    """Each quantity of the claim (`statement`) in the passage; or, when the anchor states no rival value, in a
    sentence elsewhere that shares the claim's words. A quantity the page states only where
    neither leads, or a small number word (two men) that is missing, makes the claim weak, not
    unsupported: a summary gathers figures from all over a page, and "two" is rarely the fact cited.
    A quantity the page never states is unsupported."""
    hard: list[Reason] = []
    soft: list[Reason] = []
    years = {float(d.y) for d in claim.dates if d.y is not None}
    shares = any(q.kind == "percent" for q in claim.amounts)  # a claim that works with a share: 扣除80%的补贴后
    for k, q in enumerate(claim.amounts):
        if k in explained:  # a change the source's two figures give (up 12%, six days later)
            continue
        own = [o for o in claim.amounts if o is not q and any(fx.satisfies(o, p) for s in page for p in s.facts.quantities)]
        if len(own) >= 2 and derivable(q, own, [], small=True):
            continue  # the claim's own arithmetic on figures the page gives ("by 4, from 26 to 22")
        holders = [s for s in passage if any(fx.satisfies(q, p) for p in fx.candidates(q, s.facts.quantities))]
        others = [o for o in claim.amounts if o is not q]  # "from 380 to 412": 380 is no rival of 412
        rivals = [
            p for p in fx.candidates(q, anchor.facts.quantities)
            if not fx.satisfies(q, p) and not any(fx.satisfies(o, p) for o in others)
            and p.value not in years  # "a plan adopted in 2019 closes…": the claim's year, read as a count
        ]  # fmt: skip
        stated = any(fx.satisfies(q, p) for s in page for p in s.facts.quantities)
        if rivals and stated:  # a rival said of nothing the claim's clause speaks of ("payment above £5,000"
            # for "the more than £1.2 million Pryce diverted"), while the page gives the value elsewhere
            clause = clause_of(statement, q.text)[0] if statement else set()
            rivals = [p for p in rivals if not clause or clause & tx.content_tokens(lead_to(anchor, p.text))]
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
        small_word = q.value <= 10 and bool(  # two men; 三个奖项 (a count, not 三倍 or 五天)
            re.fullmatch(r"[A-Za-z]+", q.text)
            or (re.fullmatch(r"[一二两三四五六七八九十]", q.text) and fx.counts_things(q) and q.measure not in ("倍", "time"))
        )
        # the passage gives the value, counting something the words call otherwise ("2,300 wild
        # reindeer" for "2,300 animals"): unconfirmed, not contradicted
        small_word = small_word or (bool(q.measure) and _counted_otherwise(q, [anchor], named=True))

        share = q.kind == "percent" and q.unit >= 2  # "a third", 六成, 三分之一: a share of a whole, no rate
        # a count of the claim's times an amount ("four ships … about USD 150 million in total": 38 million each)
        each = compares and multiplied(q, [o for o in claim.amounts if o is not q and fx.counts_things(o)], [*rivals, *others])
        if rivals:
            reason = Reason("value", said=q.text, found=", ".join(dict.fromkeys(p.text for p in rivals)))
            # a figure the claim works out ("27.6 km more", "about 30% fewer") that the page never writes
            # (a share of percentage points only out of the passage's own shares: 16.8% against 21.3%)
            # (a figure given as about so much, 约23万辆, that two of the passage's own give: a report's estimate)
            # (or the claim's own figure and a rival: 147 transfers, 21 at night: 126 not at night)
            own_and_rival = bool(own) and derivable(q, [*own, *rivals], [], small=True)
            # (or a share of a rival the passage gives: 480元 at 半价, 240元 for local residents)
            shares_of = [p for x in passage for p in x.facts.quantities if p.kind == "percent" and 0 < p.value < 100]
            share_of_rival = q.kind == "number" and q.bound in ("eq", "approx", "nearly") and any(
                fx.satisfies(q, dataclasses.replace(r, value=r.value * p.value / 100)) for r in rivals for p in shares_of
            )
            small_word = small_word or (stated and gathers) or each or own_and_rival or share_of_rival or (
                bool(_DIFFERENCE.search(statement)) and derivable(q, rivals, [], small=True)  # 缩短了15个工作日: from 21 to 6
            ) or (
                not stated and (
                    ((compares or share or shares) and (worked_out(q, passage) if q.kind == "percent" and not share else worked_out(q)))
                    or (q.bound in ("approx", "nearly") and worked_out(q, passage))
                )
            )  # fmt: skip
        else:
            reason = Reason("value_absent", said=q.text)
            # stated elsewhere on the page, where the passage's words do not lead, or worked out of
            # two of its figures: unconfirmed, not wrong
            small_word = small_word or stated or each or worked_out(q) or _counted_otherwise(q, page)
        (soft if small_word else hard).append(reason)
    return hard, soft


def check_dates(
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
    observations the following year", "graduating in 1946, and emigrated two years later", "次年"):
    a relative date that lands on `d`'s year (within one, where it says no number), counted from a
    year in its sentence or the one before."""
    if d.y is None or d.m is not None:
        return False
    for k, s in enumerate(page):
        span = span_days(s.text)
        counted = span is not None and span[1] == YEAR_DAYS  # "two years later", 两年后
        if counted or RELATIVE_TIME.search(s.text):
            years = [p.y for x in page[max(0, k - 1) : k + 1] for p in x.facts.dates if p.y is not None]
            if span is not None and counted:
                if any(y + round(span[0] / YEAR_DAYS) == d.y for y in years):
                    return True
            elif any(abs(y - d.y) <= 1 for y in years):
                return True
    return False


def check_ordinals(
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



# Words of a claim that gives the difference of two figures (a change, a gap, one above another).
_DIFFERENCE_EN = (
    r"more|fewer|less|than|up|down|rose|risen|fell|fallen|grew|grown|increased?|decreased?|dropped|higher|lower|"
    r"longer|shorter|later|earlier|gap|difference|exceed(?:s|ed|ing)?|above|below|add(?:s|ed|ing)?|cut|shrank"
)
_DIFFERENCE_ZH = "多|少|增|减|降|升|比|差|高出|超出|缩短|延长|提高|提升|压缩|节省"
_DIFFERENCE = re.compile(rf"\b(?:{_DIFFERENCE_EN}|saved?)\b|{_DIFFERENCE_ZH}", re.I)
# Words of a claim that works a figure out of others: a difference, and also a multiple, a total, a
# share, a rate, a span (not only a difference: 共, each, per).
COMPARES = re.compile(
    rf"\b(?:{_DIFFERENCE_EN}|times|combined|total|together|since|for|extra|deeper|wider|taller|bigger|smaller|larger|"
    r"greater|cheaper|doubled|tripled|halved|shrunk|saving|saved|altogether|apiece|each|per|accounted|share|proportion|average|"
    rf"mean|discount)\b|{_DIFFERENCE_ZH}|倍|共|合计|累计|总|占|各|每|加|扩大|节约|平均|人均|优惠|折",
    re.I,
)
_FACT_CLAUSE = re.compile(r"[,;:，；：、]|\s(?:and|while|whereas|but|as|after|before|with|which)\s|并且|而且|同时|其中", re.I)


def _counted_otherwise(q: fx.Quantity, sentences: Iterable[Sentence], named: bool = False) -> bool:
    """Whether the sentences give the value of a count, counting what they may call by another word
    (11 patients: "11 cases"); with `named`, only a count they do name by another word."""
    return fx.counts_things(q) and any(
        fx.satisfies(_unmeasured(q), _unmeasured(p))
        for s in sentences
        for p in s.facts.quantities
        if fx.counts_things(p) and not (named and p.measure in ("", q.measure))
    )


def _unmeasured(q: fx.Quantity) -> fx.Quantity:
    return dataclasses.replace(q, measure="") if fx.counts_things(q) else q


def gathers(statement: str) -> bool:
    """Whether a sentence gathers several facts in clauses of their own (a summary: "X, founded in
    1998, employs 400 people", "…，并…"), so that its anchor is one of several places it rests on."""
    parts = [p for p in _FACT_CLAUSE.split(statement) if p and len(tx.content_tokens(p)) >= 2]
    return len(parts) >= 2


def clause_of(statement: str, fact: str) -> tuple[set[str], tuple[int, int]]:
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


def lead_to(sentence: Sentence, figure: str) -> str:
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

