"""Parse the near-JSON that models write: fenced code, prose around the object, single quotes,
Python literals, trailing commas, unquoted keys, a missing closing brace, raw newlines and tabs
inside strings, and objects in doubled braces (`{{…}}`, the form some chat templates teach).

Nesting is bounded before anything is parsed: `[[[[…` a hundred thousand deep would otherwise
end in a RecursionError here or in any code that walks the value later."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any

from agent_runtime.errors import NestingTooDeepError

_FENCE = re.compile(r"```(?:json|JSON|javascript|python)?\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_BARE_KEY = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:)")
# What decides nesting: an escape pair (skipped whole), a quote, a bracket.
_STRUCTURE = re.compile(r'\\.|["\[\]{}]', re.DOTALL)
_DOUBLED = re.compile(r"\{\s*\{")
_NON_SPACE = re.compile(r"\S")
# Raw control characters as escapes Python's literal syntax reads (JSON is read with strict=False).
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_RAW_CONTROL = re.compile(r"[\x00-\x1f]")

# Levels of [ and {: far beyond any real tool call, far below Python's recursion limit.
MAX_DEPTH = 64
MAX_CANDIDATES = 16  # spans of one text tried for repair: enough for prose around an object or two


def too_deep(text: str) -> bool:
    """True when `text` nests [ and { deeper than MAX_DEPTH outside double-quoted strings."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # the common case, at C speed
        return False
    depth, in_string = 0, False
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token[0] == "\\":
            continue
        elif token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth = max(0, depth - 1)
    return False


def _braces(text: str) -> Iterator[tuple[int, str]]:
    """Each `{` and `}` outside strings, with its index. Quotes count inside braces only: prose
    around an object has apostrophes. A `}` with no `{` open is not yielded."""
    depth, quote, escaped = 0, "", False
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'" and depth > 0:
            quote = char
        elif char == "{":
            depth += 1
            yield index, char
        elif char == "}" and depth > 0:
            depth -= 1
            yield index, char


def balanced_objects(text: str) -> list[str]:
    """Every top-level `{...}` span in `text`, honouring strings; an unclosed last one is closed."""
    spans: list[str] = []
    depth, start = 0, -1
    for index, brace in _braces(text):
        if brace == "{":
            if depth == 0:
                start = index
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    if depth > 0 and start >= 0:
        spans.append(text[start:] + "}" * depth)
    return spans


def loads_lenient(text: str) -> Any:
    """Parse one JSON value from model text or raise ValueError with a short reason."""
    text = text.strip()
    if not text:
        raise ValueError("empty text")
    if too_deep(text):
        raise NestingTooDeepError(f"nested too deeply (more than {MAX_DEPTH} levels of brackets)")
    first_error: ValueError | None = None
    try:
        return json.loads(text, strict=False)  # strict=False: a raw newline or tab inside a string
    except json.JSONDecodeError as exc:
        first_error = exc
    except (ValueError, RecursionError):
        pass
    spans = [m.group(1) for m in _FENCE.finditer(text)] + balanced_objects(text)
    for candidate in [*spans[:MAX_CANDIDATES], text]:
        # Undoubled after balanced_objects has closed what was left open: `{{…}` is `{{…}}` then.
        value = _repair(undouble_braces(candidate.strip()))
        if value is not None:
            return value
    if isinstance(first_error, json.JSONDecodeError):
        raise ValueError(_where(first_error)) from None
    raise ValueError("not valid JSON and not repairable")


def undouble_braces(text: str) -> str:
    """`{{…}}` read as `{…}`: an object whose only content is another object, as in
    `{{"name": "web_search", "arguments": {{"query": "x"}}}}`, the form chat templates written in
    Jinja teach small models. JSON has no object that begins with `{`, so valid JSON (an object
    holding objects, `}}` side by side) is never changed, nor are braces inside strings. An empty
    inner object is not unwrapped: `{{{{`, closed by `balanced_objects`, is garbage, not `{}`."""
    if _DOUBLED.search(text) is None:  # the common case, at C speed
        return text
    pairs = _brace_pairs(text)
    dropped: set[int] = set()
    for opening, closing in pairs.items():
        inner = _NON_SPACE.search(text, opening + 1)
        if inner is None or inner.start() not in pairs:
            continue
        inner_closing = pairs[inner.start()]
        after_inner = _NON_SPACE.search(text, inner_closing + 1)
        empty = _NON_SPACE.search(text, inner.start() + 1, inner_closing) is None
        if not empty and after_inner is not None and after_inner.start() == closing:
            dropped.update((opening, closing))
    return "".join(char for index, char in enumerate(text) if index not in dropped)


def _brace_pairs(text: str) -> dict[int, int]:
    """The index of each `{` outside strings, mapped to the index of the `}` that closes it."""
    pairs: dict[int, int] = {}
    open_at: list[int] = []
    for index, brace in _braces(text):
        if brace == "{":
            open_at.append(index)
        else:
            pairs[open_at.pop()] = index
    return pairs


def _escape_raw_controls(text: str) -> str:
    """Raw control characters inside quoted strings written as escapes: Python's literal syntax,
    unlike json.loads(strict=False), refuses a newline inside a quoted string."""
    if _RAW_CONTROL.search(text) is None:
        return text
    out: list[str] = []
    quote, escaped = "", False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            elif char < " ":
                char = _ESCAPES.get(char, f"\\x{ord(char):02x}")
        elif char in "\"'":
            quote = char
        out.append(char)
    return "".join(out)


def _where(exc: json.JSONDecodeError) -> str:
    """Where the JSON breaks, so a model can fix that one place: an unescaped quote, a missing comma."""
    before = exc.doc[max(0, exc.pos - 40) : exc.pos].replace("\n", " ")
    after = exc.doc[exc.pos : exc.pos + 15].replace("\n", " ")
    hint = '; a quote inside a string is written \\"' if "delimiter" in exc.msg else ""
    return (
        f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno} (…{before}⟨here⟩{after}…){hint}"
    )


def _repair(text: str) -> Any:
    attempts = [text, _TRAILING_COMMA.sub(r"\1", text)]
    attempts.append(_BARE_KEY.sub(r'\1"\2"\3', attempts[-1]))
    for attempt in attempts:
        try:
            return json.loads(attempt, strict=False)
        except (ValueError, RecursionError):
            pass
    # Single quotes, True/False/None: Python's literal syntax is a superset worth trying.
    pythonish = re.sub(
        r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", attempts[-1]))
    )
    try:
        value = ast.literal_eval(_escape_raw_controls(pythonish))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None
