"""Cited statements of a report: where a Markdown report cites sources as ``[S<n>]``.

`claims(report)` finds every statement that cites sources as ``[S<n>]`` (also ``[S3][S7]``,
``[S7, S9]`` and ``【S3】``): a sentence (English ``. ! ?``, Chinese ``。！？；``), a list item's
sentence or a table row. Headings, fenced code and uncited sentences are left out. A marker written
after the sentence's full stop (``... rose 14%. [S3]``) belongs to that sentence.

`sentence_spans` is the one sentence splitter of the check: the lexical pass splits sources with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Claim", "claims", "clean", "is_han", "sentence_spans"]


@dataclass
class Claim:
    statement: str
    ids: list[str]
    line: int
    # Where the sentence stands in the report: (line, column) of its first and last character, 1-based
    # lines, 0-based columns; a table row spans its whole line. Left out of equality: tests compare what.
    start: tuple[int, int] = field(default=(0, 0), compare=False)
    end: tuple[int, int] = field(default=(0, 0), compare=False)

# ---------------------------------------------------------------------------------------------
# Markers and sentences

_MARKER = re.compile(r"[\[【]\s*(S\d+(?:\s*[,，;；、]\s*S\d+)*)\s*[\]】]")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_LIST = re.compile(r"^(\s*)(?:[-*+•]|\d+[.)、])\s+")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_ABBREV = {
    "mr", "mrs", "ms", "dr", "prof", "st", "inc", "ltd", "co", "corp", "jr", "sr", "vs", "etc",
    "e.g", "i.e", "no", "fig", "al", "approx", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "u.n", "e.u",
}  # fmt: skip
_CLOSERS = "\"'”’)）」』》"


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text` (a paragraph or a whole document). A citation
    marker right after a sentence's end belongs to it."""
    spans: list[tuple[int, int]] = []
    start = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        end = -1
        if ch in "。！？；!?\n":
            end = i + 1
        elif ch == ".":
            nxt = text[i + 1] if i + 1 < n else " "
            if nxt.isspace() or nxt in _CLOSERS or nxt in "[【":
                word = re.search(r"([A-Za-z.]+)$", text[max(start, i - 40) : i])  # not the whole sentence again
                wt = word.group(1) if word else ""
                w = wt.lower()
                single_cap = len(wt) == 1 and wt.isupper()
                if w.rstrip(".") not in _ABBREV and not single_cap:
                    end = i + 1
        if end < 0:
            i += 1
            continue
        while end < n and text[end] in _CLOSERS + "。！？!?.":
            end += 1
        # markers after the end of the sentence
        while True:
            m = re.compile(r"\s*").match(text, end)
            j = m.end() if m else end
            mk = _MARKER.match(text, j)
            if not mk:
                break
            end = mk.end()
            while end < n and text[end] in "。.；;":
                end += 1
        if text[start:end].strip():
            spans.append((start, end))
        start = end
        i = end
    if text[start:].strip():
        spans.append((start, n))
    return spans


def clean(text: str) -> str:
    text = _MARKER.sub("", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__|`)", "", text)
    text = re.sub(r"\s+([.,;:!?。，；：！？])", r"\1", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text


def _ids(text: str) -> list[str]:
    out: list[str] = []
    for m in _MARKER.finditer(text):
        for sid in re.findall(r"S\d+", m.group(1)):
            if sid not in out:
                out.append(sid)
    return out


def _emit(
    text: str, line_of: list[int], out: list[Claim], whole: bool = False, col_of: list[int] | None = None
) -> None:
    """Claims of one block (`line_of[k]` is the report line of character k, `col_of[k]` its column)."""
    spans = [(0, len(text))] if whole else sentence_spans(text)
    for a, b in spans:
        piece = text[a:b]
        ids = _ids(piece)
        if not ids:
            continue
        statement = clean(piece)
        if not re.search(r"\w", statement):
            continue
        first = a + (len(piece) - len(piece.lstrip()))
        last = max(first, a + len(piece.rstrip()) - 1)

        def where(k: int, first: int = first) -> tuple[int, int]:
            k = min(k, len(line_of) - 1)
            return line_of[k], (col_of[k] if col_of and k < len(col_of) else (0 if k == first else 10**6))

        out.append(Claim(statement, ids, line_of[min(first, len(line_of) - 1)], where(first), where(last)))


def claims(report: str) -> list[Claim]:
    """Every cited statement of a Markdown report that cites sources as [S<n>] (also [S3][S7] and
    [S7, S9]): a sentence (English . ! ? and Chinese 。！？；), a list item or a table row. Headings,
    code blocks and uncited sentences are left out."""
    out: list[Claim] = []
    lines = report.splitlines()
    block: list[tuple[int, str, int]] = []  # (line number, text, its column) of the paragraph or list item

    def flush() -> None:
        if not block:
            return
        text = ""
        line_of: list[int] = []
        col_of: list[int] = []
        for no, t, col in block:
            if text:
                sep = "" if is_han(text[-1]) and t and is_han(t[0]) else " "
                text += sep
                line_of.append(no)
                col_of.append(col)
            text += t
            line_of.extend([no] * len(t))
            col_of.extend(range(col, col + len(t)))
        _emit(text, line_of or [block[0][0]], out, col_of=col_of or [0])
        block.clear()

    in_code = False
    fence = ""
    for no, raw in enumerate(lines, 1):
        m = _FENCE.match(raw)
        if in_code:
            if m and m.group(1) == fence:
                in_code = False
            continue
        if m:
            flush()
            in_code, fence = True, m.group(1)
            continue
        if not raw.strip() or _HEADING.match(raw) or raw.lstrip().startswith("<!--"):
            flush()
            continue
        if raw.startswith("    ") and not block and not _LIST.match(raw):
            continue  # indented code
        stripped = raw.strip()
        if stripped.startswith("|") or (stripped.count("|") >= 2 and not block):
            flush()
            if _TABLE_SEP.match(stripped):
                continue
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            row = "; ".join(c for c in cells if c)
            _emit(row, [no] * max(1, len(row)), out, whole=True, col_of=[0] + [10**6] * max(0, len(row) - 1))
            continue
        if _SETEXT.match(raw) and block:
            block.clear()  # the paragraph was a heading
            continue
        text = re.sub(r"^\s*>\s?", "", raw)
        lm = _LIST.match(text)
        if lm:
            flush()
            text = text[lm.end() :]
        stripped_text = text.strip()
        block.append((no, stripped_text, max(0, raw.rfind(stripped_text))))
    flush()
    return out


def is_han(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"
