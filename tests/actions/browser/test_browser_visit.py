"""visit_url in a real headless Chromium: pages whose text only exists after their scripts run,
the three modes, and the URL policy on every navigation, redirect, sub-frame and sub-resource.

One browser serves the whole module (started once, closed at the end); each test has its own
workspace and ledger. Private addresses are NOT allowed: pages are served on loopback under
public-looking names (see browser_kit's fake internet), private targets are 127.0.0.1 itself or
names resolving to 10.0.0.7.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from actions.browser.session import Browser
from actions.web.visit import visit_url
from agent_runtime.domain.sources.ledger import ledger_for
from tests.support.browser_kit import (
    PRIVATE_NAME_IP,
    Contexts,
    FakeInternet,
    Page,
    Site,
    fake_browser,
    html,
    needs_chromium,
    site_factory,
)

pytestmark = [needs_chromium, pytest.mark.asyncio(loop_scope="module")]

ARTICLE = {
    "title": "Solid-state cells reach 412 Wh/kg",
    "paragraphs": [
        "A pilot line produced solid-state battery cells with an energy density of 412 Wh/kg, "
        "measured at the cell level by an independent laboratory in March.",
        "The cells kept 91 percent of their capacity after 800 full cycles at room temperature, "
        "which the manufacturer says is enough for passenger cars.",
        "Costs remain the main obstacle: the sulfide electrolyte is still made in small batches, "
        "and the dry-room requirements add to the price of every cell produced.",
    ],
}
# The text exists only after the script has fetched it and written it into the page.
APP = html(
    "<div id='app'>Loading…</div><script>"
    "fetch('/data.json').then(r => r.json()).then(d => {"
    "document.getElementById('app').innerHTML = '<article><h1>' + d.title + '</h1>' +"
    "d.paragraphs.map(p => '<p>' + p + '</p>').join('') + '</article>';});"
    "</script>",
    title="Battery news",
)
LONG_TEXT = " ".join(ARTICLE["paragraphs"]) * 2


@pytest.fixture
def make_site() -> Iterator[Callable[[], Site]]:
    yield from site_factory()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared() -> AsyncIterator[tuple[Browser, FakeInternet]]:
    internet = FakeInternet()
    browser = fake_browser(internet)
    yield browser, internet
    await browser.aclose()


@pytest_asyncio.fixture(loop_scope="module")
async def contexts(tmp_path: Path, shared: tuple[Browser, FakeInternet]) -> AsyncIterator[Contexts]:
    made = Contexts(tmp_path, shared=shared[0], internet=shared[1])
    yield made
    await made.close()


@pytest.fixture
def news(make_site: Callable[[], Site]) -> Site:
    site = make_site()
    site.routes["/app"] = Page(APP)
    site.routes["/data.json"] = Page(json.dumps(ARTICLE).encode(), content_type="application/json")
    return site


@pytest.fixture
def private(make_site: Callable[[], Site]) -> Site:
    site = make_site()
    site.routes["/secret"] = Page(html("<p>secret admin page</p>"))
    return site


@pytest.mark.slow
async def test_script_made_text_http_mode_misses_it_auto_mode_reads_it_in_the_browser(
    contexts: Contexts, news: Site
) -> None:
    url = news.url("/app")

    plain = await visit_url.run(contexts(), {"url": url, "mode": "http"})
    assert "412 Wh/kg" not in plain.text and "loaded in the browser" not in plain.text
    assert news.requests == ["/app"]

    ctx = contexts()
    obs = await visit_url.run(ctx, {"url": url})  # auto, the default
    assert not obs.error, obs.text
    assert "412 Wh/kg" in obs.text
    assert "loaded in the browser: the page has almost no text without JavaScript" in obs.text
    record = ledger_for(ctx).lookup(url)
    assert record is not None and record.fetched and record.snapshot == "sources/S1.md"
    snapshot = (ctx.workspace.root / record.snapshot).read_text()
    assert "Solid-state cells reach 412 Wh/kg" in snapshot and "91 percent" in snapshot
    assert "Loading…" not in snapshot
    # The HTTP read, then the browser's load of the page and of the data its script fetched.
    assert news.requests.count("/app") == 3 and news.requests.count("/data.json") == 1


@pytest.mark.slow
async def test_browser_mode_loads_pages_directly_several_at_once(contexts: Contexts, news: Site) -> None:
    for name in ("a", "b", "c"):
        news.routes[f"/{name}"] = Page(APP)
    urls = [news.url(f"/{name}") for name in ("a", "b", "c")]
    ctx = contexts()

    obs = await visit_url.run(ctx, {"url": urls, "mode": "browser"})

    assert obs.text.startswith("visit_url: 3 of 3 pages read"), obs.text
    assert obs.text.count("loaded in the browser") == 3
    assert [r.id for r in ledger_for(ctx).records()] == ["S1", "S2", "S3"]
    for record in ledger_for(ctx).records():
        assert "412 Wh/kg" in (ctx.workspace.root / str(record.snapshot)).read_text()
    # No HTTP read first: each page was requested once, by the browser.
    assert sorted(p for p in news.requests if p in ("/a", "/b", "/c")) == ["/a", "/b", "/c"]


@pytest.mark.slow
async def test_a_page_with_text_and_no_scripts_is_not_loaded_in_the_browser(
    contexts: Contexts, news: Site
) -> None:
    news.routes["/static"] = Page(html(f"<article><h1>Static</h1><p>{LONG_TEXT}</p></article>"))

    obs = await visit_url.run(contexts(), {"url": news.url("/static")})

    assert "412 Wh/kg" in obs.text and "browser" not in obs.text
    assert news.requests == ["/static"]  # a browser load would have asked again (and for a favicon)


@pytest.mark.slow
async def test_a_redirect_to_a_private_address_is_refused_in_the_browser(
    contexts: Contexts, news: Site, private: Site
) -> None:
    news.routes["/go"] = Page(b"", status=302, headers={"Location": private.url("/secret", host="127.0.0.1")})
    ctx = contexts()

    obs = await visit_url.run(ctx, {"url": news.url("/go"), "mode": "browser"})

    assert obs.error
    assert "URL refused: 127.0.0.1 is a loopback address" in obs.text and "--allow-private-urls" in obs.text
    assert "secret admin page" not in obs.text
    assert news.requests[0] == "/go" and private.untouched
    assert len(ledger_for(ctx)) == 0


@pytest.mark.slow
async def test_a_script_navigation_to_a_private_address_is_refused(
    contexts: Contexts, news: Site, private: Site
) -> None:
    # Auto mode: the HTTP read finds a short page with a script, so the browser loads it; the
    # script then navigates to a private address, which the browser's proxy refuses.
    target = private.url("/secret", host="127.0.0.1")
    news.routes["/jump"] = Page(html(f"<p>Redirecting…</p><script>location.href = '{target}';</script>"))
    ctx = contexts()

    obs = await visit_url.run(ctx, {"url": news.url("/jump")})

    assert "the browser failed (URL refused: 127.0.0.1 is a loopback address" in obs.text
    assert "only the text sent without JavaScript was read" in obs.text
    assert "secret admin page" not in obs.text
    assert private.untouched


@pytest.mark.slow
async def test_sub_frames_and_requests_to_private_addresses_are_blocked_the_page_is_read(
    contexts: Contexts, news: Site, private: Site, shared: tuple[Browser, FakeInternet]
) -> None:
    loopback = private.url("/frame", host="127.0.0.1")
    by_name = private.url("/api", host="intranet.test")  # resolves to 10.0.0.7
    news.routes["/mixed"] = Page(
        html(
            f"<article><h1>Mixed page</h1><p>{LONG_TEXT}</p></article>"
            f"<iframe src='{loopback}'></iframe><img src='{private.url('/pixel.gif', host='127.0.0.1')}'>"
            f"<script>fetch('{by_name}').catch(() => null);</script>"
        )
    )
    ctx = contexts()

    obs = await visit_url.run(ctx, {"url": news.url("/mixed"), "mode": "browser"})

    assert not obs.error and "412 Wh/kg" in obs.text
    assert "the browser blocked 3 requests of this page under the URL policy" in obs.text
    assert private.untouched
    assert (PRIVATE_NAME_IP, private.port) not in shared[1].attempts  # refused before any connection


@pytest.mark.slow
async def test_a_name_resolving_to_a_private_address_is_refused_over_http_and_https(
    contexts: Contexts, private: Site, shared: tuple[Browser, FakeInternet]
) -> None:
    ctx = contexts()
    for scheme in ("http", "https"):
        url = f"{scheme}://intranet.test:{private.port}/secret"

        obs = await visit_url.run(ctx, {"url": url, "mode": "browser"})

        assert obs.error
        assert (
            "URL refused: intranet.test resolves to 10.0.0.7, which is a private-network address" in obs.text
        )
    assert private.untouched
    assert (PRIVATE_NAME_IP, private.port) not in shared[1].attempts
    assert len(ledger_for(ctx)) == 0


@pytest.mark.slow
async def test_a_private_address_given_directly_is_refused_before_the_browser(
    contexts: Contexts, private: Site
) -> None:
    obs = await visit_url.run(
        contexts(), {"url": private.url("/secret", host="127.0.0.1"), "mode": "browser"}
    )

    assert obs.error and "URL refused: 127.0.0.1 is a loopback address" in obs.text
    assert private.untouched


@pytest.mark.slow
async def test_a_pdf_in_browser_mode_is_read_over_http(contexts: Contexts, news: Site) -> None:
    from tests.support.office_files import build_pdf

    news.routes["/paper.pdf"] = Page(
        build_pdf([["Solid-state cells reach 412 Wh/kg"]]), content_type="application/pdf"
    )

    obs = await visit_url.run(contexts(), {"url": news.url("/paper.pdf"), "mode": "browser"})

    assert not obs.error, obs.text
    assert "412 Wh/kg" in obs.text and "read over HTTP instead" in obs.text
