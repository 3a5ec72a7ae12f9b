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
from dataclasses import dataclass, replace
from functools import lru_cache

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.claims import clean, sentence_spans
from agent_runtime.domain.citecheck.verdict import CitationCheck, Reason, Verdict

SUPPORTED = {"en": 0.6, "zh": 0.6}
UNRELATED = {"en": 0.25, "zh": 0.25}
_NEIGHBOURS = 2
_CLAUSE = re.compile(
    r"[,;:，；：]|\b(?:but|although|though|while|whereas|yet|after|before|when|because|which|until|unless)\b"
    r"|但是|但|而且|然而|不过|之后|以后|因为|由于",
    re.I,
)
_PASSIVE = re.compile(r"\b(?:was|were|been|being|is|are)\s+\w+(?:ed|en)\s+by\b|被|由|遭", re.I)
_REFERS = re.compile(
    r"\b(?:it|its|they|their|he|she|his|her|the (?:company|firm|group|bank|agency|ministry|government|city|"
    r"country|team|club|council|court|party|organisation|organization|university|institute|fund|board|"
    r"carmaker|airline|insurer|lender|retailer|regulator|utility|operator|developer|manufacturer))\b"
    r"|该|其|公司|他|她|该行|集团",
    re.I,
)
_CAPITAL = re.compile(r"[A-Z][A-Za-z'’&.-]*[A-Za-z]|[A-Z]")


@dataclass(frozen=True)
class _Sentence:
    text: str
    first: int
    last: int
    tokens: frozenset[str]
    facts: fx.Facts
    names: frozenset[str]  # capitalised words inside the sentence (stems)
    plain: frozenset[str]  # words written in lower case (stems): ordinary words, not names
    sequence: tuple[str, ...]  # its content words in order (for roles)


@lru_cache(maxsize=64)
def source_sentences(source_text: str) -> tuple[_Sentence, ...]:
    """The sentences of a source with their lines and facts, parsed once (a report cites a source
    many times)."""
    starts = [0] + [m.end() for m in re.finditer("\n", source_text)]

    def line_at(pos: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if starts[mid] <= pos else (lo, mid - 1)
        return lo + 1

    out = []
    for a, b in sentence_spans(source_text):
        raw = source_text[a:b]
        if not raw.strip():
            continue
        lead = len(raw) - len(raw.lstrip())
        text = re.sub(r"\s+", " ", raw).strip()
        caps = {tx.stem(m.group(0)) for m in re.finditer(r"(?<=[^\s.!?。]\s)[A-Z][A-Za-z'’-]+", text)}
        out.append(
            _Sentence(
                text, line_at(a + lead), line_at(a + max(len(raw.rstrip()) - 1, 0)),
                frozenset(tx.content_tokens(text)), fx.extract(text, strict=False), frozenset(caps),
                frozenset(tx.stem(w) for w in re.findall(r"\b[a-z][a-z'’-]+", text)), tx.token_sequence(text),
            )
        )  # fmt: skip
    # A capitalised first word the source never writes in lower case is a name too (Paris hosted…).
    plain = frozenset().union(*(s.plain for s in out)) if out else frozenset()
    named = []
    for sentence in out:
        first = re.match(r"[\W\d_]*([A-Z][A-Za-z'’-]+)", sentence.text)
        word = first.group(1).lower() if first else ""
        if word and word not in tx.STOP and word not in tx.OPENERS and tx.stem(word) not in plain:
            sentence = replace(sentence, names=sentence.names | {tx.stem(word)})
        named.append(sentence)
    return tuple(named)


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
        initials = "".join(w[0].lower() for w in re.findall(r"\b[A-Z][a-z]+", text))
        return 3 <= len(name) <= 6 and name in initials  # IMF for the International Monetary Fund
    return tx.zh_name_found(name, text)


def _word_score(word: str, zh: bool, text: str, tokens: frozenset[str]) -> float:
    if word.isascii() or not zh:
        return 1.0 if word in tokens else 0.0
    return tx.zh_found(word, text)


def _coverage(words: set[str], zh: bool, sentences: list[_Sentence]) -> float:
    if not words:
        return 1.0
    text = "".join(s.text for s in sentences)
    tokens = frozenset().union(*(s.tokens for s in sentences)) if sentences else frozenset()
    return sum(_word_score(w, zh, text, tokens) for w in words) / len(words)


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE.split(text) if c and c.strip()]


