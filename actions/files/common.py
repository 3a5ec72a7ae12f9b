"""What the File agent's actions share: the workspace policy they work under, opening a text file
safely, telling text from binary, decoding, and reading by lines from a byte offset.

Nothing here loads a large file whole: lines are read from an offset in pieces bounded in bytes,
and searches go through the file in blocks that end at a line end, so a 100 MB file is read in
a few megabytes of memory at most.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from agent_runtime.domain.layout import CURRENT_DASHBOARD, OVERALL_DASHBOARD, SOURCES
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.workspace import RUNTIME, TRASH
from agent_runtime.errors import ActionError, BinaryFileError, SandboxError
from sandbox.paths import PathPolicy

_DASHBOARD_REASON = (
    "the dashboards change only through the main agent's own dashboard actions; "
    "say in your answer what should change there"
)
READ_ONLY = {
    OVERALL_DASHBOARD: _DASHBOARD_REASON,
    CURRENT_DASHBOARD: _DASHBOARD_REASON,
    SOURCES: "sources/ holds the snapshots of retrieved sources, written by the runtime",
    RUNTIME: ".runtime/ holds the run's metadata, event log and saved observations, written by the runtime",
}

SAMPLE_BYTES = 8192  # enough to tell text from binary and to guess the encoding
BLOCK_BYTES = 4 << 20  # searches read this much at a time
HEADER_ROOM = 600  # characters of an observation kept for its header and footer lines

# Bytes that may appear in text; anything else below 0x20 counts towards "binary".
_TEXT_BYTES = bytes(range(0x20, 0x100)) + b"\t\n\r\f\b\x1b"
_MAGIC = {
    b"%PDF-": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"PK\x03\x04": "a ZIP archive (or an Office document)",
    b"\x1f\x8b": "a gzip archive",
    b"\x7fELF": "a program",
    b"SQLite format 3\x00": "an SQLite database",
}


# Left out of the compact profile (a small context window): what the others do too, at the cost
# of a tool description in every request.
COMPACT_LEAVES_OUT = frozenset(
    {"create_file", "file_search", "stream_read_file", "continue_stream_read", "create_directory"}
)


def offered(ctx: ActionContext, name: str) -> bool:
    """True when the File agent has the action `name` in this run: an observation names only those
    (a small model told of an action it lacks calls it)."""
    return not (ctx.settings.compact() and name in COMPACT_LEAVES_OUT)


def file_policy(ctx: ActionContext) -> PathPolicy:
    """The File agent's view of the run's workspace (`workspace_policy`)."""
    return workspace_policy(ctx.workspace.root)


def workspace_policy(root: Path) -> PathPolicy:
    """The agents' view of a workspace: everything readable, the dashboards, sources/ and the
    runtime's files read-only, and .trash/ out of listings and searches."""
    return PathPolicy(root, read_only=READ_ONLY, hidden=(TRASH,))


@dataclass
class FileLocks:
    """One lock per file, for the run: File operations running at the same time (the calls of one
    reply run together) never interleave their changes to one file."""

    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def of(self, key: str) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())


async def change_file(ctx: ActionContext, file_path: str, change: Callable[[], str]) -> str:
    """Run `change` (a read-modify-write of `file_path`) holding that file's lock, in a worker
    thread: a large file's rewrite does not hold up the agents working beside it."""
    try:
        key = str(file_policy(ctx).check_writable(file_path))
    except SandboxError:
        return change()  # refused: the change raises the policy's own message
    async with ctx.services.get(FileLocks, FileLocks).of(key):
        return await asyncio.to_thread(change)


def body_budget(ctx: ActionContext) -> int:
    """Characters of file text one observation may carry, so the loop never has to cut it."""
    return max(400, ctx.settings.max_observation_chars - HEADER_ROOM)


