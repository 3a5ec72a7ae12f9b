"""Without the [browser] extra, or without Chromium: visit_url reads over HTTP and says why,
`browse` answers that the browser is not installed. These run on any machine: the missing piece
is simulated — the extra by making Python's module lookup fail for it, Chromium by an empty PATH
(or a browser_path that does not exist) — and nothing else is replaced."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from actions.browser.browse import browse
from actions.browser.session import Browser
from actions.web.visit import visit_url
from agent_runtime.domain.sources.ledger import ledger_for
from tests.support.browser_kit import Contexts, Page, Site, html, site_factory

APP = html(
    "<div id='app'>Loading…</div><script>document.getElementById('app').textContent = 'Made by a script';</script>"
)
SHELL = html(
    "<div id='app'></div><script>document.getElementById('app').textContent = 'Made by a script';</script>"
)
ARTICLE = html(
    "<article><h1>Static</h1><p>"
    + "Solid-state cells reach 412 Wh/kg in a pilot line. " * 12
    + "</p></article>"
)

EXTRA_MISSING = (
    "the browser is not installed: the [browser] extra is missing (pip install 'deep-researcher[browser]')"
)
CHROMIUM_MISSING = "the browser is not installed: Chromium was not found (apt-get install chromium, or give its path with --browser-path)"


@pytest.fixture
def make_site() -> Iterator[Callable[[], Site]]:
    yield from site_factory()


@pytest.fixture(params=["no extra", "no chromium", "wrong browser_path"])
def missing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> tuple[str, dict[str, Any]]:
    """Simulates one missing piece; gives the expected words and the settings to use."""
    if request.param == "no extra":
        real = importlib.util.find_spec

        def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
            return (
                None if name.split(".")[0] in ("browser_use", "websockets") else real(name, *args, **kwargs)
            )

        monkeypatch.setattr(importlib.util, "find_spec", find_spec)
        return EXTRA_MISSING, {}
    if request.param == "no chromium":
        monkeypatch.setenv("PATH", str(tmp_path))  # no chromium, chromium-browser, google-chrome
        return CHROMIUM_MISSING, {}
    absent = tmp_path / "bin" / "chromium"
    return (
        f"the browser is not installed: no executable browser at {absent} (browser_path / --browser-path)",
        {"browser_path": absent},
    )


@pytest_asyncio.fixture
async def contexts(tmp_path: Path) -> AsyncIterator[Contexts]:
    made = Contexts(tmp_path)
    yield made
    await made.close()


@pytest.fixture
def site(make_site: Callable[[], Site]) -> Site:
    site = make_site()
    site.routes.update({"/app": Page(APP), "/shell": Page(SHELL), "/article": Page(ARTICLE)})
    return site


@pytest.mark.slow
async def test_auto_mode_reads_over_http_and_says_the_browser_is_missing(
    contexts: Contexts, site: Site, missing: tuple[str, dict[str, Any]]
) -> None:
    words, settings = missing
    ctx = contexts(allow_private_urls=True, **settings)

    obs = await visit_url.run(ctx, {"url": f"http://127.0.0.1:{site.port}/app"})

    assert not obs.error and "Loading…" in obs.text and "Made by a script" not in obs.text
    assert (
        f"the page has almost no text without JavaScript, but {words}: only the text sent without JavaScript was read"
        in obs.text
    )
    assert ledger_for(ctx).records()[0].fetched
    browser = ctx.services.peek(Browser)
    assert browser is not None
    assert browser.pid is None  # nothing was started


@pytest.mark.slow
async def test_an_empty_shell_fails_with_the_reason_when_the_browser_is_missing(
    contexts: Contexts, site: Site, missing: tuple[str, dict[str, Any]]
) -> None:
    words, settings = missing
    obs = await visit_url.run(
        contexts(allow_private_urls=True, **settings), {"url": f"http://127.0.0.1:{site.port}/shell"}
    )

    assert obs.error
    assert "no readable text" in obs.text and words in obs.text


@pytest.mark.slow
async def test_browser_mode_falls_back_to_http_with_a_note(
    contexts: Contexts, site: Site, missing: tuple[str, dict[str, Any]]
) -> None:
    words, settings = missing
    obs = await visit_url.run(
        contexts(allow_private_urls=True, **settings),
        {"url": f"http://127.0.0.1:{site.port}/article", "mode": "browser"},
    )

    assert not obs.error and "412 Wh/kg" in obs.text
    assert f"{words}: read over HTTP instead" in obs.text
    assert site.requests == ["/article"]


@pytest.mark.slow
async def test_browse_answers_that_the_browser_is_not_installed(
    contexts: Contexts, site: Site, missing: tuple[str, dict[str, Any]]
) -> None:
    words, settings = missing
    ctx = contexts(allow_private_urls=True, base_url="http://127.0.0.1:9/v1", api_key="k", **settings)

    obs = await browse.run(
        ctx, {"task": "Find the energy density.", "start_url": f"http://127.0.0.1:{site.port}/article"}
    )

    assert obs.error
    assert (
        obs.text
        == f"browse is not available: {words}. Read pages with visit_url instead (it works without the browser)."
    )
    assert site.untouched and len(ledger_for(ctx)) == 0
