"""visit_url given a source id instead of a URL (`S6`, `[S6]`, `s6`, in a list too): the ledger's
URL of that source is read, a corpus document included; an id the run does not know is named with
the ids it does know. Small local models write ids where a URL belongs; this is what they get."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.web.search import web_search
from actions.web.visit import visit_url
from agent_runtime.domain.sources.ledger import ledger_for
from tests.support.web_server import ContextFactory, Route, WebServer


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "sodium.md").write_text(
        "# Sodium-ion cells\n\nSodium-ion cells avoid lithium and cobalt; they suit stationary storage.\n",
        "utf-8",
    )
    (root / "flow.txt").write_text(
        "Vanadium flow batteries keep their electrolyte for twenty years.\n", "utf-8"
    )
    return root


@pytest.mark.parametrize("written", ["S1", "[S1]", "s1", " [S1] ", "[ s1 ]"])
async def test_a_source_id_reads_that_sources_url(
    written: str, web_server: WebServer, make_ctx: ContextFactory
) -> None:
    web_server.routes["/page"] = Route(
        body=b"<html><head><title>Page</title></head><body><p>Hello there.</p></body></html>"
    )
    ctx = make_ctx(allow_private_urls=True)
    ledger_for(ctx).register(web_server.url("/page"), "Page", via="search")

    obs = await visit_url.run(ctx, {"url": written})

    assert not obs.error, obs.text
    assert f"## [S1] {web_server.url('/page')}" in obs.text and "Hello there." in obs.text
    assert web_server.requests == ["/page"]
    record = ledger_for(ctx).get("S1")
    assert record is not None and record.fetched and len(ledger_for(ctx)) == 1  # no new id for "S1"


async def test_ids_and_urls_mix_in_a_list_and_an_id_and_its_url_are_read_once(
    web_server: WebServer, make_ctx: ContextFactory
) -> None:
    for path in ("/a", "/b"):
        web_server.routes[path] = Route(body=f"<html><body><p>Page {path}.</p></body></html>".encode())
    ctx = make_ctx(allow_private_urls=True)
    ledger_for(ctx).register(web_server.url("/a"), "A", via="search")
    ledger_for(ctx).register(web_server.url("/b"), "B", via="search")

    obs = await visit_url.run(ctx, {"url": ["[S2]", web_server.url("/a"), "S1"]})

    assert obs.text.startswith("visit_url: 2 of 2 pages read"), obs.text
    assert obs.text.index("## [S2]") < obs.text.index("## [S1]")  # in the order given
    assert sorted(web_server.requests) == ["/a", "/b"]


async def test_ids_written_as_one_string_are_each_read(
    web_server: WebServer, make_ctx: ContextFactory
) -> None:
    for path in ("/a", "/b"):
        web_server.routes[path] = Route(body=f"<html><body><p>Page {path}.</p></body></html>".encode())
    ctx = make_ctx(allow_private_urls=True)
    ledger_for(ctx).register(web_server.url("/a"), "A", via="search")
    ledger_for(ctx).register(web_server.url("/b"), "B", via="search")

    obs = await visit_url.run(ctx, {"url": "[S1], [S2]"})

    assert obs.text.startswith("visit_url: 2 of 2 pages read"), obs.text


async def test_an_unknown_id_names_the_sources_of_the_run(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    ledger = ledger_for(ctx)
    for number in range(1, 13):
        ledger.register(f"https://site{number}.example/page", f"Page {number}", via="search")

    obs = await visit_url.run(ctx, {"url": "[S40]"})

    assert obs.error
    assert "S40 is not a source of this run" in obs.text and "S1–S12" in obs.text
    assert "web_search" in obs.text  # what to do
    assert "no scheme" not in obs.text
    assert len(ledger) == 12  # nothing registered for a made-up id


async def test_an_id_before_any_search_says_there_are_no_sources_yet(make_ctx: ContextFactory) -> None:
    obs = await visit_url.run(make_ctx(), {"url": "S6"})
    assert obs.error and "S6 is not a source of this run" in obs.text and "no sources yet" in obs.text


async def test_a_corpus_source_is_read_and_read_again_by_its_id(
    corpus: Path, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(search="local", corpus=corpus)
    found = await web_search.run(ctx, {"query": "vanadium flow", "max_results": 3})
    assert "[S1]" in found.text and "corpus:flow.txt" in found.text, found.text

    first = await visit_url.run(ctx, {"url": "[S1]"})
    again = await visit_url.run(ctx, {"url": "s1", "goal": "electrolyte"})

    for obs in (first, again):
        assert not obs.error, obs.text
        assert "## [S1] corpus:flow.txt" in obs.text and "twenty years" in obs.text
    assert "not fetched again" in again.text  # the snapshot is the evidence the second time
    record = ledger_for(ctx).get("S1")
    assert record is not None and record.snapshot == "sources/S1.md"


async def test_a_corpus_document_read_by_its_url_can_be_read_again_by_its_id(
    corpus: Path, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(search="local", corpus=corpus)
    first = await visit_url.run(ctx, {"url": "corpus:sodium.md"})
    again = await visit_url.run(ctx, {"url": "[S1]"})
    assert "## [S1] corpus:sodium.md" in first.text
    assert not again.error and "## [S1] corpus:sodium.md" in again.text and "cobalt" in again.text
