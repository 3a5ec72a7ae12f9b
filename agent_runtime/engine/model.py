"""The model client: any OpenAI-compatible endpoint through `openai.AsyncOpenAI`.

The SDK's own retries are off: this module retries with exponential backoff and jitter on 429,
5xx, timeouts, connection errors and bodies that are not a complete chat completion (a body cut
short, a proxy's HTML page with status 200): never on 400/401/403/404. It honours Retry-After and
holds a total deadline over all attempts, so a run never hangs on one request.

A 400 (or 413) that says the request is longer than the model's context window is raised as
ContextOverflowError, with the window and the prompt size the server stated: the loop compacts
and learns the window from it (see `context_overflow`).

A slow server is not a dead one. A local model on a CPU can take minutes to read a long prompt,
and a single-slot server keeps working on a request its client gave up on, so a re-sent request
only queues behind the abandoned one. So a request is never abandoned for being slow: after each
`request_timeout` without an answer the server is asked whether it still responds (GET /models);
while it does, the client keeps waiting (telling `on_wait` how long) up to the `deadline`. Only a
server that answers nothing at all (silent) is given up on and asked again; a refused connection
(nothing listening) fails within seconds.

Every request carries an output cap (`max_tokens`, or `max_completion_tokens` for the models that
refuse the older name). A request for an action is forced into one where the server allows it:
with tools, `tool_choice: "required"` (or "auto" when forcing is off: some servers put the tools in
the prompt only when it is sent); in json mode, the action schema as a `response_format`. A 400
that names one of these parameters falls back one level (required → auto → none; json_schema →
json_object → none) for the rest of the run, and `on_fallback` hears of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

import openai

from agent_runtime.config import Settings
from agent_runtime.engine import tracing
from agent_runtime.engine.messages import Message, ToolSchema
from agent_runtime.engine.replies import RawReply
from agent_runtime.errors import (
    ConfigError,
    ContextOverflowError,
    ModelError,
    ModelRequestRefusedError,
    ModelUnreachableError,
    NotACompletionError,
    ToolsRefusedError,
)

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_BACKOFF_SECONDS = 30.0
CONNECT_SECONDS = 10.0  # a server that does not accept a connection in this long is not there
PROBE_SECONDS = 10.0  # how long "do you still respond?" may take
WAIT_NOTICE_SECONDS = 15.0  # how often on_wait hears that a request is still being waited for
REFUSED_RETRIES = 2  # a refused connection: a server restarting gets a few seconds, no more


class Model(Protocol):
    """What the loop needs from a model: one reply to one request. `reply_schema` is the JSON schema
    a json-mode reply must follow (None: free text, as for a summary); `max_output_tokens` a lower
    output cap for this one call (a summary)."""

    name: str

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        reply_schema: dict[str, Any] | None = None,
        max_output_tokens: int | None = None,
    ) -> RawReply: ...


RetryListener = Callable[[int, str, float], None]  # attempt, reason, delay
WaitListener = Callable[[float], None]  # seconds waited so far for the request in flight
FallbackListener = Callable[[str, str, str, str], None]  # parameter, from, to, the server's words
ToolChoice = Literal["required", "auto"]
ReplyFormat = Literal["json_schema", "json_object"]


class _Silent(ModelError):
    """The server neither answered the request nor responds to a probe."""


class _TooSlow(ModelError):
    """The server still responds but has not answered the request by the deadline."""


def backoff_delay(attempt: int, base: float = 1.0, retry_after: float | None = None) -> float:
    """Exponential backoff with full jitter; a server's Retry-After wins when it is reasonable."""
    if retry_after is not None and 0 <= retry_after <= MAX_BACKOFF_SECONDS * 2:
        return retry_after
    return random.uniform(0.5, 1.0) * min(MAX_BACKOFF_SECONDS, base * 2.0**attempt)


