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
   uses; jieba's person, place and organisation words in Chinese) must be in the passage, or in the
   source's first sentence when the passage names no one else. Word forms match (Norway/Norwegian).
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
from functools import lru_cache

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.claims import clean
from agent_runtime.domain.citecheck.page import (
    HONORIFICS,
    Context,
    Sentence,
    context,
    heading_sentences,
    make_sentence,
    scoped_dates,
    scoped_ordinal,
    source_sentences,
)
from agent_runtime.domain.citecheck.relations import check_relations
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
_REFERS = re.compile(
    r"\b(?:it|its|they|their|he|she|his|her|the (?:company|firm|group|bank|agency|ministry|government|city|"
    r"country|team|club|council|court|party|organisation|organization|university|institute|fund|board|"
    r"carmaker|airline|insurer|lender|retailer|regulator|utility|operator|developer|manufacturer))\b"
    r"|该|其|公司|他|她|该行|集团|本场|本次|此次|这场|这次|本届|此前",
    re.I,
)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_KIN = re.compile(
    r"^\W*(?:[A-Z][a-z]+\s+)?(?:his|her|their)\s+(?:father|mother|brother|sister|wife|husband|son|daughter|uncle|aunt|"
    r"grandfather|grandmother|cousin|parents|partner|widow|widower|nephew|niece)\b"
    r"|^\W*(?:其|他的|她的)(?:父亲|母亲|哥哥|姐姐|弟弟|妹妹|妻子|丈夫|儿子|女儿|父|母|妻|夫)",
    re.I,
)
_DESCRIPTION = re.compile(r"^\W*(?:the|this|that|these)\s+[a-z][a-z-]+\b")  # "The chip is built…": the one named before
_CAPITAL = re.compile(r"[A-Z][A-Za-z'’&.-]*[A-Za-z]|[A-Z]")


def _names(claim: str, source_plain: frozenset[str], source_names: frozenset[str]) -> tuple[list[str], list[str]]:
    """The claim's names: English capitalised words that are not its first word, Latin words in
    Chinese, jieba's names; and apart, its capitalised first words the source never writes in lower
    case (a name the source uses, or one it never mentions: "Lyon hosted…"; but maybe an ordinary
    opener, so a missing one only makes the claim weak). A label before a colon is no name."""
    out: list[str] = []
    openers: list[str] = []
    label = re.match(r"\W*[A-Z][^:.!?]{0,40}:\s", claim)
    for m in _CAPITAL.finditer(claim):
        if label and m.start() < label.end():
            continue
        word = re.sub(r"['’]s?$", "", m.group(0)).rstrip(".")
        low = word.lower()
        if len(word) < 2 or low in tx.STOP or low in tx.OPENERS or low in fx._MONTHS or low in fx._WORDS:
            continue
        before = claim[: m.start()].rstrip()
        first = not before or before[-1] in '.!?:;"“(。！？；：' or bool(re.search(r"(^|\s)[-*•]$", before))
        mixed = any(c.isupper() or c.isdigit() for c in word[1:])
        ordinary = tx.stem(low) in source_plain or low.endswith(("ly", "ing", "ed", "ers", "ors", "ists", "ment", "tion", "ness"))
        if first and not mixed and ordinary:  # an opener the source writes in lower case, or plainly no name
            continue
        possessive = bool(re.match(r"['’]s\b", claim[m.start() + len(word) :]))
        if first and not mixed and not possessive and tx.stem(low) not in source_names:
            if low not in openers:
                openers.append(low)
            continue
        if low not in out:
            out.append(low)
    if tx.is_chinese(claim):
        zh_label = re.match(r"\W*[^：:。，]{1,12}[：:]", claim)
        body = claim[zh_label.end() :] if zh_label else claim
        out += [name for name in tx.zh_names(body) if name not in out]
    return out, openers


def _name_found(name: str, sentence_tokens: frozenset[str], text: str) -> bool:
    low = text.lower()
    for key in (name, tx.stem(name) if name.isascii() else name):
        if any(spelled in low for spelled in tx.ACRONYMS.get(key, ())):
            return True
    for acronym, spelled_out in tx.ACRONYMS.items():  # "United States" for a source's "US"
        if any(name in words.split() for words in spelled_out) and re.search(rf"\b{acronym}\b|\b{'.'.join(acronym)}\.", low):
            return True
    if name.isascii():
        parts = [p for p in re.split(r"[.&-]", name) if p]
        if all(tx.stem(p) in sentence_tokens or p in text.lower() for p in parts):
            return True
        if _demonym_of(name.lower(), low):
            return True
        initials = "".join(w[0].lower() for w in re.findall(r"\b[A-Z][a-z]+", text))
        return 3 <= len(name) <= 6 and name in initials  # IMF for the International Monetary Fund
    return tx.zh_name_found(name, text)


