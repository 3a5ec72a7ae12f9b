"""The event log tailed for the page: complete lines only, a file that appears later, torn lines
skipped, a replaced file started again, and the SSE messages built from them."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

from agent_runtime.app.view.events import CHUNK_BYTES, RECENT_BYTES, EventTail, stream
from tests.support.view import big_log, line


def test_the_tail_hands_out_complete_lines_only_and_waits_for_a_file_that_appears_later(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    tail = EventTail(log)
    assert tail.read() == ([], False)  # not there yet
    log.write_bytes(line(event="run_started") + line(event="model_call", step=1) + b'{"event": "act')
    assert tail.read() == ([{"event": "run_started"}, {"event": "model_call", "step": 1}], False)
    assert tail.read() == ([], False)  # the third line is still being written
    with log.open("ab") as handle:
        handle.write(b'ion", "step": 1}\n')
    assert tail.read() == ([{"event": "action", "step": 1}], False)
    with log.open("ab") as handle:  # a line torn by a killed run, ended by the next append
        handle.write(b'{"event": "mod\n' + line(event="run_ended"))
    assert tail.read() == ([{"event": "run_ended"}], False)
    assert tail.offset == log.stat().st_size and not tail.more


def test_a_replaced_log_is_read_again_from_its_start(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_bytes(line(event="a") + line(event="b"))
    tail = EventTail(log)
    tail.read()
    log.write_bytes(line(event="c"))
    assert tail.read() == ([{"event": "c"}], True)


def test_a_tail_starts_at_a_given_offset(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    first = line(event="a")
    log.write_bytes(first + line(event="b"))
    assert EventTail(log, len(first)).read() == ([{"event": "b"}], False)


async def test_the_stream_sends_events_with_their_offset_then_the_state(runs: Path) -> None:
    log = runs / "ssb" / ".runtime" / "events.jsonl"
    log.write_bytes(line(event="run_started", model="m") + line(event="model_call", step=1, agent="main"))
    rounds = {"n": 0}

    def stopping() -> bool:
        rounds["n"] += 1
        return rounds["n"] > 1  # one round

    messages = [m async for m in stream("ssb", runs / "ssb", 0, stopping)]
    assert messages[0] == "retry: 1000\n\n"
    head, data = messages[1].split("data: ", 1)
    assert head == f"id: {log.stat().st_size}\nevent: log\n"
    assert [e["event"] for e in json.loads(data)] == ["run_started", "model_call"]
    kind, state = messages[2].split("data: ", 1)
    assert kind == "event: state\n" and json.loads(state)["title"] == "Solid-state batteries"
    assert messages[3] == ": ping\n\n"


def test_a_tail_from_the_start_of_a_long_log_starts_at_a_line_within_its_last_bytes(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    size = big_log(log, 3)
    tail = EventTail(log)
    skipped = tail.start_near_end(1_000_000)
    assert size - 1_000_000 <= skipped < size - 1_000_000 + 600 and tail.offset == skipped
    assert log.read_bytes()[skipped - 1 : skipped] == b"\n"  # a line's start
    events, _ = tail.read()
    assert events and all(e["event"] in ("model_call", "action") for e in events)
    short = tmp_path / "short.jsonl"
    short.write_bytes(line(event="run_started"))
    assert EventTail(short).start_near_end(1_000_000) == 0


async def test_a_client_from_0_on_a_20_mb_log_gets_its_last_4_mb_without_holding_the_server(runs: Path) -> None:
    """Reading and parsing happen off the event loop: between two batches the server runs its other
    work (another request, another client's stream), here a task counting its turns."""
    log = runs / "ssb" / ".runtime" / "events.jsonl"
    size = big_log(log, 20)
    turns = 0

    async def other_work() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    worker = asyncio.create_task(other_work())
    try:
        messages = stream("ssb", runs / "ssb", 0, lambda: False)
        assert await anext(messages) == "retry: 1000\n\n"
        head, data = (await anext(messages)).split("data: ", 1)
        skipped = json.loads(data)["bytes"]
        assert head == f"id: {skipped}\nevent: skipped\n" and size - RECENT_BYTES <= skipped < size - RECENT_BYTES + 600
        batches, turns_at = [], []
        while not batches or int(batches[-1][0]) < size:
            message = await anext(messages)
            if message.startswith("id: "):
                offset, _, data = message[4:].partition("\nevent: log\ndata: ")
                batches.append((offset, json.loads(data)))
                turns_at.append(turns)
        await messages.aclose()
    finally:
        worker.cancel()
    assert len(batches) in (4, 5) and int(batches[0][0]) - skipped <= CHUNK_BYTES  # 1 MB reads, cut at lines
    assert batches[0][1][0]["event"] in ("model_call", "action")  # a whole first line
    assert all(later > earlier for earlier, later in itertools.pairwise(turns_at)), turns_at
