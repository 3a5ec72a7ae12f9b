"""The view refuses big requests without reading them: a body over the limit gets 413 (at once when
its Content-Length says so, at the limit when it comes in chunks), a heap of headers 431, and the
server's memory stays flat. The largest legitimate request, a 2 MB dashboard save, still passes."""

from __future__ import annotations

import contextlib
import json
import select
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view.limits import MAX_BODY_BYTES, MAX_HEAD_BYTES, MAX_HEADER_BYTES, MAX_HEADERS
from agent_runtime.app.view.workspaces import MAX_DOCUMENT_BYTES
from tests.support.cli import cli_env
from tests.support.view import AUTH, RunningView

SAVE = "/api/dashboards/current_dashboard.md?ws=ssb"


# -- the app (no server) ----------------------------------------------------------------------------
def test_the_largest_dashboard_save_passes(client: TestClient, runs: Path) -> None:
    """A 2 MB dashboard of characters JSON doubles (quotes, backslashes, newlines) still fits."""
    content = '"\\\n' * (MAX_DOCUMENT_BYTES // 3)
    body = json.dumps({"content": content, "base": "0" * 64})
    assert MAX_DOCUMENT_BYTES * 1.9 < len(body) <= MAX_BODY_BYTES
    saved = client.post(SAVE, content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert saved.status_code in (200, 409), saved.text  # 409: the base is not the file's (read in full)
    assert client.post(SAVE, json={"content": content}, headers=AUTH).status_code == 200
    assert (runs / "ssb" / "current_dashboard.md").read_text() == content


def test_a_body_over_the_limit_is_413_in_the_views_json(client: TestClient, runs: Path) -> None:
    before = (runs / "ssb" / "current_dashboard.md").read_text()
    big = json.dumps({"content": "x" * (MAX_BODY_BYTES + 10)})
    refused = client.post(SAVE, content=big, headers={**AUTH, "Content-Type": "application/json"})
    assert refused.status_code == 413 and "request body is over" in refused.json()["error"]
    assert refused.headers["connection"] == "close" and refused.headers["x-frame-options"] == "DENY"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the body is counted as it comes
        yield b'{"content": "'
        for _ in range(MAX_BODY_BYTES // 65_536 + 2):
            yield b"x" * 65_536
        yield b'"}'

    refused = client.post(SAVE, content=chunks(), headers={**AUTH, "Content-Type": "application/json"})
    assert refused.status_code == 413 and "request body is over" in refused.json()["error"]
    assert (runs / "ssb" / "current_dashboard.md").read_text() == before


def test_too_many_or_too_large_headers_are_431(client: TestClient) -> None:
    many = {f"X-Pad-{n}": "1" for n in range(MAX_HEADERS)}
    refused = client.get("/api/workspaces", headers={**AUTH, **many})
    assert refused.status_code == 431 and "headers" in refused.json()["error"]
    large = client.get("/api/workspaces", headers={**AUTH, "X-Pad": "y" * MAX_HEADER_BYTES})
    assert large.status_code == 431
    assert client.get("/api/workspaces", headers={**AUTH, "X-Pad": "y" * 4_000}).status_code == 200


# -- the real server --------------------------------------------------------------------------------
def _rss_bytes(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return None


def _connect(view: RunningView) -> socket.socket:
    port = int(view.base.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    return sock


def _head(view: RunningView, method: str, path: str, *headers: tuple[str, str]) -> bytes:
    host = view.base.removeprefix("http://")
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", *(f"{name}: {value}" for name, value in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _read_to_end(sock: socket.socket) -> bytes:
    """All the server sends until it closes the connection (a reset after its answer counts as a
    close: it had not read what was sent after the limit)."""
    received = b""
    while True:
        try:
            data = sock.recv(65_536)
        except ConnectionResetError:
            return received
        if not data:
            return received
        received += data


def _parsed(response: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


def _answered_json_error(response: bytes, status: int) -> dict[str, str]:
    code, headers, body = _parsed(response)
    assert code == status, response[:300]
    assert headers.get("connection") == "close" and headers["content-type"].startswith("application/json")
    payload: dict[str, str] = json.loads(body[: int(headers["content-length"])])
    return payload


@pytest.mark.slow
def test_the_server_refuses_big_requests_before_reading_them_and_its_memory_stays_flat(
    runs: Path, view_process: Callable[..., RunningView]
) -> None:
    view = view_process(runs, cli_env())
    token = ("X-Token", view.token)
    with httpx.Client(base_url=view.base, headers={"X-Token": view.token}, timeout=30) as client:
        assert client.get("/api/workspaces").status_code == 200
    rss_before = _rss_bytes(view.process.pid)

    # (a) Content-Length: 300 MB, then a trickle of bytes: the 413 comes before the body is sent.
    with _connect(view) as sock:
        sock.sendall(_head(view, "POST", SAVE, token, ("Content-Type", "application/json"),
                           ("Content-Length", "300000000")))  # fmt: skip
        sent = 0
        while sent < 16_384:
            readable, _, _ = select.select([sock], [], [], 5)
            if readable:
                break
            try:
                sock.sendall(b"x" * 1024)
            except OSError:  # the server answered and closed meanwhile
                break
            sent += 1024
        response = _read_to_end(sock)
    assert sent < 16_384, "no answer while the body trickled in"
    assert "request body is over" in _answered_json_error(response, 413)["error"]

    # (b) A chunked body that goes on past the limit: 413 at the limit, and the connection closed.
    with _connect(view) as sock:
        sock.sendall(_head(view, "POST", SAVE, token, ("Content-Type", "application/json"),
                           ("Transfer-Encoding", "chunked")))  # fmt: skip
        chunk = b"x" * 65_536
        frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        sent = 0
        while sent < 16 * MAX_BODY_BYTES:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sock.sendall(frame)
            except OSError:  # refused and closed: the rest was never read
                break
            sent += len(chunk)
        response = _read_to_end(sock)  # returns only once the server has closed the connection
    assert sent < 16 * MAX_BODY_BYTES, "the server read on past the limit"
    assert "request body is over" in _answered_json_error(response, 413)["error"]

    # (c) Too many headers, too large ones (431 in the view's JSON), a head far over what the parser
    # holds (uvicorn's own 400; one that arrives whole in one read may reach the 431): never a 200.
    pads = [(f"X-Pad-{n}", "1") for n in range(MAX_HEADERS + 1)]
    for headers, statuses in (
        (pads, {431}),
        ([("X-Pad", "y" * MAX_HEADER_BYTES)], {431}),
        ([("X-Pad", "y" * (MAX_HEAD_BYTES + 1))], {400, 431}),
        ([("X-Pad", "y" * 2_000_000)], {400}),
    ):
        with _connect(view) as sock:
            with contextlib.suppress(OSError):  # a head too long is refused while it is sent
                sock.sendall(_head(view, "GET", "/api/workspaces", token, *headers))
            response = _read_to_end(sock)
        status, _, _ = _parsed(response)
        assert status in statuses, response[:300]
        if status == 431:
            assert "headers are too large" in _answered_json_error(response, 431)["error"]

    # A 300 MB body with the token once grew the server by 640 MB; now the attempts leave it flat.
    rss_after = _rss_bytes(view.process.pid)
    if rss_before is not None and rss_after is not None:
        assert rss_after - rss_before < 50_000_000, (rss_before, rss_after)

    # The view still serves, and a save goes through the real server's body reading.
    with httpx.Client(base_url=view.base, headers={"X-Token": view.token}, timeout=30) as client:
        assert client.post(SAVE, json={"content": "# Mine\n"}).status_code == 200
        assert client.get("/api/workspaces").status_code == 200
    assert (runs / "ssb" / "current_dashboard.md").read_text() == "# Mine\n"
    view.process.send_signal(signal.SIGINT)
    _, err = view.process.communicate(timeout=15)
    assert view.process.returncode == 0, err
    assert "Traceback" not in err and "Exception" not in err, err


@pytest.mark.slow
@pytest.mark.parametrize("length", ["300000000", str(MAX_BODY_BYTES + 1)])
def test_a_request_without_the_token_is_refused_before_its_body_too(
    runs: Path, view_process: Callable[..., RunningView], length: str
) -> None:
    view = view_process(runs, cli_env())
    with _connect(view) as sock:
        sock.sendall(_head(view, "POST", SAVE, ("Content-Length", length)))
        status, headers, _ = _parsed(_read_to_end(sock))
    assert status == 403 and headers["connection"] == "close"
