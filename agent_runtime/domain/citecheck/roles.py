"""Who did what, and what caused what: sentences whose words are all in the source but in another
relation to each other.

- `check_roles`: who did what to whom the other way round (A sued B / B sued A) — a contradiction;
- `check_actor`: the claim gives the source's action to another actor the source names elsewhere
  (the union announced what the company announced) — at most weak;
- `check_cause`: the claim turns the source's cause into its effect (the delayed harvest caused
  the rain) — at most weak.

The last two are summary-level errors: a weak verdict asks a reader (or the judge) to look, and
never marks a sentence † on its own, so a true summary sentence read clumsily costs little.
"""

from __future__ import annotations

import re

import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.page import HONORIFICS, Sentence
from agent_runtime.domain.citecheck.verdict import Reason

_PASSIVE = re.compile(r"\b(?:was|were|been|being|is|are)\s+\w+(?:ed|en)\s+by\b|被|由|遭", re.I)


def check_roles(claim: str, anchor: Sentence) -> list[Reason]:
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


_GENERIC = frozenset(
    ["compani", "firm", "group", "bank", "agenc", "ministri", "govern", "citi", "countri", "team", "club", "council", "court", "parti", "organis", "organiz", "univers", "institut", "fund", "board", "author", "offici", "spokesman", "spokeswoman", "spokesperson", "it", "they", "he", "she", "公司", "该公司", "集团", "政府", "部门", "该行", "其", "他", "她"]
)  # who stands for a name already given: not another actor


def _names_of(text: str) -> set[str]:
    """Who a text names, as its tokens: capitalised words (not titles such as Dr), Chinese names."""
    out = {tx.stem(w) for w in re.findall(r"\b[A-Z][A-Za-z'’-]+", text) if w.lower() not in HONORIFICS and w.lower() not in tx.STOP}
    return out | set(tx.zh_names(text)) if tx.is_chinese(text) else out


def check_actor(claim: str, clauses: list[str], page_tokens: frozenset[str]) -> list[Reason]:
    """The claim's actor is not the source's: the clause of the passage that has the claim's verb
    and what follows it ("announced 300 job cuts") gives it another named subject, while the
    claim's named actor is on the page elsewhere ("Portline announced…" next to "the Dockers' Union
    said…"). Only names count as actors: "the company" for "Tovar Motors" is the same actor."""
    if _PASSIVE.search(claim):
        return []
    mine = tx.token_sequence(claim)
    named = _names_of(claim)
    for k in range(1, min(len(mine) - 1, 4)):
        actor, verb, after = mine[k - 1], mine[k], mine[k + 1]
        if actor not in named or actor not in page_tokens:
            continue
        for clause in clauses:
            if _PASSIVE.search(clause):
                continue
            theirs = tx.token_sequence(clause)
            if verb not in theirs or after not in theirs or actor in theirs:
                continue
            where = theirs.index(verb)
            subject = theirs[where - 1] if where else ""
            if subject and subject not in mine and subject not in _GENERIC and subject in _names_of(clause):
                return [Reason("actor", said=actor, found=subject)]
    return []


# Causal links: (pattern, whether the cause comes before it). "X because Y": the cause is after.
_CAUSE_AFTER = r"\bbecause(?:\s+of)?\b|\bdue to\b|\bowing to\b|\bas a result of\b|\bthanks to\b|\bcaused by\b|\bdriven by\b|是因为|源于|归因于|由于"
_CAUSE_BEFORE = r"\b(?:delayed|forced|pushed|drove|boosted|damaged|disrupted|halted|triggered|sparked|fuelled|fueled)\b|\bled to\b|\blead(?:s|ing)? to\b|\bresult(?:ed|s|ing)? in\b|\bcaus(?:ed|es|ing)\b(?!\s+by)|\btrigger(?:ed|s)?\b|\bprompt(?:ed|s)?\b|\bso that\b|\btherefore\b|\bwhich meant\b|导致|造成|引发|致使|使得|因此|所以|从而|以致"
_LINK = re.compile(rf"(?P<after>{_CAUSE_AFTER})|(?P<before>{_CAUSE_BEFORE})", re.I)
# Ways a page says why that the claim's link words do not cover: "blaming", "amid", 受…影响, 为了.
_LOOSE_CAUSE = re.compile(
    r"\b(?:blam(?:e|ed|es|ing)|amid|attribut(?:e|ed|es|ing)|linked|because|reason|after|following|since|so|"
    r"in response|as|thanks|behind|cost|costs|meant|means|helped|help)\b|受[^，。]{1,12}影响|因|为了|以便|得益于|随着|由于|导致|所以|因此",
    re.I,
)
_OPENING_CAUSE = re.compile(r"^\W*(?:because(?:\s+of)?|due to|owing to|as a result of|thanks to|由于|因为|受)\s*", re.I)


def _sides(text: str) -> tuple[set[str], set[str]] | None:
    """(the cause's words, the effect's words) of a sentence with one causal link, else None."""
    opening = _OPENING_CAUSE.match(text)
    if opening:  # "Because of the rain, the harvest was late" / "由于降雨，收割推迟"
        rest = text[opening.end() :]
        parts = re.split(r"[,，;；]", rest, maxsplit=1)
        if len(parts) == 2:
            return tx.content_tokens(parts[0]), tx.content_tokens(parts[1])
        return None
    links = list(_LINK.finditer(text))
    if len(links) != 1:
        return None
    link = links[0]
    before, after = tx.content_tokens(text[: link.start()]), tx.content_tokens(text[link.end() :])
    return (after, before) if link.group("after") else (before, after)


def check_cause(claim: str, passage: list[Sentence]) -> list[Reason]:
    """Cause and effect the other way round: the claim's cause shares more words with the
    source's effect than with its cause, and its effect more with the source's cause; or a link
    the passage does not make at all ("A prompted B" where the page says A, then B)."""
    mine = _sides(claim)
    if mine is None:
        return []
    if not any(_LINK.search(s.text) or _OPENING_CAUSE.match(s.text) or _LOOSE_CAUSE.search(s.text) for s in passage):
        link = _OPENING_CAUSE.match(claim) or _LINK.search(claim)
        return [Reason("cause_unstated", said=link.group(0).strip() if link else "")]
    cause, effect = mine
    for sentence in passage:
        theirs = _sides(sentence.text)
        if theirs is None:
            continue
        their_cause, their_effect = theirs
        crossed = len(cause & their_effect) + len(effect & their_cause)
        straight = len(cause & their_cause) + len(effect & their_effect)
        if crossed >= 2 and crossed > straight and cause & their_effect and effect & their_cause:
            said = sorted(cause & their_effect)[0]
            found = sorted(effect & their_cause)[0]
            return [Reason("cause", said=said, found=found)]
    return []