def _demonym_of(name: str, text: str) -> bool:
    """Whether a name is the adjective of a place the text names: Andalusian (Andalusia), Kenyan,
    Brazilian, Italian (Italy)."""
    for place in set(re.findall(r"\b[a-z]{4,}\b", text)):
        root = place[:-1] + "i" if place.endswith("y") else place
        if name.startswith(root) and name[len(root) :] in ("n", "an", "ian", "ese", "ish"):
            return True
    return False


def _word_score(word: str, zh: bool, text: str, tokens: frozenset[str]) -> float:
    if word.isascii() or not zh:
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


def _matching_clauses(words: set[str], zh: bool, sentences: list[Sentence]) -> str:
    """The clauses of the passage that share the most of the claim's ordinary words."""
    scored = []
    for sentence in sentences:
        for clause in _clauses(sentence.text):
            tokens = frozenset(tx.content_tokens(clause))
            scored.append((sum(1 for w in words if _word_score(w, zh, clause, tokens) >= 1), clause))
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
    if whole.verdict != "unsupported" or not all(r.kind in _UNREACHED for r in whole.reasons):
        return whole
    parts = _claim_parts(clean(claim))
    if len(parts) < 2:
        return whole
    checks = [_check_whole(part, source_text, title) for part in parts]
    if any(c.verdict == "unsupported" for c in checks):
        return whole
    verdict: Verdict = "supported" if all(c.verdict == "supported" for c in checks) else "weak"
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
_UNREACHED = frozenset({"name", "coverage_low", "coverage_partial", "no_passage"})
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
    names, openers = _names(statement, plain, named)
    words = tx.content_tokens(statement)
    claim_facts = fx.extract(statement, strict=True)
    ordinary = {w for w in words if w not in {tx.stem(n) for n in names if n.isascii()} and w not in names}

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
    related = check_relations(statement, claim_facts, window)
    hard += related.hard
    if related.words and words - related.words:  # "rose", "a week later": the figures say it
        coverage = _coverage(words - related.words, zh, [*passage, *around.levels])
    amount_hard, amount_soft = _check_amounts(
        claim_facts, sentences[anchor], [*passage, *around.levels], elsewhere, related.explained
    )
    hard += amount_hard
    soft += amount_soft
    hard += _check_dates(claim_facts, sentences[anchor], [*passage, *around.levels, sentences[0], *elsewhere], around)
    page: list[Sentence] = []  # the page's sentences and headings, read only for a claim of two ordinals
    if len(claim_facts.ordinals) > 1:
        headings = {h: None for s in sentences for h in s.headings}  # each heading once
        page = [*sentences, *heading_sentences("", tuple(headings))]
    ordinal_hard, ordinal_soft = _check_ordinals(claim_facts, sentences[anchor], passage, around, page)
    hard += ordinal_hard
    soft += ordinal_soft
    inner = frozenset().union(*(s.names - {s.opener} for s in sentences)) if sentences else frozenset()
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
    hard += _check_names(statement, names, passage, around, sentences[0], elsewhere, inner, earlier, source_text, acronyms, sentences[anchor])
    soft += _check_names(statement, openers, passage, around, sentences[0], elsewhere, inner, earlier, source_text, anchor=sentences[anchor])
    matching = _matching_clauses(ordinary or words, zh, passage) or sentences[anchor].text
    negated = (
        tx.negation_count(statement, tx.content_tokens(matching)) % 2
        != tx.negation_count(matching, words) % 2
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
    claim: fx.Facts, anchor: Sentence, passage: list[Sentence], elsewhere: list[Sentence], explained: frozenset[int]
) -> tuple[list[Reason], list[Reason]]:
    """Each quantity of the claim in the passage; or, when the anchor states no rival value, in a
    sentence elsewhere that shares the claim's words. A small number word (two men) that is missing
    makes the claim weak, not unsupported: it is rarely the fact cited."""
    hard: list[Reason] = []
    soft: list[Reason] = []
    for k, q in enumerate(claim.amounts):
        if k in explained:  # a change the source's two figures give (up 12%, six days later)
            continue
        holders = [s for s in passage if any(fx.satisfies(q, p) for p in fx.candidates(q, s.facts.quantities))]
        others = [o for o in claim.amounts if o is not q]  # "from 380 to 412": 380 is no rival of 412
        rivals = [
            p for p in fx.candidates(q, anchor.facts.quantities)
            if not fx.satisfies(q, p) and not any(fx.satisfies(o, p) for o in others)
        ]  # fmt: skip
        if holders and (anchor in holders or not rivals):
            continue
        if not rivals and any(fx.satisfies(q, p) for s in elsewhere for p in s.facts.quantities):
            continue
        small_word = q.value <= 10 and bool(re.fullmatch(r"[A-Za-z]+", q.text))
        if rivals:
            reason = Reason("value", said=q.text, found=", ".join(dict.fromkeys(p.text for p in rivals)))
        else:
            reason = Reason("value_absent", said=q.text)
        (soft if small_word else hard).append(reason)
    return hard, soft


