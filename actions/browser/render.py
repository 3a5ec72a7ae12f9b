"""Loading one page in the browser for `visit_url` (modes "auto" and "browser").

Each load gets its own browser context (like a fresh incognito window: no cookies or storage
shared with other loads, downloads refused) and one tab, which are thrown away afterwards
(`Browser.tab`). The
URL policy holds for everything the page loads, because every request goes through the policy
proxy (proxy.py); here the URL is also checked before the load, so the common refusal costs
nothing, and refusals the proxy logged during the load become the answer.

A page is "ready" when its document has loaded and then neither its text nor the number of
resources it fetched has changed for a short while (scripts that fetch data after the load event
usually finish within that window), or when the page-load deadline comes.

`js_reason` decides, from the plain HTTP response, whether a page needs the browser at all.
"""

from __future__ import annotations

import asyncio
import re
import time
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from actions.browser.proxy import Blocked
from actions.browser.session import Browser, Tab, browser_for
from agent_runtime.domain.sources.urls import canonical_url
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import BrowserError, BrowserUnavailableError, CDPError, RenderError, URLRefusedError

__all__ = [
    "BrowserUnavailableError",
    "RenderError",
    "Rendered",
    "js_reason",
    "load_page",
    "read_target",
    "render_page",
]

# How the plain HTTP text of an HTML page shows that its content is made by scripts.
ALMOST_NO_TEXT = 200  # characters: less than this, and the page has scripts → load it in the browser
SHORT_TEXT = 1_500  # characters: less than this, and the page says it needs JavaScript → browser
_SCRIPT = re.compile(rb"<script\b", re.IGNORECASE)
_NEEDS_JS = re.compile(
    rb"(?:enable|turn\s+on|activate|allow)\s+javascript"
    rb"|javascript\s+(?:is\s+)?(?:required|disabled|must\s+be\s+enabled|needs\s+to\s+be\s+enabled)"
    rb"|(?:requires?|needs?)\s+javascript",
    re.IGNORECASE,
)

# Readiness: the document has loaded, no fetch()/XHR is in flight, and the text and the number of
# resources have not changed for _QUIET seconds. A page with no text at all yet gets up to
# _EMPTY_WAIT seconds after its load to fill in (a script may start on a timer), and no page more
# than _SETTLE_CAP seconds (a request that never ends, such as a long poll).
_QUIET = 0.08
_QUIET_SHORT = 0.5  # for a page with less than _SHORT_TEXT characters of text
_SHORT_TEXT = 200
_EMPTY_WAIT = 1.5
_SETTLE_CAP = 10.0
_POLL = 0.015
_HTML_TYPES = ("text/html", "application/xhtml+xml")

# One round trip for everything the readiness check needs.
_STATE_JS = """(() => {
  const body = document.body;
  return [document.readyState, body ? body.innerText.length : 0,
          performance.getEntriesByType('resource').length, window.__deepResearcherPending || 0];
})()"""
_PAGE_JS = """(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  return {html: document.documentElement ? document.documentElement.outerHTML : '',
          url: location.href, title: document.title, type: document.contentType,
          status: nav && nav.responseStatus ? nav.responseStatus : 0};
})()"""


@dataclass
class Rendered:
    url: str  # as asked
    final_url: str  # after redirects and script navigations
    html: bytes  # the document as the scripts left it, UTF-8
    title: str
    truncated: bool  # cut at fetch_max_bytes
    seconds: float
    notes: list[str] = field(default_factory=list)


def js_reason(body: bytes, text: str) -> str | None:
    """Why an HTML page read over HTTP should be loaded in the browser, or None. Only a page with
    scripts can gain anything: then almost no text, or a short text that asks for JavaScript."""
    if not _SCRIPT.search(body):
        return None
    size = len(" ".join(text.split()))
    if size < ALMOST_NO_TEXT:
        return "the page has almost no text without JavaScript"
    if size < SHORT_TEXT and _NEEDS_JS.search(body):
        return "the page says it needs JavaScript"
    return None


async def render_page(ctx: ActionContext, url: str) -> Rendered:
    """`url` loaded in the run's browser (started on first use). Raises BrowserUnavailableError,
    URLRefusedError (the URL policy, for the page itself or where it led) or RenderError."""
    return await load_page(browser_for(ctx), url, max_bytes=ctx.settings.fetch_max_bytes)


async def load_page(browser: Browser, url: str, *, max_bytes: int = 10 * 1024 * 1024) -> Rendered:
    browser.check()
    browser.policy.check_url(url)  # scheme, credentials, IP literals: refused before any work
    try:
        await browser.start()
    except BrowserError as exc:
        raise RenderError(str(exc)) from None
    timeout = browser.settings.browser_timeout
    async with browser.pages:
        started = time.monotonic()  # also the mark from which the proxy's refusals count
        try:
            async with asyncio.timeout(timeout + 15.0), browser.tab() as tab:
                return await _load(tab, url, timeout, started, max_bytes)
        except TimeoutError:
            raise RenderError(f"the browser did not load {url} within {timeout:g} seconds") from None
        except (CDPError, BrowserError) as exc:
            raise RenderError(f"the browser failed on {url}: {exc}") from None