def plural(count: int, word: str, words: str | None = None) -> str:
    """ "1 line", "2 lines", "1 entry", "3 entries"."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    value = size / 1024
    for unit in ("KB", "MB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


# ----------------------------------------------------------------- encodings


@dataclass(frozen=True)
class Encoding:
    codec: str  # utf-8 | utf-16-le | utf-16-be | cp1252 | latin-1
    bom: int  # bytes of byte-order mark at the start of the file
    note: str  # a sentence for the model when the file is not plain UTF-8, else ""

    @property
    def newline(self) -> bytes:
        return "\n".encode(self.codec)

    def decode(self, data: bytes) -> str:
        return data.decode(self.codec, errors="replace")


def binary_kind(sample: bytes) -> str | None:
    """What a non-text file looks like ("a PDF document"), or None for text."""
    for magic, kind in _MAGIC.items():
        if sample.startswith(magic):
            return kind
    if b"\x00" in sample:
        return "binary data"
    controls = len(sample.translate(None, _TEXT_BYTES))
    if sample and controls / len(sample) > 0.10:
        return "binary data"
    return None


def sniff(sample: bytes, *, complete: bool) -> Encoding:
    """The encoding of a file from its first bytes: a BOM, else UTF-8, else Windows-1252 or
    Latin-1 with a note. Raises BinaryFileError (message: the kind) for a binary file."""
    if sample.startswith(codecs.BOM_UTF8):
        return Encoding("utf-8", 3, "")
    # UTF-16 is checked before the binary test: its text is full of NUL bytes.
    if sample.startswith(codecs.BOM_UTF16_LE):
        return Encoding("utf-16-le", 2, "note: the file is UTF-16 text, decoded for you")
    if sample.startswith(codecs.BOM_UTF16_BE):
        return Encoding("utf-16-be", 2, "note: the file is UTF-16 text, decoded for you")
    kind = binary_kind(sample)
    if kind is not None:
        raise BinaryFileError(kind)
    try:
        # Incremental: a character cut at the end of the sample is not an error.
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=complete)
        return Encoding("utf-8", 0, "")
    except UnicodeDecodeError:
        pass
    try:
        sample.decode("cp1252")
        return Encoding("cp1252", 0, "note: the file is not UTF-8; it was decoded as Windows-1252 (cp1252)")
    except UnicodeDecodeError:
        return Encoding("latin-1", 0, "note: the file is not UTF-8; it was decoded as Latin-1 (ISO-8859-1)")


# ----------------------------------------------------------------- opening


@dataclass
class TextFile:
    """An open text file: its workspace-relative path, handle, size, identity and encoding."""

    shown: str
    handle: BinaryIO
    size: int
    device: int
    inode: int
    encoding: Encoding

    def __enter__(self) -> TextFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    @property
    def text_bytes(self) -> int:
        return self.size - self.encoding.bom


def open_checked(policy: PathPolicy, user_path: str) -> tuple[BinaryIO, str]:
    """Open a file the policy allows for reading, seekable; return it and its relative path.

    The policy checks the path and opens it once itself (through folder descriptors, without
    following a link planted later): its refusals carry the messages. The file is then opened
    again here for seeking, without following a final symlink, and where the descriptor really
    points is checked to be inside the workspace, so a swap between the two opens is caught.
    """
    target = policy.resolve(user_path)
    shown = policy.relative(target)
    if not os.path.lexists(target):
        raise ActionError(f"{shown} does not exist; list_directory shows what is there")
    policy.read_bytes(user_path, limit=0)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ActionError(f"cannot open {shown}: {exc.strerror or exc}") from None
    handle = os.fdopen(fd, "rb")
    try:
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # no /proc: compare the opened file with what the path names now
            if not os.path.samestat(os.fstat(fd), os.stat(policy.resolve(user_path))):
                raise SandboxError(f"{shown} changed while it was being opened; try again") from None
        else:
            policy.relative(Path(real.removesuffix(" (deleted)")))  # PathEscapeError outside
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ActionError(f"{shown} is not a regular file")
    except BaseException:
        handle.close()
        raise
    return handle, shown


def open_text(policy: PathPolicy, user_path: str) -> TextFile:
    """Open a text file (see `open_checked`); a binary file is refused with BinaryFileError."""
    handle, shown = open_checked(policy, user_path)
    try:
        info = os.fstat(handle.fileno())
        sample = handle.read(SAMPLE_BYTES)
        try:
            encoding = sniff(sample, complete=len(sample) < SAMPLE_BYTES)
        except BinaryFileError as exc:
            raise BinaryFileError(
                f"{shown} is {exc} ({human_size(info.st_size)}), not a text file: it cannot be read, "
                "searched or edited as text"
            ) from None
        return TextFile(shown, handle, info.st_size, info.st_dev, info.st_ino, encoding)
    except BaseException:
        handle.close()
        raise


# ----------------------------------------------------------------- reading by lines


@dataclass
class Line:
    text: str  # decoded, with its newline when it has one
    size: int  # bytes in the file
    complete: bool  # False: a piece of a line longer than the byte budget; the rest follows


def find_newline(data: bytes, newline: bytes, start: int) -> int:
    """The next newline at or after `start`; for UTF-16 only at a code-unit boundary."""
    index = data.find(newline, start)
    unit = len(newline)
    while unit > 1 and index >= 0 and index % unit:
        index = data.find(newline, index + 1)
    return index


def _rfind_newline(data: bytes, newline: bytes) -> int:
    index = data.rfind(newline)
    unit = len(newline)
    while unit > 1 and index >= 0 and index % unit:
        index = data.rfind(newline, 0, index + unit - 1)
    return index


def char_boundary(data: bytes, encoding: Encoding) -> int:
    """The longest prefix of `data` that does not end inside a character."""
    cut = len(data)
    if encoding.codec == "utf-8":
        start = cut - 1
        while start > 0 and data[start] & 0xC0 == 0x80:  # continuation bytes
            start -= 1
        lead = data[start] if data else 0
        length = 1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4
        if start + length > cut:
            cut = start
    elif encoding.codec.startswith("utf-16"):
        cut -= cut % 2
    return cut or len(data)


def read_lines(text_file: TextFile, offset: int, max_lines: int, max_bytes: int) -> list[Line]:
    """Up to `max_lines` lines from byte `offset`, at most `max_bytes` bytes in all. A single line
    longer than `max_bytes` comes back as a piece (complete=False)."""
    encoding = text_file.encoding
    newline = encoding.newline
    max_bytes -= max_bytes % len(newline)
    text_file.handle.seek(offset)
    data = text_file.handle.read(max_bytes)
    lines: list[Line] = []
    pos = 0
    while len(lines) < max_lines:
        index = find_newline(data, newline, pos)
        if index < 0:
            break
        end = index + len(newline)
        lines.append(Line(encoding.decode(data[pos:end]), end - pos, True))
        pos = end
    if len(lines) < max_lines and pos < len(data):
        if len(data) < max_bytes:  # the end of the file: its last line has no newline
            lines.append(Line(encoding.decode(data[pos:]), len(data) - pos, True))
        elif not lines:
            cut = char_boundary(data, encoding)
            lines.append(Line(encoding.decode(data[:cut]), cut, False))
    return lines


def iter_blocks(text_file: TextFile, block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[int, str]]:
    """The file's text in blocks that end at a line end, each with the number of its first line.
    A line longer than two blocks is cut (at a character boundary) rather than held whole."""
    encoding = text_file.encoding
    newline = encoding.newline
    block_bytes -= block_bytes % len(newline)
    text_file.handle.seek(encoding.bom)
    line, carry = 1, b""
    while True:
        data = text_file.handle.read(block_bytes)
        buffer = carry + data if carry else data
        if not data:
            if buffer:
                yield line, encoding.decode(buffer)
            return
        index = _rfind_newline(buffer, newline)
        if index >= 0:
            cut = index + len(newline)
        elif len(buffer) < 2 * block_bytes:
            carry = buffer
            continue
        else:
            cut = char_boundary(buffer, encoding)
        text = encoding.decode(buffer[:cut])
        yield line, text
        line += text.count("\n")
        carry = buffer[cut:]


def _raw_blocks(text_file: TextFile, block_bytes: int = 1 << 20) -> Iterator[bytes]:
    text_file.handle.seek(text_file.encoding.bom)
    while data := text_file.handle.read(block_bytes):
        yield data


def count_lines(text_file: TextFile) -> int:
    """Lines in the file (a last line without a newline counts), in bounded memory."""
    encoding, count, last = text_file.encoding, 0, b""
    for data in _raw_blocks(text_file):
        count += data.count(b"\n") if len(encoding.newline) == 1 else encoding.decode(data).count("\n")
        last = data
    if last and not last.endswith(encoding.newline):
        count += 1
    return count


def line_offset(text_file: TextFile, number: int) -> int | None:
    """The byte offset where line `number` (from 1) starts, or None past the last line."""
    encoding = text_file.encoding
    newline = encoding.newline
    offset, needed = encoding.bom, number - 1
    if needed > 0:
        for data in _raw_blocks(text_file):
            found = data.count(newline) if len(newline) == 1 else None
            if found is not None and found < needed:  # fast path: the line is further on
                needed, offset = needed - found, offset + len(data)
                continue
            index = -1
            while needed and (index := find_newline(data, newline, index + 1)) >= 0:
                needed -= 1
            if needed == 0:
                offset += index + len(newline)
                break
            offset += len(data)
    return offset if needed == 0 and offset < text_file.size else None


def split_lines(text: str) -> list[str]:
    """Lines with their newlines, split on "\\n" only (as every line number here counts them)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines
