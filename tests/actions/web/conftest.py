"""Fixtures of the web actions' tests: real HTTP servers on 127.0.0.1 whose routes a test sets and
which record every request (tests/support/web_server.py), a minimal PDF writer, and an
ActionContext on a fresh workspace. Every server binds 127.0.0.1 and stops by itself at the end of
its test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from actions.web.fetch import Fetcher
from actions.web.search import ProviderChain
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.testing import scratch_context
from tests.support.loopback import LoopbackServer
from tests.support.office_files import build_pdf
from tests.support.web_server import ContextFactory, WebServer, serve


@pytest.fixture
def make_pdf() -> Callable[..., bytes]:
    return build_pdf


# --------------------------------------------------------------------------------------------------
# A real HTTP server on 127.0.0.1
# --------------------------------------------------------------------------------------------------


@pytest.fixture
def make_server() -> Iterator[Callable[[], WebServer]]:
    """Start as many servers as a test needs; all stop when it ends."""
    started: list[tuple[WebServer, LoopbackServer]] = []

    def factory() -> WebServer:
        state = WebServer()
        started.append((state, serve(state)))
        return state

    yield factory
    for state, server in started:
        state.stopping.set()
        server.stop()


@pytest.fixture
def web_server(make_server: Callable[[], WebServer]) -> WebServer:
    return make_server()


@pytest.fixture
def second_server(make_server: Callable[[], WebServer]) -> WebServer:
    return make_server()


# --------------------------------------------------------------------------------------------------
# An ActionContext on a fresh workspace
# --------------------------------------------------------------------------------------------------


@pytest.fixture
async def make_ctx(tmp_path: Path) -> AsyncIterator[ContextFactory]:
    made: list[ActionContext] = []

    def factory(**settings: Any) -> ActionContext:
        ctx = scratch_context(tmp_path / f"ws{len(made)}", **settings)
        made.append(ctx)
        return ctx

    yield factory
    for ctx in made:
        await ctx.services.aclose()
        assert ctx.services.peek(Fetcher) is None and ctx.services.peek(ProviderChain) is None
        ctx.events.close()
