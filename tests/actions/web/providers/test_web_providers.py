"""Each search provider's request and response mapping, through httpx.MockTransport: the auth
header, the parameters, the result fields, and how errors and rate limits come out."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import httpx
import pytest

from actions.web.providers.base import SearchResult
from actions.web.providers.brave import BraveProvider
from actions.web.providers.duckduckgo import DuckDuckGoProvider
from actions.web.providers.jina import JinaProvider
from actions.web.providers.searxng import SearxngProvider
from actions.web.providers.serper import SerperProvider
from actions.web.providers.tavily import TavilyProvider
from agent_runtime.errors import SearchError

Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    def __init__(self, answer: Handler) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]

    def body(self) -> Any:
        return json.loads(self.last.content)


def ok(data: Any) -> Handler:
    return lambda request: httpx.Response(200, json=data)


def build(name: str, recorder: Recorder) -> Any:
    client = recorder.client()
    if name == "tavily":
        return TavilyProvider("tvly-KEY", client)
    if name == "serper":
        return SerperProvider("serper-KEY", client)
    if name == "brave":
        return BraveProvider("brave-KEY", client)
    if name == "jina":
        return JinaProvider("jina-KEY", client)
    return SearxngProvider("http://127.0.0.1:8888/", client)


# --------------------------------------------------------------------------------------------------
# Requests and result mapping
# --------------------------------------------------------------------------------------------------


async def test_tavily_request_and_results() -> None:
    recorder = Recorder(
        ok(
            {
                "query": "q",
                "results": [
                    {
                        "title": "Solid state",
                        "url": "https://a.example/1",
                        "content": "Energy density up.",
                        "score": 0.9,
                    },
                    {"title": "No URL", "content": "skipped"},
                    {"title": "Second", "url": "https://b.example/2", "content": "More."},
                ],
            }
        )
    )
    results = await build("tavily", recorder).search("solid state batteries", 5)

    request = recorder.last
    assert request.method == "POST" and str(request.url) == "https://api.tavily.com/search"
    assert request.headers["authorization"] == "Bearer tvly-KEY"
    body = recorder.body()
    assert body["query"] == "solid state batteries" and body["max_results"] == 5
    assert body["include_raw_content"] is False  # page text comes from visit_url, never the search
    assert results == [
        SearchResult("Solid state", "https://a.example/1", "Energy density up."),
        SearchResult("Second", "https://b.example/2", "More."),
    ]


async def test_serper_request_and_results() -> None:
    recorder = Recorder(
        ok(
            {
                "searchParameters": {"q": "x"},
                "organic": [
                    {
                        "title": "One",
                        "link": "https://a.example/1",
                        "snippet": "First &amp; best",
                        "position": 1,
                    },
                    {"title": "Two", "link": "https://a.example/2", "snippet": "Second", "position": 2},
                    {"title": "Three", "link": "https://a.example/3", "snippet": "Third", "position": 3},
                ],
            }
        )
    )
    results = await build("serper", recorder).search("x", 2)

    request = recorder.last
    assert request.method == "POST" and str(request.url) == "https://google.serper.dev/search"
    assert request.headers["x-api-key"] == "serper-KEY"
    assert recorder.body() == {"q": "x", "num": 2}
    assert results == [
        SearchResult("One", "https://a.example/1", "First & best"),
        SearchResult("Two", "https://a.example/2", "Second"),
    ]


async def test_brave_request_and_results() -> None:
    recorder = Recorder(
        ok(
            {
                "type": "search",
                "web": {
                    "results": [
                        {
                            "title": "<strong>Sodium</strong> cells",
                            "url": "https://a.example/na",
                            "description": "The <strong>cheap</strong> option",
                        },
                    ]
                },
            }
        )
    )
    results = await build("brave", recorder).search("sodium cells", 20)

    request = recorder.last
    assert request.method == "GET"
    assert request.url.copy_with(query=None) == "https://api.search.brave.com/res/v1/web/search"
    assert request.url.params["q"] == "sodium cells" and request.url.params["count"] == "20"
    assert request.headers["x-subscription-token"] == "brave-KEY"
    assert request.headers["accept"] == "application/json"
    assert results == [SearchResult("Sodium cells", "https://a.example/na", "The cheap option")]


async def test_brave_without_web_results_is_an_empty_list() -> None:
    recorder = Recorder(ok({"type": "search", "query": {"original": "zzz"}}))
    assert await build("brave", recorder).search("zzz", 5) == []


async def test_jina_request_and_results() -> None:
    recorder = Recorder(
        ok(
            {
                "code": 200,
                "data": [{"title": "J", "url": "https://j.example/", "description": "Desc", "content": ""}],
            }
        )
    )
    results = await build("jina", recorder).search("jina query", 3)

    request = recorder.last
    assert request.method == "POST" and str(request.url) == "https://s.jina.ai/"
    assert request.headers["authorization"] == "Bearer jina-KEY"
    assert request.headers["accept"] == "application/json"
    assert request.headers["x-respond-with"] == "no-content"
    assert recorder.body() == {"q": "jina query", "num": 3}
    assert results == [SearchResult("J", "https://j.example/", "Desc")]


async def test_searxng_request_and_results() -> None:
    recorder = Recorder(
        ok(
            {
                "query": "q",
                "results": [
                    {"title": f"R{i}", "url": f"https://r.example/{i}", "content": f"c{i}"} for i in range(30)
                ],
            }
        )
    )
    results = await build("searxng", recorder).search("local search", 12)

    request = recorder.last
    assert request.method == "GET"
    assert request.url.copy_with(query=None) == "http://127.0.0.1:8888/search"
    assert request.url.params["q"] == "local search" and request.url.params["format"] == "json"
    assert "authorization" not in request.headers
    assert len(results) == 12 and results[0] == SearchResult("R0", "https://r.example/0", "c0")


async def test_a_result_without_a_title_shows_its_url() -> None:
    recorder = Recorder(ok({"results": [{"url": "https://t.example/x", "content": "c"}]}))
    assert (await build("tavily", recorder).search("q", 1))[0].title == "https://t.example/x"


# --------------------------------------------------------------------------------------------------
# Errors and rate limits
# --------------------------------------------------------------------------------------------------

ALL = ["tavily", "serper", "brave", "jina", "searxng"]


@pytest.mark.parametrize("name", ALL)
async def test_a_rate_limit_is_retryable_with_its_retry_after(name: str) -> None:
    recorder = Recorder(
        lambda r: httpx.Response(429, headers={"Retry-After": "7"}, json={"detail": "Too many requests"})
    )
    with pytest.raises(SearchError) as exc:
        await build(name, recorder).search("q", 5)
    assert exc.value.retryable and exc.value.retry_after == 7.0
    assert f"{name} rate limit reached (HTTP 429): Too many requests" == str(exc.value)


@pytest.mark.parametrize("name", ALL)
async def test_a_server_error_is_retryable(name: str) -> None:
    recorder = Recorder(lambda r: httpx.Response(503, text="upstream down"))
    with pytest.raises(SearchError) as exc:
        await build(name, recorder).search("q", 5)
    assert exc.value.retryable and "server error (HTTP 503): upstream down" in str(exc.value)


@pytest.mark.parametrize("name", ["tavily", "serper", "brave", "jina"])
async def test_a_refused_key_is_not_retried(name: str) -> None:
    recorder = Recorder(lambda r: httpx.Response(401, json={"message": "Invalid API key"}))
    with pytest.raises(SearchError) as exc:
        await build(name, recorder).search("q", 5)
    assert not exc.value.retryable
    assert "refused the request (HTTP 401: is the API key valid?): Invalid API key" in str(exc.value)


async def test_searxng_without_the_json_format_says_how_to_enable_it() -> None:
    recorder = Recorder(lambda r: httpx.Response(403, text="Forbidden"))
    with pytest.raises(SearchError) as exc:
        await build("searxng", recorder).search("q", 5)
    assert "add 'json' to search.formats in its settings.yml" in str(exc.value)


@pytest.mark.parametrize("name", ALL)
async def test_an_answer_that_is_not_json_is_an_error(name: str) -> None:
    recorder = Recorder(lambda r: httpx.Response(200, text="<html>captcha</html>"))
    with pytest.raises(SearchError, match="not JSON"):
        await build(name, recorder).search("q", 5)


@pytest.mark.parametrize("name", ALL)
async def test_network_failures_are_retryable(name: str) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(SearchError) as exc:
        await build(name, Recorder(fail)).search("q", 5)
    assert exc.value.retryable and "could not be reached" in str(exc.value)


# --------------------------------------------------------------------------------------------------
# duckduckgo: the ddgs package, replaced at its boundary (no network), run off the event loop
# --------------------------------------------------------------------------------------------------


class FakeDDGS:
    calls: ClassVar[list[tuple[str, int, str]]] = []
    outcome: ClassVar[Any] = None
    options: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, **options: Any) -> None:
        FakeDDGS.options.append(options)

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        FakeDDGS.calls.append((query, kwargs["max_results"], threading.current_thread().name))
        if isinstance(FakeDDGS.outcome, Exception):
            raise FakeDDGS.outcome
        return list(FakeDDGS.outcome)


@pytest.fixture
def fake_ddgs(monkeypatch: pytest.MonkeyPatch) -> type[FakeDDGS]:
    import ddgs

    FakeDDGS.calls = []
    FakeDDGS.outcome = []
    FakeDDGS.options = []
    monkeypatch.setattr(ddgs, "DDGS", FakeDDGS)
    return FakeDDGS


async def test_duckduckgo_maps_results_and_runs_off_the_event_loop(fake_ddgs: type[FakeDDGS]) -> None:
    fake_ddgs.outcome = [
        {"title": "Duck result", "href": "https://d.example/1", "body": "A <b>snippet</b>"},
        {"title": "No link", "body": "skipped"},
    ]
    results = await DuckDuckGoProvider().search("duck query", 4)

    assert results == [SearchResult("Duck result", "https://d.example/1", "A snippet")]
    ((query, max_results, thread),) = fake_ddgs.calls
    assert (query, max_results) == ("duck query", 4)
    assert thread != threading.current_thread().name  # a worker thread, not the loop's


async def test_duckduckgo_rate_limit_and_timeout_are_retryable(fake_ddgs: type[FakeDDGS]) -> None:
    from ddgs.exceptions import RatelimitException, TimeoutException

    for error, words in (
        (RatelimitException("202 Ratelimit"), "rate limit"),
        (TimeoutException("slow"), "in time"),
    ):
        fake_ddgs.outcome = error
        with pytest.raises(SearchError) as exc:
            await DuckDuckGoProvider().search("q", 5)
        assert exc.value.retryable and words in str(exc.value)


async def test_duckduckgo_no_results_is_an_empty_list(fake_ddgs: type[FakeDDGS]) -> None:
    from ddgs.exceptions import DDGSException

    fake_ddgs.outcome = DDGSException("No results found.")
    assert await DuckDuckGoProvider().search("zzzz", 5) == []


async def test_duckduckgo_unreachable_is_said_in_words_with_what_to_do(
    fake_ddgs: type[FakeDDGS], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ddgs's raw transport text (a DNS failure nested in its own error) never reaches the user; the
    proxy of the environment is handed to ddgs, which does not read HTTPS_PROXY itself."""
    from ddgs.exceptions import DDGSException

    for name in ("DDGS_PROXY", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    fake_ddgs.outcome = DDGSException(
        "DNSError: DNSError('error sending request for url (https://search.yahoo.com/search?p=q) > error "
        'resolving DNS > DNS error: no records found for Query { name: Name("search.yahoo.com."), query_type: A }\')'
    )
    with pytest.raises(SearchError) as exc:
        await DuckDuckGoProvider().search("q", 5)
    said = str(exc.value)
    assert not exc.value.retryable  # no network: a retry a second later finds none either
    assert (
        "cannot be reached from this machine" in said and "name lookup" in said and "search.yahoo.com" in said
    )
    assert "--search local --corpus DIR" in said and "TAVILY_API_KEY" in said and "HTTPS_PROXY" in said
    assert "Query {" not in said and "DNSError(" not in said
    assert fake_ddgs.options == [{}]

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    fake_ddgs.outcome = DDGSException(
        "ConnectError: ConnectError('error sending request > Connection refused (os error 111)')"
    )
    with pytest.raises(SearchError) as exc:
        await DuckDuckGoProvider().search("q", 5)
    assert "through the proxy http://proxy.example:3128" in str(exc.value) and "os error" not in str(
        exc.value
    )
    assert fake_ddgs.options[-1] == {"proxy": "http://proxy.example:3128"}

    fake_ddgs.outcome = DDGSException("something else went wrong")
    with pytest.raises(SearchError) as exc:
        await DuckDuckGoProvider().search("q", 5)
    assert exc.value.retryable and "duckduckgo failed: something else went wrong" in str(exc.value)
