"""Fixtures of the live-view tests: a folder holding one finished-looking workspace, the view's app
on it behind a known token (no server: Starlette's TestClient calls the app directly), the view as a
process, and one Chromium per module for the page tests. The kit they use is tests/support/view.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view.server import create_app
from agent_runtime.app.view.workspaces import Folder
from tests.support.view import CHROMIUM, ORIGIN, PORT, TOKEN, RunningView, make_workspace, start_view


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A folder of workspaces holding one, `ssb`."""
    make_workspace(tmp_path / "runs" / "ssb")
    return tmp_path / "runs"


@pytest.fixture
def client(runs: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Folder(runs), TOKEN, PORT), base_url=ORIGIN) as test_client:
        yield test_client


@pytest.fixture
def view_process() -> Iterator[Callable[..., RunningView]]:
    """`view_process(folder, env)` starts the view; every one started is stopped after the test."""
    started: list[RunningView] = []

    def start(folder: Path, env: dict[str, str], *extra: str) -> RunningView:
        view = start_view(folder, env, *extra)
        started.append(view)
        return view

    yield start
    for view in started:
        if view.process.poll() is None:
            view.process.kill()
        view.process.wait(10)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium for a module's page tests: starting the driver and the browser is the
    slow part of each, and a fresh context per page keeps the tests apart."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The module's Chromium; the pages and contexts a test opens are closed after it, so no test
    sees another's cookies, storage or tabs."""
    before = list(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            context.close()
