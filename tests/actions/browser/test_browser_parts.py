"""The browser's parts that need no browser: the policy proxy (driven by a real HTTP client), the
"does this page need JavaScript" rule, Chromium's flags, browser-use's environment, and the JSON
repair of replies from endpoints without strict JSON output."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from actions.browser.proxy import REFUSED_HEADER, PolicyProxy
from actions.browser.render import js_reason
from actions.browser.session import BROWSER_USE_ENV, chromium_flags, prepare_browser_use
from agent_runtime.app.cli import _flags, build_parser
from tests.support.browser_kit import PRIVATE_NAME_IP, FakeInternet, Page, Site, fake_policy, site_factory

# --------------------------------------------------------------------------------------------------
# The proxy
# --------------------------------------------------------------------------------------------------


@pytest.fixture
def make_site() -> Iterator[Callable[[], Site]]:
    yield from site_factory()


@pytest_asyncio.fixture
async def proxy() -> AsyncIterator[tuple[PolicyProxy, FakeInternet]]:
    internet = FakeInternet()
    server = PolicyProxy(fake_policy(), connector=internet.connect)
    await server.start()
    yield server, internet
    await server.aclose()


def client_for(proxy: PolicyProxy) -> httpx.AsyncClient:
    return httpx.AsyncClient(proxy=proxy.address, trust_env=False, timeout=10)


@pytest.fixture
def site(make_site: Callable[[], Site]) -> Site:
    site = make_site()
    site.routes["/page"] = Page(b"<p>hello from the site</p>", headers={"Connection": "keep-alive"})
    return site


@pytest.mark.slow
async def test_the_proxy_forwards_a_public_request_with_connection_close(
    proxy: tuple[PolicyProxy, FakeInternet], site: Site
) -> None:
    server, internet = proxy
    async with client_for(server) as client:
        response = await client.get(site.url("/page?x=1"))

    assert response.status_code == 200 and response.text == "<p>hello from the site</p>"
    assert response.headers["connection"] == "close"  # never reused for another host
    assert site.requests == ["/page?x=1"]
    assert internet.attempts == [("93.184.215.14", site.port)]
    assert not server.blocked


@pytest.mark.slow
@pytest.mark.parametrize(
    ("host", "words"),
    [
        ("127.0.0.1", "127.0.0.1 is a loopback address"),
        ("localhost", "localhost is the local machine"),
        ("intranet.test", "intranet.test resolves to 10.0.0.7, which is a private-network address"),
    ],
)
async def test_the_proxy_refuses_private_addresses_over_http_and_https(
    proxy: tuple[PolicyProxy, FakeInternet], site: Site, host: str, words: str
) -> None:
    server, internet = proxy
    async with client_for(server) as client:
        response = await client.get(f"http://{host}:{site.port}/page")
        assert response.status_code == 403 and response.headers[REFUSED_HEADER] == "1"
        assert words in response.text
        with pytest.raises(httpx.ProxyError):  # the tunnel is refused: 403 to CONNECT
            await client.get(f"https://{host}:{site.port}/page")

    assert [b.kind for b in server.blocked] == ["refused", "refused"]
    assert all(words in b.message for b in server.blocked)
    assert site.untouched and internet.attempts == []  # no connection was even tried
    assert (PRIVATE_NAME_IP, site.port) not in internet.attempts


async def test_the_proxy_silences_chromiums_background_services(
    proxy: tuple[PolicyProxy, FakeInternet],
) -> None:
    server, internet = proxy
    async with client_for(server) as client:
        response = await client.get("http://update.googleapis.com/service/update2/json")

    assert response.status_code == 403
    assert [b.kind for b in server.blocked] == ["background"] and internet.attempts == []


async def test_an_unreachable_server_is_a_bad_gateway(proxy: tuple[PolicyProxy, FakeInternet]) -> None:
    server, _ = proxy
    closed = 9  # the discard port: nothing listens there
    async with client_for(server) as client:
        response = await client.get(f"http://site.test:{closed}/")

    assert response.status_code == 502
    assert [b.kind for b in server.blocked] == ["unreachable"]


# --------------------------------------------------------------------------------------------------
# When a page needs the browser
# --------------------------------------------------------------------------------------------------

LONG = "Solid-state cells reach 412 Wh/kg in a pilot line. " * 40


@pytest.mark.parametrize(
    ("body", "text", "expected"),
    [
        (
            b"<div id=app></div><script src=app.js></script>",
            "",
            "the page has almost no text without JavaScript",
        ),
        (
            b"<p>Loading</p><SCRIPT>render()</SCRIPT>",
            "Loading",
            "the page has almost no text without JavaScript",
        ),
        (
            b"<noscript>Please enable JavaScript to view this site.</noscript><script></script>",
            LONG[:800],
            "the page says it needs JavaScript",
        ),
        (b"<noscript>You need to enable JavaScript</noscript><script></script>", LONG, None),  # enough text
        (b"<p>Short page without scripts</p>", "Short page without scripts", None),  # a browser adds nothing
        (b"<article>...</article><script>track()</script>", LONG, None),
    ],
)
def test_js_reason(body: bytes, text: str, expected: str | None) -> None:
    assert js_reason(body, text) == expected


# --------------------------------------------------------------------------------------------------
# Chromium's flags, browser-use's environment, the CLI flag
# --------------------------------------------------------------------------------------------------


def test_chromium_flags_send_everything_through_the_proxy(tmp_path: Path) -> None:
    flags = chromium_flags(tmp_path, "http://127.0.0.1:4000", as_root=False)

    assert "--proxy-server=http://127.0.0.1:4000" in flags and "--proxy-bypass-list=<-loopback>" in flags
    assert "--headless" in flags and f"--user-data-dir={tmp_path}" in flags
    for quiet in (
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ):
        assert quiet in flags
    assert "--no-sandbox" not in flags
    assert "--no-sandbox" in chromium_flags(tmp_path, "http://127.0.0.1:4000", as_root=True)


def test_browser_use_is_configured_to_stay_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [*BROWSER_USE_ENV, "BROWSER_USE_CONFIG_DIR"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANONYMIZED_TELEMETRY", "true")  # even a user's setting is overridden

    prepare_browser_use()

    assert os.environ["ANONYMIZED_TELEMETRY"] == "false"
    assert (
        os.environ["BROWSER_USE_CLOUD_SYNC"] == "false" and os.environ["BROWSER_USE_VERSION_CHECK"] == "false"
    )
    assert os.environ["BROWSER_USE_DISABLE_EXTENSIONS"] == "true"
    assert not os.environ["BROWSER_USE_CONFIG_DIR"].startswith(str(Path.home()))


def test_the_browser_path_flag() -> None:
    args = build_parser().parse_args(["run", "T", "--browser-path", "/opt/chromium/chrome"])
    assert _flags(args)["browser_path"] == Path("/opt/chromium/chrome")


# --------------------------------------------------------------------------------------------------
# Replies from endpoints without strict JSON output
# --------------------------------------------------------------------------------------------------

needs_extra = pytest.mark.skipif(
    importlib.util.find_spec("browser_use") is None, reason="the [browser] extra is not installed"
)
STEP = {"memory": "m", "action": [{"click": {"index": 3}}]}


@needs_extra
@pytest.mark.parametrize(
    "content",
    [
        json.dumps(STEP),
        "<think>Click the button.</think>" + json.dumps(STEP),
        "Here is my next step:\n```json\n" + json.dumps(STEP, indent=2) + "\n```",
        "{'memory': 'm', 'action': [{'click': {'index': 3,},},],}",
    ],
)
def test_replies_are_repaired_to_their_json_object(content: str) -> None:
    prepare_browser_use()
    from actions.browser.agent import repaired_json

    assert json.loads(repaired_json(content)) == STEP


@needs_extra
def test_only_openai_itself_gets_strict_json_schema_output() -> None:
    prepare_browser_use()
    from actions.browser.agent import strict_endpoint

    assert strict_endpoint(None) and strict_endpoint("https://api.openai.com/v1")
    assert not strict_endpoint("http://localhost:11434/v1") and not strict_endpoint(
        "https://api.deepseek.com"
    )
