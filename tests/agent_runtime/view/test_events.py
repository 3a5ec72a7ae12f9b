"""The event log tailed for the page: complete lines only, a file that appears later, torn lines
skipped, a replaced file started again, and the SSE messages built from them."""

from __future__ import annotations

import json
from pathlib import Path

from agent_runtime.view.events import EventTail, stream


def line(**fields: object) -> bytes:
    return (json.dumps(fields) + "\n").encode()


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
