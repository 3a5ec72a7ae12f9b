"""Jina search (https://s.jina.ai): POST with the key as a bearer token; `X-Respond-With:
no-content` asks for titles, URLs and descriptions only (page text comes from visit_url)."""

from __future__ import annotations

from actions.web.providers.base import KeyedProvider, SearchError, SearchResult, json_of, results_from, send


class JinaProvider(KeyedProvider):
    name = "jina"
    ENDPOINT = "https://s.jina.ai/"

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
