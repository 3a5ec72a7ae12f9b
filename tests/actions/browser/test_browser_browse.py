"""`browse`: the Browser micro agent (browser-use) in a real headless Chromium, driven by a scripted
model served as an OpenAI-compatible endpoint on 127.0.0.1 — browser-use's own ChatOpenAI talks
to it over HTTP, exactly as it would to a local model server.

The scripted model reads what browser-use sends it (the page's interactive elements with their
indices, in the last user message) and answers with browser-use's AgentOutput JSON, sometimes
wrapped the way local models write it (a reasoning block, a code fence).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from actions.browser.browse import browse
from actions.browser.session import Browser
from agent_runtime.domain.sources.ledger import ledger_for
from agent_runtime.engine.run_record import read_events
from agent_runtime.testing import Reply, ScriptedEndpoint
from tests.support.browser_kit import (
    Contexts,
    FakeInternet,
    Page,
    Site,
    fake_browser,
    html,
    needs_chromium,
    site_factory,
)

pytestmark = [needs_chromium, pytest.mark.asyncio(loop_scope="module")]

FORM = html(
    "<h1>Battery catalogue</h1><form action='/results' method='get'>"
    "<label for='q'>Query</label><input id='q' name='q' type='text'>"
    "<button type='submit'>Search</button></form>",
    title="Catalogue search",
)


@pytest.fixture
def make_site() -> Iterator[Callable[[], Site]]:
    yield from site_factory()


def results(path: str) -> Page:
    query = re.search(r"q=([^&]*)", path)
    term = query.group(1).replace("+", " ") if query else ""
    return Page(
        html(
            f"<h1>Results for {term}</h1><table><tr><th>Cell</th><th>Energy density</th></tr>"
            "<tr><td>Cell A</td><td>412 Wh/kg</td></tr><tr><td>Cell B</td><td>388 Wh/kg</td></tr></table>",
            title=f"Results for {term}",
        )
    )


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared() -> AsyncIterator[Browser]:
    browser = fake_browser(FakeInternet())
    yield browser
    await browser.aclose()


@pytest_asyncio.fixture(loop_scope="module")
async def contexts(tmp_path: Path, shared: Browser) -> AsyncIterator[Contexts]:
    made = Contexts(tmp_path, shared=shared)
    yield made
    await made.close()


@pytest.fixture
def catalogue(make_site: Callable[[], Site]) -> Site:
    site = make_site()
    site.routes["/"] = Page(FORM)
    site.routes["/results"] = results
    return site


# --------------------------------------------------------------------------------------------------
# The scripted model's side of browser-use's protocol
# --------------------------------------------------------------------------------------------------


def page_state(messages: list[dict[str, Any]]) -> str:
    """The last user message: the task, the agent's history and the browser state."""
    content = messages[-1]["content"]
    if isinstance(content, list):
        content = "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def index_of(state: str, pattern: str) -> int:
    found = re.search(r"\[(\d+)\]<" + pattern, state)
    assert found, f"no element matching {pattern!r} in:\n{state[-2000:]}"
    return int(found.group(1))


def agent_output(*actions: dict[str, Any], wrap: bool = False) -> Reply:
    output = json.dumps(
        {
            "thinking": "scripted",
            "evaluation_previous_goal": "scripted",
            "memory": "scripted",
            "next_goal": "scripted",
            "action": list(actions),
        }
    )
    if wrap:  # the way many local models answer: reasoning first, the JSON in a fence
        return Reply(
            content=f"<think>The form is there; fill it in.</think>\nHere is my step:\n```json\n{output}\n```"
        )
    return Reply(content=output)


