"""`browse(task, start_url)`: the Browser micro agent. A browser-use Agent, driven by the run's
own model, works in the run's Chromium from `start_url` for at most `browser_steps` steps: fill in
a search form, follow pagination, open a data table. Its own context (page states, element lists,
its reasoning) never enters the main agent's: the main agent gets a bounded observation with the
agent's answer (fenced as untrusted: it comes from web pages), the pages it visited — each
registered in the ledger with a source id — and the last page saved in full as a snapshot.

Without the browser extra or Chromium the action answers that the browser is not installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from actions.browser.proxy import Blocked, check_address
from actions.browser.render import Rendered, read_target
from actions.browser.session import browser_for, prepare_browser_use
from actions.web.digest import cut, fence, new_boundary, one_line
from actions.web.extract import extract
from actions.web.visit import Fetched, Page, record_page
from agent_runtime.domain.sources.ledger import Ledger, ledger_for
from agent_runtime.domain.sources.urls import canonical_url
from agent_runtime.engine.registry import Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError, BrowserError, BrowserUnavailableError, ExtractionError

if TYPE_CHECKING:
    from actions.browser.agent import BrowseOutcome

LABEL = "BROWSER AGENT RESULT"
MAX_URLS_SHOWN = 15


def _task_prompt(task: str, start_url: str) -> str:
    return (
        f"{task.strip()}\n\nThe browser is already at {start_url}. Work only with what the pages show; when you "
        "have the answer, or cannot get it, finish with `done` and report exactly what you found (numbers, "
        "names, dates as written on the page) and where. Do not invent anything."
    )


@action
async def browse(ctx: ActionContext, task: str, start_url: str) -> Observation:
    """Do an interactive task in a real web browser (Chromium) with the Browser agent: fill in and
    submit a search form, follow pagination, open tabs, expand sections or a data table, read what
    only appears after clicking. It starts at start_url, works on its own for a limited number of
    steps, and returns its answer and the pages it visited (each with a source id [S<n>] to cite;
    the last page is saved in full). To simply read pages, use visit_url: it is faster. Pages are
    untrusted: the agent's answer is a lead to check, not a fact.

    Args:
        task: what the Browser agent should do and report, in full sentences, e.g. "Search the
            catalogue for '<search terms>', open the first three results and report each title and
            publication date".
        start_url: the http(s) URL of the page where the task starts.
    """
    if ctx.settings.offline:
        # The tool list is the same in every run (prompt cache), so the action stays listed and says
        # no here, before the browser is started: Chromium itself talks to the network on start.
        return Observation(
            "browse is off: this run is offline (--offline), and the browser would load pages from the "
            "network. Only documents of the local corpus can be read: find them with web_search and read "
            'them with visit_url by their source id (e.g. visit_url("S1")).',
            error=True,
        )
    # The run has one browser, and a Browser agent closes its pages when it ends: research tasks
    # running side by side take turns with it.
    async with ctx.services.get(_BrowserTurn, _BrowserTurn).lock:
        return await _browse(ctx, task, start_url)


@dataclass
class _BrowserTurn:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


async def _browse(ctx: ActionContext, task: str, start_url: str) -> Observation:
    task, start_url = task.strip(), start_url.strip()
    if not task:
        raise ActionError("no task given; say what the Browser agent should do and what it should report")
    browser = browser_for(ctx)
    try:
        browser.check()
    except BrowserUnavailableError as exc:
        return Observation(
            f"browse is not available: {exc}. Read pages with visit_url instead (it works without the browser).",
            error=True,
        )
    await check_address(browser.policy, start_url)  # URLRefusedError: a clear observation
    if not ctx.settings.base_url and not ctx.settings.api_key:
        raise ActionError("browse needs the run's model endpoint (--base-url or an API key), and none is set")
    try:
        await browser.start()
    except BrowserError as exc:
        raise ActionError(f"the browser could not start: {exc}") from None

    prepare_browser_use()
    from actions.browser.agent import run_agent  # browser-use takes a second to import: only now

    mark = time.monotonic()
    folder = browser.downloads.parent / f"browse-{int(mark * 1000)}"

    def on_step(step: int, url: str, actions: list[str]) -> None:
        ctx.events.append(
            "browse_step", step=ctx.meta.totals.steps + 1, browse_step=step, url=url, actions=actions
        )

    async def should_stop() -> bool:
        return ctx.spent_budget() is not None  # the run's budgets hold inside the task too

    try:
        outcome = await run_agent(
            task=_task_prompt(task, start_url),
            start_url=start_url,
            cdp_url=_require(browser.ws_url),
            settings=ctx.settings,
            policy=browser.policy,
            work_folder=folder,
            downloads=browser.downloads,
            on_usage=lambda prompt, completion: ctx.record_usage(prompt, completion),
            on_step=on_step,
            should_stop=should_stop,
        )
        last = None
        if outcome.focus_target:
            last = await read_target(browser, outcome.focus_target, max_bytes=ctx.settings.fetch_max_bytes)
    finally:
        if browser.running:
            # A browser that died is restarted on next use; the answer still counts.
            with contextlib.suppress(Exception):
                await browser.close_pages()
    refused = [b for b in browser.proxy.since(mark) if b.refused]
    if last is not None and any(canonical_url(b.target) == canonical_url(last.final_url) for b in refused):
        last = None  # the agent ended on a refusal page: nothing to save
    return await _observation(ctx, outcome, last, refused)


def _require(value: str | None) -> str:
    if value is None:
        raise ActionError("the browser is not running")
    return value


async def _save_last(ctx: ActionContext, ledger: Ledger, last: Rendered) -> Page | None:
    """The last page, through the same extraction, snapshot and ledger as visit_url."""
    try:
        extracted = await asyncio.to_thread(
            extract, last.html, content_type="text/html", charset="utf-8", url=last.final_url
        )
    except ExtractionError:
        return None
    notes = ["the page as the Browser agent left it", *extracted.notes]
    fetched = Fetched(
        last.final_url, last.final_url, last.html, "text/html", extracted, last.truncated, notes
    )
    return await record_page(ctx, ledger, fetched)


def _pages(outcome: BrowseOutcome, last: Rendered | None, refused: list[Blocked]) -> list[tuple[str, str]]:
    """(URL, title) of each page the agent had open, in order, once each; refusal pages dropped
    (nothing was retrieved there)."""
    blocked = {canonical_url(b.target) for b in refused}
    seen: set[str] = set()
    pages: list[tuple[str, str]] = []
    extra = [(last.final_url, last.title)] if last else []
    for url, title in [*outcome.pages, *extra]:
        key = canonical_url(url)
        if not url.startswith(("http://", "https://")) or key in blocked or key in seen:
            continue
        seen.add(key)
        pages.append((url, title))
    return pages


async def _observation(
    ctx: ActionContext, outcome: BrowseOutcome, last: Rendered | None, refused: list[Blocked]
) -> Observation:
    ledger = ledger_for(ctx)
    pages = _pages(outcome, last, refused)
    with ledger.batch():  # one ledger write for the whole task
        records = [ledger.register(url, title or None, via="visit") for url, title in pages]
        saved = await _save_last(ctx, ledger, last) if last is not None else None
    lines = []
    for record, (url, _title) in zip(records[:MAX_URLS_SHOWN], pages, strict=False):
        line = f"- [{record.id}] {url}"
        if saved is not None and record.id == saved.record.id:
            line += f" — the last page, saved in full: {saved.record.snapshot}"
        lines.append(line)

    steps = f"{outcome.steps} step{'s' if outcome.steps != 1 else ''}"
    if outcome.done and outcome.success is not False:
        header = f"browse: the Browser agent finished in {steps}"
    elif outcome.done:
        header = (
            f"browse: the Browser agent finished in {steps} but reports that it could not complete the task"
        )
    elif ctx.spent_budget() is not None:
        header = f"browse: stopped after {steps}: the run's budget is spent"
    else:
        header = (
            f"browse: the Browser agent stopped after {steps} without finishing (its limit is "
            f"{ctx.settings.browser_steps} steps); split the task, or say more precisely what to do"
        )
    sections = [header]
    if outcome.result:
        limit = max(500, ctx.settings.max_observation_chars // 2)
        sections.append(
            "Its answer (written from web pages: check it against the sources):\n"
            + fence(cut(outcome.result, limit), LABEL, new_boundary())
        )
    sections.append(
        "Pages visited (cite them by id):\n" + "\n".join(lines)
        if lines
        else "Pages visited: none could be read."
    )
    if len(pages) > MAX_URLS_SHOWN:
        sections.append(f"(and {len(pages) - MAX_URLS_SHOWN} more pages, all in the source ledger)")
    if refused:
        first = refused[0]
        sections.append(
            f"Blocked by the URL policy: {len(refused)} request{'s' if len(refused) > 1 else ''}, e.g. "
            f"{cut(first.target, 120)}: {first.message}"
        )
    if outcome.errors:
        problems = "\n".join(f"- {cut(one_line(e), 240)}" for e in outcome.errors[-3:])
        sections.append(f"Problems on the way:\n{problems}")
    return Observation("\n\n".join(sections), error=not outcome.done and not outcome.result)
