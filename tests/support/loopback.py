"""A web server on 127.0.0.1 for the tests and the benchmarks, which give it their own answers.

`LoopbackServer(answer)` listens on a free port of 127.0.0.1 and serves HTTP/1.1 from a daemon
thread; `answer(handler)` answers every GET (it calls `handler.send_response`, … and writes
`handler.wfile`; `send` does all of it for a whole body). Given a `Traffic`, it records there
each request and each connection accepted, before any answer. It logs nothing, and its backlog
is 64: the default of 5 drops simultaneous connections.

    with LoopbackServer(answer) as server:
        url = f"http://127.0.0.1:{server.port}/"
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

Handler = http.server.BaseHTTPRequestHandler
Answer = Callable[[Handler], None]


@dataclass
class Traffic:
    """What reached a server: each request's path (with its query), in order of arrival, and how
    many connections it accepted. `lock` guards them (and whatever else a subclass counts)."""

    requests: list[str] = field(default_factory=list)
    connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def untouched(self) -> bool:
        """True if nothing reached the server, not even a connection."""
        return not self.requests and self.connections == 0


class LoopbackServer:
    """A running server on 127.0.0.1:`port`; `stop()` (or the end of a `with` block) ends it."""

    def __init__(self, answer: Answer, traffic: Traffic | None = None) -> None:
        seen = traffic if traffic is not None else Traffic()
        self.traffic = seen

        class RequestHandler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with seen.lock:
                    seen.requests.append(self.path)
                answer(self)

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 64

            def verify_request(self, request: Any, client_address: Any) -> bool:
                with seen.lock:
                    seen.connections += 1
                return True

        self.server = Server(("127.0.0.1", 0), RequestHandler)
        self.port: int = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def send(
    handler: Handler,
    body: bytes,
    *,
    status: int = 200,
    content_type: str = "text/html; charset=utf-8",
    headers: Mapping[str, str] | None = None,
) -> None:
    """Answer with the whole of `body`: the status, its Content-Type, `headers` and its length."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
