"""The source ledger: one id per canonical URL, assigned at first sight, stable across resume and
never reused, stored in sources/ledger.json, recoverable from the snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_runtime.config import Settings
from agent_runtime.engine.context import ActionContext
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.run_record import EventLog, RunMeta
from agent_runtime.engine.workspace import Workspace
from agent_runtime.errors import WorkspaceError
from agent_runtime.research.ledger import (
    LEDGER_FILE,
    Ledger,
    canonical_url,
    ledger_for,
    read_front_matter,
    render_front_matter,
    split_front_matter,
)
from agent_runtime.testing import ScriptedModel, reply


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com/a/", "https://example.com/a"),
        ("https://example.com", "https://example.com/"),
        ("HTTPS://Example.COM:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com/a?utm_source=x&utm_medium=email&id=7", "https://example.com/a?id=7"),
        ("https://example.com/a?fbclid=abc", "https://example.com/a"),
        ("https://example.com/a?gclid=1&msclkid=2&mc_eid=3", "https://example.com/a"),
        ("https://example.com/a/?ref_src=twsrc#top", "https://example.com/a"),
    ],
)
def test_urls_of_the_same_page_share_one_canonical_form(a: str, b: str) -> None:
    assert canonical_url(a) == canonical_url(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.com/a?id=7", "https://example.com/a?id=8"),
        ("https://example.com/a?x=1&y=2", "https://example.com/a?y=2&x=1"),  # order may matter to a site
        ("http://example.com/a", "https://example.com/a"),
        ("https://example.com/A", "https://example.com/a"),  # paths are case-sensitive
        ("https://example.com:8443/a", "https://example.com/a"),
    ],
)
def test_different_pages_keep_different_forms(a: str, b: str) -> None:
    assert canonical_url(a) != canonical_url(b)


def test_urls_that_are_not_http_are_kept_as_they_are() -> None:
    assert canonical_url("corpus:notes/Battery report.md") == "corpus:notes/Battery report.md"
    assert canonical_url("  corpus:a.md ") == "corpus:a.md"


@given(
    host=st.from_regex(r"[a-z]{1,10}\.(com|org|de)", fullmatch=True),
    path=st.lists(st.from_regex(r"[a-zA-Z0-9_-]{1,8}", fullmatch=True), max_size=4),
    slash=st.booleans(),
    params=st.lists(
        st.tuples(
            st.sampled_from(["id", "q", "utm_source", "fbclid", "page"]),
            st.from_regex(r"[a-z0-9]{1,5}", fullmatch=True),
        ),
        max_size=4,
    ),
    fragment=st.one_of(st.none(), st.from_regex(r"[a-z]{1,6}", fullmatch=True)),
)
def test_canonical_form_is_idempotent_and_drops_only_noise(
    host: str, path: list[str], slash: bool, params: list[tuple[str, str]], fragment: str | None
) -> None:
    url = f"https://{host}/" + "/".join(path) + ("/" if slash and path else "")
    if params:
        url += "?" + "&".join(f"{k}={v}" for k, v in params)
    if fragment:
        url += "#" + fragment
    once = canonical_url(url)
    assert canonical_url(once) == once
    assert "#" not in once and "utm_source" not in once and "fbclid" not in once
    for key, value in params:
        if key in ("id", "q", "page"):
            assert f"{key}={value}" in once


def test_ids_are_assigned_at_first_sight_in_order(tmp_path: Path) -> None:
    ledger = Ledger.load(tmp_path / "sources")

    a = ledger.register("https://example.com/a", "A", via="search")
    b = ledger.register("https://example.com/b", "B", via="visit")
    again = ledger.register("https://EXAMPLE.com/a/?utm_source=feed#x", "Another title")

    assert (a.id, b.id, again.id) == ("S1", "S2", "S1")
    assert again.title == "A"  # the first title is kept
    assert a.first_seen_via == "search" and b.first_seen_via == "visit"
    assert [r.id for r in ledger.records()] == ["S1", "S2"]
    assert ledger.get("S2") is b and ledger.get("[s2]") is b and ledger.get("S9") is None
    assert "S1" in ledger and "S3" not in ledger and len(ledger) == 2


def test_a_missing_title_is_filled_in_later(tmp_path: Path) -> None:
    ledger = Ledger.load(tmp_path)
    record = ledger.register("https://example.com/a")
    ledger.register("https://example.com/a", "  Found   later \n")
    assert record.title == "Found later"


def test_search_only_and_fetched_sources_are_told_apart(tmp_path: Path) -> None:
    ledger = Ledger.load(tmp_path / "sources")
    seen = ledger.register("https://example.com/seen", "Only a search result")
    read = ledger.register("https://example.com/read", "Read")

    ledger.mark_fetched(
        read.id,
        final_url="https://example.com/read-moved",
        title="Read page",
        content_type="text/html",
        sha256="ab" * 32,
        snapshot="sources/S2.md",
        fetched_at="2026-01-05T10:00:00+00:00",
    )

    assert not seen.fetched and seen.fetched_at is None and seen.snapshot is None
    assert read.fetched and read.fetched_at == "2026-01-05T10:00:00+00:00"
    assert read.title == "Read page" and read.snapshot == "sources/S2.md"
    assert ledger.lookup("https://example.com/read-moved/") is read  # the final URL maps to the same id


def test_the_ledger_survives_a_resume_and_never_reuses_an_id(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    first = Ledger.load(sources)
    first.register("https://example.com/a", "A")
    first.register("https://example.com/b", "B")
    first.mark_fetched(
        "S2",
        final_url="https://example.com/b",
        title="B",
        content_type="text/html",
        sha256="0" * 64,
        snapshot="sources/S2.md",
    )

    resumed = Ledger.load(sources)

    assert [(r.id, r.title, r.fetched) for r in resumed.records()] == [("S1", "A", False), ("S2", "B", True)]
    assert resumed.register("https://example.com/a").id == "S1"
    assert resumed.register("https://example.com/c").id == "S3"


def test_the_file_format(tmp_path: Path) -> None:
    ledger = Ledger.load(tmp_path)
    ledger.register("https://example.com/a?utm_campaign=x", "A")

    data = json.loads((tmp_path / LEDGER_FILE).read_text("utf-8"))

    assert data["format"] == 1 and data["next_id"] == 2
    (entry,) = data["sources"]
    assert entry["id"] == "S1"
    assert entry["url"] == "https://example.com/a?utm_campaign=x"
    assert entry["canonical_url"] == "https://example.com/a"
    assert entry["first_seen_via"] == "search" and entry["fetched_at"] is None
    assert set(entry) >= {"title", "first_seen", "final_url", "snapshot", "content_type", "sha256", "aliases"}


def test_a_batch_writes_the_file_once_at_the_end(tmp_path: Path) -> None:
    ledger = Ledger.load(tmp_path)
    with ledger.batch():
        ledger.register("https://example.com/1")
        ledger.register("https://example.com/2")
        assert not (tmp_path / LEDGER_FILE).exists()
    assert len(json.loads((tmp_path / LEDGER_FILE).read_text())["sources"]) == 2


def test_a_damaged_ledger_is_an_error_with_a_way_out(tmp_path: Path) -> None:
    (tmp_path / LEDGER_FILE).write_text("{not json", "utf-8")
    with pytest.raises(WorkspaceError) as exc:
        Ledger.load(tmp_path)
    message = str(exc.value)
    assert "is damaged" in message and "move it aside to rebuild it from the snapshots" in message


def _snapshot(sources: Path, source_id: str, url: str, title: str) -> None:
    fields: dict[str, str | int | bool | None] = {
        "id": source_id,
        "url": url,
        "final_url": url,
        "title": title,
        "fetched_at": "2026-01-05T10:00:00+00:00",
        "content_type": "text/html",
        "sha256": "f" * 64,
    }
    (sources / f"{source_id}.md").write_text(render_front_matter(fields) + "\nbody\n", "utf-8")


def test_a_lost_ledger_is_rebuilt_from_the_snapshots_without_reusing_ids(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    _snapshot(sources, "S2", "https://example.com/two", "Two")
    _snapshot(sources, "S5", "https://example.com/five", 'Five: "quoted" — ünïcode')

    ledger = Ledger.load(sources)

    assert [r.id for r in ledger.records()] == ["S2", "S5"]
    five = ledger.get("S5")
    assert five is not None and five.fetched and five.title == 'Five: "quoted" — ünïcode'
    assert five.snapshot == "sources/S5.md"
    assert ledger.register("https://example.com/new").id == "S6"
    assert (sources / LEDGER_FILE).exists()


def test_a_snapshot_written_just_before_a_crash_completes_its_record(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    ledger = Ledger.load(sources)
    ledger.register("https://example.com/a", "A")  # seen in a search; the visit crashed after the snapshot
    _snapshot(sources, "S1", "https://example.com/a", "A page")

    record = Ledger.load(sources).get("S1")

    assert record is not None and record.fetched and record.snapshot == "sources/S1.md"


def test_front_matter_round_trip() -> None:
    fields: dict[str, str | int | bool | None] = {
        "id": "S1",
        "title": 'a "b"\nc: d',
        "truncated": True,
        "none": None,
    }
    text = render_front_matter(fields) + "\nbody text\n"
    parsed, body = split_front_matter(text)
    assert parsed["id"] == "S1" and parsed["title"] == 'a "b"\nc: d' and parsed["truncated"] == "true"
    assert "none" not in parsed
    assert body == "body text\n"
    assert read_front_matter("no front matter") == {}


async def test_ledger_for_keeps_one_ledger_per_run_loaded_from_the_workspace(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.create("T", None)
    Ledger.load(workspace.root / "sources").register("https://example.com/earlier", "Earlier run")

    def context() -> ActionContext:
        return ActionContext(
            workspace,
            Settings(),
            ScriptedModel(lambda m, t: reply()),
            EventLog(workspace.events_file),
            RunMeta(title="T"),
            Prompts(None),
        )

    ctx = context()
    ledger = ledger_for(ctx)
    assert ledger_for(ctx) is ledger
    assert ledger.get("S1") is not None
    assert ledger.register("https://example.com/new").id == "S2"
    assert ledger_for(context()).get("S2") is not None  # a resumed run sees it
    ctx.events.close()
