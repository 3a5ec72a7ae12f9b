"""Serper (https://serper.dev, Google results): POST /search with the X-API-KEY header."""

from __future__ import annotations

import httpx

from actions.web.providers.base import SearchError, SearchResult, json_of, results_from, send

ENDPOINT = "https://google.serper.dev/search"


class SerperProvider:
    name = "serper"

    def __init__(self, api_key: str, client: httpx.AsyncClient, endpoint: str = ENDPOINT) -> None:
        self.api_key = api_key
        self.client = client
        self.endpoint = endpoint

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
