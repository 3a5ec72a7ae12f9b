"""`web_search`: search providers behind one small interface, retries, fallback, and a bounded
observation in which every result carries its ledger id.

Providers (`--search` / `DEEP_RESEARCHER_SEARCH`; a comma-separated list is a fallback order,
e.g. `tavily,duckduckgo`):

| name         | needs                        |
|--------------|------------------------------|
| `duckduckgo` | nothing (the default; `ddgs`)|
| `tavily`     | `TAVILY_API_KEY`             |
| `serper`     | `SERPER_API_KEY`             |
| `brave`      | `BRAVE_API_KEY`              |
| `jina`       | `JINA_API_KEY`               |
| `searxng`    | `SEARXNG_URL` (an instance with the JSON format enabled) |
| `local`      | `--corpus DIR` (offline, SQLite FTS5; see local_corpus.py) |

`check_search_settings(settings, env)` checks all of that when a run starts, so a missing key is
reported before the first step, not in the middle of a run. With `--offline` it accepts `local`
alone: every other provider sends the queries off the machine (a SearXNG on localhost too, since it
asks the engines on the internet).

A provider that answers 429 or 5xx (or cannot be reached) is retried with exponential backoff
(honouring Retry-After, within a cap); one that still fails, or fails for another reason, hands
over to the next provider in the list; when every provider failed, the observation says what each
one answered and what the model can do.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from actions.web.digest import cut, fence, new_boundary, one_line
from actions.web.local_corpus import LocalCorpus, index_path_for
from actions.web.providers.base import API_TIMEOUT, SearchProvider, SearchResult
from actions.web.providers.brave import BraveProvider
from actions.web.providers.duckduckgo import UNREACHABLE, UNREACHABLE_ADVICE, DuckDuckGoProvider
from actions.web.providers.jina import JinaProvider
from actions.web.providers.searxng import SearxngProvider
from actions.web.providers.serper import SerperProvider
from actions.web.providers.tavily import TavilyProvider
from agent_runtime.config import Settings
from agent_runtime.domain.sources.ledger import ledger_for
from agent_runtime.domain.sources.urls import canonical_url
from agent_runtime.engine.registry import Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError, AllProvidersFailedError, ConfigError, SearchError

__all__ = [
    "PROVIDERS",
    "UNREACHABLE",
    "UNREACHABLE_ADVICE",
    "ProviderChain",
    "SearchError",
    "SearchProvider",
    "SearchResult",
    "build_providers",
    "check_search_settings",
    "provider_names",
    "web_search",
]

MAX_RESULTS = 20

# Provider name -> the environment variable it needs (None: no key).
PROVIDERS: dict[str, str | None] = {
    "duckduckgo": None,
    "tavily": "TAVILY_API_KEY",
    "serper": "SERPER_API_KEY",
    "brave": "BRAVE_API_KEY",
    "jina": "JINA_API_KEY",
    "searxng": "SEARXNG_URL",
    "local": None,
}

# Providers built from their environment variable's value and the run's HTTP client.
_FROM_ENVIRONMENT: dict[str, Callable[[str, httpx.AsyncClient], SearchProvider]] = {
    "tavily": TavilyProvider,
    "serper": SerperProvider,
    "brave": BraveProvider,
    "jina": JinaProvider,
    "searxng": SearxngProvider,
}


# --------------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------------


def provider_names(search: str) -> list[str]:
    """["tavily", "duckduckgo"] from "tavily, duckduckgo" (lower-cased, duplicates dropped)."""
    return list(dict.fromkeys(name.strip().lower() for name in search.split(",") if name.strip()))


def check_search_settings(settings: Settings, env: Mapping[str, str] | None = None) -> None:
    """Refuse, before a run starts, a search configuration that cannot work: an unknown provider,
    a missing API key or SEARXNG_URL, a local corpus that is not a folder. Raises ConfigError."""
    env = os.environ if env is None else env
    names = provider_names(settings.search)
    if not names:
        raise ConfigError("--search is empty; name a search provider, e.g. --search duckduckgo")
    # Checked before the keys: offline, a missing key is not the problem to report.
    online = [name for name in names if name != "local"]
    if settings.offline and online:
        raise ConfigError(
            f"--offline allows only --search local --corpus DIR (documents in a folder on this machine), but "
            f"--search {settings.search.strip()} would send the queries to {', '.join(online)} over the network; "
            "use --search local --corpus DIR, or leave out --offline"
        )
    for name in names:
        if name not in PROVIDERS:
            raise ConfigError(
                f"unknown search provider {name!r} in --search / DEEP_RESEARCHER_SEARCH; choose from "
                f"{', '.join(PROVIDERS)} (a comma-separated list sets a fallback order)"
            )
        variable = PROVIDERS[name]
        if variable is not None and not env.get(variable, "").strip():
            what = "the address of a SearXNG instance" if name == "searxng" else "an API key"
            raise ConfigError(
                f"--search {name} needs {variable} ({what}) in the environment; set it, or choose "
                "another provider (duckduckgo needs no key; local searches a folder given with --corpus)"
            )
        if name == "searxng":
            url = env["SEARXNG_URL"].strip()
            try:
                parsed = httpx.URL(url)
            except httpx.InvalidURL:
                parsed = None
            if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
                raise ConfigError(f"SEARXNG_URL {url!r} is not an http(s) URL, e.g. http://localhost:8888")
        if name == "local":
            if settings.corpus is None:
                raise ConfigError("--search local needs --corpus DIR: the folder of documents to search")
            if not settings.corpus.expanduser().is_dir():
                raise ConfigError(f"--corpus {settings.corpus}: not a folder")


def build_providers(
    settings: Settings,
    env: Mapping[str, str],
    client: httpx.AsyncClient,
    runtime_dir: Path,
) -> list[SearchProvider]:
    """The configured providers in fallback order (call check_search_settings first)."""
    check_search_settings(settings, env)
    providers: list[SearchProvider] = []
    for name in provider_names(settings.search):
        variable = PROVIDERS[name]
        if name == "duckduckgo":
            providers.append(DuckDuckGoProvider())
        elif variable is not None:  # a key (or SearXNG's address) from the environment
            providers.append(_FROM_ENVIRONMENT[name](env[variable].strip(), client))
        elif name == "local":
            assert settings.corpus is not None
            corpus = settings.corpus.expanduser()
            providers.append(LocalCorpus(corpus, index_path_for(runtime_dir, corpus)))
    return providers


# --------------------------------------------------------------------------------------------------
# Retries and fallback
# --------------------------------------------------------------------------------------------------


@dataclass
class Attempt:
    provider: str
    error: str
    tries: int


@dataclass
class ProviderChain:
    """Providers in fallback order, with retries on retryable errors."""

    providers: Sequence[SearchProvider]
    retries: int = 2
    backoff: float = 1.0  # first pause in seconds; doubled each retry, with jitter
    max_wait: float = 20.0  # no single pause is longer, whatever Retry-After says
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    on_failure: Callable[[str, str], None] | None = None  # (provider, error) when one gives up
    failures: list[Attempt] = field(default_factory=list)
    client: httpx.AsyncClient | None = None  # the providers' HTTP client, closed by aclose()
    # Queries in flight at once for the whole run: research tasks side by side each search, and a
    # provider's rate limit counts them all (--parallel).
    at_once: int = 4
    _slots: asyncio.Semaphore | None = None

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
        for provider in self.providers:
            if isinstance(provider, LocalCorpus):
                provider.close()  # its index connection and its folder watch

    async def search(self, query: str, max_results: int) -> tuple[str, list[SearchResult]]:
        """(the provider that answered, its results); raises AllProvidersFailedError."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.at_once)
        async with self._slots:
            return await self._search(query, max_results)

    async def _search(self, query: str, max_results: int) -> tuple[str, list[SearchResult]]:
        attempts: list[Attempt] = []
        for provider in self.providers:
            tries = 0
            while True:
                tries += 1
                try:
                    return provider.name, await provider.search(query, max_results)
                except SearchError as exc:
                    if exc.retryable and tries <= self.retries:
                        await self.sleep(self._pause(tries, exc.retry_after))
                        continue
                    attempts.append(Attempt(provider.name, str(exc), tries))
                    if self.on_failure is not None:
                        self.on_failure(provider.name, str(exc))
                    break
        self.failures.extend(attempts)
        raise AllProvidersFailedError(
            [f"{a.provider} ({a.tries} tr{'y' if a.tries == 1 else 'ies'}): {a.error}" for a in attempts]
        )

    def _pause(self, tries: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(self.max_wait, retry_after)
        pause = self.backoff * 2.0 ** (tries - 1)
        return min(self.max_wait, pause * random.uniform(0.75, 1.25))


def chain_for(ctx: ActionContext) -> ProviderChain:
    """The run's provider chain, built on first use and kept in the run's services."""
    return ctx.services.get(ProviderChain, lambda: _new_chain(ctx))


def _new_chain(ctx: ActionContext) -> ProviderChain:
    client = httpx.AsyncClient(timeout=API_TIMEOUT, headers={"User-Agent": "DeepResearcher/0.1"})
    try:
        providers = build_providers(ctx.settings, os.environ, client, ctx.workspace.runtime_dir)
    except ConfigError as exc:
        raise ActionError(f"web search is not configured: {exc}") from None

    def log_failure(provider: str, error: str) -> None:
        ctx.events.append("search_provider_failed", provider=provider, error=error[:300])

    return ProviderChain(
        providers, retries=ctx.settings.search_retries, on_failure=log_failure, client=client,
        at_once=ctx.settings.parallel,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------------
# The observation
# --------------------------------------------------------------------------------------------------


def _dedupe(results: list[SearchResult]) -> list[SearchResult]:
    seen: set[str] = set()
    unique = []
    for result in results:
        key = canonical_url(result.url)
        if key not in seen:
            seen.add(key)
            unique.append(result)
    return unique


def _lines(rows: list[tuple[str, SearchResult, str]], snippet_chars: int) -> list[str]:
    lines = []
    for source_id, result, extra in rows:
        title = cut(one_line(result.title), 160)
        snippet = cut(one_line(result.snippet), snippet_chars) if snippet_chars > 0 else ""
        line = f"[{source_id}] {title} — {result.url}"
        if snippet:
            line += f" — {snippet}"
        lines.append(line + extra)
    return lines


@action(concurrent=True)
async def web_search(ctx: ActionContext, query: str, max_results: int = 10) -> Observation:
    """Search the web. Returns one line per result, `[S<n>] title — url — snippet`, where [S<n>] is the
    result's permanent source id: cite facts with it, and pass the url to visit_url to read the page
    (snippets are short and can mislead; read a page before relying on it). Choose max_results for
    the need: a quick fact 3-5, a standard question 8-12, a broad survey 15-20. Prefer several
    focused queries over one vague one.

    Args:
        query: what to search for, as you would type it into a search engine: a few precise keywords,
            names, or a quoted phrase; one topic per query.
        max_results: how many results to return, 1-20 (quick fact 3-5, standard question 8-12, broad
            survey 15-20).
    """
    query = " ".join(query.split())
    if not query:
        raise ActionError("the query is empty; give the words to search for")
    notes = []
    if not 1 <= max_results <= MAX_RESULTS:
        notes.append(
            f"max_results {max_results} is outside 1-{MAX_RESULTS}; used {min(max(max_results, 1), 20)}"
        )
        max_results = min(max(max_results, 1), MAX_RESULTS)
    chain = chain_for(ctx)
    try:
        provider, results = await chain.search(query, max_results)
    except AllProvidersFailedError as failed:
        reasons = "\n".join(f"- {failure}" for failure in failed.failures)
        if any(UNREACHABLE in failure for failure in failed.failures):  # no network: retrying is useless
            todo = ("What to do: do not search again in this run; work with the sources you already have, "
                    "and say in your notes that web search was unavailable.")  # fmt: skip
        else:
            todo = ("What to do: wait a little and search again, rephrase the query, or work with the sources "
                    "you already have (a person can configure another provider with --search).")  # fmt: skip
        raise ActionError(
            f"web search failed for {query!r}; every configured provider failed:\n{reasons}\n{todo}"
        ) from None
    results = _dedupe(results)[:max_results]
    notes.extend(note for p in chain.providers if isinstance(p, LocalCorpus) and (note := p.failure_note()))
    plural = "s" if len(results) != 1 else ""
    header = f'web_search "{cut(query, 200)}" — {len(results)} result{plural} ({provider})'
    if notes:
        header += "\nNote: " + "; ".join(notes)
    if not results:
        return Observation(f"{header}\nNo results. Try other keywords, a broader query, or another language.")

    ledger = ledger_for(ctx)
    rows: list[tuple[str, SearchResult, str]] = []
    with ledger.batch():
        for result in results:
            record = ledger.register(result.url, result.title, via="search", snippet=result.snippet)
            extra = f" (already read: {record.snapshot})" if record.fetched and record.snapshot else ""
            rows.append((record.id, result, extra))

    # Bounded: snippets shrink until the whole observation fits the observation limit.
    footer = "Cite a result as [S<n>]. Read a page in full with visit_url (one URL or a list)."
    limit = ctx.settings.max_observation_chars - 50
    snippet_chars = ctx.settings.snippet_chars
    while True:
        body = "\n".join(_lines(rows, snippet_chars))
        text = f"{header}\n{fence(body, 'SEARCH RESULTS', new_boundary())}\n{footer}"
        if len(text) <= limit or snippet_chars == 0:
            return Observation(text)
        snippet_chars = snippet_chars - 50 if snippet_chars > 50 else 0