def _matching_clauses(words: set[str], zh: bool, sentences: list[_Sentence]) -> str:
    """The clauses of the passage that share the most of the claim's ordinary words."""
    scored = []
    for sentence in sentences:
        for clause in _clauses(sentence.text):
            tokens = frozenset(tx.content_tokens(clause))
            scored.append((sum(1 for w in words if _word_score(w, zh, clause, tokens) >= 1), clause))
    best = max((score for score, _ in scored), default=0)
    return " ".join(clause for score, clause in scored if best and score >= max(1, best - 1))


def check_lexical(claim: str, source_text: str) -> CitationCheck:
    """The lexical verdict on `claim` against `source_text` (see the module's docstring)."""
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

    def fact_hits(s: _Sentence) -> int:
        hits = sum(1 for q in claim_facts.quantities if any(fx.satisfies(q, p) for p in s.facts.quantities))
        return hits + sum(1 for d in claim_facts.dates if any(fx.date_satisfies(d, p) for p in s.facts.dates))

    scored = [
        (sum(_word_score(w, zh, s.text, s.tokens) for w in words) + fact_hits(s), -k)
        for k, s in enumerate(sentences)
    ]
    if not scored or max(scored)[0] <= 0:
        return CitationCheck(statement, "unsupported", reasons=[Reason("no_passage")])
    anchor = -max(scored)[1]
    passage_ids = _join_neighbours(anchor, ordinary, claim_facts, zh, sentences)
    passage = [sentences[k] for k in passage_ids]
    coverage = _coverage(words, zh, passage)
    hard: list[Reason] = []
    soft: list[Reason] = []
    elsewhere = [s for k, s in enumerate(sentences) if k not in passage_ids and _shares(ordinary, zh, s)]
    amount_hard, amount_soft = _check_amounts(claim_facts, sentences[anchor], passage, elsewhere)
    hard += amount_hard
    soft += amount_soft
    hard += _check_dates(claim_facts, sentences[anchor], [*passage, sentences[0], *elsewhere])
    ordinal_hard, ordinal_soft = _check_ordinals(claim_facts, sentences[anchor], passage)
    hard += ordinal_hard
    soft += ordinal_soft
    acronyms = frozenset(w.lower() for w in re.findall(r"\b[A-Z]{2,6}\b", statement))
    hard += _check_names(names, passage, sentences[0] if sentences else None, elsewhere, acronyms)
    soft += _check_names(openers, passage, sentences[0] if sentences else None, elsewhere)
    matching = _matching_clauses(ordinary or words, zh, passage) or sentences[anchor].text
    negated = tx.negation_count(statement) % 2 != tx.negation_count(matching) % 2
    flip = tx.opposite(statement, matching)
    if negated and not flip:
        hard.append(Reason("negation"))
    elif flip and not negated:
        hard.append(Reason("opposite", said=flip[0], found=flip[1]))
    hard += _check_roles(statement, sentences[anchor])
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
    return CitationCheck(statement, verdict, text, lines, hard + soft, "lexical", round(min(1.0, coverage), 3))


def _join_neighbours(
    anchor: int, ordinary: set[str], claim_facts: fx.Facts, zh: bool, sentences: tuple[_Sentence, ...]
) -> list[int]:
    """The anchor, with the adjacent sentences that bring an ordinary word or a fact of the claim
    it lacks (a fact that the anchor states otherwise is caught as a swap later)."""
    chosen = [anchor]
    have = {w for w in ordinary if _word_score(w, zh, sentences[anchor].text, sentences[anchor].tokens) >= 1}
    held = _held(claim_facts, sentences[anchor])
    for step in (-1, 1):
        k = anchor + step
        while 0 <= k < len(sentences) and abs(k - anchor) <= _NEIGHBOURS:
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


def _held(claim: fx.Facts, sentence: _Sentence) -> set[int]:
    """Which of the claim's facts (by position) the sentence states."""
    out = {k for k, q in enumerate(claim.quantities) if any(fx.satisfies(q, p) for p in sentence.facts.quantities)}
    offset = len(claim.quantities)
    return out | {offset + k for k, d in enumerate(claim.dates) if any(fx.date_satisfies(d, p) for p in sentence.facts.dates)}


