"""The File agent's reading actions: read_file, stream_read_file and continue_stream_read.

Every observation fits the observation limit by itself: a file over it is shown from its
beginning with the way to read on. A stream remembers a byte offset, not an open descriptor,
and lives in the run's services (`ctx.services`), so it carries over from one file_operation to the
next; each chunk reopens the file through the path policy and checks it is still the same file.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Literal

from actions.files.common import (
    Encoding,
    Line,
    TextFile,
    body_budget,
    count_lines,
    file_policy,
    human_size,
    line_offset,
    offered,
    open_text,
    plural,
    read_lines,
)
from agent_runtime.engine.registry import action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError

MAX_CHUNK_LINES = 10_000
MAX_STREAMS = 16  # the oldest streams are forgotten past this many
_RANGE = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?$")


# ----------------------------------------------------------------- read_file


def _header(text_file: TextFile, extra: str = "") -> str:
    note = f" · {text_file.encoding.note}" if text_file.encoding.note else ""
    return f"[{text_file.shown} · {human_size(text_file.size)}{extra}{note}]"


def _fit(lines: list[Line], budget: int, numbered_from: int | None = None) -> tuple[list[Line], str]:
    """The leading lines whose text (numbered when asked) fits `budget` characters, and that text.
    A piece of a long line is kept only when it comes first, so something is always shown."""
    taken: list[Line] = []
    parts: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        text = line.text
        if numbered_from is not None:
            text = f"{numbered_from + index:>6}\t{text.rstrip(chr(10)).rstrip(chr(13))}\n"
        if used + len(text) > budget and taken:
            break
        if not line.complete and taken:
            break
        taken.append(line)
        parts.append(text)
        used += len(text)
    return taken, "".join(parts)


def _parse_range(lines: str) -> tuple[int, int | None]:
    match = _RANGE.match(lines)
    first = int(match.group(1)) if match else 0
    last = (int(match.group(3)) if match.group(3) else None) if match and match.group(2) else first
    if not match or first < 1 or (last is not None and last < first):
        raise ActionError(
            f'lines={lines!r} is not a line range: write first-last counted from 1, e.g. "1-100", '
            '"250-300", "42" (one line) or "900-" (to the end)'
        )
    return first, last


def _read_full(text_file: TextFile, budget: int, streams: bool) -> str:
    """The file from its beginning; `streams`: the agent has stream_read_file (not in the compact
    profile, whose agent is never told of an action it lacks)."""
    if text_file.text_bytes == 0:
        return f"[{text_file.shown} · empty file]"
    if text_file.text_bytes <= budget:
        text_file.handle.seek(text_file.encoding.bom)
        text = text_file.encoding.decode(text_file.handle.read())
        if len(text) <= budget:
            count = text.count("\n") + (0 if text.endswith("\n") else 1)
            return f"{_header(text_file, ' · ' + plural(count, 'line'))}\n{text}"
    taken, text = _fit(read_lines(text_file, text_file.encoding.bom, MAX_CHUNK_LINES, budget), budget)
    total = count_lines(text_file)
    shown = len([line for line in taken if line.complete])
    quoted = f'"{text_file.shown}"'
    if shown == 0:
        return (
            f"{_header(text_file, f' · {total:,} lines')} Its first line alone is over the limit of one read; "
            f"here are its first {len(text):,} characters."
            + (f" Read it all with stream_read_file({quoted})." if streams else "")
            + f"\n{text}"
        )
    return (
        f"{_header(text_file, f' · {total:,} lines')} The file is over the limit of one read "
        f"({len(text):,} characters); here are lines 1-{shown} of {total:,}.\n{text}"
        + ("" if text.endswith("\n") else "\n")
        + f'[to read on: read_file({quoted}, mode="lines", lines="{shown + 1}-{shown + 100}")'
        + (f", or stream_read_file({quoted}) to read the whole file chunk by chunk]" if streams else "]")
    )


def _read_range(text_file: TextFile, lines: str, budget: int, streams: bool) -> str:
    first, last = _parse_range(lines)
    offset = line_offset(text_file, first)
    if offset is None:
        total = count_lines(text_file)
        raise ActionError(f"{text_file.shown} has {total:,} lines; line {first} does not exist")
    wanted = MAX_CHUNK_LINES if last is None else min(last - first + 1, MAX_CHUNK_LINES)
    taken, text = _fit(read_lines(text_file, offset, wanted, budget), budget, numbered_from=first)
    end = first + len(taken) - 1
    more = text_file.size > offset + sum(line.size for line in taken)
    header = _header(text_file, f" · lines {first}-{end}")
    footer = ""
    if taken and not taken[-1].complete:
        footer = f"[line {first} is longer than one read allows" + (
            f'; read it with stream_read_file("{text_file.shown}")]' if streams else "; search_in_file finds a passage in it]"
        )
    elif more and (last is None or end < last):
        footer = f'[the output limit was reached at line {end}; read on with lines="{end + 1}-{last or ""}"]'
    elif not more and last is not None and end < last:
        footer = f"[end of file: line {end} is the last line]"
    return f"{header}\n{text}{footer}".rstrip("\n")


@action
async def read_file(
    ctx: ActionContext, file_path: str, mode: Literal["full", "lines"] = "full", lines: str = "1-100"
) -> str:
    """Read a text file. mode="full" returns the whole file when it fits in one read (about
    7,000 characters); a longer file comes back from its beginning with how to read on.
    mode="lines" returns the lines asked for, each prefixed with its line number (use it to find
    line numbers before inserting). Files that are not UTF-8 are decoded, with a note; binary files
    are refused.

    Args:
        file_path: the file, e.g. "Notebook/01_introduction.md".
        mode: "full" for the whole file, or "lines" for the range given in `lines`.
        lines: with mode="lines": first-last counted from 1, e.g. "1-100", "42", or "900-" to the end.
    """
    policy, budget, streams = file_policy(ctx), body_budget(ctx), offered(ctx, "stream_read_file")

    def work() -> str:
        with open_text(policy, file_path) as text_file:
            if mode == "full":
                return _read_full(text_file, budget, streams)
            return _read_range(text_file, lines, budget, streams)

    return await asyncio.to_thread(work)


# ----------------------------------------------------------------- streams


@dataclass
class Stream:
    id: str
    path: str  # workspace-relative, reopened through the policy for every chunk
    device: int
    inode: int
    encoding: Encoding
    total_lines: int
    chunk_size: int
    offset: int
    next_line: int = 1
    mid_line: bool = False  # the next chunk starts inside a line
    finished: bool = False


@dataclass
class StreamTable:
    streams: dict[str, Stream] = field(default_factory=dict)
    opened: int = 0

    def new_id(self) -> str:
        self.opened += 1
        return f"s{self.opened}"

    def keep(self, stream: Stream) -> None:
        self.streams[stream.id] = stream
        while len(self.streams) > MAX_STREAMS:  # finished streams go first, then the oldest
            oldest = min(self.streams.values(), key=lambda s: (not s.finished, int(s.id[1:])))
            del self.streams[oldest.id]


def _table(ctx: ActionContext) -> StreamTable:
    return ctx.services.get(StreamTable, StreamTable)


def _chunk(text_file: TextFile, stream: Stream, budget: int) -> str:
    """The next chunk of `stream`, advancing it."""
    first, started_mid = stream.next_line, stream.mid_line
    taken, text = _fit(read_lines(text_file, stream.offset, stream.chunk_size, budget), budget)
    for line in taken:
        stream.offset += line.size
        stream.mid_line = not line.complete
        stream.next_line += 1 if line.complete else 0
    stream.finished = stream.offset >= text_file.size
    last = stream.next_line - 1 if not stream.mid_line else stream.next_line
    if not taken:
        span = "the file is empty" if stream.finished else "nothing new"
    else:
        span = f"lines {first}-{max(last, first)} of {stream.total_lines:,}"
        span += " (starts inside that line)" if started_mid else ""
    done = stream.offset - stream.encoding.bom
    whole = max(text_file.text_bytes, 1)
    header = (
        f"[stream {stream.id} · {stream.path} · {span} · {done:,} of {text_file.text_bytes:,} bytes read "
        f"({100 * done // whole}%)" + (f" · {stream.encoding.note}" if stream.encoding.note else "") + "]"
    )
    if stream.finished:
        footer = f"[end of file: stream {stream.id} is finished]"
    else:
        cut = f"line {stream.next_line} continues in the next chunk; " if stream.mid_line else ""
        footer = f'[{cut}more: continue_stream_read("{stream.id}")]'
    return f"{header}\n{text}" + ("" if not text or text.endswith("\n") else "\n") + footer


@action
async def stream_read_file(ctx: ActionContext, file_path: str, chunk_size: int = 1000) -> str:
    """Start reading a large file chunk by chunk: returns the first chunk and a stream id
    (e.g. "s1"); call continue_stream_read with that id for each next chunk until it says
    "end of file". A chunk holds at most chunk_size lines and at most about 7,000 characters.
    Streams stay open across file operations of the same run.

    Args:
        file_path: the file, e.g. "Notebook/sources_digest.md".
        chunk_size: the most lines in one chunk, 1-10000.
    """
    if not 1 <= chunk_size <= MAX_CHUNK_LINES:
        raise ActionError(f"chunk_size must be between 1 and {MAX_CHUNK_LINES:,} lines, not {chunk_size}")
    policy, budget, table = file_policy(ctx), body_budget(ctx), _table(ctx)

    def work() -> str:
        with open_text(policy, file_path) as text_file:
            stream = Stream(
                id=table.new_id(),
                path=text_file.shown,
                device=text_file.device,
                inode=text_file.inode,
                encoding=text_file.encoding,
                total_lines=count_lines(text_file),
                chunk_size=chunk_size,
                offset=text_file.encoding.bom,
            )
            table.keep(stream)
            return _chunk(text_file, stream, budget)

    return await asyncio.to_thread(work)


@action
async def continue_stream_read(ctx: ActionContext, stream_id: str) -> str:
    """Return the next chunk of a stream started with stream_read_file.

    Args:
        stream_id: the id that stream_read_file gave, e.g. "s1".
    """
    policy, budget, table = file_policy(ctx), body_budget(ctx), _table(ctx)
    stream = table.streams.get(stream_id.strip())
    if stream is None:
        known = ", ".join(f"{s.id} ({s.path}, next line {s.next_line})" for s in table.streams.values())
        raise ActionError(
            f"there is no stream {stream_id!r}; "
            + (f"open streams: {known}" if known else "no stream is open")
            + ". Start one with stream_read_file(file_path)."
        )
    if stream.finished:
        raise ActionError(
            f"stream {stream.id} already reached the end of {stream.path}; to read it again start a "
            "new stream with stream_read_file"
        )

    def work() -> str:
        with open_text(policy, stream.path) as text_file:
            if (text_file.device, text_file.inode) != (stream.device, stream.inode):
                raise ActionError(
                    f"{stream.path} was replaced since stream {stream.id} began (it was rewritten or "
                    "deleted); start a new stream with stream_read_file"
                )
            if text_file.size < stream.offset:
                raise ActionError(
                    f"{stream.path} is now shorter than where stream {stream.id} stopped; start a new "
                    "stream with stream_read_file"
                )
            return _chunk(text_file, stream, budget)

    return await asyncio.to_thread(work)
