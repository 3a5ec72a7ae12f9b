"""Shared test doubles for the web actions: a real HTTP server on 127.0.0.1 whose routes a test
sets and which records every request, a minimal PDF writer, and an ActionContext on a fresh
workspace. Every server binds 127.0.0.1 and stops by itself at the end of its test."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from actions.web.fetch import Fetcher
from actions.web.search import ProviderChain
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.testing import scratch_context
from tests.loopback import Handler, LoopbackServer, Traffic

# --------------------------------------------------------------------------------------------------
# A minimal PDF (one Helvetica text object per page), written by hand: no PDF library needed.
# --------------------------------------------------------------------------------------------------


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def build_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A valid PDF whose pages hold the given lines of (Latin-1) text."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for index, lines in enumerate(pages):
        content_id = page_ids[index] + 1
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {content_id} 0 R >>".encode()
        )
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 740 Td"]
        for line in lines:
            ops.append(f"{_pdf_string(line)} Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    info_id = None
    if title is not None:
        objects.append(f"<< /Title {_pdf_string(title)} >>".encode("latin-1"))
        info_id = len(objects)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R"
    if info_id is not None:
        trailer += f" /Info {info_id} 0 R"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


@pytest.fixture
def make_pdf() -> Callable[..., bytes]:
    return build_pdf


# --------------------------------------------------------------------------------------------------
# A real HTTP server on 127.0.0.1
# --------------------------------------------------------------------------------------------------


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line
    stall: float = 0.0  # seconds of silence after half of the body
    size: int | None = None  # stream this many bytes of `body` repeated (for huge responses)
    endless: bool = False  # stream `body` over and over in chunked encoding, never ending


@dataclass
class WebServer(Traffic):
    port: int = 0
    # path (with or without its query) -> the answer, or a function of the full path that makes it
    routes: dict[str, Route | Callable[[str], Route]] = field(default_factory=dict)
    active: int = 0
    max_active: int = 0
    stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def wait(self, seconds: float) -> None:
        """Sleep, but end early when the server stops (so no test waits on a sleeping handler)."""
        self.stopping.wait(seconds)


def _handle(state: WebServer, handler: Handler) -> None:
    with state.lock:
        state.active += 1
        state.max_active = max(state.max_active, state.active)
    try:
        _answer(state, handler)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client stopped reading: the byte cap or the deadline
    finally:
        with state.lock:
            state.active -= 1


def _answer(state: WebServer, handler: Handler) -> None:
    found = state.routes.get(handler.path) or state.routes.get(handler.path.split("?", 1)[0])
    route = found(handler.path) if callable(found) else found
    if route is None:
        route = Route(404, b"<html><body><h1>Not found</h1></body></html>")
    if route.delay:
        state.wait(route.delay)
    length = route.size if route.size is not None else len(route.body)
    handler.send_response(route.status)
    if route.content_type:
        handler.send_header("Content-Type", route.content_type)
    for name, value in route.headers.items():
        handler.send_header(name, value)
    if route.endless:
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        chunk = b"%x\r\n" % len(route.body) + route.body + b"\r\n"
        while not state.stopping.is_set():
            handler.wfile.write(chunk)
        return
    handler.send_header("Content-Length", str(length))
    handler.end_headers()
    if route.size is not None:
        sent = 0
        while sent < length and not state.stopping.is_set():
            chunk = route.body[: length - sent]
            handler.wfile.write(chunk)
            sent += len(chunk)
        return
    half = len(route.body) // 2
    handler.wfile.write(route.body[:half])
    handler.wfile.flush()
    if route.stall:
        state.wait(route.stall)
    handler.wfile.write(route.body[half:])


@pytest.fixture
def make_server() -> Iterator[Callable[[], WebServer]]:
    """Start as many servers as a test needs; all stop when it ends."""
    started: list[tuple[WebServer, LoopbackServer]] = []

    def factory() -> WebServer:
        state = WebServer()
        server = LoopbackServer(partial(_handle, state), state)
        state.port = server.port
        started.append((state, server))
        return state

    yield factory
    for state, server in started:
        state.stopping.set()
        server.stop()


@pytest.fixture
def web_server(make_server: Callable[[], WebServer]) -> WebServer:
    return make_server()


@pytest.fixture
def second_server(make_server: Callable[[], WebServer]) -> WebServer:
    return make_server()


# --------------------------------------------------------------------------------------------------
# An ActionContext on a fresh workspace
# --------------------------------------------------------------------------------------------------

ContextFactory = Callable[..., ActionContext]


@pytest.fixture
async def make_ctx(tmp_path: Path) -> AsyncIterator[ContextFactory]:
    made: list[ActionContext] = []

    def factory(**settings: Any) -> ActionContext:
        ctx = scratch_context(tmp_path / f"ws{len(made)}", **settings)
        made.append(ctx)
        return ctx

    yield factory
    for ctx in made:
        await ctx.services.aclose()
        assert ctx.services.peek(Fetcher) is None and ctx.services.peek(ProviderChain) is None
        ctx.events.close()
