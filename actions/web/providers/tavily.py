"""Tavily (https://tavily.com): POST /search with the key as a bearer token."""

from __future__ import annotations

from actions.web.providers.base import KeyedProvider, SearchError, SearchResult, json_of, results_from, send


class TavilyProvider(KeyedProvider):
    name = "tavily"
    ENDPOINT = "https://api.tavily.com/search"

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        response = await send(
            self.client,
            self.name,
            "POST",
            self.endpoint,
            headers={"Authorization": f"Bearer {self.api_key}"},
            json={
                "query": query,
                "max_results": max_results,
                "search_depth": "basic",
                "include_answer": False,
                "include_raw_content": False,  # the page text comes from visit_url, into a file
                "include_images": False,
            },
        )
        data = json_of(response, self.name)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise SearchError("tavily answered without a 'results' list")
        return results_from(data["results"], "title", "url", "content", max_results)
