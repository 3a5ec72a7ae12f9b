"""Serper (https://serper.dev, Google results): POST /search with the X-API-KEY header."""

from __future__ import annotations

from actions.web.providers.base import KeyedProvider, SearchError, SearchResult, json_of, results_from, send


class SerperProvider(KeyedProvider):
    name = "serper"
    ENDPOINT = "https://google.serper.dev/search"

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        response = await send(
            self.client,
            self.name,
            "POST",
            self.endpoint,
            headers={"X-API-KEY": self.api_key},
            json={"q": query, "num": max_results},
        )
        data = json_of(response, self.name)
        if not isinstance(data, dict):
            raise SearchError("serper answered with an unexpected JSON shape")
        return results_from(data.get("organic", []), "title", "link", "snippet", max_results)