# How servers say a request is longer than the window: error codes and types, then wordings
# (OpenAI, DeepSeek, OpenRouter, vLLM, llama.cpp, Mistral, Anthropic-compatible gateways).
_OVERFLOW_CODES = frozenset(
    {"context_length_exceeded", "exceed_context_size_error", "model_context_window_exceeded"}
)
_OVERFLOW_WORDS = re.compile(
    r"maximum context length|context length exceeded|context[ _](?:size|window|length)|prompt is too long"
    r"|too many tokens|input is too long|reduce the length of the",
    re.IGNORECASE,
)
_NUMBER = r"(\d[\d,]*)"
_WINDOW_WORDS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"maximum context length is {_NUMBER}",  # OpenAI, vLLM, DeepSeek, OpenRouter
        rf"available context size \({_NUMBER} tokens\)",  # llama.cpp
        rf"context (?:window|length|size) (?:of|is) {_NUMBER}",
        rf"{_NUMBER} maximum context length",  # Mistral
        rf"tokens > {_NUMBER} maximum",  # Anthropic-compatible
    )
]
_PROMPT_WORDS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"messages resulted in {_NUMBER} tokens",  # OpenAI
        rf"\({_NUMBER} in the messages",  # OpenAI with a completion, vLLM 0.x, DeepSeek
        rf"your request has {_NUMBER} input tokens",  # vLLM
        rf"request \({_NUMBER} tokens\) exceeds",  # llama.cpp
        rf"prompt contains (?:at least )?{_NUMBER}",  # Mistral, vLLM
        rf"prompt is too long: {_NUMBER} tokens",  # Anthropic-compatible
    )
]


# How servers name the forcing parameters they refuse: the parameter, or the thing it asks for.
_TOOL_CHOICE = re.compile(r"tool[ _]choice", re.IGNORECASE)
_RESPONSE_FORMAT = re.compile(r"response[ _]format|json[ _]schema|json_object|grammar", re.IGNORECASE)


# How servers refuse a tool list outright: llama-server without --jinja (HTTP 500), Ollama for a
# model without tool support, OpenRouter with no tool-capable provider.
_NO_TOOLS = re.compile(
    r"tools param requires --jinja|does not support tools|no endpoints found that support tool use",
    re.IGNORECASE,
)


def _error_text(exc: openai.APIStatusError) -> str:
    return json.dumps(exc.body, default=str) if exc.body is not None else exc.message


