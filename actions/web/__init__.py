"""The main agent's web actions: `web_search` (search providers, local corpus) and `visit_url`
(fetch, extract, snapshot into sources/), both backed by the code-owned source ledger
(`agent_runtime.domain.sources`). Their clients (the fetcher, the search providers' client, the browser)
are run services (`agent_runtime.engine.services`): the run closes them when it ends."""

from actions.web.search import check_search_settings, web_search
from actions.web.visit import visit_url

__all__ = ["check_search_settings", "visit_url", "web_search"]
