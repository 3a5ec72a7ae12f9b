"""The view's guard: every request must come to 127.0.0.1 by name and carry the access token.

The server listens on 127.0.0.1 only, but any local process and any web page open in the browser
can reach 127.0.0.1. So, as Jupyter does, the URL the view prints carries a random token:

- a request without the token gets 401. The token comes as `?token=` (the printed URL), as the
  `X-Token` header or `Authorization: Bearer`, or as the HttpOnly SameSite=Strict cookie set when the
  page was opened with `?token=` (then redirected to drop the token from the address bar), which is
  what the page's later requests and its EventSource carry;
- a request that changes something (not GET/HEAD) needs the header itself: a cookie alone does not
  do, so a form another site posts to 127.0.0.1 is refused (and a custom header cannot be sent
  cross-site without a CORS preflight, which this server never grants);
- the Host header must be 127.0.0.1:PORT or localhost:PORT, so a DNS-rebinding page (its own name
  resolved to 127.0.0.1) is refused even before the token is looked at;
- every response forbids framing and sniffing, sends no referrer (a source link opened from the page
  does not learn the view's address), and carries a Content-Security-Policy allowing only the view's
  own script, with no inline script: even an escaping bug could not run a snapshot's script.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers, MutableHeaders, QueryParams
from starlette.requests import cookie_parser
from starlette.responses import PlainTextResponse, RedirectResponse, Response
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

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.cookie = f"deep_researcher_view_{port}"  # cookies ignore ports: one name per view
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
            await refusal(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)

    def _refusal(self, scope: Scope) -> Response | None:
        """The answer to a request that may not pass (or the redirect that sets the cookie)."""
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
        by_query = self._matches(QueryParams(scope["query_string"]).get("token"))
        if by_query and scope["path"] == "/":
            # The cookie carries the token from now on; the address bar (and history) lose it.
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
            return response
        if by_header or by_query or self._matches(self._cookie(headers)):
            return None
        return PlainTextResponse(NO_TOKEN, 401)

    def _cookie(self, headers: Headers) -> str | None:
        return cookie_parser(headers.get("cookie", "")).get(self.cookie)