def _first_number(patterns: list[re.Pattern[str]], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def context_overflow(status: int, body: object) -> tuple[int | None, int | None] | None:
    """(window, prompt tokens) when an error says the request is longer than the context window,
    each None when the server did not state it; None when the error is about something else."""
    if status not in (400, 413):
        return None
    error = body.get("error", body) if isinstance(body, dict) else body
    fields = error if isinstance(error, dict) else {}
    message = str(fields.get("message", "") if fields else error or "")
    labels = {str(fields.get("code", "")), str(fields.get("type", ""))}
    if status == 400 and not (labels & _OVERFLOW_CODES or _OVERFLOW_WORDS.search(message)):
        return None
    window = _count(fields.get("n_ctx")) or _first_number(_WINDOW_WORDS, message)  # llama.cpp's fields
    prompt = _count(fields.get("n_prompt_tokens")) or _first_number(_PROMPT_WORDS, message)
    return window, prompt


def _body_fault(exc: ValueError) -> str:
    """Why a body could not be used, for the retry log and the final error."""
    if isinstance(exc, json.JSONDecodeError):
        detail = f"the JSON ends or breaks at character {exc.pos}: {exc.msg}"
    else:
        detail = str(exc)
    return f"the answer is not a complete chat completion ({detail})"


def _connection_fault(exc: BaseException) -> str:
    """What happened to the connection, in words: the SDK's own message is only "Connection
    error.", and the transport's is often empty (a reset surfaces as a bare ReadError)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 12:
        chain.append(current)
        # The context too, even when suppressed: the transport re-raises with `from None` and
        # hides the OSError that says what happened.
        current = current.__cause__ or current.__context__
    for error in chain:
        if isinstance(error, ConnectionRefusedError):
            return "connection refused"
        if isinstance(error, ConnectionResetError):
            return "connection reset by the server"
        if isinstance(error, socket.gaierror):
            return f"cannot resolve the host name ({error.strerror or error})"
        if isinstance(error, ssl.SSLError):
            return f"TLS failed ({error.reason or error})"
    names = {type(error).__name__ for error in chain}
    if names & {"ReadError", "BrokenResourceError"}:  # the transport drops the ConnectionResetError
        return "connection reset by the server while the answer was read"
    if "WriteError" in names:
        return "connection lost while the request was sent"
    for error in chain[1:]:
        text = str(error) or (error.strerror if isinstance(error, OSError) else None)
        if text:
            return text
    return type(chain[-1]).__name__


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIModel:
    def __init__(
        self,
        name: str,
        *,
        api_key: str,
        base_url: str | None,
        request_timeout: float = 120.0,
        deadline: float = 900.0,
        max_retries: int = 6,
        temperature: float | None = None,
        max_output_tokens: int | None = None,
        backoff_base: float = 1.0,
        force_actions: bool = False,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`sleep` waits between retries (the backoff); a test passes one that oversleeps, as a busy
        machine does, without touching the event loop's own clock."""
        self.name = name
        # The SDK's own timeout only bounds connecting: waiting for the answer is this class's job.
        self.client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            timeout=openai.Timeout(None, connect=CONNECT_SECONDS),
            max_retries=0,
        )
        self.request_timeout = request_timeout
        self.deadline = deadline
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self.backoff_base = backoff_base
        self.sleep = sleep
        self.on_retry: RetryListener | None = None
        self.on_wait: WaitListener | None = None
        self.on_fallback: FallbackListener | None = None
        # Learned from refusals, for the rest of the run: the name of the output-cap parameter, the
        # tool_choice the server takes, and the response_format it takes (None: not sent).
        self._cap_parameter = "max_tokens"
        self.tool_choice: ToolChoice | None = "required" if force_actions else "auto"
        self.reply_format: ReplyFormat | None = "json_schema" if force_actions else None

    def _request(
        self, messages: Sequence[Message], tools: Sequence[ToolSchema], reply_schema: dict[str, Any] | None
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.name, "messages": list(messages)}
        if tools:
            kwargs["tools"] = list(tools)
            if self.tool_choice is not None:
                kwargs["tool_choice"] = self.tool_choice
        elif reply_schema is not None and self.reply_format == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "action", "schema": reply_schema, "strict": False},
            }
        elif reply_schema is not None and self.reply_format == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.max_output_tokens is not None:
            kwargs[self._cap_parameter] = self.max_output_tokens
        return kwargs

    def _adapt(self, exc: openai.APIStatusError, request: dict[str, Any]) -> bool:
        """Change the request after a 400 about one of our optional parameters; True if changed."""
        if exc.status_code not in (400, 422):  # 422: what FastAPI-based servers answer a field they refuse
            return False
        text = _error_text(exc)
        if self._cap_parameter == "max_tokens" and "max_completion_tokens" in text:
            self._cap_parameter = "max_completion_tokens"  # OpenAI's reasoning models
            return True
        if "tool_choice" in request and _TOOL_CHOICE.search(text):
            # e.g. vLLM without --enable-auto-tool-choice, llama-server without --jinja
            before, self.tool_choice = self.tool_choice, ("auto" if self.tool_choice == "required" else None)
            self._fell_back("tool_choice", str(before), str(self.tool_choice or "not sent"), text)
            return True
        if "response_format" in request and _RESPONSE_FORMAT.search(text):
            was = self.reply_format
            self.reply_format = "json_object" if was == "json_schema" else None
            self._fell_back("response_format", str(was), str(self.reply_format or "not sent"), text)
            return True
        return False

    def _fell_back(self, parameter: str, before: str, after: str, text: str) -> None:
        if self.on_fallback is not None:
            self.on_fallback(parameter, before, after, text[:300])

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        reply_schema: dict[str, Any] | None = None,
        max_output_tokens: int | None = None,
    ) -> RawReply:
        cap = min((c for c in (max_output_tokens, self.max_output_tokens) if c), default=None)
        with tracing.model_call(self.name, str(self.client.base_url), messages, cap) as traced:
            raw = await self._complete(messages, tools, reply_schema, max_output_tokens)
            traced.reply(
                response_model=raw.model, prompt_tokens=raw.prompt_tokens, completion_tokens=raw.completion_tokens,
                finish_reason=raw.finish_reason, content=raw.content, tool_calls=raw.tool_calls,
            )  # fmt: skip
            return raw

    async def _complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        reply_schema: dict[str, Any] | None,
        max_output_tokens: int | None,
    ) -> RawReply:
        give_up_at = time.monotonic() + self.deadline
        attempt = 0
        while True:
            retry_after: float | None = None
            request = self._request(messages, tools, reply_schema)
            if max_output_tokens is not None:
                request[self._cap_parameter] = min(
                    max_output_tokens, request.get(self._cap_parameter) or max_output_tokens
                )
            try:
                response = await self._attempt(request, give_up_at)
                return _to_raw(response)
            except openai.APIStatusError as exc:
                overflow = context_overflow(exc.status_code, exc.body)
                if overflow is not None:
                    raise ContextOverflowError(
                        _refusal_text(exc, self.name), window=overflow[0], prompt_tokens=overflow[1]
                    ) from None
                if "tools" in request and _NO_TOOLS.search(_error_text(exc)):
                    raise ToolsRefusedError(
                        f"{_refusal_text(exc, self.name)}; this server takes no tool list: use --tool-mode "
                        "json (or auto), or serve the model with tool calls on (llama-server --jinja)"
                    ) from None
                if self._adapt(exc, request):
                    continue
                if exc.status_code not in RETRY_STATUSES:
                    raise ModelRequestRefusedError(_refusal_text(exc, self.name)) from None
                reason, retry_after = f"HTTP {exc.status_code}", _retry_after(exc)
            except _TooSlow as exc:
                raise ModelUnreachableError(
                    f"the model server at {self.client.base_url} is working but had not answered after "
                    f"{exc.args[0]:.0f} s (slow: a local model on a CPU can take minutes for a long prompt); "
                    "raise DEEP_RESEARCHER_REQUEST_DEADLINE, or lower --context-window or "
                    "DEEP_RESEARCHER_MAX_OUTPUT_TOKENS, or use a smaller model"
                ) from None
            except _Silent as exc:
                reason = (
                    f"silent: no answer in {exc.args[0]:.0f} s and the server does not respond to a probe"
                )
            except openai.APIConnectionError as exc:
                reason = f"connection failed ({_connection_fault(exc)})"
                if reason == "connection failed (connection refused)" and attempt >= REFUSED_RETRIES:
                    raise ModelUnreachableError(
                        f"the model endpoint {self.client.base_url} refused the connection: nothing is "
                        "listening there; start the model server (or check --base-url / OPENAI_BASE_URL)"
                    ) from None
            except ValueError as exc:  # the body: cut short (JSONDecodeError), HTML, no choices
                reason = _body_fault(exc)
            except openai.OpenAIError as exc:  # a response the SDK itself refuses to read
                raise ModelError(f"the model endpoint sent an unusable response: {exc}") from None
            delay = backoff_delay(attempt, self.backoff_base, retry_after)
            if attempt >= self.max_retries or time.monotonic() + delay >= give_up_at:
                raise self._gave_up(reason, attempt + 1)
            tracing.retry(attempt + 1, reason, delay)
            if self.on_retry is not None:
                self.on_retry(attempt + 1, reason, delay)
            await self.sleep(delay)
            attempt += 1
            if time.monotonic() >= give_up_at:  # the wait overran the deadline (a busy machine)
                raise self._gave_up(reason, attempt)

    def _gave_up(self, reason: str, attempts: int) -> ModelUnreachableError:
        return ModelUnreachableError(
            f"the model endpoint {self.client.base_url} failed: {reason} (after {attempts} attempt(s)); "
            "check that the server is running and --base-url / OPENAI_BASE_URL"
        )

    async def _attempt(self, kwargs: dict[str, Any], give_up_at: float) -> Any:
        """One request, waited for as long as the server still responds (see the module's docstring)."""
        started = time.monotonic()
        request = asyncio.ensure_future(self.client.chat.completions.create(**kwargs))
        next_probe = started + self.request_timeout
        try:
            while True:
                now = time.monotonic()
                if now >= give_up_at:
                    raise _TooSlow(now - started)
                wake = min(give_up_at, next_probe, now + WAIT_NOTICE_SECONDS)
                done, _ = await asyncio.wait({request}, timeout=max(wake - now, 0.01))
                if done:
                    return request.result()
                now = time.monotonic()
                if now >= next_probe and now < give_up_at:
                    if not await self._responds():
                        raise _Silent(now - started)
                    next_probe = time.monotonic() + self.request_timeout
                if self.on_wait is not None:
                    self.on_wait(time.monotonic() - started)
        finally:
            if not request.done():
                request.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await request

    async def _responds(self) -> bool:
        """Does the server still answer anything? Any HTTP answer counts, even an error."""
        limit = min(PROBE_SECONDS, self.request_timeout)
        try:
            async with asyncio.timeout(limit):
                await self.client.with_options(timeout=limit).models.list()
        except openai.APIStatusError:
            return True
        except (openai.APIConnectionError, TimeoutError):
            return False
        except (openai.OpenAIError, ValueError):
            return True  # it answered, with something unexpected
        return True


