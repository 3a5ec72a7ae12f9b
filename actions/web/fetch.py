"""Fetching pages: streaming with a byte cap, one total deadline, redirects one hop at a time under
the URL policy, bounded concurrency and a per-host limit.

Every request goes through the client from `sandbox.url_policy.make_client`, which checks the
address it really connects to; each redirect `Location` is checked with `policy.check_url` before
it is requested, so a public page cannot bounce the fetcher onto the intranet. Refusals propagate
as `URLRefusedError`; every other failure is a `FetchError` whose message tells the model what
happened and what to do instead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx

from sandbox.url_policy import URLPolicy, make_client

USER_AGENT = "Mozilla/5.0 (compatible; DeepResearcher/0.1; research agent)"
ACCEPT = (
    "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,application/json;q=0.7,*/*;q=0.5"
)
_REDIRECTS = (301, 302, 303, 307, 308)
# Types no extractor reads: refused from the headers, before the body is downloaded.
_REFUSED_PREFIXES = ("image/", "video/", "audio/", "font/")
_REFUSED_TYPES = frozenset(
    {
        "application/zip", "application/gzip", "application/x-tar", "application/x-7z-compressed",
        "application/x-rar-compressed", "application/vnd.rar", "application/x-msdownload",
        "application/x-executable", "application/wasm", "application/x-shockwave-flash",
    }
)  # fmt: skip


class FetchError(Exception):
    """A page could not be fetched; the message is written for the model."""


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 10 * 1024 * 1024  # kept of one response; the rest is not downloaded
    deadline: float = 30.0  # seconds for one page: connect, redirects and body together
    max_redirects: int = 10
    concurrency: int = 10  # pages at once, all hosts together
    per_host: int = 4  # pages at once from one host: politeness towards a single site


@dataclass
class FetchResult:
    url: str  # as requested
    final_url: str  # after redirects
    status: int
    content_type: str  # media type without parameters, lower-case ("" if none was sent)
    charset: str | None  # from the Content-Type header
    body: bytes
    truncated: bool  # the response was longer than max_bytes and was cut there
    redirects: list[str] = field(default_factory=list)
    seconds: float = 0.0


def media_type(header: str | None) -> tuple[str, str | None]:
    """("text/html", "iso-8859-1") from a Content-Type header."""
    if not header:
        return "", None
    kind, *params = header.split(";")
    charset = None
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return kind.strip().lower(), charset


def _status_message(status: int, url: str) -> str:
    if status == 404 or status == 410:
        return (
            f"HTTP {status}: the page {url} was not found (it may have moved or been removed); "
            "check the URL, or search for the page's new location"
        )
    if status in (401, 403):
        return (
            f"HTTP {status}: {url} refused access (login required or automated access blocked); "
            "try another source for the same information"
        )
    if status == 429:
        return f"HTTP 429: {url} is rate limiting requests; try again later or use another source"
    if status >= 500:
        return f"HTTP {status}: the server of {url} failed; try again later or use another source"
    return f"HTTP {status}: {url} could not be fetched; try another source"


def _describe(exc: httpx.HTTPError, url: str) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return f"{url} did not answer in time; try again later or use another source"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect to {url} ({exc}); check the address, or try another source"
    if isinstance(exc, httpx.TooManyRedirects):
        return f"{url} redirects too often"
    return f"{url} failed: {type(exc).__name__}: {exc}"


class Fetcher:
    """Fetches pages for one run. `client` may be given (tests pass one over a recording network);
    otherwise one is built with `make_client(policy)`, so the address rule holds at connect time."""

    def __init__(
        self,
        policy: URLPolicy,
        limits: FetchLimits | None = None,
        *,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.policy = policy
        self.limits = limits or FetchLimits()
        self._client = client or make_client(
            policy,
            timeout=httpx.Timeout(self.limits.deadline, connect=min(10.0, self.limits.deadline)),
            headers={"User-Agent": USER_AGENT, "Accept": ACCEPT, "Accept-Language": "en;q=0.9,*;q=0.5"},
            limits=httpx.Limits(max_connections=self.limits.concurrency * 2, max_keepalive_connections=20),
        )
        self._all = asyncio.Semaphore(self.limits.concurrency)
        self._hosts: dict[str, asyncio.Semaphore] = {}

    async def aclose(self) -> None:
        await self._client.aclose()

    @asynccontextmanager
    async def _slot(self, host: str) -> AsyncIterator[None]:
        host_slot = self._hosts.setdefault(host, asyncio.Semaphore(self.limits.per_host))
        async with host_slot, self._all:
            yield

    async def fetch(self, url: str) -> FetchResult:
        """Fetch `url`. Raises `URLRefusedError` (the URL policy) or `FetchError` (anything else)."""
        target = self.policy.check_url(url)
        async with self._slot(target.host):
            # The deadline starts once a slot is free: waiting behind other pages does not count.
            started = time.monotonic()
            try:
                async with asyncio.timeout(self.limits.deadline):
                    result = await self._follow(url, target)
            except TimeoutError:
                raise FetchError(
                    f"{url} did not send the whole page within {self.limits.deadline:g} seconds (the fetch "
                    "deadline); the site is slow or stalled: try again later or use another source"
                ) from None
            except httpx.HTTPError as exc:
                raise FetchError(_describe(exc, url)) from None
            result.seconds = time.monotonic() - started
            return result

    async def _follow(self, url: str, target: httpx.URL) -> FetchResult:
        redirects: list[str] = []
        while True:
            request = self._client.build_request("GET", target)
            response = await self._client.send(request, stream=True)
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    if len(redirects) >= self.limits.max_redirects:
                        raise FetchError(
                            f"{url} redirected more than {self.limits.max_redirects} times; "
                            "the site may be in a redirect loop: try another source"
                        )
                    # Checked before it is requested: a redirect cannot lead past the URL policy.
                    target = self.policy.check_url(response.url.join(location))
                    redirects.append(str(target))
                    continue
                if response.status_code >= 400:
                    raise FetchError(_status_message(response.status_code, str(response.url)))
                kind, charset = media_type(response.headers.get("content-type"))
                if kind.startswith(_REFUSED_PREFIXES) or kind in _REFUSED_TYPES:
                    raise FetchError(
                        f"{response.url} is {kind} content, which cannot be read as text; "
                        "only web pages, PDFs, plain text, Markdown and JSON are supported"
                    )
                body, truncated = await self._read(response)
                return FetchResult(
                    url=url,
                    final_url=str(response.url.copy_with(fragment=None)),
                    status=response.status_code,
                    content_type=kind,
                    charset=charset,
                    body=body,
                    truncated=truncated,
                    redirects=redirects,
                )
            finally:
                await response.aclose()

    async def _read(self, response: httpx.Response) -> tuple[bytes, bool]:
        """The body, decompressed, cut at max_bytes; the rest is never downloaded."""
        cap = self.limits.max_bytes
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            if size + len(chunk) > cap:
                chunks.append(chunk[: cap - size])
                return b"".join(chunks), True
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), False
