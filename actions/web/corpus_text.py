"""The text side of the local corpus's index: CJK character bigrams, the FTS5 query made from a
user's words, and the snippet cut around a CJK match (the reasons are in local_corpus.py's
docstring). Pure functions, no I/O."""

from __future__ import annotations

import re
from collections.abc import Iterator

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Han (with extensions and compatibility ideographs), kana, and the iteration mark 々: scripts
# written without spaces between words.
CJK = re.compile(
    "[\u3005\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0002fa1f]+"
)
_CJK_SPLIT = re.compile(f"({CJK.pattern})")
_CJK_PHRASE_MAX = 4  # a run up to this long is taken as one word; a longer one as a clause
CJK_SNIPPET_CHARS = 120
_GRAMS_COLUMNS = "{title_grams body_grams}"


def _bigrams(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _cjk_words(text: str) -> Iterator[str]:
    """The words (runs of letters and digits, as `_WORD` finds them) that hold a CJK character:
    each found from a CJK run outwards, so text without CJK costs one scan in C."""
    end = 0
    for run in CJK.finditer(text):
        if run.start() < end:
            continue  # inside the word just given
        start, end = run.start(), run.end()
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        while end < len(text) and text[end].isalnum():
            end += 1
        yield text[start:end]


def cjk_grams(text: str) -> str:
    """What the bigram columns index of `text`: each CJK run as its overlapping character bigrams
    followed by its last character alone, and the letters and digits glued to a CJK run as
    separate words. Text without CJK gives an empty string."""
    out: list[str] = []
    for word in _cjk_words(text):
        for piece in _CJK_SPLIT.split(word):
            if not piece:
                continue
            if CJK.fullmatch(piece):
                out.extend(_bigrams(piece))
                out.append(piece[-1])
            else:
                out.append(piece)
    return " ".join(out)


def split_query(query: str) -> tuple[list[str], list[str]]:
    """(plain words lower-cased, CJK runs) of a query; letters and digits glued to a CJK run
    (`TOPCon电池`, `2026年`) count as plain words."""
    plain: list[str] = []
    cjk: list[str] = []
    for word in _WORD.findall(query):
        for piece in re.split(f"({CJK.pattern})", word):
            if CJK.fullmatch(piece):
                cjk.append(piece)
            elif piece:
                plain.append(piece.lower())
    return list(dict.fromkeys(plain)), list(dict.fromkeys(cjk))


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts_query(query: str) -> str:
    """The user's words as an FTS5 query: each quoted (so no word is taken as FTS syntax such as
    AND, NEAR or a column filter), joined with OR; bm25 ranks documents matching more words
    higher. A CJK run becomes a phrase of its bigrams in the bigram columns (see the module's
    docstring)."""
    plain, cjk = split_query(query)
    terms = [_quote(w) for w in plain]
    for run in cjk:
        if len(run) == 1:
            terms.append(f"{_GRAMS_COLUMNS}: {_quote(run)}*")
            continue
        terms.append(f"{_GRAMS_COLUMNS}: {_quote(' '.join(_bigrams(run)))}")
        if len(run) > _CJK_PHRASE_MAX:
            terms.extend(f"{_GRAMS_COLUMNS}: {_quote(gram)}" for gram in dict.fromkeys(_bigrams(run)))
    return " OR ".join(list(dict.fromkeys(terms))[:32])


def cjk_snippet(body: str, query: str, width: int = CJK_SNIPPET_CHARS) -> str:
    """See cjk_snippet_at."""
    return cjk_snippet_at(body, query, width)[1]


def cjk_snippet_at(body: str, query: str, width: int = CJK_SNIPPET_CHARS) -> tuple[int, str]:
    """(where its best match is in `body`, the snippet): about `width` characters of `body` around the place that holds the most distinct query
    words (a CJK run, or for a long run its bigrams, or a plain word; plain words are found
    case-insensitively and unstemmed), or its beginning when none occurs."""
    plain, cjk = split_query(query)
    needles = [*cjk, *(g for run in cjk if len(run) > _CJK_PHRASE_MAX for g in _bigrams(run)), *plain]
    hits: list[tuple[int, int]] = []  # (position, needle index)
    for index, needle in enumerate(dict.fromkeys(needles)):
        pattern = re.compile(re.escape(needle), re.IGNORECASE)
        for count, found in enumerate(pattern.finditer(body)):
            if count >= 50:
                break
            hits.append((found.start(), index))
    hits.sort()
    start, best, span, anchor = 0, 0, width * 2 // 3, 0
    inside: dict[int, int] = {}  # needle index -> its hits in the window [hits[left], +span)
    right = 0
    for left, (position, _) in enumerate(hits):  # a sliding window: linear in the hits
        while right < len(hits) and hits[right][0] < position + span:
            inside[hits[right][1]] = inside.get(hits[right][1], 0) + 1
            right += 1
        if len(inside) > best:
            best, start, anchor = len(inside), max(0, position - width // 4), position
        leaving = hits[left][1]
        inside[leaving] -= 1
        if not inside[leaving]:
            del inside[leaving]
    end = start + width
    text = " ".join(body[start:end].split())
    return anchor, ("…" if start > 0 else "") + text + ("…" if end < len(body.rstrip()) else "")
