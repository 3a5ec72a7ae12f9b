"""Traces: the spans the engine opens (one per model call, one per action) behind a tiny interface.

The engine never imports OpenTelemetry. It asks `tracer()` for a span; until the app installs a
real tracer (agent_runtime/app/tracing.py, only with the `otel` extra and OTEL_EXPORTER_OTLP_*
set), that is a no-op that costs a function call. Span names and attributes follow the
OpenTelemetry GenAI semantic conventions:

    chat {model}          gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model,
                          gen_ai.response.model, gen_ai.usage.*, gen_ai.response.finish_reasons,
                          gen_ai.agent.name (main, file, research-2, summarizer, citation_judge);
                          a retry is an event on it, a failure its status
    execute_tool {name}   gen_ai.tool.name and the outcome; a micro agent's spans nest under the
                          action that started it, since the current span travels with the asyncio
                          task (a context variable), and parallel actions are siblings

Message and page text go only when the tracer says so (capture_content: the conventions'
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT), each text cut to CONTENT_CHARS here; the real
tracer redacts every string it sends (sandbox/redaction.py).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit

from agent_runtime.engine.calling import calling

AttributeValue = str | bool | int | float | Sequence[str]
Attributes = Mapping[str, AttributeValue | None]  # None: not known, not sent

CONTENT_CHARS = 4_000  # each message, argument or observation text, when content is captured
MESSAGES_CHARS = 24_000  # a request's messages together: the system prompt and the latest that fit


class Span(Protocol):
    def set(self, attributes: Attributes) -> None: ...
    def event(self, name: str, attributes: Attributes) -> None: ...
    def fail(self, error_type: str, description: str) -> None: ...


class Tracer(Protocol):
    capture_content: bool

    def span(self, name: str, attributes: Attributes) -> contextlib.AbstractContextManager[Span]:
        """A span, current (the parent of any opened inside it) until the block ends; an exception
        leaving the block marks it failed."""
        ...


class _NoSpan:
    def set(self, attributes: Attributes) -> None:
        pass

    def event(self, name: str, attributes: Attributes) -> None:
        pass

    def fail(self, error_type: str, description: str) -> None:
        pass


NO_SPAN = _NoSpan()


class NoTracer:
    capture_content = False

    @contextlib.contextmanager
    def span(self, name: str, attributes: Attributes) -> Iterator[Span]:
        yield NO_SPAN


_tracer: Tracer = NoTracer()
_model_span: contextvars.ContextVar[Span] = contextvars.ContextVar("model_span", default=NO_SPAN)


def install(tracer: Tracer | None) -> None:
    """The tracer every span of this process goes to; None: back to none."""
    global _tracer
    _tracer = tracer if tracer is not None else NoTracer()


def tracer() -> Tracer:
    return _tracer


def active() -> bool:
    return not isinstance(_tracer, NoTracer)


# -- model calls -----------------------------------------------------------------------------------
# The conventions' well-known providers, by the endpoint's host; any other (a local server, a
# gateway of one's own) is left unnamed rather than guessed.
_PROVIDERS = (
    ("api.openai.com", "openai"),
    ("openai.azure.com", "azure.ai.openai"),
    ("api.deepseek.com", "deepseek"),
    ("openrouter.ai", "openrouter"),
    ("api.anthropic.com", "anthropic"),
    ("api.mistral.ai", "mistral_ai"),
    ("api.groq.com", "groq"),
    ("api.x.ai", "x_ai"),
    ("generativelanguage.googleapis.com", "gcp.gemini"),
    ("api.perplexity.ai", "perplexity"),
    ("dashscope.aliyuncs.com", "dashscope"),
)


def provider(base_url: str | None) -> str | None:
    host = (urlsplit(base_url).hostname or "") if base_url else "api.openai.com"
    return next((name for suffix, name in _PROVIDERS if host == suffix or host.endswith("." + suffix)), None)


def _server(base_url: str | None) -> dict[str, AttributeValue | None]:
    if not base_url:
        return {}
    parts = urlsplit(base_url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    return {"server.address": parts.hostname, "server.port": port}


class ModelCall:
    """The span of one model call, as the client fills it in."""

    def __init__(self, span: Span) -> None:
        self.span = span

    def reply(
        self,
        *,
        response_model: str | None,
        prompt_tokens: int | None,
        completion_tokens: int | None,
        finish_reason: str | None,
        content: str | None,
        tool_calls: Sequence[tuple[str, str, str]],
    ) -> None:
        self.span.set(
            {
                "gen_ai.response.model": response_model,
                "gen_ai.usage.input_tokens": prompt_tokens,
                "gen_ai.usage.output_tokens": completion_tokens,
                "gen_ai.response.finish_reasons": [finish_reason] if finish_reason else None,
            }
        )
        if tracer().capture_content:
            parts: list[dict[str, Any]] = [{"type": "text", "content": _cut(content)}] if content else []
            parts += [
                {"type": "tool_call", "id": call_id, "name": name, "arguments": _cut(arguments)}
                for call_id, name, arguments in tool_calls
            ]
            output = [{"role": "assistant", "parts": parts, "finish_reason": finish_reason or "unknown"}]
            self.span.set({"gen_ai.output.messages": json.dumps(output, ensure_ascii=False)})


@contextlib.contextmanager
def model_call(
    model: str, base_url: str | None, messages: Sequence[Mapping[str, Any]], max_tokens: int | None
) -> Iterator[ModelCall]:
    """The span of one chat completion, named for the agent whose call it is (engine/calling)."""
    agent, _ = calling.get()
    attributes: dict[str, AttributeValue | None] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider(base_url),
        "gen_ai.request.model": model,
        "gen_ai.request.max_tokens": max_tokens,
        "gen_ai.agent.name": agent,
        **_server(base_url),
    }
    current = tracer()
    if current.capture_content:
        attributes["gen_ai.input.messages"] = _input_messages(messages)
    with current.span(f"chat {model}", attributes) as span:
        token = _model_span.set(span)
        try:
            yield ModelCall(span)
        finally:
            _model_span.reset(token)


def retry(attempt: int, reason: str, delay: float) -> None:
    """A retried model call: an event on its span."""
    _model_span.get().event(
        "gen_ai.client.retry", {"attempt": attempt, "reason": reason, "delay_seconds": round(delay, 2)}
    )


def _cut(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= CONTENT_CHARS else text[:CONTENT_CHARS] + f"… [{len(text):,} characters]"


def _input_messages(messages: Sequence[Mapping[str, Any]]) -> str:
    """The request as the conventions' JSON, whole JSON within MESSAGES_CHARS: the first message
    (the system prompt) and the latest ones that fit, with a note of how many were left out."""
    encoded = [json.dumps(_message(m), ensure_ascii=False, default=str) for m in messages]
    if not encoded:
        return "[]"
    kept: list[str] = []
    size = len(encoded[0])
    for item in reversed(encoded[1:]):
        if size + len(item) > MESSAGES_CHARS:
            break
        kept.append(item)
        size += len(item) + 1
    left_out = len(encoded) - 1 - len(kept)
    if left_out:
        note = {"role": "user", "parts": [{"type": "text", "content": f"[{left_out} earlier messages not sent]"}]}
        kept.append(json.dumps(note))
    return "[" + ",".join([encoded[0], *reversed(kept)]) + "]"


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A chat message in the conventions' form: a role and its parts."""
    content = message.get("content")
    if isinstance(content, list):  # content parts: their text
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    role = str(message.get("role", "user"))
    parts: list[dict[str, Any]] = []
    if role == "tool":
        parts.append(
            {"type": "tool_call_response", "id": message.get("tool_call_id"), "response": _cut(content)}
        )
    elif content:
        parts.append({"type": "text", "content": _cut(str(content))})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": _cut(str(function.get("arguments") or "")),
            }
        )
    return {"role": role, "parts": parts}


# -- actions -----------------------------------------------------------------------------------------
@contextlib.contextmanager
def tool_call(name: str, arguments: Mapping[str, Any]) -> Iterator[Span]:
    """The span of one action; `tool_result` says how it ended."""
    agent, _ = calling.get()
    attributes: dict[str, AttributeValue | None] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.type": "function",
        "gen_ai.agent.name": agent,
    }
    current = tracer()
    if current.capture_content:
        attributes["gen_ai.tool.call.arguments"] = _cut(
            json.dumps(arguments, ensure_ascii=False, default=str)
        )
    with current.span(f"execute_tool {name}", attributes) as span:
        yield span


def tool_result(span: Span, text: str, error: bool) -> None:
    span.set(
        {"deep_researcher.tool.outcome": "error" if error else "ok", "deep_researcher.tool.chars": len(text)}
    )
    if tracer().capture_content:
        span.set({"gen_ai.tool.call.result": _cut(text)})
    if error:
        # The runtime's own words on the failure (the first line), never the page behind it.
        span.fail("tool_error", text.splitlines()[0][:300] if text else "the action failed")
