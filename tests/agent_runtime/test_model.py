"""The real `openai` client against the loopback endpoint: retries, deadlines, refusals."""

from collections.abc import Callable
from typing import Any

import pytest

from agent_runtime.errors import ModelRequestRefusedError, ModelUnreachableError
from agent_runtime.model import OpenAIModel
from agent_runtime.testing import Fault, Reply, ScriptedEndpoint, call, reply

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def faults_then_success(*faults: Fault) -> Callable[[Any, Any], Reply | Fault]:
    remaining = list(faults)

    def script(messages: Any, tools: Any) -> Reply | Fault:
        return remaining.pop(0) if remaining else reply(call("all_finished", result="r", report_path="x"))

    return script


def client(url: str, **kwargs: Any) -> OpenAIModel:
    options: dict[str, Any] = {
        "request_timeout": 5.0,
        "deadline": 20.0,
        "max_retries": 4,
        "backoff_base": 0.05,
    }
    options.update(kwargs)
    return OpenAIModel("m", api_key="k", base_url=url, **options)


async def test_retries_429_and_500_then_succeeds(endpoint: Callable[..., ScriptedEndpoint]) -> None:
    server = endpoint(faults_then_success(Fault(429, retry_after=0.1), Fault(500), Fault(503)))
    model = client(server.url)
    retries: list[str] = []
    model.on_retry = lambda attempt, reason, delay: retries.append(reason)
    raw = await model.complete(MESSAGES, [])
    assert raw.tool_calls[0][1] == "all_finished"
    assert retries == ["HTTP 429", "HTTP 500", "HTTP 503"]
    assert len(server.requests) == 4
    assert raw.prompt_tokens and raw.prompt_tokens > 0


async def test_a_hanging_request_times_out_and_is_retried(endpoint: Callable[..., ScriptedEndpoint]) -> None:
    server = endpoint(faults_then_success(Fault(200, hang=3.0)))
    model = client(server.url, request_timeout=0.5)
    raw = await model.complete(MESSAGES, [])
    assert raw.tool_calls and len(server.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_client_errors_are_not_retried(endpoint: Callable[..., ScriptedEndpoint], status: int) -> None:
    server = endpoint(faults_then_success(Fault(status, message="nope")))
    with pytest.raises(ModelRequestRefusedError, match=f"HTTP {status}"):
        await client(server.url).complete(MESSAGES, [])
    assert len(server.requests) == 1


async def test_total_deadline_holds_over_all_attempts(endpoint: Callable[..., ScriptedEndpoint]) -> None:
    server = endpoint(lambda m, t: Fault(500))
    with pytest.raises(ModelUnreachableError, match="HTTP 500"):
        await client(server.url, deadline=1.0, max_retries=100, backoff_base=0.2).complete(MESSAGES, [])
    assert 2 <= len(server.requests) < 20


async def test_unreachable_endpoint_gives_up_with_a_clear_error() -> None:
    with pytest.raises(ModelUnreachableError, match="check --base-url"):
        await client("http://127.0.0.1:9/v1", max_retries=1).complete(MESSAGES, [])


async def test_tools_and_messages_reach_the_endpoint(endpoint: Callable[..., ScriptedEndpoint]) -> None:
    server = endpoint(faults_then_success())
    tools = [
        {
            "type": "function",
            "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}},
        }
    ]
    await client(server.url).complete(MESSAGES, tools)
    assert server.requests[0]["messages"] == MESSAGES
    assert server.requests[0]["tools"] == tools
    assert server.requests[0]["model"] == "m"
