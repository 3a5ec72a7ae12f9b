"""`--offline`: nothing leaves the machine but the requests to the model endpoint. Search providers
other than `local` are refused at start; visit_url reads only the local corpus; browse refuses; and
a real server on 127.0.0.1, reachable under --allow-private-urls, proves that nothing connects."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.browser.browse import browse
from actions.web.search import check_search_settings, web_search
from actions.web.visit import visit_url
from agent_runtime.config import Settings
from agent_runtime.domain.sources.ledger import ledger_for
from agent_runtime.errors import ConfigError, URLRefusedError
from sandbox.url_policy import URLPolicy, make_client
from tests.support.web_server import ContextFactory, Route, WebServer


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "memo.md").write_text("# Internal memo\n\nThe merger closes in the third quarter.\n", "utf-8")
    return root


@pytest.mark.parametrize(
    ("search", "env", "named"),
    [
        ("duckduckgo", {}, "--search duckduckgo"),
        ("tavily", {"TAVILY_API_KEY": "k"}, "--search tavily"),
        ("tavily", {}, "--search tavily"),  # offline is the problem to name, not the missing key
        ("searxng", {"SEARXNG_URL": "http://127.0.0.1:8888"}, "--search searxng"),  # even a local one
        ("local,duckduckgo", {}, "duckduckgo"),  # no fallback to the internet either
    ],
)
def test_offline_refuses_every_search_provider_but_local(
    search: str, env: dict[str, str], named: str, corpus: Path
) -> None:
    with pytest.raises(ConfigError) as exc:
        check_search_settings(Settings(search=search, corpus=corpus, offline=True), env)
    message = str(exc.value)
    assert "--offline allows only --search local --corpus DIR" in message and named in message


def test_offline_with_the_local_corpus_is_accepted(corpus: Path) -> None:
    check_search_settings(Settings(search="local", corpus=corpus, offline=True), {})
    with pytest.raises(ConfigError, match="--search local needs --corpus DIR"):
        check_search_settings(Settings(search="local", offline=True), {})


async def test_offline_visit_url_refuses_web_urls_and_nothing_connects(
    corpus: Path, web_server: WebServer, make_ctx: ContextFactory
) -> None:
    web_server.routes["/invented"] = Route(body=b"<html><body><p>Should never be read.</p></body></html>")
    # Private addresses allowed: only the offline rule stands between the model and the server.
    ctx = make_ctx(search="local", corpus=corpus, offline=True, allow_private_urls=True)
    await web_search.run(ctx, {"query": "merger", "max_results": 3})

    obs = await visit_url.run(ctx, {"url": [web_server.url("/invented"), "https://example.com/x"]})

    assert obs.error
    assert obs.text.count("this run is offline") == 2
    assert "only documents of the local corpus can be read" in obs.text
    assert "S1" in obs.text  # the corpus sources it can read instead
    assert web_server.untouched
    assert len(ledger_for(ctx)) == 1  # a refused URL gets no id


async def test_offline_a_web_source_of_the_ledger_is_refused_by_its_id_too(
    corpus: Path, web_server: WebServer, make_ctx: ContextFactory
) -> None:
    web_server.routes["/page"] = Route(body=b"<html><body><p>Public page.</p></body></html>")
    ctx = make_ctx(search="local", corpus=corpus, offline=True, allow_private_urls=True)
    ledger_for(ctx).register(web_server.url("/page"), "Page", via="search")  # e.g. from before --offline

    obs = await visit_url.run(ctx, {"url": "S1"})

    assert obs.error and "this run is offline" in obs.text
    assert web_server.untouched


async def test_offline_the_corpus_is_read_by_id_and_by_url(corpus: Path, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(search="local", corpus=corpus, offline=True)
    await web_search.run(ctx, {"query": "merger", "max_results": 3})

    by_id = await visit_url.run(ctx, {"url": "[S1]"})
    by_url = await visit_url.run(ctx, {"url": "corpus:memo.md", "mode": "browser"})

    assert not by_id.error and "third quarter" in by_id.text
    assert not by_url.error and "## [S1] corpus:memo.md" in by_url.text


async def test_offline_browse_refuses_and_nothing_connects(
    corpus: Path, web_server: WebServer, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(
        search="local", corpus=corpus, offline=True, allow_private_urls=True, base_url="http://x/v1"
    )
    obs = await browse.run(ctx, {"task": "read the page", "start_url": web_server.url("/")})
    assert obs.error and "offline" in obs.text and "visit_url" in obs.text
    assert web_server.untouched


async def test_an_offline_url_policy_refuses_before_connecting(web_server: WebServer) -> None:
    policy = URLPolicy(allow_private=True, offline=True)
    with pytest.raises(URLRefusedError, match="offline"):
        policy.check_url(web_server.url("/"))
    async with make_client(policy) as client:
        with pytest.raises(URLRefusedError, match="offline"):
            await client.get(web_server.url("/"))
    assert web_server.untouched
