"""Loops a weak model falls into, counted so that the loop can nudge and then stop.

Three kinds, each counted over consecutive replies:
- replies with no usable action (text alone, an empty reply, calls that could not be read);
- the same call with the same arguments getting the same result;
- the same action called again and again with nearly the same arguments and nearly the same result
  (a dashboard rewritten six times with a word changed, a search rephrased and finding the same).

Only the same effect again and again is a loop. Similar calls that target something else (another
file path or URL, found in any string argument) or whose results differ are progress: twelve
chapters written one after another from one template are not a loop. Results are compared as the
model would read them: the random boundary of a fenced web text, the call's own arguments echoed
and the name of the file that keeps a long observation do not make a result new.

The watcher only counts and says which limit was reached; what the model is told and how the
run stops is the loop's business.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Literal

NUDGE_AT = 3  # the third time, the model is told
STOP_EXACT_AT = 5  # the same call and result five times: nothing will change
STOP_AT = 6  # no usable action, or near-identical calls, six times: the model is stuck
SIMILAR = 0.9  # SequenceMatcher ratio of two argument texts that count as "nearly the same"
# Only texts this long are compared for near-equality as texts: in short arguments one character is
# a real difference (page 1, page 2). Short arguments are compared value by value instead: equal
# numbers, and texts that are the same words moved (a rephrased query), with the same result.
_SIMILAR_MIN_CHARS = 200
_COMPARED_CHARS = 4_000  # of each argument text: enough to tell, bounded in time
# Two short text arguments (queries, descriptions) are the same request in other words when this
# share of their words is common to both; counted only when the results are nearly the same too.
REPHRASED = 0.5
_ECHO_MIN_CHARS = 4  # an argument this long, repeated in the call's result, is masked there

_URL = re.compile(r"\bhttps?://[^\s<>\"'`]+", re.IGNORECASE)
_PATHLIKE = re.compile(r"(?<![\w./~-])[\w./~-]+")  # runs of path characters, each scanned once
_EXTENSION = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.[^\W\d_][^\W_]{0,7}$")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(
    r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+"
)
# What makes two equal results look different: the random boundary of a fenced web text
# (actions/web/digest.py) and the step-numbered file that keeps a long observation (loop.py).
_BOUNDARY = re.compile(r"(<<<(?:END )?[^<>\n]{1,80}? )[0-9a-f]{12}>>>")
_KEPT_IN = re.compile(r"(; full text: )[^\]\n]+\]")

Kind = Literal["no_action", "same", "similar"]


@dataclass
class Verdict:
    kind: Kind
    count: int
    stop: bool


def nearly_equal(a: str, b: str) -> bool:
    """Long texts that differ a little. Equal texts are not "nearly equal": the same call again with
    a new result is progress (the next chunk of a stream), and with the same result it is counted
    as an exact repeat."""
    if a == b or min(len(a), len(b)) < _SIMILAR_MIN_CHARS:
        return False
    shorter, longer = sorted((len(a), len(b)))
    if longer and shorter / longer < SIMILAR:  # lengths alone rule it out
        return False
    matcher = SequenceMatcher(None, a[:_COMPARED_CHARS], b[:_COMPARED_CHARS], autojunk=False)
    return matcher.quick_ratio() >= SIMILAR and matcher.ratio() >= SIMILAR


def targets(value: Any) -> frozenset[str]:
    """The file paths and URLs named in any string inside `value` (arguments or a result): a call
    that names others does something else."""
    found: set[str] = set()
    for text in _strings(value):
        for url in _URL.findall(text):
            found.add(url.rstrip(".,;:!?)]}"))
        for token in _PATHLIKE.findall(_URL.sub(" ", text)):
            token = token.rstrip(".-")
            token = token[2:] if token.startswith("./") else token
            if not _LETTER.search(token):  # 1/2, 2026/03/01, 3.5
                continue
            if ("/" in token and token.strip("/")) or _file_name(token):
                found.add(token)
    return frozenset(found)


def _file_name(token: str) -> bool:
    """report.md, Notebook.v2.txt; not e.g, U.S, i.e (one letter each side of the dot)."""
    if not _EXTENSION.match(token):
        return False
    stem, _, extension = token.rpartition(".")
    return len(stem) > 1 or len(extension) > 1


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _strings(item)]
    return []


def _words(text: str) -> set[str]:
    """Lower-cased words, a plural taken as its singular; CJK one character a word."""
    words = set()
    for word in _WORD.findall(text.lower()):
        if len(word) > 4 and word.endswith("ies"):
            word = word[:-3] + "y"
        elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return words


def rephrased(a: str, b: str) -> bool:
    """Short texts that say nearly the same in other words (a query with its words moved, a plural
    for a singular, a word added); "page 1" and "page 2" are different requests."""
    words_a, words_b = _words(a), _words(b)
    union = words_a | words_b
    return bool(union) and len(words_a & words_b) / len(union) >= REPHRASED


def _near_value(a: Any, b: Any) -> bool:
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str):
        return rephrased(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_near_value(a[key], b[key]) for key in a)
    return False  # numbers, flags, lists: one value more or less is a different request


def _near_results(a: str, b: str, *, figures: bool) -> bool:
    """The same effect: equal, or long and nearly equal; with `figures`, also short and nearly
    equal (a figure changed, a dashboard's size) naming the same files and URLs."""
    if a == b or nearly_equal(a, b):
        return True
    if not figures or max(len(a), len(b)) >= _SIMILAR_MIN_CHARS:
        return False
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= SIMILAR and targets(a) == targets(b)


def _parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _as_read(result: str, arguments: Any) -> str:
    """The result without what makes the same result look new: random fence boundaries, the file
    a long observation is kept in, and the call's own arguments echoed back (a search's query)."""
    result = _BOUNDARY.sub(r"\1⟨boundary⟩>>>", result)
    result = _KEPT_IN.sub(r"\1⟨file⟩]", result)
    for text in sorted(set(_strings(arguments)), key=len, reverse=True):
        if _ECHO_MIN_CHARS <= len(text) <= _COMPARED_CHARS:
            result = result.replace(text, "⟨argument⟩")
    return result


@dataclass
class _Call:
    name: str
    arguments: str
    parsed: Any
    targets: frozenset[str]
    result: str


class RepeatWatch:
    def __init__(self) -> None:
        self.no_action = 0
        self._exact: tuple[str, int] = ("", 0)
        self._last_call: _Call | None = None
        self._similar = 0

    def reply(self, usable: bool) -> Verdict | None:
        """After each reply: `usable` when at least one of its calls could be run."""
        self.no_action = 0 if usable else self.no_action + 1
        if usable or self.no_action < NUDGE_AT:
            return None
        return Verdict("no_action", self.no_action, self.no_action >= STOP_AT)

    def call(self, name: str, arguments: str, result: str) -> Verdict | None:
        """After each call that ran: `arguments` as canonical JSON text."""
        parsed = _parsed(arguments)
        result = _as_read(result, parsed)
        key = hashlib.sha256(f"{name}\0{arguments}\0{result}".encode()).hexdigest()
        last_key, count = self._exact
        count = count + 1 if key == last_key else 1
        self._exact = (key, count)

        this = _Call(name, arguments, parsed, targets(parsed), result)
        self._similar = self._similar + 1 if self._repeats(this) else 1
        self._last_call = this

        if count >= NUDGE_AT:
            return Verdict("same", count, count >= STOP_EXACT_AT)
        if self._similar >= NUDGE_AT:
            return Verdict("similar", self._similar, self._similar >= STOP_AT)
        return None

    def _repeats(self, this: _Call) -> bool:
        """The same action, aimed at the same files and URLs, asked nearly the same (but not
        exactly: that is the exact count's), with nearly the same result as the call before."""
        last = self._last_call
        if last is None or this.name != last.name or this.targets != last.targets:
            return False
        if this.arguments == last.arguments:  # counted as an exact repeat; a new result is progress
            return False
        if min(len(this.arguments), len(last.arguments)) >= _SIMILAR_MIN_CHARS:
            # Long arguments nearly equal as texts (a dashboard with a word changed), with a result
            # that may differ in a figure (its size). The results first: they are quicker to compare.
            return _near_results(this.result, last.result, figures=True) and nearly_equal(
                this.arguments, last.arguments
            )
        # Short ones value by value, their texts in other words (a query rephrased), with the same
        # result: a short result that changed (a note appended, the file's new size) is progress.
        return _near_results(this.result, last.result, figures=False) and _near_value(
            this.parsed, last.parsed
        )
