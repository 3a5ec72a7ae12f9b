"""Secrets never leave the process: one redaction for everything it writes or prints.

What is masked, wherever it appears:
- the values registered as secrets (the API key, the search providers' keys, any setting whose name
  says key, token, secret or password): ``sk-proj-abc…xyz`` becomes ``sk-…wxyz``;
- the user-info of a URL: ``https://user:secret@host/v1`` becomes ``https://user:***@host/v1``;
- the value of a secret-looking query parameter (``key``, ``api_key``, ``token``, ``sig``,
  ``password``…): ``?key=abc`` becomes ``?key=***``;
- a bearer token: ``Authorization: Bearer abc`` becomes ``Bearer ***``.

Two strengths. `redact` masks all four, and covers what the runtime says about itself: every
event, run.json, the crash log, the CLI's stdout and stderr and the view's answers.
`redact_secrets` masks only the registered values, and covers every other file the runtime writes
(`atomic_write_text`: reports, notes, snapshots, the ledger), whose URLs and words are the sources'
own and must stay as they are (a public `?key=` link, "standard-bearer"). The patterns never cross a
quotation mark or a backslash, so JSON stays JSON. Only values that look like keys are registered
(long enough, letters and digits, no path): "ollama" as a local server's key masks nothing.
Registration is process-wide: a secret once known stays masked until the process ends.
"""

from __future__ import annotations

import io
import re
import sys
import threading
from collections.abc import Iterable
from typing import TextIO

__all__ = ["RedactingStream", "mask", "print_unmasked", "redact", "redact_secrets", "register_secrets"]

_MIN_SECRET = 12  # shorter values ("ollama", "test-key") are words, not keys
_secrets: set[str] = set()
_lock = threading.Lock()
_pattern: re.Pattern[str] | None = None

_NOT_IN_URL = "\\s/@:\"'<>,\\\\"  # whitespace, separators, quotes, backslash: a pattern never crosses JSON
_USERINFO = re.compile(rf"(?i)\b([a-z][a-z0-9+.-]{{1,15}}://)([^{_NOT_IN_URL}]+)(?::([^{_NOT_IN_URL}]+))?@")
_QUERY = re.compile(
    r"(?i)([?&;](?:api[_-]?key|apikey|key|access[_-]?token|refresh[_-]?token|token|auth|sig|signature|"
    r"password|passwd|pwd|secret|client[_-]?secret|x-api-key)=)([^&#\s\"'<>\\]+)"
)
# A bearer token after "Authorization:", or a token-like value (16+ characters with a digit).
_BEARER = re.compile(
    r"(?i)(authorization:\s*bearer\s+)([A-Za-z0-9._~+/=-]{8,})"
    r"|(\bbearer\s+)(?=[A-Za-z0-9._~+/=-]*\d)([A-Za-z0-9._~+/=-]{16,})"
)
# A variable or setting holding a secret: OPENAI_API_KEY, HF_TOKEN, DB_PASSWORD (not MAX_TOKENS).
SECRET_NAME = re.compile(r"(?i)(?:^|_)(?:api_?key|key|token|access_token|secret|password|passwd)$")


def mask(secret: str) -> str:
    """A secret's masked form: enough to recognise which one it was, not to use it."""
    if len(secret) >= 16:
        return f"{secret[:3]}…{secret[-4:]}"
    return "…" + secret[-2:] if len(secret) >= 10 else "***"


def register_secrets(values: Iterable[str | None]) -> None:
    """Values never to write or print (empty and very short ones are ignored)."""
    global _pattern
    fresh = {v.strip() for v in values if v and _looks_like_key(v.strip())}
    with _lock:
        if fresh - _secrets:
            _secrets.update(fresh)
            ordered = sorted(_secrets, key=len, reverse=True)  # the longest first: no half-masked key
            _pattern = re.compile("|".join(re.escape(s) for s in ordered))


def _looks_like_key(value: str) -> bool:
    return (
        len(value) >= _MIN_SECRET
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not any(c in value for c in "/\\ \t\n")
    )


def redact_secrets(text: str) -> str:
    """`text` with the registered secret values masked, and nothing else changed."""
    pattern = _pattern
    if pattern is not None and text:
        text = pattern.sub(lambda m: mask(m.group(0)), text)
    return text


def redact(text: str) -> str:
    """`text` with every secret masked (see the module's docstring)."""
    text = redact_secrets(text)
    if "://" in text and "@" in text:
        text = _USERINFO.sub(_userinfo, text)
    if "=" in text:
        text = _QUERY.sub(lambda m: m.group(1) + "***", text)
    if "earer" in text:
        text = _BEARER.sub(lambda m: (m.group(1) or m.group(3)) + "***", text)
    return text


def _userinfo(m: re.Match[str]) -> str:
    scheme, user, password = m.group(1), m.group(2), m.group(3)
    if password is None:  # https://token@host: the one part is the secret
        return f"{scheme}***@"
    return f"{scheme}{user}:***@"


class RedactingStream(io.TextIOBase):
    """A text stream that redacts what is written to it, then writes it to `target` (stdout or
    stderr of the CLI). Written line by line so that a secret split across two writes is still
    caught; a partial line is held until its end or a flush."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self._pending = ""

    def write(self, text: str) -> int:
        data = self._pending + text
        cut = max(data.rfind("\n"), data.rfind("\r")) + 1  # a live status line ends in \r
        self._pending = data[cut:]
        if cut:
            self.target.write(redact(data[:cut]))
        if len(self._pending) > 4096:  # a live status line that never ends: write it anyway
            self.target.write(redact(self._pending))
            self._pending = ""
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.target.write(redact(self._pending))
            self._pending = ""
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")


def print_unmasked(text: str) -> None:
    """`text` on stdout as it is, past a RedactingStream: for the one line a person must copy whole
    (the live view's URL with its token), never for anything a run or a page wrote."""
    out = sys.stdout.target if isinstance(sys.stdout, RedactingStream) else sys.stdout
    out.write(text)
    out.flush()
