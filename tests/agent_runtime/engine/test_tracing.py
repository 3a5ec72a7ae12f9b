"""The engine's spans (engine/tracing.py): the model client's `chat {model}` with its retries and
failures, the actions' `execute_tool {name}`, and what is never sent. The real model client against
the scripted endpoint on 127.0.0.1; the spans go through the app's tracer (every string redacted)
into the OpenTelemetry SDK and its in-memory exporter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agent_runtime.app.tracing import MAX_STRING, OtelTracer
from agent_runtime.engine import tracing
from agent_runtime.engine.calling import calling
from agent_runtime.engine.model import OpenAIModel
from agent_runtime.engine.registry import ActionSet, action
from agent_runtime.errors import ActionError, ModelRequestRefusedError
from agent_runtime.testing import Fault, Reply, ScriptedEndpoint, call
from sandbox.redaction import mask, register_secrets

SECRET = "sk-live-4Fq8Zr2Xw6Ty1Uv3Nm5Pk7Lj"


@pytest.fixture(params=[False, True], ids=["no-content", "content"])
def spans(request: pytest.FixtureRequest) -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.install(OtelTracer(provider.get_tracer("test"), capture_content=request.param))
    register_secrets([SECRET])
    yield exporter
    tracing.install(None)
    provider.shutdown()


def finished(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return list(exporter.get_finished_spans())


def model_for(endpoint: ScriptedEndpoint) -> OpenAIModel:
    return OpenAIModel("qwen-test", api_key=SECRET, base_url=endpoint.url, backoff_base=0.01, max_output_tokens=512)


async def test_a_model_call_is_a_chat_span_and_a_retry_an_event_on_it(spans: InMemorySpanExporter) -> None:
    answers: list[Reply | Fault] = [
        Fault(503, "busy"),
        Reply(tool_calls=[call("web_search", query="x")], prompt_tokens=120, completion_tokens=7),
    ]
    page = f"A page that quotes the key {SECRET} in its text."
    with ScriptedEndpoint(lambda messages, tools: answers.pop(0)) as endpoint:
        calling.set(("research-2", "step 3"))
        raw = await model_for(endpoint).complete([{"role": "user", "content": page}], [])
    assert [name for _, name, _ in raw.tool_calls] == ["web_search"]
    (span,) = finished(spans)
    a = dict(span.attributes or {})
    assert span.name == "chat qwen-test"
    assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.agent.name"] == "research-2"
    assert a["gen_ai.request.model"] == a["gen_ai.response.model"] == "qwen-test"  # as the server said
    assert a["gen_ai.usage.input_tokens"] == 120 and a["gen_ai.usage.output_tokens"] == 7
    assert a["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert a["gen_ai.request.max_tokens"] == 512
    assert "gen_ai.provider.name" not in a  # a local server: not guessed
    (retry,) = span.events
    assert retry.name == "gen_ai.client.retry" and (retry.attributes or {})["attempt"] == 1
    assert "HTTP 503" in str((retry.attributes or {})["reason"])
    assert span.status.status_code is StatusCode.UNSET
    sent = json.dumps({k: str(v) for k, v in a.items()})
    assert SECRET not in sent
    if tracing.tracer().capture_content:
        messages = json.loads(str(a["gen_ai.input.messages"]))
        masked = page.replace(SECRET, mask(SECRET))  # the key on the page, masked as everywhere else
        assert messages == [{"role": "user", "parts": [{"type": "text", "content": masked}]}]
        output = json.loads(str(a["gen_ai.output.messages"]))
        assert output[0]["parts"][0]["name"] == "web_search" and output[0]["finish_reason"] == "tool_calls"
    else:
        assert "gen_ai.input.messages" not in a and "gen_ai.output.messages" not in a


async def test_a_refused_call_is_an_error_span_that_names_no_key(spans: InMemorySpanExporter) -> None:
    refusing = ScriptedEndpoint(lambda messages, tools: Fault(401, f"invalid key {SECRET}"))
    with refusing as endpoint, pytest.raises(ModelRequestRefusedError):
        await model_for(endpoint).complete([{"role": "user", "content": "hello"}], [])
    (span,) = finished(spans)
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "ModelRequestRefusedError"
    assert "HTTP 401" in str(span.status.description) and SECRET not in str(span.status.description)
    assert SECRET[-4:] in str(span.status.description)  # masked, recognisably


@action
async def lookup(name: str) -> str:
    """Look a name up.

    Args:
        name: what to look up.
    """
    if name == "missing":
        raise ActionError("no such name")
    return f"{name}: " + "found " * 10_000


async def test_an_action_is_an_execute_tool_span_with_its_outcome(spans: InMemorySpanExporter) -> None:
    actions = ActionSet.of([lookup])
    calling.set(("main", "step 1"))
    await actions.run(None, "lookup", {"name": "zorblat"})
    await actions.run(None, "lookup", {"name": "missing"})
    await actions.run(None, "no_such_action", {})  # not run: no span
    ok, failed = finished(spans)
    assert ok.name == failed.name == "execute_tool lookup"
    assert (ok.attributes or {})["gen_ai.tool.name"] == "lookup"
    assert (ok.attributes or {})["deep_researcher.tool.outcome"] == "ok"
    assert (failed.attributes or {})["deep_researcher.tool.outcome"] == "error"
    assert failed.status.status_code is StatusCode.ERROR and "no such name" in str(failed.status.description)
    result = (ok.attributes or {}).get("gen_ai.tool.call.result")
    if tracing.tracer().capture_content:
        assert isinstance(result, str) and result.startswith("zorblat: found")
        assert len(result) < tracing.CONTENT_CHARS + 40  # cut, and says how long it was
        assert json.loads(str((ok.attributes or {})["gen_ai.tool.call.arguments"])) == {"name": "zorblat"}
    else:
        assert result is None and "gen_ai.tool.call.arguments" not in (ok.attributes or {})


def test_every_string_is_redacted_and_bounded(spans: InMemorySpanExporter) -> None:
    with tracing.tracer().span("step", {"url": "https://user:pa55word@host/v1?api_key=abc123", "long": "x" * 50_000, "none": None}) as span:
        span.event("note", {"said": f"Authorization: Bearer {SECRET}"})
    (sent,) = finished(spans)
    a: dict[str, Any] = dict(sent.attributes or {})
    assert a["url"] == "https://user:***@host/v1?api_key=***"
    assert len(a["long"]) == MAX_STRING + 1 and "none" not in a
    assert SECRET not in str((sent.events[0].attributes or {})["said"])


@pytest.mark.parametrize(
    ("base_url", "provider"),
    [
        (None, "openai"),
        ("https://api.deepseek.com/v1", "deepseek"),
        ("https://openrouter.ai/api/v1", "openrouter"),
        ("https://myorg.openai.azure.com/openai", "azure.ai.openai"),
        ("http://localhost:11434/v1", None),
        ("https://evil-api.openai.com.example.net/v1", None),
    ],
)
def test_the_provider_is_named_only_where_known(base_url: str | None, provider: str | None) -> None:
    assert tracing.provider(base_url) == provider


def test_without_a_tracer_the_spans_cost_nothing_and_send_nothing() -> None:
    tracing.install(None)
    assert not tracing.active()
    with tracing.model_call("m", None, [{"role": "user", "content": "x"}], None) as span:
        span.reply(response_model="m", prompt_tokens=1, completion_tokens=1, finish_reason="stop", content="x", tool_calls=[])
        tracing.retry(1, "HTTP 503", 0.5)
    assert span.span is tracing.NO_SPAN


def test_a_long_history_is_sent_as_whole_json_with_its_latest_messages(spans: InMemorySpanExporter) -> None:
    if not tracing.tracer().capture_content:
        pytest.skip("content only")
    history = [{"role": "system", "content": "You are the researcher."}] + [
        {"role": "user", "content": f"observation {n}: " + "研究" * 3_000} for n in range(40)
    ]
    with tracing.model_call("m", None, history, None):
        pass
    (span,) = finished(spans)
    sent = json.loads(str((span.attributes or {})["gen_ai.input.messages"]))  # whole JSON, not cut
    assert sent[0]["parts"][0]["content"] == "You are the researcher."
    assert sent[1]["parts"][0]["content"].endswith("earlier messages not sent]")
    assert sent[-1]["parts"][0]["content"].startswith("observation 39: 研究")
    assert 3 <= len(sent) < 41