async def _load(tab: Tab, url: str, timeout: float, started: float, max_bytes: int) -> Rendered:
    proxy = tab.browser.proxy
    notes: list[str] = []
    try:
        navigation = await tab.call("Page.navigate", {"url": url}, timeout=timeout)
    except CDPError as exc:
        if "timed out" in str(exc) or "did not answer" in str(exc):
            raise RenderError(f"{url} did not answer within {timeout:g} seconds in the browser") from None
        raise
    error = navigation.get("errorText")
    if error:
        _raise_for_failure(url, error, proxy.since(started))

    page: Any = None
    for _attempt in range(3):
        complete = await _settle(tab, deadline=started + timeout)
        try:
            page = await tab.evaluate(_PAGE_JS)
            break
        except CDPError:
            continue  # a script navigated away while the page was read: wait for the new one
    if not isinstance(page, dict):
        raise RenderError(f"the browser could not read the page {url}; it kept navigating")
    if not complete:
        notes.append(f"the page had not finished loading after {timeout:g} seconds; shown as it was")
    final_url = str(page.get("url") or url)
    blocked = proxy.since(started)
    refused_here = [b for b in blocked if b.refused and _same(b.target, final_url)]
    if refused_here:
        raise URLRefusedError(refused_here[-1].message)
    kind = str(page.get("type") or "")
    if kind not in _HTML_TYPES:
        what = f"{kind} content" if kind else "not shown as a document"
        raise RenderError(f"{url} is {what}, not a web page", http_fallback=True)
    status = int(page.get("status") or 0)
    if status >= 400:
        raise RenderError(f"HTTP {status}: {final_url} could not be loaded in the browser")
    others = [b for b in blocked if b.refused]
    if others:
        notes.append(
            f"the browser blocked {len(others)} request{'s' if len(others) > 1 else ''} of this page under "
            f"the URL policy (e.g. {others[0].target}: {others[0].message})"
        )
    data = str(page.get("html") or "").encode("utf-8")
    truncated = len(data) > max_bytes
    if truncated:
        data = data[:max_bytes]
        notes.append(
            f"cut at the download cap of {max_bytes / 1_048_576:g} MB: the rest of the page is missing"
        )
    seconds = time.monotonic() - started
    return Rendered(url, final_url, data, str(page.get("title") or ""), truncated, seconds, notes)


async def read_target(browser: Browser, target_id: str, *, max_bytes: int) -> Rendered | None:
    """The page a tab shows now (a browse task's last page), or None if it cannot be read or is
    not a web page."""
    started = time.monotonic()
    try:
        attached = await browser.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
        tab = Tab(browser, "", attached["sessionId"])
        try:
            page = await tab.evaluate(_PAGE_JS)
        finally:
            with suppress(CDPError, BrowserError):
                await browser.send("Target.detachFromTarget", {"sessionId": tab.session_id})
    except (CDPError, BrowserError):
        return None
    if not isinstance(page, dict) or str(page.get("type") or "") not in _HTML_TYPES:
        return None
    data = str(page.get("html") or "").encode("utf-8")
    url = str(page.get("url") or "")
    truncated = len(data) > max_bytes
    return Rendered(
        url, url, data[:max_bytes], str(page.get("title") or ""), truncated, time.monotonic() - started
    )


async def _settle(tab: Tab, deadline: float) -> bool:
    """Wait until the page is ready (see _QUIET); False if the page-load deadline came first."""
    loaded_at: float | None = None
    last: list[Any] | None = None
    steady_since = time.monotonic()
    while time.monotonic() < deadline:
        try:
            state = await tab.evaluate(_STATE_JS)
        except CDPError:  # the document went away (a navigation by script): start over
            state, loaded_at, last = None, None, None
        now = time.monotonic()
        if isinstance(state, list) and len(state) == 4 and state[0] == "complete":
            loaded_at = loaded_at or now
            if state != last:
                last, steady_since = state, now
            # A page showing only a little text ("Loading…") is given longer to fill in: it is most
            # likely waiting for its scripts' data, and a busy machine may not have started them yet.
            needed = _QUIET if state[1] >= _SHORT_TEXT else _QUIET_SHORT
            quiet = now - steady_since >= needed and not state[3]
            filled = state[1] > 0 or now - loaded_at >= _EMPTY_WAIT
            if (quiet and filled) or now - loaded_at >= _SETTLE_CAP:
                return True
        await asyncio.sleep(_POLL)
    return False


def _same(target: str, url: str) -> bool:
    return canonical_url(target) == canonical_url(url)


def _raise_for_failure(url: str, error: str, blocked: list[Blocked]) -> None:
    """Turn a failed navigation into the clearest message: a refusal by the URL policy first."""
    refused = [b for b in blocked if b.refused]
    if refused:
        raise URLRefusedError(refused[-1].message)
    if error == "net::ERR_ABORTED":  # a download (PDF, archive) instead of a page
        raise RenderError(f"{url} is a download, not a web page", http_fallback=True)
    unreachable = [b for b in blocked if not b.refused]
    if unreachable:
        raise RenderError(f"{unreachable[-1].message}; check the address, or try another source")
    raise RenderError(f"the browser could not load {url} ({error}); try another source")
