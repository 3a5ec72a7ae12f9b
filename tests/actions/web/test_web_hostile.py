"""Hostile pages against a real HTTP server on 127.0.0.1: compression bombs (one encoding or several
stacked, as `Content-Encoding: gzip, gzip`) must stop at the byte cap with memory bounded by it, and
a page that never ends must not make a visit outlast its deadline, extraction included."""

from __future__ import annotations

import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from actions.web import extract as extract_module
from actions.web.fetch import BROTLI, ZSTD, Fetcher, FetchLimits, FetchResult
from actions.web.visit import visit_url
from agent_runtime.domain.sources.front_matter import read_front_matter
from agent_runtime.errors import FetchError
from sandbox.url_policy import URLPolicy
from tests.support.web_server import ContextFactory, Route, WebServer

MB = 1024 * 1024
LINE = b"<p>Battery bomb paragraph with some words 0123456789.</p>\n"
CAP = 1 * MB


# The fetcher's own optional decoders: a test compresses with br or zstd only where it can decode them.
brotli, zstd = BROTLI, ZSTD
HAS_BR, HAS_ZSTD = brotli is not None, zstd is not None


def html_blocks(total: int) -> Iterator[bytes]:
    """`total` bytes of HTML, 1 MB at a time (a bomb's content is never held whole)."""
    block = (LINE * (MB // len(LINE) + 1))[:MB]
    for start in range(0, total, MB):
        yield block[: min(MB, total - start)]


def encode(name: str, blocks: Iterable[bytes]) -> bytes:
    """The blocks compressed with one encoding; "raw-deflate" is deflate without its zlib header,
    which some servers send as "deflate"."""
    if name in ("gzip", "deflate", "raw-deflate"):
        wbits = {"gzip": 31, "deflate": 15, "raw-deflate": -15}[name]
        z = zlib.compressobj(9, zlib.DEFLATED, wbits)
        return b"".join(z.compress(b) for b in blocks) + z.flush()
    if name == "br":
        assert brotli is not None
        b = brotli.Compressor()
        return b"".join(b.process(block) for block in blocks) + b.finish()
    assert name == "zstd" and zstd is not None
    c = zstd.ZstdCompressor()
    return b"".join(c.compress(block) for block in blocks) + c.flush()


def bomb(layers: list[str], decoded: int) -> bytes:
    """A body that decodes to `decoded` bytes of HTML; `layers` in the order they were applied (the
    order of the Content-Encoding header)."""
    body = encode(layers[0], html_blocks(decoded))
    for name in layers[1:]:
        body = encode(name, [body])
    return body


def header(layers: list[str]) -> str:
    return ", ".join("deflate" if name == "raw-deflate" else name for name in layers)


async def fetch_traced(url: str, max_bytes: int = CAP) -> tuple[FetchResult | FetchError, int]:
    """The fetch's outcome and the peak of Python memory allocated while it ran."""
    fetcher = Fetcher(URLPolicy(allow_private=True), FetchLimits(max_bytes=max_bytes, deadline=30))
    tracemalloc.start()
    try:
        try:
            outcome: FetchResult | FetchError = await fetcher.fetch(url)
        except FetchError as exc:
            outcome = exc
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await fetcher.aclose()
    return outcome, peak


# --------------------------------------------------------------------------------------------------
# Compression bombs
# --------------------------------------------------------------------------------------------------


async def test_a_stacked_gzip_bomb_is_cut_at_the_cap_in_bounded_memory(web_server: WebServer) -> None:
    # The reported case, scaled down: 256 MB of HTML in under 3 KB on the wire, gzipped twice.
    body = bomb(["gzip", "gzip"], 256 * MB)
    assert len(body) < 4096
    web_server.routes["/bomb"] = Route(body=body, headers={"Content-Encoding": "gzip, gzip"})

    result, peak = await fetch_traced(web_server.url("/bomb"))

    assert isinstance(result, FetchResult), result
    assert result.truncated
    assert len(result.body) == CAP
    assert result.body.startswith(LINE)
    # Bounded by the cap (the kept body, plus small decoding buffers), not by the decoded size.
    assert peak < 6 * CAP, f"peak {peak / MB:.1f} MB for a {CAP / MB:g} MB cap"


BOMBS = [
    ["gzip"],
    ["deflate"],
    ["raw-deflate"],
    ["deflate", "gzip"],
    ["gzip", "deflate", "gzip"],
    pytest.param(["br"], marks=pytest.mark.skipif(not HAS_BR, reason="no brotli>=1.2")),
    pytest.param(["gzip", "br"], marks=pytest.mark.skipif(not HAS_BR, reason="no brotli>=1.2")),
    pytest.param(["zstd"], marks=pytest.mark.skipif(not HAS_ZSTD, reason="no zstd module")),
]


@pytest.mark.parametrize("layers", BOMBS, ids=lambda layers: "+".join(layers))
async def test_every_encoding_is_cut_at_the_cap_in_bounded_memory(
    web_server: WebServer, layers: list[str]
) -> None:
    body = bomb(layers, 64 * MB)
    web_server.routes["/bomb"] = Route(body=body, headers={"Content-Encoding": header(layers)})

    result, peak = await fetch_traced(web_server.url("/bomb"))

    assert isinstance(result, FetchResult), result
    assert result.truncated and len(result.body) == CAP
    assert result.body == b"".join(html_blocks(CAP))
    assert peak < 6 * CAP, f"peak {peak / MB:.1f} MB for a {CAP / MB:g} MB cap"


@pytest.mark.parametrize(
    "layers",
    [["gzip"], ["raw-deflate"], ["deflate", "gzip"], ["gzip", "gzip"]],
    ids=lambda layers: "+".join(layers),
)
async def test_compressed_pages_under_the_cap_are_decoded_whole(
    web_server: WebServer, layers: list[str]
) -> None:
    size = CAP - 1000
    web_server.routes["/page"] = Route(
        body=bomb(layers, size), headers={"Content-Encoding": header(layers).upper()}
    )

    result, _ = await fetch_traced(web_server.url("/page"))

    assert isinstance(result, FetchResult), result
    assert not result.truncated
    assert result.body == b"".join(html_blocks(size))


async def test_identity_is_no_encoding(web_server: WebServer) -> None:
    web_server.routes["/plain"] = Route(body=LINE, headers={"Content-Encoding": "identity"})

    result, _ = await fetch_traced(web_server.url("/plain"))

    assert isinstance(result, FetchResult) and result.body == LINE and not result.truncated


@pytest.mark.slow
async def test_a_bomb_read_by_visit_url_says_it_was_cut(
    web_server: WebServer, make_ctx: ContextFactory
) -> None:
    web_server.routes["/bomb"] = Route(
        body=bomb(["gzip", "gzip"], 256 * MB), headers={"Content-Encoding": "gzip, gzip"}
    )
    ctx = make_ctx(allow_private_urls=True, fetch_max_bytes=CAP)

    obs = await visit_url.run(ctx, {"url": web_server.url("/bomb")})

    assert not obs.error, obs.text
    assert "cut at the download cap of 1 MB" in obs.text
    fields = read_front_matter((ctx.workspace.root / "sources" / "S1.md").read_text("utf-8"))
    assert fields["truncated"] == "true"


UNDECODABLE = [
    "compress",
    "x-no-such-encoding",
    "gzip, gzip, gzip, gzip",  # more layers than any real server sends
    pytest.param("br", marks=pytest.mark.skipif(HAS_BR, reason="brotli>=1.2 is installed")),
    pytest.param("zstd", marks=pytest.mark.skipif(HAS_ZSTD, reason="a zstd module is installed")),
]


@pytest.mark.parametrize("encoding", UNDECODABLE)
async def test_an_encoding_that_cannot_be_decoded_safely_is_refused(
    web_server: WebServer, make_ctx: ContextFactory, encoding: str
) -> None:
    # The body does not matter: it is refused from the headers.
    web_server.routes["/odd"] = Route(body=LINE * 100, headers={"Content-Encoding": encoding})
    ctx = make_ctx(allow_private_urls=True)

    obs = await visit_url.run(ctx, {"url": web_server.url("/odd")})

    assert obs.error
    assert "content encoding" in obs.text
    assert "try another source" in obs.text
    assert not (ctx.workspace.root / "sources" / "S1.md").exists()


async def test_a_corrupt_compressed_body_is_an_observation(
    web_server: WebServer, make_ctx: ContextFactory
) -> None:
    web_server.routes["/corrupt"] = Route(body=b"not gzip at all" * 10, headers={"Content-Encoding": "gzip"})
    ctx = make_ctx(allow_private_urls=True)

    obs = await visit_url.run(ctx, {"url": web_server.url("/corrupt")})

    assert obs.error
    assert "could not be decompressed" in obs.text


# --------------------------------------------------------------------------------------------------
# The deadline covers the whole visit
# --------------------------------------------------------------------------------------------------


async def test_an_endless_page_is_answered_within_the_deadline(
    web_server: WebServer, make_ctx: ContextFactory
) -> None:
    # The server streams HTML as fast as it can, forever: the 10 MB cap comes first, then the
    # extraction of 10 MB of HTML must still end within the 2-second deadline.
    paragraph = b"<div><p>Endless paragraph about batteries, with a <a href='/x'>link</a>.</p></div>\n"
    web_server.routes["/endless"] = Route(body=b"<html><body>" + paragraph * 800, endless=True)
    ctx = make_ctx(allow_private_urls=True, fetch_timeout=2.0)

    started = time.monotonic()
    obs = await visit_url.run(ctx, {"url": web_server.url("/endless")})
    elapsed = time.monotonic() - started

    assert elapsed < 3 * 2.0, f"{elapsed:.1f} s for a 2-second deadline"
    assert not obs.error, obs.text
    assert "cut at the download cap of 10 MB" in obs.text
    assert "Endless paragraph about batteries" in obs.text


@pytest.fixture
def slow_html_extraction(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Main-content extraction that hangs until the test ends (as trafilatura on a huge page)."""
    release = threading.Event()
    real: Callable[..., Any] = extract_module.extract_html

    def slow(*args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(extract_module, "extract_html", slow)
    yield release
    release.set()


async def test_extraction_that_runs_out_of_time_keeps_the_plain_text(
    web_server: WebServer, make_ctx: ContextFactory, slow_html_extraction: threading.Event
) -> None:
    html = (
        b"<html><head><title>Sodium-ion cells</title><style>p {color: red}</style></head><body>"
        b"<h1>Sodium-ion cells</h1><p>Sodium-ion cells reached the market in 2024.</p>"
        b"<script>var hidden = 'not text';</script><p>They cost less than lithium-ion cells.</p>"
        # Enough text that the page is not taken for one drawn by scripts (auto mode's browser).
        b"<p>Their energy density is lower, which suits grid storage and small city cars better "
        b"than long-range vehicles; several makers announced factories for 2025 and 2026.</p>"
        b"</body></html>"
    )
    web_server.routes["/page"] = Route(body=html)
    ctx = make_ctx(allow_private_urls=True, fetch_timeout=1.0)

    started = time.monotonic()
    obs = await visit_url.run(ctx, {"url": web_server.url("/page")})
    elapsed = time.monotonic() - started

    assert elapsed < 3 * 1.0, f"{elapsed:.1f} s for a 1-second deadline"
    assert not obs.error, obs.text
    assert "Title: Sodium-ion cells" in obs.text
    assert "could not be extracted within the 1-second deadline" in obs.text
    text = (ctx.workspace.root / "sources" / "S1.md").read_text("utf-8")
    assert "Sodium-ion cells reached the market in 2024." in text
    assert "They cost less than lithium-ion cells." in text
    assert "not text" not in text and "color: red" not in text


async def test_a_pdf_that_runs_out_of_time_is_an_observation(
    web_server: WebServer,
    make_ctx: ContextFactory,
    make_pdf: Callable[..., bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    monkeypatch.setattr(extract_module, "extract_pdf", lambda *args, **kwargs: release.wait(30))
    web_server.routes["/report.pdf"] = Route(
        body=make_pdf([["Energy density"]]), content_type="application/pdf"
    )
    ctx = make_ctx(allow_private_urls=True, fetch_timeout=1.0)

    started = time.monotonic()
    try:
        obs = await visit_url.run(ctx, {"url": web_server.url("/report.pdf")})
    finally:
        release.set()
    elapsed = time.monotonic() - started

    assert elapsed < 3 * 1.0, f"{elapsed:.1f} s for a 1-second deadline"
    assert obs.error
    assert "could not be extracted within the 1-second deadline" in obs.text
    assert "look for an HTML version or a shorter document" in obs.text


def test_a_huge_html_page_is_converted_whole_instead_of_by_main_content(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Main-content extraction takes seconds per megabyte; past a bound the faster whole-page
    # conversion is used, so the work left running after a deadline stays bounded too.
    monkeypatch.setattr(extract_module, "MAX_MAIN_CONTENT_CHARS", 10_000)
    html = b"<html><body>" + b"".join(html_blocks(50_000)) + b"</body></html>"

    extracted = extract_module.extract(html, content_type="text/html", charset="utf-8", url="http://x/")

    assert extracted.method == "whole page"
    assert "Battery bomb paragraph" in extracted.text
    assert any("too large for main-content extraction" in note for note in extracted.notes)
