"""Shared pieces of the browser tests: a loopback web site whose routes a test sets, a fake
internet for the URL policy, an ActionContext on a fresh workspace, and the skip marker.

The fake internet: names ending in ".test" resolve to the public address PUBLIC_IP, and
connections to PUBLIC_IP go to 127.0.0.1 on the same port. So a page served on loopback counts
as public for the URL policy, while 127.0.0.1 itself, or a name resolving to 10.0.0.7, is private
and refused — with private addresses NOT allowed, as in a default run. If the policy let a private
request through, it would reach the loopback server and the test would see it there.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest

from actions.browser.session import Browser, find_chromium
from actions.web.fetch import Fetcher
from agent_runtime.config import Settings
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import BrowserUnavailableError
from agent_runtime.testing import scratch_context
from sandbox.url_policy import PolicyTransport, URLPolicy
from tests.support.loopback import Handler, LoopbackServer, Traffic, send
from tests.support.network_doubles import RecordingNetwork

PUBLIC_IP = "93.184.215.14"
PRIVATE_NAME_IP = "10.0.0.7"


def chromium_missing() -> str | None:
    if importlib.util.find_spec("browser_use") is None:
        return "the [browser] extra is not installed (pip install -e '.[test,browser]')"
    try:
        find_chromium(None)
    except BrowserUnavailableError:
        return "Chromium is not installed (apt-get install chromium); CI installs it"
    return None


needs_chromium = pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")


# --------------------------------------------------------------------------------------------------
# A web site on 127.0.0.1
# --------------------------------------------------------------------------------------------------


@dataclass
class Page:
    body: bytes
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Site(Traffic):
    """Routes (path without query → Page, or a function of the full path) and every request seen."""

    routes: dict[str, Page | Callable[[str], Page]] = field(default_factory=dict)
    port: int = 0

    def url(self, path: str = "/", host: str = "site.test") -> str:
        return f"http://{host}:{self.port}{path}"


def _answer(site: Site, handler: Handler) -> None:
    found = site.routes.get(handler.path.split("?", 1)[0])
    page = found(handler.path) if callable(found) else found
    if page is None:
        page = Page(b"<html><body><h1>Not found</h1></body></html>", status=404)
    send(handler, page.body, status=page.status, content_type=page.content_type, headers=page.headers)


def site_factory() -> Iterator[Callable[[], Site]]:
    """For a `make_site` fixture: start as many sites as a test needs; all stop when it ends.

    @pytest.fixture
    def make_site() -> Iterator[Callable[[], Site]]:
        yield from site_factory()
    """
    started: list[LoopbackServer] = []

    def factory() -> Site:
        site = Site()
        server = LoopbackServer(partial(_answer, site), site)
        site.port = server.port
        started.append(server)
        return site

    yield factory
    for server in started:
        server.stop()


# --------------------------------------------------------------------------------------------------
# The fake internet
# --------------------------------------------------------------------------------------------------


async def fake_dns(host: str, port: int) -> Sequence[str]:
    if host.endswith(".test") and not host.startswith("intranet."):
        return [PUBLIC_IP]
    if host.startswith("intranet."):
        return [PRIVATE_NAME_IP]
    raise OSError(f"no DNS in tests ({host})")


@dataclass
class FakeInternet:
    """Connections to PUBLIC_IP go to 127.0.0.1 (same port); every attempt is recorded."""

    attempts: list[tuple[str, int]] = field(default_factory=list)

    async def connect(self, ip: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """For the browser's proxy."""
        self.attempts.append((ip, port))
        if ip != PUBLIC_IP:
            raise OSError(f"no network in tests ({ip})")
        return await asyncio.open_connection("127.0.0.1", port)

    def backend(self) -> httpcore.AsyncNetworkBackend:
        """For the HTTP fetcher: the same fake internet, its attempts recorded in the same list."""
        return RecordingNetwork(attempts=self.attempts, local=frozenset({PUBLIC_IP}))


def fake_policy() -> URLPolicy:
    return URLPolicy(resolver=fake_dns)  # private addresses NOT allowed


def fake_browser(internet: FakeInternet, settings: Settings | None = None) -> Browser:
    return Browser(settings or Settings(), policy=fake_policy(), connector=internet.connect)


# --------------------------------------------------------------------------------------------------
# Contexts
# --------------------------------------------------------------------------------------------------


@dataclass
class Contexts:
    """ActionContexts on fresh workspaces; `shared` (a browser several tests reuse) is put into
    each one and taken out again before the context is closed, so closing does not end it."""

    root: Path
    shared: Browser | None = None
    internet: FakeInternet | None = None
    made: list[ActionContext] = field(default_factory=list)

    def __call__(self, **settings: Any) -> ActionContext:
        ctx = scratch_context(self.root / f"ws{len(self.made)}", **settings)
        if self.shared is not None:
            ctx.services.provide(Browser, self.shared, close=False)  # shared by the tests: not closed
        if self.internet is not None:
            policy = fake_policy()
            client = httpx.AsyncClient(
                transport=PolicyTransport(policy, network=self.internet.backend()),
                follow_redirects=False,
                trust_env=False,
                timeout=10,
            )
            ctx.services.provide(Fetcher, Fetcher(policy, client=client))
        self.made.append(ctx)
        return ctx

    async def close(self) -> None:
        for ctx in self.made:
            await ctx.services.aclose()
            ctx.events.close()


def html(body: str, title: str = "Test page", head: str = "") -> bytes:
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>{head}</head><body>{body}</body></html>".encode()