def _check_dates(claim: fx.Facts, anchor: Sentence, passage: list[Sentence], around: Context) -> list[Reason]:
    """Each date of the claim in the passage, its context or the sentences that share its words
    (each read with the date of its section). The anchor's own dates, or else the date of the
    nearest heading above it, are its rivals: a section headed "2021 census" speaks of 2021, not
    of 2019 (a claim's own other date is no rival: "from 2011 to 2021")."""
    reasons = []
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
        if rivals:
            reasons.append(Reason("value", said=d.text, found=", ".join(dict.fromkeys(p.text for p in rivals))))
        else:
            reasons.append(Reason("value_absent", said=d.text))
    return reasons


def _check_ordinals(
    claim: fx.Facts, anchor: Sentence, passage: list[Sentence], around: Context, page: list[Sentence]
) -> tuple[list[Reason], list[Reason]]:
    """Each ordinal of the claim in the passage or the headings above it ("## 第七次人口普查");
    another ordinal there is a contradiction, none at all leaves the claim weak."""
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
        if stated:
            hard.append(Reason("ordinal", said=q.text, found=", ".join(dict.fromkeys(p.text for p in stated))))
        else:
            soft.append(Reason("ordinal_absent", said=q.text))
    return hard, soft


def _shares(ordinary: set[str], zh: bool, sentence: Sentence) -> bool:
    return any(_word_score(w, zh, sentence.text, sentence.tokens) >= 1 for w in ordinary)


