"""`deep-researcher view` as a process: it listens on 127.0.0.1 only, prints its URL with the token,
streams the event log (continuing after a reconnect), stops cleanly on Ctrl-C even with a stream
open, and says in one line when the port is taken."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from agent_runtime.app.view.events import CHUNK_BYTES, RECENT_BYTES
from tests.support.cli import cli_env, run_cli
from tests.support.view import RunningView, big_log, sse_messages


def listening_addresses(port: int) -> set[str]:
    """The local addresses listening on `port`, from /proc/net/tcp (and tcp6), in its hex form."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if int(hex_port, 16) == port and state == "0A":  # LISTEN
                found.add(address)
    return found


@pytest.mark.slow
def test_the_view_serves_127_0_0_1_only_streams_the_log_and_stops_cleanly_on_ctrl_c(
    runs: Path, view_process: Callable[..., RunningView]
) -> None:
    log = runs / "ssb" / ".runtime" / "events.jsonl"
    log.write_text(json.dumps({"event": "run_started", "model": "m"}) + "\n")
    view = view_process(runs, cli_env())
    port = int(view.base.rsplit(":", 1)[1])
    if Path("/proc/net/tcp").exists():
        assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else
    with httpx.Client(base_url=view.base, timeout=10) as client:
        assert client.get("/api/workspaces").status_code == 401
        page = client.get(view.url)  # the printed URL: the page, which takes the token from it
        assert page.status_code == 200 and '<script type="module" src="/static/app.js"' in page.text
        assert not client.cookies
        headers = {"X-Token": view.token}
        assert client.get("/api/workspaces", headers=headers).json()["workspaces"][0]["id"] == "ssb"

        with client.stream("GET", "/api/events?ws=ssb", headers=headers) as events:
            messages = sse_messages(events.iter_lines())
            first = next(messages)
            assert first.get("retry") == "1000"
            batch = next(messages)
            assert batch["event"] == "log" and json.loads(batch["data"])[0]["event"] == "run_started"
            offset = batch["id"]
            assert next(messages)["event"] == "state"

        # A reconnect carrying the last id gets only what was appended since.
        with log.open("a") as handle:
            handle.write(json.dumps({"event": "action", "agent": "main", "step": 1, "action": "web_search"}) + "\n")
        with client.stream("GET", "/api/events?ws=ssb", headers={**headers, "Last-Event-ID": offset}) as events:
            messages = sse_messages(events.iter_lines())
            batch = next(m for m in messages if m.get("event") == "log")
            assert [e["event"] for e in json.loads(batch["data"])] == ["action"]
            # Ctrl-C while a stream is open: the view ends at once, without a traceback.
            view.process.send_signal(signal.SIGINT)
            for _ in messages:  # until the server ends the stream
                pass
    out, err = view.process.communicate(timeout=15)
    assert view.process.returncode == 0, err
    assert "Traceback" not in err and err.strip() == ""
    assert "The live view has stopped." in out


@pytest.mark.slow
def test_a_port_in_use_is_one_clear_line(runs: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = run_cli(["view", str(runs), "--port", str(port)], cli_env(), timeout=60)
    assert result.code == 1
    assert result.stderr.strip() == (
        f"deep-researcher: error: port {port} on 127.0.0.1 is in use (another view?); choose another with "
        "--port N, or --port 0 for a free one"
    )


@pytest.mark.slow
def test_a_folder_that_does_not_exist_is_one_clear_line(tmp_path: Path) -> None:
    result = run_cli(["view", str(tmp_path / "nowhere"), "--port", "0"], cli_env(), timeout=60)
    assert result.code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "does not exist: give a workspace, or a folder of workspaces" in result.stderr


def test_the_cli_help_of_view_names_its_port_and_folder() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli", "view", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "--port" in done.stdout and "folder" in done.stdout


@pytest.mark.slow
def test_a_client_from_the_start_of_a_20_mb_log_gets_a_bounded_first_batch_and_others_are_served(
    runs: Path, view_process: Callable[..., RunningView]
) -> None:
    size = big_log(runs / "ssb" / ".runtime" / "events.jsonl", 20)
    view = view_process(runs, cli_env())
    headers = {"X-Token": view.token}
    with httpx.Client(base_url=view.base, headers=headers, timeout=30) as client:
        started = time.monotonic()
        with client.stream("GET", "/api/events?ws=ssb") as events:
            messages = sse_messages(events.iter_lines())
            assert next(messages).get("retry") == "1000"
            note = next(messages)
            assert note["event"] == "skipped" and json.loads(note["data"])["bytes"] == int(note["id"])
            first = next(messages)
            first_seconds = time.monotonic() - started
            assert first["event"] == "log" and int(first["id"]) - int(note["id"]) <= CHUNK_BYTES
            # Another client is served while this one catches up (test_events shows the server's
            # loop turning between two batches).
            with httpx.Client(base_url=view.base, headers=headers, timeout=30) as other:
                assert other.get("/api/summary?ws=ssb").json()["id"] == "ssb"
            sent = len(first["data"])
            for message in messages:  # to the end of the log: its last 4 MB, not 20
                assert time.monotonic() - started < 60
                if message.get("event") == "log":
                    sent += len(message["data"])
                    if int(message["id"]) >= size:
                        break
            assert sent <= RECENT_BYTES + 100_000  # the JSON list's brackets and commas
    assert first_seconds < 10, first_seconds
