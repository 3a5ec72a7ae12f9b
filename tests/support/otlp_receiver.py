"""An OTLP/HTTP trace receiver on 127.0.0.1, for the tests and the benchmark of the traces.

It is what a collector (Jaeger, Phoenix, Langfuse, an OpenTelemetry Collector) is to the runtime:
POST /v1/traces with an `ExportTraceServiceRequest` in protobuf, decoded here with the official
`opentelemetry-proto` package, never with the SDK that sent it. Each span is kept with its
resource, and each request's raw body and headers, so that a test can look for a secret anywhere
in what was sent.

    with OtlpReceiver() as receiver:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.url
        ...
        spans = receiver.wait_for(lambda spans: any(s.name.startswith("invoke_agent") for s in spans))
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


@dataclass
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_id: str  # "" for a root span
    kind: int
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    links: list[tuple[str, str, dict[str, Any]]]  # trace id, span id, attributes
    status_code: int  # 0 unset, 1 ok, 2 error
    status_message: str
    resource: dict[str, Any]
    start_ns: int
    end_ns: int


@dataclass
class Received:
    spans: list[ReceivedSpan] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)  # decompressed protobuf, as sent
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _decode(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    return body


class OtlpReceiver:
    """Listens on a free port of 127.0.0.1 from a daemon thread until the block ends."""

    def __init__(self, delay: float = 0.0) -> None:
        self.received = Received()
        self.delay = delay  # seconds before each answer: a slow collector
        received, receiver = self.received, self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = _decode(self.rfile.read(length), self.headers.get("Content-Encoding", ""))
                if receiver.delay:
                    time.sleep(receiver.delay)
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                spans = [
                    ReceivedSpan(
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        kind=span.kind,
                        attributes=_attributes(span.attributes),
                        events=[(e.name, _attributes(e.attributes)) for e in span.events],
                        links=[
                            (ln.trace_id.hex(), ln.span_id.hex(), _attributes(ln.attributes))
                            for ln in span.links
                        ],
                        status_code=span.status.code,
                        status_message=span.status.message,
                        resource=_attributes(resource_spans.resource.attributes),
                        start_ns=span.start_time_unix_nano,
                        end_ns=span.end_time_unix_nano,
                    )
                    for resource_spans in request.resource_spans
                    for scope_spans in resource_spans.scope_spans
                    for span in scope_spans.spans
                ]
                with received.lock:
                    received.spans.extend(spans)
                    received.bodies.append(body)
                    received.headers.append({k.lower(): v for k, v in self.headers.items()})
                answer = ExportTraceServiceResponse().SerializeToString()
                with contextlib.suppress(OSError):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/x-protobuf")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                with contextlib.suppress(OSError):  # a client that gave up on a slow answer
                    self.wfile.write(answer)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def spans(self) -> list[ReceivedSpan]:
        with self.received.lock:
            return list(self.received.spans)

    def raw(self) -> bytes:
        """Everything that was sent, end to end: where a secret must not be."""
        with self.received.lock:
            return b"".join(self.received.bodies)

    def wait_for(
        self, done: Callable[[list[ReceivedSpan]], bool], timeout: float = 20.0
    ) -> list[ReceivedSpan]:
        """The spans once `done` holds for them (the exporter sends in batches, from a thread)."""
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            spans = self.spans
            if done(spans):
                return spans
            time.sleep(0.05)
        return self.spans

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