def _check_names(
    claim: str,
    names: list[str],
    passage: list[Sentence],
    around: Context,
    lead: Sentence,
    elsewhere: list[Sentence],
    page_names: frozenset[str],
    earlier: list[Sentence],
    page_text: str,
    acronyms: frozenset[str] = frozenset(),
    anchor: Sentence | None = None,
) -> list[Reason]:
    """Each name of the claim in the passage, or where a reader of the page takes it from:
    - the passage's context (the sentences before it, the headings above it, the title), nearest
      first, when the passage says "she", "it", "the company", names no one else, or names the same
      person shorter (Curie, Dr. Curie, 张教授 for 张三); a section heading naming someone else stops
      the search (a section about Pierre Curie does not speak of Marie; the page's own title or
      first heading never does);
    - the page's first sentence, which names its subject;
    - the full name the page last gave before the passage, when the passage calls that person by
      surname or title alone ("Ellery", "Ms Lind", "张教授"; `earlier`: the title, headings and
      sentences before the passage, in the page's order);
    - a sentence elsewhere sharing the claim's words, when the passage names no one else and the
      missing name is not the other half of a name the passage gives (Curie there: Pierre is not).
    """
    text = " ".join(s.text for s in passage)
    tokens = frozenset().union(*(s.tokens for s in passage))
    missing = [n for n in names if not _name_found(n, tokens, text)]
    if not missing:
        return []
    claim_words = tx.content_tokens(claim)  # "First" of "First World War" is no rival
    rivals = _own_names(passage, names) - claim_words
    # A person the passage calls by surname or title ("Ellery", "王教授") is whom the page last
    # named so in full, and no one else: neither context nor another sentence lends the name.
    shortened = [n for n in missing if _called_short(n, claim, text)]
    missing = [n for n in missing if n not in shortened]
    blocked = False  # the nearest heading names someone else: the passage speaks of them
    # whom the passage speaks of is read in the sentence that states the claim (the anchor), not in
    # a neighbour joined for a word ("…by TSMC. Quillon said laptops…": Quillon is no rival)
    own = [anchor] if anchor is not None else passage
    if missing and _refers_to_context(" ".join(s.text for s in own), _subjects(own, names, page_text) - claim_words):
        stems = {tx.stem(n) if n.isascii() else n for n in names}
        for level in around.levels:
            heading = level in around.headings
            # the sentence right before "it": the thing of the claim's kind it names is whom "it" means
            # ("…stood the smaller Greyrigg Viaduct. It was demolished": not the Pellham Viaduct)
            referent = _named_of_its_kind(level.text, claim, missing) if level is around.levels[0] and not heading else None
            if referent is False:
                blocked = True
                break
            if referent:
                missing = []
                break
            # Chinese leaves the subject out and carries on with what the sentence before named, anywhere
            # in it (…名为舍利塔，高31米。1976年地震中，塔刹震落…)
            # — a thing or a place; a person is named where the subject is
            nearest_zh = level is around.levels[0] and tx.is_chinese(level.text)
            where = level if heading else _subject_part(level)
            people = tx.zh_people(claim) if nearest_zh else ()
            missing = [
                n for n in missing
                if not _name_found(n, where.tokens, where.text)
                and not (nearest_zh and n not in people and _name_found(n, level.tokens, level.text))
            ]  # fmt: skip
            if not missing:
                break
            if heading and level is not around.headings[-1] and _heading_names(level, page_names) - stems:
                blocked = True
                break
        if missing and not blocked and lead not in passage:
            missing = [n for n in missing if not _name_found(n, lead.tokens, lead.text)]
    if missing and not blocked and around.headings:  # the page's own topic, named where the claim is not about its actor
        topic = [around.headings[-1], lead]  # "…in the 2020 Norrvik municipal election" on the page of that election
        opening = _claim_opening(claim)
        missing = [n for n in missing if _name_found(n, opening.tokens, opening.text) or not any(_name_found(n, t.tokens, t.text) for t in topic)]
    if missing and not rivals and not blocked:  # no rival name in the passage: one said elsewhere
        missing = [n for n in missing if not any(_name_found(n, s.tokens, s.text) for s in elsewhere)]
    missing += [n for n in shortened if not _named_earlier(n, claim, text, earlier)]
    # An acronym (LFP, IMF) the source uses elsewhere: the passage spells it out, or calls it "it".
    missing = [n for n in missing if not (n in acronyms and any(_name_found(n, s.tokens, s.text) for s in elsewhere))]
    return [Reason("name", said=n if not n.isascii() else _display(n)) for n in missing]


def _named_of_its_kind(text: str, claim: str, missing: list[str]) -> bool | None:
    """Whom "it" after this sentence means, when the sentence names a thing of the kind the claim
    names (a name with the same last word as the claim's missing one), not after "with", "by",
    "and"…: True when it is the claim's (the Helm Viaduct), False when another (the Greyrigg
    Viaduct, for a claim about the Pellham Viaduct), None when the sentence names none."""
    wanted = {tx.stem(n) for n in missing if n.isascii()}
    kinds = {run[-1]: set(run) for run, _ in _capitalised_runs(claim) if set(run) & wanted}
    found = [run for run, before in _capitalised_runs(text) if run[-1] in kinds and not _OBJECT_CUE.search(before)]
    if not found:
        return None
    return all(set(run) <= kinds[run[-1]] for run in found)


_OBJECT_CUE = re.compile(r"\b(?:with|by|and|or|to|from|for|against|than|of|like|as)\s+(?:the\s+)?$", re.I)


def _capitalised_runs(text: str) -> list[tuple[list[str], str]]:
    """The names of two words or more a text writes with capitals (as stems), without an article
    or other small word before them ("The Harlow Street Bridge" is Harlow Street Bridge), each
    with the text before it."""
    runs = []
    for match in re.finditer(r"\b[A-Z][\w'’-]*(?:\s+(?:of\s+)?[A-Z][\w'’-]*)+", text):
        words = re.findall(r"[A-Z][\w'’-]*", match.group(0))
        while words and words[0].lower() in tx.STOP:
            words.pop(0)
        if len(words) >= 2:
            runs.append(([tx.stem(w.lower()) for w in words], text[max(0, match.start() - 20) : match.start()]))
    return runs