@pytest.mark.slow
async def test_browse_fills_in_a_form_and_returns_the_result_and_the_pages_it_visited(
    contexts: Contexts, catalogue: Site
) -> None:
    def script(messages: list[dict[str, Any]], tools: list[Any]) -> Reply:
        state = page_state(messages)
        if "Results for solid-state" in state:
            value = re.search(r"Cell A.*?(\d+ Wh/kg)", state, re.DOTALL)
            assert value, state[-2000:]
            return agent_output(
                {"done": {"text": f"Cell A: {value.group(1)} (results page)", "success": True}}
            )
        box, button = index_of(state, "input[^>]*name=q"), index_of(state, "button")
        return agent_output(
            {"input": {"index": box, "text": "solid-state"}}, {"click": {"index": button}}, wrap=True
        )

    with ScriptedEndpoint(script) as endpoint:
        ctx = contexts(base_url=endpoint.url, api_key="test-key", model="scripted-model")
        start = catalogue.url("/")

        obs = await browse.run(
            ctx,
            {
                "task": "Search the catalogue for solid-state; report Cell A's energy density.",
                "start_url": start,
            },
        )

    assert not obs.error, obs.text
    assert obs.text.startswith("browse: the Browser agent finished in")
    assert "Cell A: 412 Wh/kg (results page)" in obs.text
    final = catalogue.url("/results?q=solid-state")
    ledger = ledger_for(ctx)
    form_record, results_record = ledger.lookup(start), ledger.lookup(final)
    assert form_record is not None and results_record is not None
    assert f"- [{form_record.id}] {start}" in obs.text
    assert (
        f"- [{results_record.id}] {final} — the last page, saved in full: sources/{results_record.id}.md"
        in obs.text
    )
    assert form_record.first_seen_via == results_record.first_seen_via == "visit"
    assert (
        results_record.fetched
        and "412 Wh/kg" in (ctx.workspace.root / str(results_record.snapshot)).read_text()
    )
    assert [p for p in catalogue.requests if p != "/favicon.ico"] == ["/", "/results?q=solid-state"]
    # Not OpenAI: no response_format, the schema in the system prompt instead.
    assert endpoint.requests and all("response_format" not in r for r in endpoint.requests)
    assert "<json_schema>" in endpoint.requests[0]["messages"][0]["content"]
    # The Browser agent's calls count in the run's totals (its context does not reach the main agent).
    assert ctx.meta.totals.model_calls == len(endpoint.requests)
    assert any(e["event"] == "browse_step" for e in read_events(ctx.workspace.events_file))


@pytest.mark.slow
async def test_browse_cannot_reach_private_addresses(
    contexts: Contexts, catalogue: Site, make_site: Callable[[], Site]
) -> None:
    private = make_site()
    private.routes["/admin"] = Page(html("<p>secret admin page</p>"))
    admin = private.url("/admin", host="127.0.0.1")
    catalogue.routes["/links"] = Page(
        html(f"<p>Staff only:</p><a href='{admin}'>Admin console</a>", title="Links")
    )
    seen: list[str] = []

    def script(messages: list[dict[str, Any]], tools: list[Any]) -> Reply:
        state = page_state(messages)
        seen.append(state)
        if len(seen) == 1:  # straight to the private address
            return agent_output({"navigate": {"url": admin, "new_tab": False}})
        if len(seen) == 2:  # then through a link on a public page
            return agent_output({"click": {"index": index_of(state, "a[^>]*>?[^\\[]*Admin console")}})
        return agent_output({"done": {"text": "The admin console could not be opened.", "success": False}})

    with ScriptedEndpoint(script) as endpoint:
        ctx = contexts(base_url=endpoint.url, api_key="test-key")
        obs = await browse.run(ctx, {"task": "Open the admin console.", "start_url": catalogue.url("/links")})

    assert "URL refused: 127.0.0.1 is a loopback address" in seen[1]  # the model was told why
    assert "Blocked by the URL policy" in obs.text and "127.0.0.1 is a loopback address" in obs.text
    assert "secret admin page" not in obs.text
    assert private.untouched
    assert ledger_for(ctx).lookup(admin) is None


@pytest.mark.slow
async def test_a_private_start_url_is_refused_before_anything_runs(
    contexts: Contexts, make_site: Callable[[], Site]
) -> None:
    private = make_site()
    with ScriptedEndpoint(lambda messages, tools: Reply(content="{}")) as endpoint:
        ctx = contexts(base_url=endpoint.url, api_key="test-key")
        obs = await browse.run(
            ctx, {"task": "Read it.", "start_url": f"http://intranet.test:{private.port}/"}
        )

    assert obs.error
    assert "URL refused: intranet.test resolves to 10.0.0.7, which is a private-network address" in obs.text
    assert endpoint.requests == [] and private.untouched
