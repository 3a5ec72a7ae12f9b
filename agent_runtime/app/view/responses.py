"""How the view answers: JSON that any text can go into, and one line in the terminal, never a
traceback, for a request it failed to answer.

Text from a run can hold lone surrogates: a JSON `\\ud800` escape in run.json or the event log, a
file name that is not UTF-8 (decoded with surrogateescape). Encoded strictly, one of them fails the
whole answer; here it goes out as a JSON `\\udcXX` escape, which the page's JSON.parse reads back.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sandbox.redaction import redact

FAILED = "the view failed to answer this request (see its terminal)"


def json_text(payload: Any) -> str:
    """`payload` as JSON that encodes to UTF-8. UTF-8 can encode every character but a lone
    surrogate, and one can only stand inside a JSON string, where backslashreplace writes it as a
    valid `\\uXXXX` escape."""
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, default=str, separators=(",", ":"))
    return redact(text.encode("utf-8", "backslashreplace").decode("utf-8"))  # no secret leaves the view


class JSONAnswer(JSONResponse):
    def render(self, content: Any) -> bytes:
        return json_text(content).encode("utf-8")


def answer(status: int, message: str) -> JSONAnswer:
    """An error as the page shows it: {"error": one line}."""
    return JSONAnswer({"error": message}, status)


def log_failure(scope: Scope, exc: BaseException) -> None:
    """One line in the view's terminal: what failed, for whom, and why."""
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    print(f"deep-researcher view: {scope.get('method', '?')} {scope.get('path', '?')}: {reason}", file=sys.stderr)


async def failed(request: Request, exc: Exception) -> Response:
    """Starlette's handler of unexpected errors: the 500 the client gets (Contained logs it)."""
    return answer(500, FAILED)


class Contained:
    """ASGI middleware: an exception out of the app ends here, as one logged line, instead of
    reaching uvicorn, which prints its traceback. Starlette has already answered 500 when it could
    (see `failed`); a response the error cut off after it started is ended."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = ended = False

        async def watched(message: Message) -> None:
            nonlocal started, ended
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                ended = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            log_failure(scope, exc)
            # The connection may be what broke: a failed rescue has nothing left to tell anyone.
            with contextlib.suppress(Exception):
                if not started:
                    await answer(500, FAILED)(scope, receive, send)
                elif not ended:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