def _heading_names(heading: Sentence, page_names: frozenset[str]) -> set[str]:
    """The names a section heading gives: its words that the page also writes as names inside its
    sentences (a heading "Pierre Curie" on a page that says "…with Pierre Curie"; not "Ecology",
    "Services"); in Chinese, a person or a named place or body (李四, 白沙湖; not 历史沿革)."""
    out = {tx.stem(w.lower()) for w in re.findall(r"\b[A-Z][A-Za-z'’-]+", heading.text)} & page_names
    if _HAN.search(heading.text):
        out |= set(tx.zh_people(heading.text)) | {m.group(0) for m in tx.zh_places(heading.text)}
    return out


def _named_earlier(name: str, claim: str, passage: str, earlier: list[Sentence]) -> bool:
    """Whether the person the passage calls by surname (or surname and title) is the claim's: the
    full name last given before the passage in its section, or else in the title, the headings
    and the page's first sentence (`earlier`, in the page's order) — "Pierre" for a passage's
    "Curie" only if that last "… Curie" was "Pierre Curie"."""
    if name.isascii():
        run = re.search(rf"\b(?i:{re.escape(name)})\s+(?:[A-Z]\.\s+)?([A-Z][A-Za-z'’-]+)", claim)
        if not run:
            return False
        surname = _bare(run.group(1))

        def given(text: str) -> list[str]:  # the names before the surname: Marie Skłodowska Curie
            runs = re.findall(rf"((?:\b[A-Z][^\W\d_]*\.?\s+){{1,3}}){re.escape(surname)}\b", text)
            return [" ".join(w.lower().rstrip(".") for w in run.split() if w.lower().rstrip(".") not in HONORIFICS) for run in runs]
    else:
        family = tx.zh_surname(name)

        def given(text: str) -> list[str]:
            whole = [text] if 2 <= len(text) <= 4 and text.startswith(family) else []  # a title that is a name
            found = [n for n in tx.zh_names(text) if tx.zh_surname(n) == family and 2 <= len(n) <= 4]
            return whole + [n for n in found if not tx.zh_same_person(n, name)]  # 刘老 is no full name

    for sentence in reversed(earlier):
        for mention in reversed([n for n in given(sentence.text) if n]):
            if name in mention.split() or mention == name:
                return True
            if " " not in mention:  # one given name before the surname: another person ("Pierre Curie");
                return False  # a longer run of capitals may be a phrase ("the First World War Curie…")
    return False


def _claim_opening(claim: str) -> Sentence:
    """The opening of a claim, where its actor is named ("Brackwell had…", "青澜湖的…"); a place
    after "in", "at" or "near" there is the setting, not the actor ("Local buyers in Serra Alta…")."""
    opening = " ".join(claim.split()[:4])
    return _opening(re.sub(r"\b(?:in|at|near|across|throughout)\s+(?:the\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*", " ", opening), words=4, characters=8)


def _subject_part(sentence: Sentence) -> Sentence:
    """The opening of a sentence, where its subject is named: a name further on ("…with Pierre
    Curie") is not whom the next sentence's "she" means."""
    opener = _PARTICIPLE_OPENER.match(sentence.text)
    if opener:  # "Founded in 1998 by Graham Nuttall, it now operates…": the subject follows the comma
        return _opening(sentence.text[opener.end() :], words=6, characters=12)
    return _opening(sentence.text, words=6, characters=12)


# A sentence opening with a participle phrase ("Founded in 1998 by …,", "Born in Lyon,", "Located
# on …,") names its subject after the comma.
_PARTICIPLE_OPENER = re.compile(
    r"\W*(?:[A-Z][a-z]+ed|Born|Built|Founded|Located|Based|Known|Made|Run|Set|Being|Having|Originally [a-z]+ed)\b[^,;]{0,120},\s*"
)


@lru_cache(maxsize=4096)
def _opening(text: str, *, words: int, characters: int) -> Sentence:
    """The first words of a text (the first characters of a Chinese one), read as a sentence."""
    return make_sentence(text[:characters] if tx.is_chinese(text) else " ".join(text.split()[:words]))


