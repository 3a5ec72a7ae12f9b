"""Requests and files the view cannot serve get a clear 4xx, never a 500 with a traceback: a
non-ASCII or huge event offset, a workspace name too long for the file system, file and folder
names that are not UTF-8, text holding lone surrogates. Whatever slips through still answers one
JSON 500 and one line in the terminal."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view import server
from agent_runtime.app.view.events import stream
from agent_runtime.app.view.responses import Contained
from agent_runtime.app.view.server import create_app
from agent_runtime.app.view.workspaces import Folder
from tests.support.cli import cli_env
from tests.support.view import AUTH, ORIGIN, PORT, TOKEN, RunningView, make_workspace

BAD_OFFSETS = ["²", "9" * 5000, "-1", "1e3", " 7", "0x10", "12345678901234567890123"]


def not_utf8(folder: Path, name: bytes) -> Path:
    """A path in `folder` whose last name is the given bytes (not valid UTF-8)."""
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + name))


@pytest.mark.parametrize("given", BAD_OFFSETS)
def test_an_event_offset_that_is_not_a_plain_number_is_a_400(runs: Path, given: str) -> None:
    stopped = threading.Event()
    stopped.set()  # a stream the offset was taken for ends after one round instead of running on
    with TestClient(create_app(Folder(runs), TOKEN, PORT, stopped), base_url=ORIGIN) as client:
        for answer in (
            client.get("/api/events", params={"ws": "ssb", "from": given}, headers=AUTH),
            client.get("/api/events?ws=ssb", headers={**AUTH, "Last-Event-ID": given.encode()}),
        ):
            assert answer.status_code == 400, given
            assert answer.json()["error"].startswith("the event offset (from= or Last-Event-ID) must be")


def test_a_workspace_name_too_long_for_the_file_system_is_a_404(client: TestClient) -> None:
    answer = client.get("/api/summary", params={"ws": "a" * 300}, headers=AUTH)
    assert answer.status_code == 404 and "is not a research workspace in this folder" in answer.json()["error"]


def test_names_that_are_not_utf8_are_left_out_and_the_rest_is_listed(client: TestClient, runs: Path) -> None:
    make_workspace(not_utf8(runs, b"bad\xff"), "Not UTF-8")
    not_utf8(runs / "ssb" / "Notebook", b"note\xfe.md").write_text("x\n")
    not_utf8(runs / "ssb" / "Notebook", b"dir\xfe").mkdir()
    (not_utf8(runs / "ssb" / "Notebook", b"dir\xfe") / "inner.md").write_text("x\n")
    listed = client.get("/api/workspaces", headers=AUTH)
    assert listed.status_code == 200 and [w["id"] for w in listed.json()["workspaces"]] == ["ssb"]
    files = client.get("/api/notebook?ws=ssb", headers=AUTH)
    assert files.status_code == 200 and files.json()["files"] == ["Notebook/01_costs.md"]


def test_a_served_workspace_whose_own_name_is_not_utf8_is_shown_escaped(runs: Path) -> None:
    workspace = make_workspace(not_utf8(runs, b"ws\xff"))
    with TestClient(create_app(Folder(workspace), TOKEN, PORT), base_url=ORIGIN) as served:
        answer = served.get("/api/workspaces", headers=AUTH)
    assert answer.status_code == 200
    assert answer.json()["workspaces"][0]["folder"] == "ws\udcff"  # a lone surrogate, as JSON escapes it


async def test_an_event_holding_a_lone_surrogate_is_streamed(runs: Path) -> None:
    log = runs / "ssb" / ".runtime" / "events.jsonl"
    log.write_text(json.dumps({"event": "action", "error": "cut \ud800 here"}) + "\n")  # as json.dumps writes it
    rounds = iter([False, True])
    messages = [m async for m in stream("ssb", runs / "ssb", 0, lambda: next(rounds))]
    batch = next(m for m in messages if m.startswith("id: "))
    batch.encode("utf-8")  # what the response does with it: it must not fail
    assert json.loads(batch.split("data: ", 1)[1]) == [{"event": "action", "error": "cut \ud800 here"}]


def test_an_unexpected_error_is_one_json_500_and_one_line(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(server, "summary", broken)
    answer = client.get("/api/summary?ws=ssb", headers=AUTH)
    assert answer.status_code == 500
    assert answer.json() == {"error": "the view failed to answer this request (see its terminal)"}
    assert answer.headers["content-security-policy"]  # still behind the guard
    logged = capsys.readouterr().err
    assert logged.count("\n") == 1 and "Traceback" not in logged
    assert "GET /api/summary: RuntimeError: disk on fire second line" in logged


async def test_a_response_failing_after_it_started_is_ended_and_logged(capsys: pytest.CaptureFixture[str]) -> None:
    async def streaming(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"part", "more_body": True})
        raise OSError("gone")

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.disconnect"}

    await Contained(streaming)({"type": "http", "method": "GET", "path": "/x"}, receive, send)
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.slow
def test_the_view_process_answers_every_bad_request_without_a_traceback(
    runs: Path, view_process: Callable[..., RunningView]
) -> None:
    make_workspace(not_utf8(runs, b"bad\xff"), "Not UTF-8")
    not_utf8(runs / "ssb" / "Notebook", b"note\xfe.md").write_text("x\n")
    (runs / "ssb" / ".runtime" / "events.jsonl").write_text(json.dumps({"event": "note", "text": "\ud800"}) + "\n")
    view = view_process(runs, cli_env())
    headers = {"X-Token": view.token}
    with httpx.Client(base_url=view.base, headers=headers, timeout=10) as client:
        for given in BAD_OFFSETS:
            with client.stream("GET", "/api/events", params={"ws": "ssb", "from": given}) as refused:
                assert refused.status_code == 400, given
        assert client.get("/api/summary", params={"ws": "a" * 300}).status_code == 404
        assert [w["id"] for w in client.get("/api/workspaces").json()["workspaces"]] == ["ssb"]
        assert client.get("/api/notebook?ws=ssb").json()["files"] == ["Notebook/01_costs.md"]
        with client.stream("GET", "/api/events?ws=ssb") as events:
            lines = events.iter_lines()
            data = next(line for line in lines if line.startswith("data: "))
            assert json.loads(data[6:]) == [{"event": "note", "text": "\ud800"}]
    view.process.send_signal(signal.SIGINT)
    _, err = view.process.communicate(timeout=15)
    assert err.strip() == "", err
