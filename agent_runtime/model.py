"""The model client: any OpenAI-compatible endpoint through `openai.AsyncOpenAI`.

The SDK's own retries are off: this module retries with exponential backoff and jitter on 429,
5xx, timeouts and connection errors (never on 400/401/403/404), honours Retry-After, and holds a
total deadline over all attempts, so a run never hangs on one request.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import openai

from agent_runtime.errors import ModelError, ModelRequestRefusedError, ModelUnreachableError
from agent_runtime.messages import Message, ToolSchema
from agent_runtime.replies import RawReply

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_BACKOFF_SECONDS = 30.0


class Model(Protocol):
    """What the loop needs from a model: one reply to one request."""

    name: str

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> RawReply: ...


RetryListener = Callable[[int, str, float], None]  # attempt, reason, delay


def backoff_delay(attempt: int, base: float = 1.0, retry_after: float | None = None) -> float:
    """Exponential backoff with full jitter; a server's Retry-After wins when it is reasonable."""
    if retry_after is not None and 0 <= retry_after <= MAX_BACKOFF_SECONDS * 2:
        return retry_after
    return random.uniform(0.5, 1.0) * min(MAX_BACKOFF_SECONDS, base * 2.0**attempt)


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
        deadline: float = 600.0,
        max_retries: int = 6,
        temperature: float | None = None,
        backoff_base: float = 1.0,
    ) -> None:
        self.name = name
        self.client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=request_timeout, max_retries=0
        )
        self.request_timeout = request_timeout
        self.deadline = deadline
        self.max_retries = max_retries
        self.temperature = temperature
        self.backoff_base = backoff_base
        self.on_retry: RetryListener | None = None

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> RawReply:
        kwargs: dict[str, Any] = {"model": self.name, "messages": list(messages)}
        if tools:
            kwargs["tools"] = list(tools)
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        give_up_at = time.monotonic() + self.deadline
        attempt = 0
        while True:
            remaining = give_up_at - time.monotonic()
            try:
                async with asyncio.timeout(min(self.request_timeout, max(remaining, 0.01))):
                    response = await self.client.chat.completions.create(**kwargs)
                return _to_raw(response)
            except openai.APIStatusError as exc:
                if exc.status_code not in RETRY_STATUSES:
                    raise ModelRequestRefusedError(_refusal_text(exc, self.name)) from None
                reason, retry_after = f"HTTP {exc.status_code}", _retry_after(exc)
            except (openai.APITimeoutError, TimeoutError):
                reason, retry_after = f"no answer within {self.request_timeout:g} s", None
            except openai.APIConnectionError as exc:
                reason, retry_after = f"connection failed ({exc.__cause__ or exc})", None
            except openai.OpenAIError as exc:  # a malformed response body and the like
                raise ModelError(f"the model endpoint sent an unusable response: {exc}") from None
            delay = backoff_delay(attempt, self.backoff_base, retry_after)
            if attempt >= self.max_retries or time.monotonic() + delay >= give_up_at:
                raise ModelUnreachableError(
                    f"the model endpoint {self.client.base_url} did not answer: {reason} "
                    f"(after {attempt + 1} attempt(s)); check --base-url / OPENAI_BASE_URL and that the "
                    "server is running, then resume"
                )
            if self.on_retry is not None:
                self.on_retry(attempt + 1, reason, delay)
            await asyncio.sleep(delay)
            attempt += 1


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
    hint = hints.get(exc.status_code, "the request was refused as invalid")
    return f"the model endpoint refused the request (HTTP {exc.status_code}: {detail or exc.message}); {hint}"


def _to_raw(response: Any) -> RawReply:
    choices = getattr(response, "choices", None) or []
    if not choices:
        return RawReply(content="")
    message = choices[0].message
    calls = [
        (call.id or "", call.function.name or "", call.function.arguments or "")
        for call in (message.tool_calls or [])
        if getattr(call, "function", None) is not None
    ]
    usage = getattr(response, "usage", None)
    return RawReply(
        content=message.content,
        tool_calls=calls,
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
    )
