"""A source as a reader meets it: its sentences, each with the title and the headings above it.

Real pages name their subject once, in the title, a heading or an early sentence, and then say
"she", "it", "the company", "该公司" or nothing at all; a heading such as ``## 2021 census`` dates
every sentence under it. So a passage is read with its `Context`: the source's title, the chain of
Markdown headings above it (``#`` … ``######``; a deeper run of ``#`` is text) and the sentences
just before it in the same section. A heading is context, never a passage of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.claims import sentence_spans

_HEADING = re.compile(r"^\s{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_HEADING_CHARS = 150  # longer than any heading: a line of text that happens to start with "#"
_SENTENCE_INSIDE = re.compile(r"[.!?。！？…][\s\"'”’)）]*\S")  # a sentence ends inside it and text follows
_MAX_CHAIN = 6  # headings kept above a sentence (a page cannot nest deeper than Markdown can)
_BEFORE = 2  # sentences before a passage that a reader still has in mind
# Titles and honorifics written before a name: "Dr. Curie" is Curie, not a person called Dr.
HONORIFICS = frozenset(
    ["dr", "mr", "mrs", "ms", "miss", "mme", "mlle", "prof", "professor", "sir", "dame", "lady", "lord", "madame", "monsieur", "herr", "frau", "st", "saint", "gen", "adm", "capt", "col", "lt", "sgt", "sen", "rep", "gov", "pres", "rev", "fr", "hon", "judge", "justice", "president", "king", "queen", "prince", "princess", "pope", "chancellor", "minister", "premier", "mayor", "chairman", "chairwoman", "ceo"]
)


@dataclass(frozen=True)
class Sentence:
    text: str
    first: int  # its first and last line in the source (1-based)
    last: int
    tokens: frozenset[str]
    facts: fx.Facts
    names: frozenset[str]  # capitalised words inside the sentence (stems), honorifics left out
    plain: frozenset[str]  # words written in lower case (stems): ordinary words, not names
    sequence: tuple[str, ...]  # its content words in order (for roles)
    section: int = 0  # sentences under the same heading share a section
    headings: tuple[str, ...] = ()  # the chain of headings above it, outermost first
    opener: str = ""  # its capitalised first word, taken for a name (the source never writes it in lower case)
    row: bool = False  # a table's row, read with its column names


@dataclass(frozen=True)
class Context:
    """What a reader knows when reaching a passage, nearest first: the sentences just before it in
    its section, then the headings above it (innermost first), then the source's title."""

    before: tuple[Sentence, ...]
    headings: tuple[Sentence, ...]

    @property
    def levels(self) -> tuple[Sentence, ...]:
        return (*self.before, *self.headings)

    def describe(self) -> str:
        """The title and heading chain as a reader's path: ``Marie Curie › Later life``."""
        return " › ".join(h.text for h in reversed(self.headings))


def make_sentence(
    text: str, first: int = 0, last: int = 0, section: int = 0, headings: tuple[str, ...] = (), row: bool = False
) -> Sentence:
    text = re.sub(r"\s+", " ", text).strip()
    caps = {tx.stem(m.group(0)) for m in re.finditer(r"(?<=[^\s.!?。]\s)[A-ZÀ-ÖØ-Þ][A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ'’-]+", text)}
    return Sentence(
        text, first, last, frozenset(tx.content_tokens(text)), fx.extract(text, strict=False),
        frozenset(caps - HONORIFICS), frozenset(tx.stem(w) for w in re.findall(r"\b[a-z][a-z'’-]+", text)),
        tx.token_sequence(text), section, headings, row=row,
    )  # fmt: skip


@dataclass(frozen=True)
class Passage:
    """A sentence of a source as it stands, before any word of it is read: its text (a table row
    with its column names), its lines, its section and the headings above it."""

    text: str
    first: int
    last: int
    section: int
    headings: tuple[str, ...]
    row: bool = False  # a table's row


@lru_cache(maxsize=64)
def source_sentences(source_text: str) -> tuple[Sentence, ...]:
    """The sentences of a source with their lines, facts and headings, parsed once (a report cites
    a source many times). Heading lines are not sentences: they are the `headings` of those below."""
    passages = source_passages(source_text)
    out = [make_sentence(p.text, p.first, p.last, p.section, p.headings, p.row) for p in passages if p.first]
    if not out and passages:  # a page of headings only: they are all it says
        out = [make_sentence(p.text) for p in passages]
    # A capitalised first word the source never writes in lower case is a name too (Paris hosted…).
    plain = frozenset().union(*(s.plain for s in out)) if out else frozenset()
    named = []
    for sentence in out:
        first_word = re.match(r"[\W\d_]*([A-ZÀ-ÖØ-Þ][A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ'’-]+)", sentence.text)
        word = first_word.group(1).lower() if first_word else ""
        if word and word not in tx.STOP and word not in tx.OPENERS and word not in HONORIFICS and tx.stem(word) not in plain:
            sentence = replace(sentence, names=sentence.names | {tx.stem(word)}, opener=tx.stem(word))
        named.append(sentence)
    return tuple(named)