def _check_amounts(
    claim: fx.Facts, anchor: _Sentence, passage: list[_Sentence], elsewhere: list[_Sentence]
) -> tuple[list[Reason], list[Reason]]:
    """Each quantity of the claim in the passage; or, when the anchor states no rival value, in a
    sentence elsewhere that shares the claim's words. A small number word (two men) that is missing
    makes the claim weak, not unsupported: it is rarely the fact cited."""
    hard: list[Reason] = []
    soft: list[Reason] = []
    for q in claim.amounts:
        holders = [s for s in passage if any(fx.satisfies(q, p) for p in fx.candidates(q, s.facts.quantities))]
        rivals = [p for p in fx.candidates(q, anchor.facts.quantities) if not fx.satisfies(q, p)]
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


def _check_dates(claim: fx.Facts, anchor: _Sentence, passage: list[_Sentence]) -> list[Reason]:
    reasons = []
    for d in claim.dates:
        holders = [s for s in passage if any(fx.date_satisfies(d, p) for p in s.facts.dates)]
        rivals = [p for p in anchor.facts.dates if not fx.date_satisfies(d, p) and (p.y is not None) == (d.y is not None)]
        if holders and (anchor in holders or not rivals):
            continue
        if rivals:
            reasons.append(Reason("value", said=d.text, found=", ".join(dict.fromkeys(p.text for p in rivals))))
        else:
            reasons.append(Reason("value_absent", said=d.text))
    return reasons


def _check_ordinals(claim: fx.Facts, anchor: _Sentence, passage: list[_Sentence]) -> tuple[list[Reason], list[Reason]]:
    hard, soft = [], []
    stated = [p for s in passage for p in s.facts.ordinals]
    for q in claim.ordinals:
        if any(p.value == q.value for p in stated):
            continue
        if stated:
            hard.append(Reason("ordinal", said=q.text, found=", ".join(dict.fromkeys(p.text for p in stated))))
        else:
            soft.append(Reason("ordinal_absent", said=q.text))
    return hard, soft


def _shares(ordinary: set[str], zh: bool, sentence: _Sentence) -> bool:
    return any(_word_score(w, zh, sentence.text, sentence.tokens) >= 1 for w in ordinary)


def _check_names(
    names: list[str],
    passage: list[_Sentence],
    lead: _Sentence | None,
    elsewhere: list[_Sentence],
    acronyms: frozenset[str] = frozenset(),
) -> list[Reason]:
    text = " ".join(s.text for s in passage)
    tokens = frozenset().union(*(s.tokens for s in passage))
    missing = [n for n in names if not _name_found(n, tokens, text)]
    if missing and lead is not None and lead not in passage and (_REFERS.search(text) or not _own_names(passage, names)):
        # "It", "the company", "该公司", or no subject at all: the passage speaks of what the lead names
        missing = [n for n in missing if not _name_found(n, lead.tokens, lead.text)]
    if missing and not _own_names(passage, names):  # no rival name in the passage: one said elsewhere
        missing = [n for n in missing if not any(_name_found(n, s.tokens, s.text) for s in elsewhere)]
    # An acronym (LFP, IMF) the source uses elsewhere: the passage spells it out, or calls it "it".
    missing = [n for n in missing if not (n in acronyms and any(_name_found(n, s.tokens, s.text) for s in elsewhere))]
    return [Reason("name", said=n if not n.isascii() else _display(n)) for n in missing]


def _own_names(passage: list[_Sentence], claimed: list[str]) -> set[str]:
    """Names the passage gives that the claim does not."""
    own = set().union(*(s.names for s in passage)) - {tx.stem(n) for n in claimed if n.isascii()}
    text = " ".join(s.text for s in passage)
    if tx.is_chinese(text):
        own |= {n for n in tx.zh_names(text) if n not in claimed}
    return own


def _display(name: str) -> str:
    return name[:1].upper() + name[1:]


def _check_roles(claim: str, anchor: _Sentence) -> list[Reason]:
    """Who did what to whom the other way round: three content words of the claim in a row (A sued
    B) whose reverse is in the anchor (B sued A) while the claim's order is not, neither passive."""
    if bool(_PASSIVE.search(claim)) != bool(_PASSIVE.search(anchor.text)):
        return []
    mine, theirs = tx.token_sequence(claim), anchor.sequence
    ours = set(zip(theirs, theirs[1:], theirs[2:], strict=False))
    capitals = {tx.stem(w) for w in re.findall(r"\b[A-Z][A-Za-z]+", claim)}
    for a, verb, b in zip(mine, mine[1:], mine[2:], strict=False):
        english = a.isascii() or b.isascii()
        if english and not (a in capitals and b in capitals):
            continue  # in English, who did what to whom is told by names
        if a != b and (b, verb, a) in ours and (a, verb, b) not in ours:
            return [Reason("roles", said=a, found=b)]
    return []
