"""A run's event log as server-sent events: `.runtime/events.jsonl` tailed while it grows.

The run appends one JSON line per event and flushes it at once; a reader may catch the last line
half written, and the file may not exist yet when the page opens (a run about to start). So the
tail keeps a byte offset, hands out only complete lines, and waits for the file to appear. Each
batch of events carries the offset after it as its SSE id: a browser that reconnects sends it back
(Last-Event-ID) and the stream continues where it stopped, without repeating an event.

A long run's log grows to hundreds of MB, and parsing it costs 40-80 ms per MB. So the reading and
parsing happen in a worker thread, never on the event loop that serves every other request, and a
client starting from the beginning of a log longer than RECENT_BYTES gets only its last RECENT_BYTES
(from a line's start), after a `skipped` message saying how much came before.

Messages: `log` (a JSON list of events), `skipped` (the bytes of the log not sent), `state` (the
run's figures, see workspaces.summary, sent when they change), `reset` (the log was replaced: start
again), and a comment every 15 s so that proxies and the browser keep the connection.

The workspace list has a stream of its own (`list_stream`): the whole list once, then only the rows
that changed (`changes`), so an open page no longer fetches the whole list every few seconds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from agent_runtime.app.run_state import CHUNK_BYTES as CHUNK_BYTES  # one read, one SSE message
from agent_runtime.app.run_state import (
    EventTail as EventTail,  # the tail lives beside the run's other readers
)
from agent_runtime.app.view.responses import json_text
from agent_runtime.app.view.workspaces import summary
from agent_runtime.engine.workspace import Workspace

RECENT_BYTES = 4_000_000  # of a long log, what a client starting from its beginning gets
POLL_SECONDS = 0.25
STATE_SECONDS = 1.0
LIST_SECONDS = 1.0  # how often the list stream looks for changes, at least
LIST_SHARE = 0.05  # of a core, at most, that one open page's list stream spends looking
PING_SECONDS = 15.0


def _message(kind: str, payload: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json_text(payload)}\n\n"


def _batch(tail: EventTail) -> list[str]:
    """The messages for what was appended since the last read (run in a worker thread: reading and
    parsing a megabyte of log takes tens of milliseconds)."""
    events, reset = tail.read()
    messages = [_message("reset", {})] if reset else []
    if events:
        messages.append(_message("log", events, tail.offset))
    return messages


async def stream(
    ws_id: str, workspace: Path, offset: int, stopping: Callable[[], bool]
) -> AsyncIterator[str]:
    """The SSE messages for one workspace, from byte `offset` of its event log, until `stopping()`
    (the server is shutting down) or the client goes away (the response is then cancelled)."""
    tail = EventTail(Workspace(workspace).events_file, offset)
    last_state: dict[str, Any] | None = None
    next_state = next_ping = 0.0
    yield "retry: 1000\n\n"  # reconnect after a second when the connection drops
    if offset == 0:
        skipped = await asyncio.to_thread(tail.start_near_end, RECENT_BYTES)
        if skipped:  # its id is where the log resumes: a reconnect does not skip (nor say it) again
            yield _message("skipped", {"bytes": skipped, "kept": RECENT_BYTES}, skipped)
    while not stopping():
        for message in await asyncio.to_thread(_batch, tail):
            yield message
        now = time.monotonic()
        if now >= next_state:
            state = await asyncio.to_thread(summary, ws_id, workspace)
            if state != last_state:
                yield _message("state", state)
                last_state = state
            next_state = now + STATE_SECONDS
        if now >= next_ping:
            yield ": ping\n\n"
            next_ping = now + PING_SECONDS
        if not tail.more:
            await asyncio.sleep(POLL_SECONDS)


# A running row's elapsed time changes every second: the page counts it on by itself, so it is no
# change worth sending (the row goes out again at the run's next step, with the time then).
_TICKING = ("elapsed", "elapsed_text")


def _row_key(row: dict[str, Any]) -> str:
    return json_text({k: v for k, v in row.items() if k not in _TICKING})


async def list_stream(
    listing: Callable[[], dict[str, Any]], stopping: Callable[[], bool]
) -> AsyncIterator[str]:
    """The workspace list as SSE messages: `list` (the folder and every row) at the start, then
    `changes` ({"rows": rows added or changed, "removed": ids gone, "order": every id in order when
    it changed}) whenever something changed, until `stopping()` or the client goes away.
    `listing()` runs in a worker thread (it reads files)."""
    yield "retry: 1000\n\n"
    started = time.monotonic()
    data = await asyncio.to_thread(listing)
    pause = max(LIST_SECONDS, (time.monotonic() - started) / LIST_SHARE)
    yield _message("list", data)
    seen = {row["id"]: _row_key(row) for row in data["workspaces"]}
    order = list(seen)
    next_ping = time.monotonic() + PING_SECONDS
    while not stopping():
        # A folder so large that a look takes 60 ms is looked at every 1.2 s, not every second.
        wake = time.monotonic() + pause
        while not stopping() and time.monotonic() < wake:  # a stopping view is not kept waiting
            await asyncio.sleep(min(POLL_SECONDS, wake - time.monotonic()))
        if stopping():
            break
        started = time.monotonic()
        data = await asyncio.to_thread(listing)
        pause = max(LIST_SECONDS, (time.monotonic() - started) / LIST_SHARE)
        rows = data["workspaces"]
        keys = {row["id"]: _row_key(row) for row in rows}
        changed = [row for row in rows if seen.get(row["id"]) != keys[row["id"]]]
        removed = [ws for ws in seen if ws not in keys]
        now_order = list(keys)
        if changed or removed:
            change: dict[str, Any] = {"rows": changed, "removed": removed}
            if now_order != order:
                change["order"] = now_order
            yield _message("changes", change)
            next_ping = time.monotonic() + PING_SECONDS
        elif time.monotonic() >= next_ping:
            yield ": ping\n\n"
            next_ping = time.monotonic() + PING_SECONDS
        seen, order = keys, now_order
