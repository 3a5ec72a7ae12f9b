"""Jina search (https://s.jina.ai): POST with the key as a bearer token; `X-Respond-With:
no-content` asks for titles, URLs and descriptions only (page text comes from visit_url)."""

from __future__ import annotations

import httpx

from actions.web.providers.base import SearchError, SearchResult, json_of, results_from, send

ENDPOINT = "https://s.jina.ai/"


class JinaProvider:
    name = "jina"

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
            headers={
                "Authorization": f"Bearer {self.api_key}",
                "Accept": "application/json",
                "X-Respond-With": "no-content",
            },
            json={"q": query, "num": max_results},
        )
        data = json_of(response, self.name)
        if not isinstance(data, dict) or not isinstance(data.get("data"), list):
            raise SearchError("jina answered without a 'data' list")
        return results_from(data["data"], "title", "url", "description", max_results)
