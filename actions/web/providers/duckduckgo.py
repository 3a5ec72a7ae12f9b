"""DuckDuckGo through the `ddgs` package: no key needed (the default provider).

`ddgs` is synchronous and does its own HTTP, so each search runs in a worker thread: the event
loop (and the other fetches of the run) never wait on it. It does not read the usual proxy
variables itself, so the proxy of the environment (HTTPS_PROXY, ALL_PROXY) is handed to it.

A machine that cannot reach the search engines (no DNS, no route, a proxy that does not answer)
gets one sentence in words and what to do instead (`UNREACHABLE_ADVICE`), never the library's
raw error text.
"""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any

from actions.web.providers.base import SearchResult, results_from
from agent_runtime.errors import SearchError

# What a person can do when the web search engines cannot be reached from this machine.
UNREACHABLE_ADVICE = (
    "search your own documents with --search local --corpus DIR, use another provider with its key "
    "(--search tavily with TAVILY_API_KEY, brave with BRAVE_API_KEY, serper with SERPER_API_KEY), or "
    "go through a proxy (HTTPS_PROXY=http://HOST:PORT)"
)
UNREACHABLE = "cannot be reached from this machine"

_HOST = re.compile(r"https?://([^/\s)'\"?;]+)")


def _proxy() -> str | None:
    for name in ("DDGS_PROXY", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        if os.environ.get(name):
            return os.environ[name]
    return None


def explain_failure(raw: str) -> str | None:
    """`ddgs`'s error text (which nests the HTTP library's), said in words when it is the network
    that failed; None for any other failure."""
    lowered = raw.lower()
    host = _HOST.search(raw)
    where = f" ({host.group(1)})" if host else ""
    proxy = _proxy()
    if "dns" in lowered or "resolv" in lowered or "name or service not known" in lowered:
        return f"duckduckgo {UNREACHABLE}: the name lookup of its servers{where} failed (no DNS answer)"
    if (
        "connect" in lowered
        or "connection" in lowered
        or "os error" in lowered
        or "error sending request" in lowered
    ):
        through = f" through the proxy {proxy}" if proxy else ""
        return f"duckduckgo {UNREACHABLE}: the connection to its servers{where}{through} failed"
    return None


def _ddgs_text(query: str, max_results: int) -> list[dict[str, Any]]:
    # Imported here: the package is only loaded by runs that use it.
    from ddgs import DDGS

    proxy = _proxy()
    client = DDGS(proxy=proxy) if proxy else DDGS()  # without one, ddgs reads DDGS_PROXY itself
    return client.text(query, max_results=max_results, safesearch="moderate")


class DuckDuckGoProvider:
    name = "duckduckgo"

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        try:
            items = await asyncio.to_thread(_ddgs_text, query, max_results)
        except RatelimitException:
            raise SearchError("duckduckgo rate limit reached", retryable=True) from None
        except TimeoutException:
            raise SearchError("duckduckgo did not answer in time", retryable=True) from None
        except DDGSException as exc:
            if "no results" in str(exc).lower():
                return []
            unreachable = explain_failure(str(exc))
            if unreachable is not None:  # a retry in a second will not find a network either
                raise SearchError(f"{unreachable}; {UNREACHABLE_ADVICE}") from None
            raise SearchError(f"duckduckgo failed: {str(exc)[:200]}", retryable=True) from None
        return results_from(items, "title", "href", "body", max_results)
