"""Benchmark of the web actions, fully offline (servers on 127.0.0.1 only).

1. Ten URLs that each answer after 500 ms, read in one visit_url call (target: under 1 s in all).
   The ten URLs are on ten host names (site0.test … site9.test) that a resolver maps to the one
   local server, as ten different sites would be; the same ten pages on ONE host are timed too,
   where the per-host politeness limit (fetch_per_host, default 4) spreads them over waves.
2. Extraction time of a typical page: a ~100 KB article HTML (navigation, sidebar, comments and
   footer around 60 paragraphs), median of 20 runs; and a 20-page PDF for comparison.

    python benchmarks/bench_web.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.web.extract import extract
from actions.web.fetch import Fetcher, FetchLimits
from actions.web.visit import visit_url
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.testing import scratch_context
from sandbox.url_policy import URLPolicy
from tests.support.loopback import Handler, LoopbackServer, send

DELAY = 0.5
PAGES = 10


def article_html(size: int = 100_000, seed: int = 0) -> str:
    """A news-like page of about `size` bytes."""
    nav = (
        "<nav><ul>" + "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(40)) + "</ul></nav>"
    )
    side = (
        "<aside>"
        + "".join(f'<p><a href="/more{i}">Related story {i}</a></p>' for i in range(20))
        + "</aside>"
    )
    comments = (
        "<section class='comments'>"
        + "".join(f"<div class='comment'><p>Reader {i}: interesting, thanks.</p></div>" for i in range(30))
        + "</section>"
    )
    footer = "<footer><p>Copyright. Privacy. Terms. Cookies.</p></footer>"
    paragraphs: list[str] = []
    i = 0
    body = ""
    while len(body) < size - 6_000:
        if i % 8 == 0:
            paragraphs.append(f"<h2>Part {i // 8 + 1} of the story {seed}</h2>")
        paragraphs.append(
            f"<p>Paragraph {i} of article {seed}: grid-scale batteries expanded quickly as costs fell, and "
            f"operators in region {i % 13} added storage next to solar farms. Analysts at firm {i % 7} "
            f'expect <a href="https://example.org/ref{i}">further growth</a> of about {i % 30} percent a year, '
            "although supply chains for lithium, nickel and graphite remain concentrated in a few countries.</p>"
        )
        i += 1
        body = "".join(paragraphs)
    return (
        f"<!doctype html><html><head><title>Article {seed}</title></head><body>{nav}"
        f"<main><article><h1>Article {seed}</h1>{body}</article></main>{side}{comments}{footer}</body></html>"
    )


def start_server(pages: dict[str, bytes]) -> LoopbackServer:
    def answer(handler: Handler) -> None:
        body = pages.get(handler.path.split("?")[0], b"not found")
        time.sleep(DELAY)
        send(handler, body, status=200 if handler.path in pages else 404)

    return LoopbackServer(answer)


def make_ctx(root: Path) -> ActionContext:
    return scratch_context(root, "Benchmark", allow_private_urls=True)


async def loopback(host: str, port: int) -> Sequence[str]:
    return ["127.0.0.1"]  # every site*.test name is the local server


async def timed_visit(urls: list[str], root: Path) -> tuple[float, str]:
    ctx = make_ctx(root)
    fetcher = Fetcher(URLPolicy(allow_private=True, resolver=loopback), FetchLimits())
    ctx.services.provide(Fetcher, fetcher)
    started = time.perf_counter()
    obs = await visit_url.run(ctx, {"url": urls})
    elapsed = time.perf_counter() - started
    await fetcher.aclose()
    ctx.events.close()
    return elapsed, obs.text.split("\n", 1)[0]


def bench_fetch() -> None:
    pages = {f"/a{i}": article_html(20_000, seed=i).encode() for i in range(PAGES)}
    server = start_server(pages)
    port = server.port
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sites = [f"http://site{i}.test:{port}/a{i}" for i in range(PAGES)]
            one_host = [f"http://127.0.0.1:{port}/a{i}" for i in range(PAGES)]
            # A warm-up run is not done on purpose: the figure includes connecting and extraction.
            elapsed, line = asyncio.run(timed_visit(sites, Path(tmp) / "a"))
            print(
                f"visit_url, {PAGES} URLs on {PAGES} hosts, each answering after {DELAY * 1000:.0f} ms: "
                f"{elapsed:.3f} s in all ({line}); target < 1 s: {'met' if elapsed < 1 else 'MISSED'}"
            )
            elapsed, line = asyncio.run(timed_visit(one_host, Path(tmp) / "b"))
            print(
                f"visit_url, {PAGES} URLs on ONE host (politeness: {FetchLimits().per_host} at a time per host): "
                f"{elapsed:.3f} s in all ({line})"
            )
    finally:
        server.stop()


def bench_extract() -> None:
    html = article_html(100_000).encode()
    timings = []
    for _ in range(20):
        started = time.perf_counter()
        result = extract(html, content_type="text/html", charset="utf-8", url="https://example.com/a")
        timings.append(time.perf_counter() - started)
    print(
        f"extraction of a {len(html) / 1024:.0f} KB article HTML -> {len(result.text) / 1024:.0f} KB Markdown "
        f"({result.method}): median {statistics.median(timings) * 1000:.1f} ms, "
        f"max {max(timings) * 1000:.1f} ms over 20 runs"
    )

    from tests.support.office_files import build_pdf

    pdf = build_pdf(
        [[f"Page {p} line {n}: storage capacity grew again." for n in range(40)] for p in range(20)]
    )
    timings = []
    for _ in range(20):
        started = time.perf_counter()
        result = extract(pdf, content_type="application/pdf", charset=None, url="https://example.com/r.pdf")
        timings.append(time.perf_counter() - started)
    print(
        f"extraction of a 20-page PDF ({len(pdf) / 1024:.0f} KB, {result.method}): "
        f"median {statistics.median(timings) * 1000:.1f} ms over 20 runs"
    )


if __name__ == "__main__":
    bench_fetch()
    bench_extract()
