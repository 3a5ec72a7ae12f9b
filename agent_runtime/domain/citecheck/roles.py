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
from agent_runtime.domain.citecheck.page import Sentence
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


def check_actor(
    claim: str, matching: str, sentences: tuple[Sentence, ...], passage: list[int], names: frozenset[str]
) -> list[Reason]:
    """The claim's actor is not the source's: the name just before the claim's verb (its subject)
    is missing from the source's matching clauses but named in another sentence of the source,
    while those clauses give the same verb another named subject the claim does not mention.
    Only names (`names`: the claim's and the passage's, as stems and Chinese names) count as
    actors: "the company" for "Tovar Motors" is the same actor said another way."""
    if bool(_PASSIVE.search(claim)) != bool(_PASSIVE.search(matching)):
        return []
    mine = tx.token_sequence(claim)
    theirs = tx.token_sequence(matching)
    if len(mine) < 3 or len(theirs) < 2:
        return []
    claimed = set(mine)
    clause = set(theirs)
    elsewhere = set().union(*(s.tokens for k, s in enumerate(sentences) if k not in passage)) if sentences else set()
    for k in range(1, min(len(mine), 4)):
        actor, verb = mine[k - 1], mine[k]
        if actor not in names or verb not in clause or actor in clause or actor not in elsewhere:
            continue
        where = theirs.index(verb)
        theirs_actor = theirs[where - 1] if where else ""
        if theirs_actor in names and theirs_actor not in claimed:
            return [Reason("actor", said=actor, found=theirs_actor)]
    return []


# Causal links: (pattern, whether the cause comes before it). "X because Y": the cause is after.
_CAUSE_AFTER = r"\bbecause(?:\s+of)?\b|\bdue to\b|\bowing to\b|\bas a result of\b|\bthanks to\b|\bcaused by\b|\bdriven by\b|是因为|源于|归因于|由于"
_CAUSE_BEFORE = r"\bled to\b|\blead(?:s|ing)? to\b|\bresult(?:ed|s|ing)? in\b|\bcaus(?:ed|es|ing)\b(?!\s+by)|\btrigger(?:ed|s)?\b|\bprompt(?:ed|s)?\b|\bso that\b|\btherefore\b|\bwhich meant\b|导致|造成|引发|致使|使得|因此|所以|从而|以致"
_LINK = re.compile(rf"(?P<after>{_CAUSE_AFTER})|(?P<before>{_CAUSE_BEFORE})", re.I)
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
    source's effect than with its cause, and its effect more with the source's cause."""
    mine = _sides(claim)
    if mine is None:
        return []
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