def source_passages(source_text: str) -> tuple[Passage, ...]:
    """The sentences of a source as they stand, with their lines and headings, no word read (the
    chart's value check needs no more). A page of headings only gives its headings, at line 0."""
    starts = [0] + [m.end() for m in re.finditer("\n", source_text)]

    def line_at(pos: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if starts[mid] <= pos else (lo, mid - 1)
        return lo + 1

    out: list[Passage] = []
    chain: list[tuple[int, str]] = []  # (level, text) of the headings in force
    section = 0
    for a, b, heading in _blocks(source_text):
        if heading:
            level, title = len(heading.group(1)), re.sub(r"[*_`]", "", heading.group(2)).strip()
            chain = [(lvl, t) for lvl, t in chain if lvl < level][: _MAX_CHAIN - 1] + ([(level, title)] if title else [])
            section += 1
            continue
        header: list[str] = []  # the header row of the table being read
        for x, y in sentence_spans(source_text[a:b]):
            raw = source_text[a + x : a + y]
            if not raw.strip():
                continue
            lead = len(raw) - len(raw.lstrip())
            first, last = line_at(a + x + lead), line_at(a + x + max(len(raw.rstrip()) - 1, 0))
            text, header = _table_row(raw, header)
            if text:
                out.append(Passage(text, first, last, section, tuple(t for _, t in chain), raw.lstrip().startswith("|")))
    if not out and chain:  # a page of headings only: they are all it says
        out = [Passage(title, 0, 0, 0, ()) for _, title in chain]
    return tuple(out)


_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _table_row(raw: str, header: list[str]) -> tuple[str, list[str]]:
    """A Markdown table row read with its column names ("Year 2023; Operating profit £24m"), and
    the header in force. Text that is no table row comes back as it is, and ends the table."""
    line = raw.strip()
    if not line.startswith("|"):
        return raw, []
    if _TABLE_SEPARATOR.match(line):
        return "", header
    cells = [c.strip() for c in line.strip("|").split("|")]
    if not header:
        return "; ".join(c for c in cells if c), cells
    # a column's name is no proper name ("Operating profit"): written in lower case, it stays a word
    return "; ".join(f"{h.lower()} {c}".strip() for h, c in zip(header, cells, strict=False) if c), header


def heading_of(line: str) -> re.Match[str] | None:
    """A Markdown heading line (# … ######), its level and text as groups 1 and 2; None for text,
    also for a line that starts with "#" but is no heading: one longer than any heading, or one
    that holds a sentence and more ("# Title …the text of a search snippet on one line")."""
    heading = _HEADING.match(line.rstrip("\r\n"))
    if heading and (len(heading.group(2)) > _HEADING_CHARS or _SENTENCE_INSIDE.search(heading.group(2))):
        return None
    return heading


def _blocks(text: str) -> list[tuple[int, int, re.Match[str] | None]]:
    """The source cut at its heading lines: (start, end, the heading's match or None for text)."""
    out: list[tuple[int, int, re.Match[str] | None]] = []
    start = position = 0
    for line in text.splitlines(keepends=True):
        heading = heading_of(line)
        if heading:
            if position > start:
                out.append((start, position, None))
            out.append((position, position + len(line), heading))
            start = position + len(line)
        position += len(line)
    if position > start:
        out.append((start, position, None))
    return out


@lru_cache(maxsize=256)
def heading_sentences(title: str, headings: tuple[str, ...]) -> tuple[Sentence, ...]:
    parts = [p for p in (page_subject(title), *headings) if p]
    # The title often opens the page as its first heading too: say it once.
    unique = [p for k, p in enumerate(parts) if p.lower() not in (q.lower() for q in parts[:k])]
    return tuple(make_sentence(p) for p in reversed(unique))


def scoped_dates(sentence: Sentence) -> tuple[fx.Date, ...]:
    """The dates a sentence speaks of: its own, or else those of the nearest heading above it that
    gives one ("## 2021 census" dates "The population was 3,207")."""
    if sentence.facts.dates:
        return sentence.facts.dates
    for heading in heading_sentences("", sentence.headings):
        if heading.facts.dates:
            return heading.facts.dates
    return ()


def scoped_ordinal(sentence: Sentence) -> float | None:
    """The one ordinal a sentence is filed under: its own, or else the nearest heading's that gives
    one ("### 第七次全国人口普查" over "常住人口为2.08万人")."""
    for part in (sentence, *heading_sentences("", sentence.headings)):
        ranks = {q.value for q in part.facts.ordinals}
        if ranks:
            return ranks.pop() if len(ranks) == 1 else None
    return None


_SITE_SUFFIX = re.compile(r"\s+(?:[-–—|·•:]|::)\s+[^-–—|·•]{1,40}$")


def page_subject(title: str) -> str:
    """A page's title without the site's name after it: "Marie Curie - Encyclopedia" → "Marie
    Curie", "Lake Baikal | Britannica" → "Lake Baikal"."""
    title = re.sub(r"\s+", " ", title).strip()
    shorter = _SITE_SUFFIX.sub("", title)
    return shorter if len(shorter) >= 2 else title


def context(sentences: tuple[Sentence, ...], passage: list[int], title: str) -> Context:
    """The context of a passage (indices into `sentences`): up to two sentences before it in the
    same section, its first sentence's heading chain and the title."""
    first = sentences[passage[0]]
    before = tuple(
        sentences[k] for k in range(passage[0] - 1, max(-1, passage[0] - 1 - _BEFORE), -1)
        if sentences[k].section == first.section and not (first.row and sentences[k].row)
    )  # (a table's row says its own subject: the rows above it are of others)
    return Context(before, heading_sentences(title, first.headings))
