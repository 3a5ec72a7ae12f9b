"""The source ledger: one id per canonical URL, assigned at first sight, stable across resume and
never reused, stored in sources/ledger.json (the compacted snapshot) and sources/ledger.journal.jsonl
(the changes since), recoverable from the snapshots; a crash at any point loses no completed change,
and the bytes written per change do not grow with the ledger."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_runtime.config import Settings
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.domain.sources import journal as journal_module
from agent_runtime.domain.sources import ledger as ledger_module
from agent_runtime.domain.sources.front_matter import (
    read_front_matter,
    render_front_matter,
    split_front_matter,
)
from agent_runtime.domain.sources.journal import JOURNAL_FILE, LEDGER_FILE, read_records
from agent_runtime.domain.sources.ledger import Ledger, ledger_for
from agent_runtime.domain.sources.records import SourceRecord
from agent_runtime.domain.sources.urls import canonical_url
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import EventLog, RunMeta
from agent_runtime.errors import StorageError, WorkspaceError
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


@pytest.mark.slow
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
    workspace = ResearchWorkspace(tmp_path / "ws")
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


# -- the journal: appended changes, replayed on load, compacted into ledger.json ---------------------
ROOT = Path(__file__).resolve().parents[3]


def _grown(sources: Path, count: int) -> Ledger:
    """A ledger of `count` sources seen in searches, compacted: ledger.json holds them all and the
    journal is empty."""
    ledger = Ledger.load(sources)
    with ledger.batch():
        for n in range(1, count + 1):
            ledger.register(f"https://example.com/page/{n}", f"Page {n}", snippet="a result's snippet " * 12)
    ledger.save()
    return ledger


def _search_and_visit(ledger: Ledger, first: int) -> None:
    """What a research step does to the ledger: one search adds 20 sources (one save), and two of
    them are visited (one save each)."""
    with ledger.batch():
        for n in range(first, first + 20):
            ledger.register(f"https://example.com/page/{n}", f"Page {n}", snippet="a result's snippet " * 12)
    for n in (first, first + 1):
        record = ledger.lookup(f"https://example.com/page/{n}")
        assert record is not None
        ledger.mark_fetched(
            record.id,
            final_url=record.url,
            title=None,
            content_type="text/html",
            sha256="0" * 64,
            snapshot=f"sources/{record.id}.md",
        )


def _state(ledger: Ledger) -> list[dict[str, object]]:
    return [record.to_json() for record in ledger.records()]


def test_changes_go_to_the_journal_and_are_replayed_on_load(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    ledger = _grown(sources, 50)
    snapshot = (sources / LEDGER_FILE).read_bytes()

    _search_and_visit(ledger, 51)

    assert (sources / LEDGER_FILE).read_bytes() == snapshot  # not rewritten
    lines = (sources / JOURNAL_FILE).read_text("utf-8").splitlines()
    assert len(lines) == 3  # one line per save: the search's batch, then each visit
    assert [s["id"] for s in json.loads(lines[0])["sources"]] == [f"S{n}" for n in range(51, 71)]
    resumed = Ledger.load(sources)
    assert _state(resumed) == _state(ledger) and len(resumed) == 70
    s51 = resumed.get("S51")
    assert s51 is not None and s51.fetched
    assert resumed.register("https://example.com/new").id == "S71"


def test_a_torn_last_journal_line_is_ignored_wherever_the_crash_cut_it(tmp_path: Path) -> None:
    """A crash mid-append leaves any prefix of the last line (cut inside a UTF-8 character, too):
    the load keeps every complete line, ignores the rest, and the next append starts on a clean line."""
    sources = tmp_path / "sources"
    ledger = _grown(sources, 5)
    ledger.register("https://example.com/complete", "Complete")
    complete = (sources / JOURNAL_FILE).read_bytes()
    ledger.register("https://example.com/torn", "Überraschung — 日本語の題名")
    whole = (sources / JOURNAL_FILE).read_bytes()
    assert whole.startswith(complete) and whole.endswith(b"\n")

    for cut in range(len(complete), len(whole)):
        copy = tmp_path / f"cut-{cut}" / "sources"
        shutil.copytree(sources, copy)
        (copy / JOURNAL_FILE).write_bytes(whole[:cut])
        loaded = Ledger.load(copy)
        assert [r.id for r in loaded.records()][-2:] == ["S5", "S6"], cut  # S7 never completed
        assert (copy / JOURNAL_FILE).read_bytes() == whole[:cut]  # a load alone writes nothing
        if cut in (len(complete) + 1, len(whole) - 1):
            assert loaded.register("https://example.com/after", "After").id == "S7"
            again = Ledger.load(copy)
            assert again.lookup("https://example.com/after") is not None and len(again) == 7
            assert (copy / JOURNAL_FILE).read_bytes().endswith(b"\n")


def test_a_damaged_line_inside_the_journal_is_an_error_with_a_way_out(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    ledger = _grown(sources, 5)
    ledger.register("https://example.com/a", "A")
    ledger.register("https://example.com/b", "B")
    lines = (sources / JOURNAL_FILE).read_bytes().split(b"\n")
    (sources / JOURNAL_FILE).write_bytes(b"\n".join([b"{not json", *lines[1:]]))
    with pytest.raises(WorkspaceError) as exc:
        Ledger.load(sources)
    message = str(exc.value)
    assert JOURNAL_FILE in message and "is damaged" in message and "move it aside" in message


def _run_child(code: str, sources: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), str(sources)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def _lines(child: subprocess.Popen[str]) -> Iterator[str]:
    assert child.stdout is not None
    for line in child.stdout:
        yield line.strip()


@pytest.mark.slow
def test_kill_9_mid_append_keeps_every_completed_record(tmp_path: Path) -> None:
    """A real SIGKILL while a save is half written: every save that returned is there after, the half
    line is not, and the ledger goes on."""
    sources = tmp_path / "sources"
    child = _run_child(
        """
        import sys, time
        from pathlib import Path
        from agent_runtime.domain.sources import journal
        from agent_runtime.domain.sources import ledger as module

        ledger = module.Ledger.load(Path(sys.argv[1]))
        for n in range(1, 41):
            if n % 10 == 0:
                with ledger.batch():
                    for k in range(5):
                        ledger.register(f"https://example.com/{n}/{k}", f"Batch {n}")
            ledger.register(f"https://example.com/{n}", f"Page {n}")
            print(ledger.lookup(f"https://example.com/{n}").id, flush=True)
        write = journal._write_all

        def half(fd, data):
            write(fd, data[: len(data) // 2])
            print("torn", flush=True)
            time.sleep(60)

        journal._write_all = half
        ledger.register("https://example.com/never", "Never completed")
        """,
        sources,
    )
    done: list[str] = []
    try:
        for line in _lines(child):
            if line == "torn":
                os.kill(child.pid, signal.SIGKILL)
                break
            done.append(line)
    finally:
        child.kill()
        child.wait(30)
    assert len(done) == 40
    assert not (sources / JOURNAL_FILE).read_bytes().endswith(b"\n")  # the kill cut a line

    ledger = Ledger.load(sources)

    assert all(ledger.get(source_id) is not None for source_id in done)
    assert len(ledger) == 60 and ledger.lookup("https://example.com/never") is None
    ledger.register("https://example.com/after", "After the crash")
    assert Ledger.load(sources).lookup("https://example.com/after") is not None


@pytest.mark.slow
def test_kill_9_at_a_random_moment_loses_no_completed_save(tmp_path: Path) -> None:
    """The kill lands wherever it lands (in an append, a compaction or between them): every id the
    child printed after its save returned is in the loaded ledger."""
    sources = tmp_path / "sources"
    for round_ in range(3):
        child = _run_child(
            """
            import sys
            from pathlib import Path
            from agent_runtime.domain.sources.ledger import Ledger

            ledger = Ledger.load(Path(sys.argv[1]))
            start = len(ledger) + 1
            for n in range(start, start + 100_000):
                with ledger.batch():
                    for k in range(20):
                        ledger.register(f"https://example.com/{n}/{k}", f"Page {n}.{k}", snippet="s" * 200)
                print(ledger.lookup(f"https://example.com/{n}/19").id, flush=True)
            """,
            sources,
        )
        done: list[str] = []
        try:
            for line in _lines(child):
                done.append(line)
                if len(done) == 15 + 10 * round_:
                    os.kill(child.pid, signal.SIGKILL)
                    break
        finally:
            child.kill()
            child.wait(30)
        ledger = Ledger.load(sources)
        assert all(ledger.get(source_id) is not None for source_id in done), round_


def test_a_compaction_keeps_every_record_and_empties_the_journal(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    ledger = _grown(sources, 20)
    compactions = 0
    size = 0
    for first in range(21, 1_000, 20):
        _search_and_visit(ledger, first)
        journal = (sources / JOURNAL_FILE).stat().st_size
        compactions += journal < size
        size = journal
        assert _state(Ledger.load(sources)) == _state(ledger)
    assert compactions >= 3  # the journal was folded into ledger.json several times
    ledger.save()
    assert (sources / JOURNAL_FILE).stat().st_size == 0
    data = json.loads((sources / LEDGER_FILE).read_text("utf-8"))
    assert data["next_id"] == len(ledger) + 1
    assert data["sources"] == _state(ledger)  # ledger.json alone is whole after a compaction


def test_a_crash_between_the_compaction_and_emptying_the_journal_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new ledger.json is in place but the journal still holds the changes it folded in: they
    are replayed onto a snapshot that has them already, so no record goes back to an older state
    (not even one whose last change was still pending when the compaction was asked for)."""
    sources = tmp_path / "sources"
    ledger = _grown(sources, 30)
    _search_and_visit(ledger, 31)
    monkeypatch.setattr(ledger_module, "empty_journal", lambda path: None)  # the crash, just before
    with ledger.batch():
        ledger.register("https://example.com/late", "Late")
        ledger.mark_fetched(
            "S32", final_url="https://example.com/moved", title="Read", content_type="text/html",
            sha256="1" * 64, snapshot="sources/S32.md",
        )  # fmt: skip
        ledger.save()
    assert (sources / JOURNAL_FILE).stat().st_size > 0

    resumed = Ledger.load(sources)

    assert _state(resumed) == _state(ledger)
    s32 = resumed.get("S32")
    assert s32 is not None and s32.title == "Read" and s32.final_url == "https://example.com/moved"


def _bytes_written() -> int:
    """Bytes this process has handed to write(2) so far (deterministic, unlike time)."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        pytest.skip("no /proc/self/io on this system")
    return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("wchar:"))


def test_the_bytes_written_per_save_do_not_grow_with_the_ledger(tmp_path: Path) -> None:
    per_step: dict[int, int] = {}
    for size in (100, 3_000, 10_000):
        ledger = _grown(tmp_path / str(size) / "sources", size)
        before = _bytes_written()
        _search_and_visit(ledger, size + 1)  # three saves: 20 new sources, two visits
        per_step[size] = _bytes_written() - before
    ledger_json = (tmp_path / "10000" / "sources" / LEDGER_FILE).stat().st_size
    assert per_step[10_000] < per_step[100] * 1.1, per_step
    assert per_step[10_000] < ledger_json / 100  # nowhere near a rewrite of the ledger


def test_the_bytes_written_per_source_stay_flat_with_compactions_counted(tmp_path: Path) -> None:
    """Over one whole cycle (appends until the journal is folded into ledger.json, that rewrite
    included), the bytes per new source are the same for a small ledger and a large one."""
    per_source: dict[int, float] = {}
    for size in (100, 1_000):
        sources = tmp_path / str(size) / "sources"
        journal = sources / JOURNAL_FILE
        ledger = _grown(sources, size)
        before, first = _bytes_written(), size + 1
        for _ in range(300):
            previous = journal.stat().st_size if journal.exists() else 0
            _search_and_visit(ledger, first)
            first += 20
            if journal.stat().st_size < previous:
                break  # folded into ledger.json: the cycle is complete
        else:
            pytest.fail(f"no compaction after {first - size - 1} new sources")
        per_source[size] = (_bytes_written() - before) / (first - size - 1)
    assert per_source[1_000] < per_source[100] * 1.5, per_source


def test_read_records_gives_what_load_gives_without_writing_or_failing(tmp_path: Path) -> None:
    """The reader for those that must not write (the live view): ledger.json plus the journal
    replayed; a torn or damaged line is skipped, never an error."""
    sources = tmp_path / "sources"
    ledger = _grown(sources, 50)
    _search_and_visit(ledger, 51)
    journal = (sources / JOURNAL_FILE).read_text("utf-8")
    snapshot = (sources / LEDGER_FILE).read_text("utf-8")

    def ids(records: list[SourceRecord]) -> list[str]:
        return [r.id for r in records]

    assert [r.to_json() for r in read_records(snapshot, journal)] == _state(ledger)
    assert ids(read_records(snapshot, journal + '{"next_id": 99, "sour')) == ids(ledger.records())
    assert ids(read_records(snapshot, "{bad}\n" + journal)) == ids(ledger.records())
    assert ids(read_records(None, journal)) == [f"S{n}" for n in range(51, 71)]
    assert ids(read_records("{not json", None)) == [] and read_records(None, None) == []


@pytest.mark.parametrize(
    ("failure", "raised"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), StorageError),
        (KeyboardInterrupt(), KeyboardInterrupt),
    ],
)
def test_a_failed_or_interrupted_append_leaves_no_half_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException, raised: type[BaseException]
) -> None:
    sources = tmp_path / "sources"
    ledger = _grown(sources, 20)
    ledger.register("https://example.com/kept", "Kept")
    before = (sources / JOURNAL_FILE).read_bytes()
    write = journal_module._write_all

    def half_then_fail(fd: int, data: bytes) -> None:
        write(fd, data[: len(data) // 2])
        raise failure

    # Patched by name: a write(2) that stops halfway sits below every caller; a real one (RLIMIT_FSIZE)
    # gives EFBIG but cannot give the interrupt case.
    monkeypatch.setattr(journal_module, "_write_all", half_then_fail)
    with pytest.raises(raised):  # a full disk is named as such, as atomic_write_text names it
        ledger.register("https://example.com/failed", "Failed")
    assert (sources / JOURNAL_FILE).read_bytes() == before  # the half line was cut off again

    monkeypatch.setattr(journal_module, "_write_all", write)
    ledger.register("https://example.com/next", "Next")  # the failed one is pending: written now too
    resumed = Ledger.load(sources)
    assert _state(resumed) == _state(ledger)
    assert resumed.lookup("https://example.com/failed") is not None


async def test_parallel_actions_of_one_reply_add_sources_concurrently(tmp_path: Path) -> None:
    """The actions of one reply run as asyncio tasks on one ledger, their batches overlapping across
    awaits: every source gets one id, and what is saved is what the ledger holds."""
    sources = tmp_path / "sources"
    ledger = _grown(sources, 40)

    async def action(n: int) -> list[str]:
        ids = []
        with ledger.batch():
            for k in range(10):
                ids.append(ledger.register(f"https://example.com/task/{n}/{k}", f"T{n}.{k}").id)
                await asyncio.sleep(0)
        ids.append(ledger.register("https://example.com/shared", "Shared by every task").id)
        return ids

    results = await asyncio.gather(*(action(n) for n in range(8)))

    own = [source_id for ids in results for source_id in ids[:-1]]
    assert len(own) == len(set(own)) == 80 and len({ids[-1] for ids in results}) == 1
    assert _state(Ledger.load(sources)) == _state(ledger) and len(ledger) == 40 + 80 + 1
