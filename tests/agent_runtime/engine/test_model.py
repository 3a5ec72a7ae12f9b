"""The real `openai` client against the loopback endpoint: retries, deadlines, refusals."""

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agent_runtime.errors import ModelRequestRefusedError, ModelUnreachableError
from agent_runtime.testing import Fault, Reply, ScriptedEndpoint, call, reply
from tests.support.model_client import MESSAGES, client, faults_then_success


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


async def test_a_slow_server_that_still_responds_is_waited_for_once(
    endpoint: Callable[..., ScriptedEndpoint],
) -> None:
    def slow(messages: Any, tools: Any) -> Reply:
        time.sleep(2.5)  # longer than the per-attempt timeout: a CPU server reading a long prompt
        return reply(call("all_finished", result="r", report_path="x"))

    server = endpoint(slow)
    model = client(server.url, request_timeout=0.5)
    waits: list[float] = []
    model.on_wait = waits.append
    raw = await model.complete(MESSAGES, [])
    assert raw.tool_calls and len(server.requests) == 1  # never abandoned, never sent again
    assert waits and waits == sorted(waits) and waits[-1] >= 1.0  # the wait was told as it went


async def test_a_server_still_working_at_the_deadline_is_called_slow_with_the_setting_that_helps(
    endpoint: Callable[..., ScriptedEndpoint],
) -> None:
    server = endpoint(faults_then_success(Fault(200, hang=4.0)))
    started = time.monotonic()
    with pytest.raises(ModelUnreachableError) as caught:
        await client(server.url, request_timeout=0.5, deadline=1.5).complete(MESSAGES, [])
    assert time.monotonic() - started < 3.5
    assert "is working but had not answered" in str(caught.value)
    assert "DEEP_RESEARCHER_REQUEST_DEADLINE" in str(caught.value)
    assert len(server.requests) == 1


@pytest.fixture
def silent_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """Accepts connections and never answers anything (a hung server): not even a probe."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", accepted
    stop.set()
    thread.join(2)
    for conn in accepted:
        conn.close()
    listener.close()


async def test_a_silent_server_is_given_up_on_and_asked_again(
    silent_server: tuple[str, list[socket.socket]],
) -> None:
    url, accepted = silent_server
    model = client(url, request_timeout=0.5, max_retries=1, deadline=30.0)
    retries: list[str] = []
    model.on_retry = lambda attempt, reason, delay: retries.append(reason)
    with pytest.raises(ModelUnreachableError, match="silent: no answer"):
        await model.complete(MESSAGES, [])
    assert retries and retries[0].startswith("silent")
    assert len(accepted) >= 3  # the request, the probe, the request again


async def test_a_refused_connection_fails_in_seconds() -> None:
    started = time.monotonic()
    with pytest.raises(ModelUnreachableError, match="nothing is listening there"):
        await client("http://127.0.0.1:9/v1", max_retries=6, backoff_base=1.0).complete(MESSAGES, [])
    assert time.monotonic() - started < 8


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
    with pytest.raises(ModelUnreachableError, match="--base-url"):
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


async def test_every_request_carries_the_output_cap_and_tool_choice(
    endpoint: Callable[..., ScriptedEndpoint],
) -> None:
    server = endpoint(faults_then_success())
    tools = [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    ]
    await client(server.url, max_output_tokens=1500).complete(MESSAGES, tools)
    await client(server.url, max_output_tokens=1500).complete(MESSAGES, [])
    assert server.requests[0]["max_tokens"] == 1500 and server.requests[0]["tool_choice"] == "auto"
    assert server.requests[1]["max_tokens"] == 1500 and "tool_choice" not in server.requests[1]


async def test_a_model_that_refuses_max_tokens_gets_max_completion_tokens(
    endpoint: Callable[..., ScriptedEndpoint],
) -> None:
    def reasoning_model(messages: Any, tools: Any) -> Reply | Fault:
        if "max_tokens" in server.requests[-1]:  # OpenAI's wording for its reasoning models
            return Fault(400, message="Unsupported parameter: 'max_tokens' is not supported with this model. "
                         "Use 'max_completion_tokens' instead.")  # fmt: skip
        return reply(call("all_finished", result="r", report_path="x"))

    server = endpoint(reasoning_model)
    model = client(server.url, max_output_tokens=800)
    assert (await model.complete(MESSAGES, [])).tool_calls
    assert (await model.complete(MESSAGES, [])).tool_calls
    assert [("max_tokens" in r, r.get("max_completion_tokens")) for r in server.requests] == [
        (True, None),
        (False, 800),
        (False, 800),
    ]  # learned once, for the rest of the run


async def test_a_server_that_refuses_tool_choice_is_asked_without_it(
    endpoint: Callable[..., ScriptedEndpoint],
) -> None:
    def vllm_without_tool_parser(messages: Any, tools: Any) -> Reply | Fault:
        if "tool_choice" in server.requests[-1]:
            return Fault(400, message='"auto" tool choice requires --enable-auto-tool-choice and '
                         "--tool-call-parser to be set")  # fmt: skip
        return reply(content="fine")

    server = endpoint(vllm_without_tool_parser)
    tools = [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    ]
    raw = await client(server.url).complete(MESSAGES, tools)
    assert raw.content == "fine" and len(server.requests) == 2


async def test_a_wait_that_overruns_the_deadline_names_the_last_failure(
    endpoint: Callable[..., ScriptedEndpoint],
) -> None:
    """On a busy machine the backoff sleep can end past the deadline: the error is the server's
    failure, not "working but had not answered after 0 s"."""
    real_sleep = asyncio.sleep

    async def oversleep(delay: float) -> None:
        await real_sleep(delay + 1.2)

    server = endpoint(lambda m, t: Fault(500))
    with pytest.raises(ModelUnreachableError, match=r"HTTP 500 \(after 1 attempt"):
        await client(server.url, deadline=1.0, max_retries=100, backoff_base=0.01, sleep=oversleep).complete(
            MESSAGES, []
        )
