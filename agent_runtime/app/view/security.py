"""The view's guard: every request must come to 127.0.0.1 by name, and every request for data must
carry the access token.

The server listens on 127.0.0.1 only, but any local process and any web page open in the browser
can reach 127.0.0.1. So, as Jupyter does, the URL the view prints carries a random token:

- the page itself (index.html and its static scripts, styles and icon) holds nothing of the user's
  and is served without the token; its script takes the token from the printed URL (`?token=`),
  keeps it in the tab (sessionStorage, so that a reload keeps working), and drops it from the
  address bar. The token is never a cookie: browsers share a host's cookies among all its ports,
  so a cookie for 127.0.0.1 would go to every other local server the browser visits;
- every other request without the token gets 401. It comes as the `X-Token` header (the page's
  fetches), `Authorization: Bearer`, or `?token=` (what the page's EventSource, which cannot send
  headers, carries);
- a request that changes something (not GET/HEAD) needs the header itself, and a foreign Origin is
  refused: a form another site posts to 127.0.0.1 cannot carry a header (and a custom header cannot
  be sent cross-site without a CORS preflight, which this server never grants);
- the Host header must be 127.0.0.1:PORT or localhost:PORT, so a DNS-rebinding page (its own name
  resolved to 127.0.0.1) is refused even before the token is looked at;
- every response forbids framing and sniffing, sends no referrer (a source link opened from the page
  does not learn the view's address, nor the EventSource's token), and carries a
  Content-Security-Policy allowing only the view's own script, with no inline script: even an
  escaping bug could not run a snapshot's script.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers, MutableHeaders, QueryParams
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
SAFE_METHODS = ("GET", "HEAD")
NO_TOKEN = (
    "This page needs its access token: open the URL `deep-researcher view` printed "
    "(http://127.0.0.1:PORT/?token=…).\n"
)


class Guard:
    """ASGI middleware holding the rules of the module docstring."""

    def __init__(self, app: ASGIApp, token: str, port: int, page: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.token = token
        self.page = page  # the paths of the page's own files, served without the token
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    def _matches(self, given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(str(given).encode(), self.token.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # no websockets here

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            refusal.headers["Connection"] = "close"  # a body sent with it is never read
            await refusal(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)

    def _refusal(self, scope: Scope) -> Response | None:
        """The answer to a request that may not pass."""
        headers = Headers(scope=scope)
        if headers.get("host", "").lower() not in self.hosts:
            return PlainTextResponse("Refused: this server answers only to 127.0.0.1 and localhost.\n", 403)
        authorization = headers.get("authorization", "")
        bearer = authorization[7:].strip() if authorization.lower().startswith("bearer ") else None
        by_header = self._matches(headers.get("x-token")) or self._matches(bearer)
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin")
            if not by_header or (origin is not None and origin not in self.origins):
                return PlainTextResponse("Refused: a change needs the X-Token header from the page.\n", 403)
            return None
        if scope["path"] in self.page:
            return None
        if by_header or self._matches(QueryParams(scope["query_string"]).get("token")):
            return None
        return PlainTextResponse(NO_TOKEN, 401)
