"""web_search: retries on 429 and 5xx, fallback to the next provider, the all-failed observation,
the start-of-run configuration check, and the bounded observation with ledger ids."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from actions.web.providers.base import SearchResult
from actions.web.providers.serper import SerperProvider
from actions.web.providers.tavily import TavilyProvider
from actions.web.search import (
    ProviderChain,
    build_providers,
    check_search_settings,
    web_search,
)
from agent_runtime.config import Settings
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ConfigError
from tests.support.web_server import ContextFactory


class Sleeps:
    def __init__(self) -> None:
        self.pauses: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.pauses.append(seconds)


def tavily_answering(*responses: httpx.Response) -> tuple[TavilyProvider, list[httpx.Request]]:
    """A Tavily provider whose API answers `responses` in turn (the last one repeats)."""
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return TavilyProvider("k", httpx.AsyncClient(transport=httpx.MockTransport(handler))), seen


def serper_answering(response: httpx.Response) -> tuple[SerperProvider, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return response

    return SerperProvider("k", httpx.AsyncClient(transport=httpx.MockTransport(handler))), seen


def tavily_results(n: int, snippet: str = "A snippet.") -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "results": [
                {"title": f"Result {i}", "url": f"https://site{i}.example/page", "content": snippet}
                for i in range(n)
            ]
        },
    )


def install(ctx: ActionContext, chain: ProviderChain) -> ProviderChain:
    return ctx.services.get(ProviderChain, lambda: chain)


# --------------------------------------------------------------------------------------------------
# Retries and fallback
# --------------------------------------------------------------------------------------------------


async def test_a_rate_limit_is_retried_with_backoff_then_succeeds() -> None:
    tavily, seen = tavily_answering(
        httpx.Response(429, json={"detail": "slow down"}),
        httpx.Response(503),
        tavily_results(2),
    )
    sleeps = Sleeps()
    chain = ProviderChain([tavily], retries=2, backoff=1.0, sleep=sleeps)

    provider, results = await chain.search("q", 5)

    assert provider == "tavily" and len(results) == 2 and len(seen) == 3
    assert len(sleeps.pauses) == 2
    assert 0.75 <= sleeps.pauses[0] <= 1.25 and 1.5 <= sleeps.pauses[1] <= 2.5  # doubled, with jitter


async def test_retry_after_is_honoured_within_a_cap() -> None:
    tavily, _ = tavily_answering(
        httpx.Response(429, headers={"Retry-After": "3"}),
        httpx.Response(429, headers={"Retry-After": "3600"}),
        tavily_results(1),
    )
    sleeps = Sleeps()
    await ProviderChain([tavily], retries=2, max_wait=20, sleep=sleeps).search("q", 5)
    assert sleeps.pauses == [3.0, 20.0]


async def test_a_provider_that_keeps_failing_hands_over_to_the_next() -> None:
    tavily, tavily_seen = tavily_answering(httpx.Response(429))
    serper, serper_seen = serper_answering(
        httpx.Response(
            200, json={"organic": [{"title": "From serper", "link": "https://s.example/", "snippet": "s"}]}
        )
    )
    failures: list[tuple[str, str]] = []
    chain = ProviderChain(
        [tavily, serper], retries=2, sleep=Sleeps(), on_failure=lambda p, e: failures.append((p, e))
    )

    provider, results = await chain.search("q", 5)

    assert provider == "serper" and results[0].title == "From serper"
    assert len(tavily_seen) == 3 and len(serper_seen) == 1  # 1 try + 2 retries, then the fallback
    assert failures == [("tavily", "tavily rate limit reached (HTTP 429)")]


async def test_an_error_that_retrying_cannot_fix_falls_back_at_once() -> None:
    tavily, tavily_seen = tavily_answering(httpx.Response(401, json={"detail": "bad key"}))
    serper, _ = serper_answering(httpx.Response(200, json={"organic": []}))
    sleeps = Sleeps()

    provider, results = await ProviderChain([tavily, serper], retries=3, sleep=sleeps).search("q", 5)

    assert (provider, results) == ("serper", [])
    assert len(tavily_seen) == 1 and sleeps.pauses == []


async def test_when_every_provider_fails_the_observation_says_what_each_answered(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx()
    tavily, _ = tavily_answering(httpx.Response(429, json={"detail": "quota exceeded"}))
    serper, _ = serper_answering(httpx.Response(500, text="boom"))
    install(ctx, ProviderChain([tavily, serper], retries=1, sleep=Sleeps()))

    obs = await web_search.run(ctx, {"query": "solid state batteries"})

    assert obs.error
    assert "web search failed for 'solid state batteries'; every configured provider failed" in obs.text
    assert "- tavily (2 tries): tavily rate limit reached (HTTP 429): quota exceeded" in obs.text
    assert "- serper (2 tries): serper server error (HTTP 500): boom" in obs.text
    assert "wait a little and search again, rephrase the query" in obs.text
    assert len(Ledger.load(ctx.workspace.root / "sources")) == 0


# --------------------------------------------------------------------------------------------------
# The observation
# --------------------------------------------------------------------------------------------------


async def test_results_get_ledger_ids_and_a_bounded_line_each(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    tavily, seen = tavily_answering(tavily_results(3, snippet="word " * 200))
    install(ctx, ProviderChain([tavily], sleep=Sleeps()))

    obs = await web_search.run(ctx, {"query": "  solid   state ", "max_results": 3})

    assert not obs.error
    assert json.loads(seen[0].content)["query"] == "solid state"
    assert obs.text.startswith('web_search "solid state" — 3 results (tavily)')
    lines = re.findall(r"^\[S\d+\] .*$", obs.text, re.M)
    assert [line.split(" — ")[0] for line in lines] == ["[S1] Result 0", "[S2] Result 1", "[S3] Result 2"]
    assert all(line.split(" — ")[1].startswith("https://site") for line in lines)
    snippet = lines[0].split(" — ")[2]
    assert snippet.endswith("…") and len(snippet) <= 300
    assert "untrusted content from the web" in obs.text and "<<<END SEARCH RESULTS" in obs.text
    ledger = Ledger.load(ctx.workspace.root / "sources")
    record = ledger.get("S2")
    assert record is not None and record.url == "https://site1.example/page"
    assert record.title == "Result 1" and record.first_seen_via == "search" and not record.fetched


async def test_the_same_url_keeps_its_id_across_searches(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    first = httpx.Response(
        200, json={"results": [{"title": "A", "url": "https://a.example/x", "content": ""}]}
    )
    second = httpx.Response(
        200,
        json={
            "results": [
                {"title": "B", "url": "https://b.example/", "content": ""},
                {"title": "A again", "url": "https://a.example/x/?utm_source=s#frag", "content": ""},
                {"title": "A dup", "url": "https://a.example/x", "content": ""},
            ]
        },
    )
    tavily, _ = tavily_answering(first, second)
    install(ctx, ProviderChain([tavily], sleep=Sleeps()))

    await web_search.run(ctx, {"query": "one"})
    obs = await web_search.run(ctx, {"query": "two"})

    assert "[S2] B — https://b.example/" in obs.text
    assert "[S1] A again — https://a.example/x/?utm_source=s#frag" in obs.text
    assert "A dup" not in obs.text  # the same page twice in one answer is shown once
    assert obs.text.count("[S1]") == 1


async def test_twenty_long_results_stay_within_the_observation_limit(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(max_observation_chars=3000)
    tavily, _ = tavily_answering(tavily_results(20, snippet="long snippet text " * 40))
    install(ctx, ProviderChain([tavily], sleep=Sleeps()))

    obs = await web_search.run(ctx, {"query": "broad survey", "max_results": 20})

    assert len(obs.text) <= 3000
    assert len(re.findall(r"^\[S\d+\] ", obs.text, re.M)) == 20  # every result stays, snippets shrink


async def test_max_results_out_of_range_is_clamped_with_a_note(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    tavily, seen = tavily_answering(tavily_results(20))
    install(ctx, ProviderChain([tavily], sleep=Sleeps()))

    obs = await web_search.run(ctx, {"query": "q", "max_results": 50})

    assert json.loads(seen[0].content)["max_results"] == 20
    assert "max_results 50 is outside 1-20; used 20" in obs.text


async def test_an_empty_query_and_no_results(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    tavily, _ = tavily_answering(httpx.Response(200, json={"results": []}))
    install(ctx, ProviderChain([tavily], sleep=Sleeps()))

    empty = await web_search.run(ctx, {"query": "   "})
    none = await web_search.run(ctx, {"query": "zzzz qqqq"})

    assert empty.error and "the query is empty" in empty.text
    assert not none.error and "No results. Try other keywords" in none.text


async def test_an_already_read_source_is_marked(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    ledger = Ledger.load(ctx.workspace.root / "sources")
    record = ledger.register("https://site0.example/page", "Result 0", via="visit")
    ledger.mark_fetched(
        record.id,
        final_url=record.url,
        title=None,
        content_type="text/html",
        sha256="0" * 64,
        snapshot="sources/S1.md",
    )
    tavily, _ = tavily_answering(tavily_results(1))
    install(ctx, ProviderChain([tavily], sleep=Sleeps()))

    obs = await web_search.run(ctx, {"query": "q"})

    assert "[S1] Result 0 — https://site0.example/page — A snippet. (already read: sources/S1.md)" in obs.text


# --------------------------------------------------------------------------------------------------
# Configuration, checked at the start of a run
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("search", "env", "words"),
    [
        ("tavily", {}, "--search tavily needs TAVILY_API_KEY (an API key) in the environment"),
        ("serper", {"SERPER_API_KEY": "  "}, "needs SERPER_API_KEY"),
        ("brave", {}, "needs BRAVE_API_KEY"),
        ("jina", {}, "needs JINA_API_KEY"),
        ("searxng", {}, "needs SEARXNG_URL (the address of a SearXNG instance)"),
        ("searxng", {"SEARXNG_URL": "localhost:8888"}, "SEARXNG_URL 'localhost:8888' is not an http(s) URL"),
        ("duckduckgo,tavily", {}, "needs TAVILY_API_KEY"),
        ("google", {}, "unknown search provider 'google'"),
        (" , ", {}, "--search is empty"),
        ("local", {}, "--search local needs --corpus DIR"),
    ],
)
def test_a_configuration_that_cannot_work_is_refused_at_start(
    search: str, env: dict[str, str], words: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        check_search_settings(Settings(search=search), env)
    assert words in str(exc.value)


def test_a_corpus_that_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a folder"):
        check_search_settings(Settings(search="local", corpus=tmp_path / "missing"), {})


@pytest.mark.parametrize(
    ("search", "env", "names"),
    [
        ("duckduckgo", {}, ["duckduckgo"]),
        ("Tavily, duckduckgo, tavily", {"TAVILY_API_KEY": "k"}, ["tavily", "duckduckgo"]),
        (
            "searxng,serper,brave,jina",
            {
                "SEARXNG_URL": "http://127.0.0.1:1",
                "SERPER_API_KEY": "k",
                "BRAVE_API_KEY": "k",
                "JINA_API_KEY": "k",
            },
            ["searxng", "serper", "brave", "jina"],
        ),
        ("local", {}, ["local"]),
    ],
)
async def test_working_configurations_build_their_providers_in_order(
    tmp_path: Path, search: str, env: dict[str, Any], names: list[str]
) -> None:
    settings = Settings(search=search, corpus=tmp_path)
    check_search_settings(settings, env)
    async with httpx.AsyncClient() as client:
        providers = build_providers(settings, env, client, tmp_path / ".runtime")
    assert [p.name for p in providers] == names


async def test_a_misconfigured_search_mid_run_is_an_observation(
    make_ctx: ContextFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    ctx = make_ctx(search="tavily")
    obs = await web_search.run(ctx, {"query": "q"})
    assert obs.error and "web search is not configured: --search tavily needs TAVILY_API_KEY" in obs.text


async def test_the_whole_run_has_at_most_parallel_queries_in_flight(make_ctx: ContextFactory) -> None:
    """Research tasks side by side each search: a provider's rate limit sees --parallel queries at once."""
    flight = {"now": 0, "most": 0}

    class SlowProvider:
        name = "slow"

        async def search(self, query: str, max_results: int) -> list[SearchResult]:
            flight["now"] += 1
            flight["most"] = max(flight["most"], flight["now"])
            await asyncio.sleep(0.05)
            flight["now"] -= 1
            return [SearchResult(title=query, url=f"https://{query}.example/", snippet="")]

    ctx = make_ctx(parallel=2)
    install(ctx, ProviderChain([SlowProvider()], at_once=ctx.settings.parallel))  # type: ignore[list-item]
    answers = await asyncio.gather(*[web_search.run(ctx, {"query": f"q{n}"}) for n in range(6)])
    assert not any(a.error for a in answers)
    assert flight["most"] == 2
