"""What the view reads of a request, bounded before it is read: a large body or a heap of headers
is refused, never held in memory.

Two layers hold the bounds:

- uvicorn's parser (h11, named in serve()) keeps at most MAX_HEAD_BYTES of a request line and
  headers not yet complete and refuses the rest (uvicorn's 400; a head that came whole in one read,
  at most 256 KB, reaches `Limits`);
- `Limits`, an ASGI middleware behind the Guard (so a change gets this far only with the token),
  answers 431 to more than MAX_HEADERS headers or more than MAX_HEADER_BYTES of them, 413 at once
  to a Content-Length over MAX_BODY_BYTES (without reading a byte of the body), and reads any other
  body itself up to MAX_BODY_BYTES before the app sees it: a chunked body that goes on past the
  limit is answered 413 there. Its answers close the connection, so the rest of a refused body is
  never read either (nor is the body of a request the Guard refuses: its answers close too).

uvicorn itself holds at most 64 KB of a body the app has not asked for, and MAX_CONNECTIONS bounds
the connections served at once (more are answered 503), so the view's memory stays flat whatever
is sent to it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_runtime.app.view.responses import answer
from agent_runtime.app.view.workspaces import MAX_DOCUMENT_BYTES

# The largest legitimate body is a dashboard save: {"content": "…", "base": "<sha256>"}, its content
# at most MAX_DOCUMENT_BYTES of UTF-8. JSON.stringify writes a quote, a backslash or a newline as
# two characters, so even a text made only of them fits, with room for the rest of the object.
MAX_BODY_BYTES = 2 * MAX_DOCUMENT_BYTES + 65_536
MAX_HEADERS = 100  # a browser sends about 15
MAX_HEADER_BYTES = 16_384  # names and values: what uvicorn's parser allowed the whole head until now
MAX_HEAD_BYTES = 65_536  # the request line and headers, as uvicorn's parser buffers them
MAX_CONNECTIONS = 100  # a browser opens at most 6 to one host and port

TOO_LARGE = (
    f"the request body is over {MAX_BODY_BYTES:,} bytes, more than the view accepts (a dashboard "
    f"is saved here with at most {MAX_DOCUMENT_BYTES:,} bytes; edit a longer one in an editor)"
)
TOO_MANY_HEADERS = (
    f"the request's headers are too large: at most {MAX_HEADERS} headers and {MAX_HEADER_BYTES:,} bytes"
)


async def _refuse(status: int, message: str, scope: Scope, receive: Receive, send: Send) -> None:
    refusal = answer(status, message)
    refusal.headers["Connection"] = "close"  # the rest of the request is never read
    await refusal(scope, receive, send)


def _declared_length(scope: Scope) -> int | None:
    """The Content-Length, if the request gives one (uvicorn's parser has checked its form)."""
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _has_body(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        name = name.lower()
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() != b"0"):
            return True
    return False


class Limits:
    """ASGI middleware holding the bounds of the module docstring."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope["headers"]
        if len(headers) > MAX_HEADERS or sum(len(n) + len(v) for n, v in headers) > MAX_HEADER_BYTES:
            await _refuse(431, TOO_MANY_HEADERS, scope, receive, send)
            return
        length = _declared_length(scope)
        if length is not None and length > self.max_body:
            await _refuse(413, TOO_LARGE, scope, receive, send)  # before a byte of the body is read
            return
        if not _has_body(scope):
            await self.app(scope, receive, send)
            return
        read = await self._read_body(receive)
        if read is None:
            await _refuse(413, TOO_LARGE, scope, receive, send)
            return
        pending: list[Message] = read

        async def replay() -> Message:
            return pending.pop(0) if pending else await receive()

        await self.app(scope, replay, send)

    async def _read_body(self, receive: Receive) -> list[Message] | None:
        """The body's messages, read to its end; None once it goes past the limit (then the reading
        stops: the rest stays unread, and the answer closes the connection)."""
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":  # the client went away: the app hears it
                return messages
            size += len(message.get("body", b""))
            if size > self.max_body:
                return None
            if not message.get("more_body", False):
                return messages