def _refusal_text(exc: openai.APIStatusError, model: str) -> str:
    detail = ""
    if isinstance(exc.body, dict):
        error = exc.body.get("error", exc.body)
        detail = str(error.get("message", "")) if isinstance(error, dict) else str(error)
    hints = {
        401: "check OPENAI_API_KEY / --api-key",
        403: "the key is not allowed to use this model or endpoint",
        404: f"check the model name ({model!r}) and --base-url",
    }
    if context_overflow(exc.status_code, exc.body) is not None:
        hint = "the request is longer than the model's context window"
    else:
        hint = hints.get(exc.status_code, "the request was refused as invalid")
    return f"the model endpoint refused the request (HTTP {exc.status_code}: {detail or exc.message}); {hint}"


def _field(value: Any, name: str) -> Any:
    """A field of an SDK object or of a plain dict: the SDK does not validate bodies, so a part of a
    foreign body may come back as either."""
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def _text(value: Any) -> str | None:
    """Message content as text: a string, content parts (some servers send a list), or nothing."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(str(_field(part, "text") or "") for part in value)
    return str(value)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _to_raw(response: Any) -> RawReply:
    """The first choice of a chat completion, or NotACompletionError for anything else: what a
    proxy or a cut connection delivers with status 200 is a transport fault, not an empty reply."""
    if isinstance(response, str):  # the SDK hands back a non-JSON body as text
        raise NotACompletionError(f"the body is not JSON: {response[:80]!r}")
    choices = _field(response, "choices")
    if not isinstance(choices, list) or not choices:
        error = _field(response, "error")  # some gateways report an upstream failure with 200
        detail = _field(error, "message") if error is not None else None
        raise NotACompletionError(f"the endpoint's error: {str(detail)[:200]}" if detail else "no choices")
    message = _field(choices[0], "message")
    if message is None:
        raise NotACompletionError("no message in the first choice")
    calls = []
    for call in _field(message, "tool_calls") or []:
        function = _field(call, "function")
        if function is None:
            continue
        arguments = _field(function, "arguments")
        if arguments is not None and not isinstance(arguments, str):  # an object instead of JSON text
            arguments = json.dumps(arguments, ensure_ascii=False, default=str)
        calls.append((str(_field(call, "id") or ""), str(_field(function, "name") or ""), arguments or ""))
    usage = _field(response, "usage")
    finish_reason = _field(choices[0], "finish_reason")
    return RawReply(
        content=_text(_field(message, "content")),
        tool_calls=calls,
        prompt_tokens=_count(_field(usage, "prompt_tokens")),
        completion_tokens=_count(_field(usage, "completion_tokens")),
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        model=model if isinstance(model := _field(response, "model"), str) else None,
    )


# -- from the settings ---------------------------------------------------------------------------
def build_model(settings: Settings, name: str | None = None) -> OpenAIModel:
    """The real client for the configured endpoint; refuses early when it cannot work."""
    api_key = settings.api_key
    if not api_key:
        if not settings.base_url:
            raise ConfigError(
                "no API key: set OPENAI_API_KEY (or pass --api-key); for a local server set "
                "OPENAI_BASE_URL / --base-url, e.g. http://localhost:11434/v1 for Ollama"
            )
        api_key = "not-needed"  # local servers ignore the key, but the client requires one
    return OpenAIModel(
        name or settings.model,
        api_key=api_key,
        base_url=settings.base_url,
        request_timeout=settings.request_timeout,
        deadline=settings.request_deadline,
        max_retries=settings.max_retries,
        temperature=settings.temperature,
        max_output_tokens=settings.reply_cap(),
        force_actions=settings.tool_choice == "required",
    )


def check_endpoint_reachable(base_url: str | None, timeout: float = 5.0) -> None:
    """Fail in seconds, not after minutes of retries, when nothing listens at the endpoint."""
    if not base_url:
        return
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"--base-url {base_url!r} is not an http(s) URL, e.g. http://localhost:11434/v1")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        raise ModelError(
            f"cannot reach the model endpoint {base_url} ({exc.strerror or exc}); check --base-url / "
            "OPENAI_BASE_URL and that the server is running"
        ) from None
