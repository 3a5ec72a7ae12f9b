"""OpenTelemetry traces of runs: the real tracer behind agent_runtime/engine/tracing.py, and the
run's root span.

Only with the `otel` extra installed and OTEL_EXPORTER_OTLP_ENDPOINT (or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set is anything imported or sent; OTEL_SDK_DISABLED=true or
OTEL_TRACES_EXPORTER=none turn it off. The SDK reads its own variables as it defines them: the
headers (a Langfuse or Phoenix key), OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, the timeout,
compression, certificates and the batch processor's OTEL_BSP_*.

A collector never slows or fails a run: spans leave in batches from the SDK's own thread, an export
waits at most EXPORT_SECONDS (unless OTEL_EXPORTER_OTLP_TIMEOUT says otherwise), the first failure
is one warning on stderr and the next are silent. A run's end (finished, budget, Ctrl-C, SIGTERM)
flushes its spans, waiting at most FLUSH_SECONDS and not at all for a collector that refuses
connections.

Every string sent goes through the one redaction (sandbox/redaction.py); message and page text only
with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (engine/tracing cuts each text).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import importlib.util
import json
import logging
import os
import socket
import sys
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, unquote, urlsplit

from agent_runtime.engine import tracing
from agent_runtime.engine.tracing import Attributes, AttributeValue, Span
from sandbox import atomic_write_text
from sandbox.redaction import redact, register_secrets

if TYPE_CHECKING:
    from agent_runtime.app.researcher import Researcher, RunResult

EXPORT_SECONDS = 5.0  # one export request, unless OTEL_EXPORTER_OTLP(_TRACES)_TIMEOUT is set
FLUSH_SECONDS = 2.0  # the most a run's end waits for its spans to leave
PROBE_SECONDS = 0.5  # "does the collector accept connections?" before waiting for it
MAX_STRING = 32_000  # any one attribute value; engine/tracing keeps message JSON well within it
INSTALL_HINT = "pip install 'deep-researcher[otel]'"
TRACE_FILE = "trace.json"  # in the workspace's .runtime/: the run's id and its first trace
ATTRIBUTES_VARIABLE = "DEEP_RESEARCHER_TRACE_ATTRIBUTES"  # k=v,… on a run's root span (batch children)

# Attributes a caller gives the runs it starts in this context (the serve command: the request's id).
run_attributes: contextvars.ContextVar[Mapping[str, AttributeValue] | None] = contextvars.ContextVar(
    "run_attributes", default=None
)


@contextlib.contextmanager
def attributes(**values: AttributeValue) -> Iterator[None]:
    """Runs started inside the block carry `values` on their root span (a dot in a name: "__")."""
    given = {name.replace("__", "."): value for name, value in values.items()}
    token = run_attributes.set({**(run_attributes.get() or {}), **given})
    try:
        yield
    finally:
        run_attributes.reset(token)


# -- where traces go ---------------------------------------------------------------------------------
def _true(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() == "true"


def traces_endpoint(env: Mapping[str, str] | None = None) -> str | None:
    """The URL spans are posted to, as the SDK resolves it; None when traces are off."""
    env = os.environ if env is None else env
    if _true(env, "OTEL_SDK_DISABLED") or env.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return None
    signal = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if signal:
        return signal
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if not base:
        return None
    return base + ("v1/traces" if base.endswith("/") else "/v1/traces")


def extra_installed() -> bool:
    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http.trace_exporter")
        )
    except ImportError:  # a parent package is missing or broken
        return False


def _grpc_asked(env: Mapping[str, str]) -> bool:
    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or ""
    return protocol.strip().lower() == "grpc"


def _header_names(env: Mapping[str, str]) -> list[str]:
    raw = env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS") or ""
    return [unquote(pair.split("=", 1)[0]).strip() for pair in raw.split(",") if "=" in pair]


def _header_values(env: Mapping[str, str]) -> list[str]:
    raw = ",".join(
        env.get(name, "") for name in ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")
    )
    values = [unquote(pair.split("=", 1)[1]).strip() for pair in raw.split(",") if "=" in pair]
    # "Basic abc…" / "Bearer abc…": the credential is the last word
    return values + [value.split()[-1] for value in values if " " in value]


def _accepts_connections(url: str, timeout: float = PROBE_SECONDS) -> bool:
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname or "localhost", port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def describe(env: Mapping[str, str] | None = None) -> tuple[Literal["ok", "warn", "note"], str]:
    """`check`'s line on traces: (verdict, text)."""
    env = os.environ if env is None else env
    url = traces_endpoint(env)
    if url is None:
        off = _true(env, "OTEL_SDK_DISABLED") or env.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none"
        why = (
            "turned off (OTEL_SDK_DISABLED / OTEL_TRACES_EXPORTER)"
            if off
            else "OTEL_EXPORTER_OTLP_ENDPOINT is not set"
        )
        return "note", f"not sent: {why} (see the docs' page on Phoenix / Langfuse / Jaeger)"
    shown = redact(url)
    if not extra_installed():
        return "warn", f"not sent to {shown}: the OpenTelemetry packages are missing: {INSTALL_HINT}"
    if _grpc_asked(env):
        return "warn", (
            f"not sent to {shown}: OTLP over gRPC is not supported; set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf "
            "and the collector's OTLP/HTTP port (4318)"
        )
    names = _header_names(env)
    with_headers = f" with header{'s' if len(names) > 1 else ''} {', '.join(names)}" if names else ""
    capture = (
        "; message text included" if _true(env, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT") else ""
    )
    if not _accepts_connections(url, timeout=2.0):
        return (
            "warn",
            f"sent to {shown}{with_headers}, but nothing answers there now: runs go on without traces",
        )
    return "ok", f"sent to {shown} (OTLP/HTTP){with_headers}{capture}"


# -- the tracer ---------------------------------------------------------------------------------------
def _clean(value: AttributeValue | None) -> Any:
    """A value as it may leave the process: strings redacted and bounded; None: not sent."""
    if isinstance(value, str):
        text = redact(value)
        return text if len(text) <= MAX_STRING else text[:MAX_STRING] + "…"
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [_clean(str(item)) for item in value]
    return None


def _cleaned(attributes: Attributes) -> dict[str, Any]:
    return {key: cleaned for key, value in attributes.items() if (cleaned := _clean(value)) is not None}


class _OtelSpan:
    def __init__(self, span: Any) -> None:
        self.span = span

    def set(self, attributes: Attributes) -> None:
        self.span.set_attributes(_cleaned(attributes))

    def event(self, name: str, attributes: Attributes) -> None:
        self.span.add_event(name, _cleaned(attributes))

    def fail(self, error_type: str, description: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        self.span.set_attribute("error.type", error_type)
        self.span.set_status(Status(StatusCode.ERROR, _clean(description)))


class OtelTracer:
    """The engine's Tracer over an OpenTelemetry SDK tracer (of our own provider: an application
    that embeds the runtime keeps its global one)."""

    def __init__(self, tracer: Any, capture_content: bool) -> None:
        self._tracer = tracer
        self.capture_content = capture_content

    @contextlib.contextmanager
    def span(self, name: str, attributes: Attributes, links: list[Any] | None = None) -> Iterator[Span]:
        from opentelemetry.trace import SpanKind

        kind = SpanKind.CLIENT if name.startswith("chat ") else SpanKind.INTERNAL
        with self._tracer.start_as_current_span(
            name, kind=kind, attributes=_cleaned(attributes), links=links,
            record_exception=False, set_status_on_exception=False,  # their text is not redacted
        ) as span:  # fmt: skip
            handle = _OtelSpan(span)
            try:
                yield handle
            except (KeyboardInterrupt, asyncio.CancelledError):
                handle.fail("cancelled", "interrupted or stopped by a time budget")
                raise
            except Exception as exc:
                handle.fail(type(exc).__name__, f"{type(exc).__name__}: {exc}"[:500])
                raise


class _Exports:
    """The SDK's exporter, saying once, in our words, that the collector cannot be reached."""

    def __init__(self, exporter: Any, url: str) -> None:
        self.exporter = exporter
        self.url = url
        self.failed = False
        self.first_error = ""  # the SDK's first complaint: a status, a timeout

    def warn(self) -> None:
        if not self.failed:
            self.failed = True
            if not _accepts_connections(self.url):
                reason = " (nothing accepts connections there)"
            else:
                reason = f" ({self.first_error})" if self.first_error else ""
            print(
                redact(f"deep-researcher: warning: traces could not be sent to {self.url}{reason}; the run goes on "
                       "without them (check OTEL_EXPORTER_OTLP_ENDPOINT)"),
                file=sys.stderr, flush=True,
            )  # fmt: skip


class _FirstComplaint(logging.Handler):
    """Keeps the SDK's first complaint for our one warning instead of printing each."""

    def __init__(self, exports: _Exports) -> None:
        super().__init__(logging.WARNING)
        self.exports = exports

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            if not self.exports.first_error:
                self.exports.first_error = record.getMessage().splitlines()[0][:200]


class _Setup:
    def __init__(self, tracer: OtelTracer, processor: Any, exports: _Exports) -> None:
        self.tracer = tracer
        self.processor = processor
        self.exports = exports
        self.slow = False  # a flush ran out of time: the collector is not waited for again

    def flush(self) -> None:
        """Send what is queued: wait up to FLUSH_SECONDS, not at all for a collector that is down
        (the spans could not reach it anyway) nor again for one that was too slow before."""
        if self.slow or not _accepts_connections(self.exports.url):
            return
        done = threading.Thread(target=self.processor.force_flush, daemon=True, name="trace-flush")
        done.start()
        done.join(FLUSH_SECONDS)
        self.slow = done.is_alive()

    def shutdown(self) -> None:
        """At exit: the last spans sent, waiting as `flush` does (the SDK's own wait is 30 s)."""
        up = not self.slow and _accepts_connections(self.exports.url)
        if not up:
            self.exports.exporter.shutdown()  # ends the retries of an export in flight at once
        ending = threading.Thread(target=self.processor.shutdown, daemon=True, name="trace-shutdown")
        ending.start()
        ending.join(FLUSH_SECONDS if up else 0.05)


_setup: _Setup | None = None
_setup_lock = threading.Lock()
_warned_missing = False


def start(env: Mapping[str, str] | None = None) -> _Setup | None:
    """The process's tracer, made once and installed for the engine; None when traces are off."""
    global _setup, _warned_missing
    env = os.environ if env is None else env
    url = traces_endpoint(env)
    if url is None:
        return None
    with _setup_lock:
        if _setup is not None:
            return _setup
        if not extra_installed() or _grpc_asked(env):
            if not _warned_missing:
                _warned_missing = True
                print(f"deep-researcher: warning: traces are not sent: {describe(env)[1]}", file=sys.stderr)
            return None
        _setup = _build(url, env)
        tracing.install(_setup.tracer)
        atexit.register(_setup.shutdown)
        return _setup


def _build(url: str, env: Mapping[str, str]) -> _Setup:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    register_secrets(_header_values(env))  # a collector's key is never written nor printed either
    timeout_set = env.get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") or env.get("OTEL_EXPORTER_OTLP_TIMEOUT")
    exporter = OTLPSpanExporter(timeout=None if timeout_set else EXPORT_SECONDS)
    exports = _Exports(exporter, url)
    # The exporter's and the batch processor's retries and failures: our one warning says them.
    # (Only theirs: an application embedding the runtime keeps the rest of OpenTelemetry's logs.)
    for name in ("opentelemetry.exporter", "opentelemetry.sdk._shared_internal"):
        sdk_log = logging.getLogger(name)
        sdk_log.addHandler(_FirstComplaint(exports))
        sdk_log.propagate = False

    class WarnOnce(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            try:
                result = exporter.export(spans)
            except Exception as exc:  # the exporter's bug must not reach the run's thread either
                exports.first_error = exports.first_error or f"{type(exc).__name__}: {exc}"[:200]
                result = SpanExportResult.FAILURE
            if result is not SpanExportResult.SUCCESS:
                exports.warn()
            return result

        def shutdown(self) -> None:
            exporter.shutdown()  # type: ignore[no-untyped-call]

        def force_flush(self, timeout_millis: int = 30_000) -> bool:
            return True

    version = _version()
    resource = Resource.create({"service.version": version})  # + OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "deep-researcher"}))
    provider = TracerProvider(resource=resource, shutdown_on_exit=False)  # our atexit bounds the wait
    processor = BatchSpanProcessor(WarnOnce())
    provider.add_span_processor(processor)
    capture = _true(env, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
    tracer = OtelTracer(provider.get_tracer("deep_researcher", version), capture)
    return _Setup(tracer, processor, exports)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deep-researcher")
    except PackageNotFoundError:
        return "unknown"


# -- the run's root span ---------------------------------------------------------------------------------
def trace_attributes(*, batch_id: str, task_id: str, out: str) -> str:
    """DEEP_RESEARCHER_TRACE_ATTRIBUTES for a run of a batch (a child process)."""
    values = {"deep_researcher.batch.id": batch_id, "deep_researcher.batch.task": task_id, "deep_researcher.batch.out": out}
    return encode_attributes(values)


def encode_attributes(values: Mapping[str, str]) -> str:
    """DEEP_RESEARCHER_TRACE_ATTRIBUTES for a child run: k=v pairs, URL-quoted, separated by commas."""
    return ",".join(f"{quote(k)}={quote(v)}" for k, v in values.items())


def _env_attributes(env: Mapping[str, str]) -> dict[str, str]:
    """DEEP_RESEARCHER_TRACE_ATTRIBUTES, k=v pairs separated by commas (as OTEL_RESOURCE_ATTRIBUTES)."""
    pairs = (pair.split("=", 1) for pair in env.get(ATTRIBUTES_VARIABLE, "").split(",") if "=" in pair)
    return {unquote(k).strip(): unquote(v).strip() for k, v in pairs if k.strip()}


def _run_identity(runtime_dir: Path) -> tuple[str, dict[str, str] | None]:
    """The run's id and its first trace (trace and span id, hex), kept in .runtime/trace.json."""
    try:
        stored = json.loads((runtime_dir / TRACE_FILE).read_text("utf-8"))
        run_id = str(stored["run_id"])
        first = stored.get("first")
        return run_id, first if isinstance(first, dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        return uuid.uuid4().hex, None


async def traced(researcher: Researcher, work: Callable[[], Awaitable[RunResult]]) -> RunResult:
    """The run's `work` inside its root span (`invoke_agent`), its spans flushed when it ends."""
    setup = start()
    if setup is None:
        return await work()
    from opentelemetry.trace import Link, SpanContext, TraceFlags

    meta, settings, space = researcher.meta, researcher.settings, researcher.workspace
    run_id, first = _run_identity(space.runtime_dir)
    links = []
    if first is not None:
        with contextlib.suppress(KeyError, ValueError, TypeError):
            context = SpanContext(
                int(first["trace_id"], 16), int(first["span_id"], 16), is_remote=True,
                trace_flags=TraceFlags(TraceFlags.SAMPLED),
            )  # fmt: skip
            links.append(Link(context, {"deep_researcher.link": "the run's first trace"}))
    root: dict[str, AttributeValue | None] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "deep-researcher",
        "gen_ai.conversation.id": run_id,
        "gen_ai.request.model": settings.model,
        "gen_ai.provider.name": tracing.provider(settings.base_url),
        "deep_researcher.run.id": run_id,
        "deep_researcher.title": meta.title,
        "deep_researcher.workspace": space.root.name,
        "deep_researcher.tool_mode": researcher.ctx.tool_mode(),
        "deep_researcher.language": settings.language,
        "deep_researcher.resumes": meta.resumes,
        **_env_attributes(os.environ),
        **(run_attributes.get() or {}),
    }
    try:
        with setup.tracer.span("invoke_agent deep-researcher", root, links=links) as span:
            if first is None:
                _remember(space.runtime_dir, run_id, span)
            result = await work()
            _outcome(span, result)
        return result
    finally:
        await asyncio.to_thread(setup.flush)  # a served run's end does not hold the others up


def _remember(runtime_dir: Path, run_id: str, span: Span) -> None:
    """This trace is the run's first: a resume links to it."""
    assert isinstance(span, _OtelSpan)
    context = span.span.get_span_context()
    record = {
        "run_id": run_id,
        "first": {"trace_id": f"{context.trace_id:032x}", "span_id": f"{context.span_id:016x}"},
    }
    with contextlib.suppress(OSError):  # a trace is worth no failed run
        atomic_write_text(runtime_dir / TRACE_FILE, json.dumps(record) + "\n")


def _outcome(span: Span, result: RunResult) -> None:
    totals = result.totals
    citations = result.summary.get("citations") or {}
    span.set(
        {
            "deep_researcher.outcome": result.status,
            "deep_researcher.stop_reason": result.reason,
            "deep_researcher.steps": totals.steps,
            "gen_ai.usage.input_tokens": totals.prompt_tokens,
            "gen_ai.usage.output_tokens": totals.completion_tokens,
            "deep_researcher.cost_usd": totals.cost if totals.cost else None,
            "deep_researcher.sources_cited": result.summary.get("sources_cited"),
            "deep_researcher.citations.checked": citations.get("checked"),
            "deep_researcher.citations.supported": citations.get("supported"),
            "deep_researcher.citation_accuracy": citations.get("citation_accuracy"),
        }
    )
    if result.status == "error":
        span.fail("run_error", result.reason or "the run ended with an error")
