"""The main agent's web actions: `web_search` (search providers, local corpus) and `visit_url`
(fetch, extract, snapshot into sources/), both backed by the code-owned source ledger
(`agent_runtime.ledger`)."""

from actions.browser.session import close_browser
from actions.web.fetch import Fetcher
from actions.web.search import STATE_KEY as SEARCH_KEY
from actions.web.search import ProviderChain, check_search_settings, web_search
from actions.web.visit import STATE_KEY as FETCHER_KEY
from actions.web.visit import visit_url
from agent_runtime.run import ActionContext


async def close_web(ctx: ActionContext) -> None:
    """Close the run's HTTP clients (the page fetcher, the search providers') and its browser, if
    one was started; call at run end, also after a crash."""
    await close_browser(ctx)
    fetcher = ctx.state.pop(FETCHER_KEY, None)
    if isinstance(fetcher, Fetcher):
        await fetcher.aclose()
    chain = ctx.state.pop(SEARCH_KEY, None)
    if isinstance(chain, ProviderChain):
        await chain.aclose()


__all__ = ["check_search_settings", "close_web", "visit_url", "web_search"]