def _called_short(name: str, claim: str, passage: str) -> bool:
    """Whether the passage calls the claim's person `name` belongs to by surname alone, or by
    surname and title: "Pierre" of "Pierre Curie" where the passage says "Curie"; 王慧敏 where it
    says 王教授."""
    if not name.isascii():
        surname = tx.zh_surname(name)
        return 2 <= len(name) <= 4 and surname in tx.ZH_SURNAMES and any(
            tx.zh_same_person(short, name) for short in tx.zh_people(passage)
        )
    run = re.search(rf"\b(?i:{re.escape(name)})\s+(?:[A-Z]\.\s+)?([A-Z][A-Za-z'’-]+)", claim)
    return bool(run) and bool(re.search(rf"\b{re.escape(_bare(run.group(1)))}\b", passage)) and not re.search(  # type: ignore[union-attr]
        rf"\b{re.escape(name)}\b", passage, re.I
    )


def _bare(word: str) -> str:
    """A name without its possessive: Penhaligon's → Penhaligon."""
    return re.sub(r"['’]s$", "", word)


def _refers_to_context(text: str, subjects: set[str]) -> bool:
    """Whether the passage speaks of someone its context names: it names no subject of its own,
    or says "she", "it", "the company", "该" before it names one (after one, "该桥" is that one)."""
    if not subjects:
        return True
    refers = min((m for m in (_REFERS.search(text), _DESCRIPTION.search(text)) if m), key=lambda m: m.start(), default=None)
    if not refers:
        return False
    # "…另建江汉二桥，该桥…": 该 speaks of the place named just before it
    if _HAN.search(text) and any(m.end() <= refers.start() for m in tx.zh_places(text)):
        return False
    low = text.lower()
    found = (low.find(n.lower()[:4]) for n in subjects)  # a stem's first letters mark where its word is
    first_rival = min((at for at in found if at >= 0), default=len(text))
    return refers.start() < first_rival


def _latin_names(sentences: list[Sentence], claimed: list[str]) -> set[str]:
    """The capitalised names of sentences that the claim does not give (as stems)."""
    return set().union(*(s.names for s in sentences)) - {tx.stem(n) for n in claimed if n.isascii()}


def _own_names(passage: list[Sentence], claimed: list[str]) -> set[str]:
    """Names the passage gives that the claim does not."""
    own = _latin_names(passage, claimed)
    text = " ".join(s.text for s in passage)
    if tx.is_chinese(text):
        own |= {n for n in tx.zh_names(text) if n not in claimed and not any(tx.zh_same_person(n, c) for c in claimed)}
    return own


def _subjects(passage: list[Sentence], claimed: list[str], page_text: str) -> set[str]:
    """Names the passage gives as its subjects that the claim does not: the names in the opening
    of each of its sentences ("Rovers had defender Sam Oduya…", not "…from the church of San
    Telmo"), a bare sentence opener left out (it may be an ordinary word: "Entries and exits…")."""
    openings = [_subject_part(s) for s in passage]
    own = _latin_names(openings, claimed)
    for sentence in passage:
        kin = _KIN.match(sentence.text)
        if kin:  # "His father ran…", "其父…": someone else than the one the context names
            own.add(kin.group(0).strip().lower())
    for sentence, opening in zip(passage, openings, strict=True):  # "Hensford, counted as…", "Paris hosted…"; not "Entries and exits…"
        first = re.match(r"[\W\d_]*([A-Z][a-z'’-]+)(?!\s+(?:and|or|of|&)\b)", opening.text)
        if first and tx.stem(first.group(1)) in sentence.names:
            own.add(tx.stem(first.group(1)))
    text = " ".join(o.text for o in openings)
    if tx.is_chinese(text):  # Chinese leaves the subject out: a person, or a place or body opening it, is a rival
        people = [n for n in tx.zh_people(text) if len(n) >= 3 or page_text.count(n) >= 2]  # jieba's 于清 once is no one
        named = [*people, *(m.group(0) for s in passage for m in tx.zh_places(s.text[:12]))]
        own |= {
            n for n in named
            if n not in claimed and not any(tx.zh_same_person(n, c) or n in c or c in n for c in claimed)
        }  # fmt: skip
    return own


def _display(name: str) -> str:
    return name[:1].upper() + name[1:]
