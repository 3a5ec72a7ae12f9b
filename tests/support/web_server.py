"""The web actions' test server: a real HTTP server on 127.0.0.1 whose routes a test sets (slow,
stalled, endless, huge answers) and which records every request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from agent_runtime.engine.run_context import ActionContext
from tests.support.loopback import Handler, LoopbackServer, Traffic


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


ContextFactory = Callable[..., ActionContext]


def serve(state: WebServer) -> LoopbackServer:
    """Start a loopback server answering from `state`'s routes; `state.port` is its port."""
    server = LoopbackServer(partial(_handle, state), state)
    state.port = server.port
    return server
