"""Benchmark of the browser (needs the [browser] extra and Chromium), fully offline.

A page whose text a script fetches and writes after the load (an article of ~2,500 characters)
is read with visit_url(mode="browser") several times, on different URLs, in one run:

- the first visit starts Chromium (its start is timed on its own too) and loads the page;
- the next visits reuse the running browser. Between two actions of a real run the model is
  thinking for seconds; in that time the browser prepares the next visit's tab. The benchmark
  leaves a short pause (PAUSE) between visits for that, and also times visits back to back.

Target: the second visit at least 3x faster than the first (which includes the start). Each
scenario runs ROUNDS times, each time in a fresh run with its own browser; the figures are medians.

    python benchmarks/bench_browser.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.browser.session import Browser
from actions.web.visit import visit_url
from agent_runtime.config import Settings
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import BrowserUnavailableError
from agent_runtime.testing import scratch_context
from tests.support.loopback import Handler, LoopbackServer, send

VISITS = 6
ROUNDS = 5
PAUSE = 0.5  # seconds between visits: a model's turn is much longer
ARTICLE = {
    "title": "Solid-state cells reach 412 Wh/kg",
    "paragraphs": [
        f"Paragraph {n}: the pilot line measured 412 Wh/kg at the cell level again. " * 4 for n in range(8)
    ],
}
PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>News</title></head><body>"
    "<div id='app'>Loading…</div><script>fetch('/data.json').then(r => r.json()).then(d => {"
    "document.getElementById('app').innerHTML = '<h1>' + d.title + '</h1>' + "
    "d.paragraphs.map(p => '<p>' + p + '</p>').join('');});</script></body></html>"
).encode()


def start_server() -> LoopbackServer:
    data = json.dumps(ARTICLE).encode()

    def answer(handler: Handler) -> None:
        body, kind = (data, "application/json") if handler.path == "/data.json" else (PAGE, "text/html")
        send(handler, body, content_type=kind)

    return LoopbackServer(answer)


def make_ctx(root: Path) -> ActionContext:
    return scratch_context(root, "Benchmark", allow_private_urls=True)


async def visits(port: int, root: Path, pause: float) -> tuple[list[float], Browser]:
    ctx = make_ctx(root)
    timings: list[float] = []
    try:
        for n in range(VISITS):
            started = time.perf_counter()
            obs = await visit_url.run(ctx, {"url": f"http://127.0.0.1:{port}/page{n}", "mode": "browser"})
            timings.append(time.perf_counter() - started)
            assert "412 Wh/kg" in obs.text and "loaded in the browser" in obs.text, obs.text
            await asyncio.sleep(pause)
        browser = ctx.services.peek(Browser)
        assert browser is not None
        assert isinstance(browser, Browser) and browser.starts == 1  # one browser for all visits
        return timings, browser
    finally:
        await ctx.services.aclose()
        ctx.events.close()


def scenario(port: int, root: Path, pause: float) -> tuple[list[float], float]:
    """Median time of each visit over ROUNDS fresh runs, and the median Chromium start."""
    rounds: list[list[float]] = []
    starts: list[float] = []
    for n in range(ROUNDS):
        timings, browser = asyncio.run(visits(port, root / f"{pause}-{n}", pause))
        rounds.append(timings)
        starts.append(browser.start_seconds)
    return [statistics.median(column) for column in zip(*rounds, strict=True)], statistics.median(starts)


def report(label: str, timings: list[float], start: float) -> float:
    first, second, rest = timings[0], timings[1], timings[1:]
    ratio = first / second
    print(
        f"{label}: first visit {first * 1000:.0f} ms (Chromium start {start * 1000:.0f} ms + the page), "
        f"second {second * 1000:.0f} ms, visits 2-{VISITS} {' '.join(f'{t * 1000:.0f}' for t in rest)} ms; "
        f"first/second = {ratio:.1f}x   (medians of {ROUNDS} runs)"
    )
    return ratio


def main() -> int:
    try:
        Browser(Settings()).check()
    except BrowserUnavailableError as exc:
        print(f"skipped: {exc}")
        return 0
    server = start_server()
    port = server.port
    try:
        with tempfile.TemporaryDirectory() as tmp:
            timings, start = scenario(port, Path(tmp), PAUSE)
            ratio = report(f"visit_url(mode='browser'), {PAUSE:g} s between visits", timings, start)
            timings, start = scenario(port, Path(tmp), 0.0)
            report("visit_url(mode='browser'), back to back", timings, start)
    finally:
        server.stop()
    print(f"target: second visit >= 3x faster than the first: {'met' if ratio >= 3 else 'MISSED'}")
    return 0 if ratio >= 3 else 1


if __name__ == "__main__":
    sys.exit(main())
