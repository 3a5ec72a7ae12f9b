"""The File agent's actions on a real temporary workspace, called through `ActionSet.run` as the
loop calls them (so argument validation is exercised): every refusal must come back as an
observation for the model, and nothing outside the workspace may change."""

from __future__ import annotations

import asyncio
import codecs
import os
import re
import string
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actions.files import search
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.run_context import ActionContext
from sandbox.paths import PathPolicy
from tests.support.cli import snapshot_outside
from tests.support.file_actions import ACTIONS, fails, make_context, ok, run

SECRET = "outside secret: the password is swordfish\n"


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """base/ws is the workspace; base/outside, base/ws2 and base/ws-old must never change."""
    workspace = ResearchWorkspace(tmp_path / "ws")
    workspace.create("Test research", None)
    ws = workspace.root
    (ws / "Notebook" / "ch1.md").write_text("# Chapter 1\n\nAlpha beta.\nGamma delta.\n")
    (ws / "sources" / "S1.md").write_text("# Source 1\n\nswordfish facts\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    for sibling in ("ws2", "ws-old"):
        (tmp_path / sibling).mkdir()
        (tmp_path / sibling / "x").write_text(f"{sibling} canary\n")
    (ws / "Notebook" / "link_out_file").symlink_to(outside / "secret.txt")
    (ws / "Notebook" / "link_out_dir").symlink_to(outside)
    (ws / "chain1").symlink_to("chain2")
    (ws / "chain2").symlink_to("Notebook/chain3")
    (ws / "Notebook" / "chain3").symlink_to("../../outside/secret.txt")
    (ws / "link_in").symlink_to("Notebook/ch1.md")
    return tmp_path


@pytest.fixture
def ctx(base: Path) -> ActionContext:
    return make_context(base / "ws")


@pytest.fixture
def ws(base: Path) -> Path:
    return (base / "ws").resolve()


# ----------------------------------------------------------------- the contract


def test_the_tool_list_is_the_contract() -> None:
    assert [a.signature_text() for a in ACTIONS] == [
        "read_file(file_path, mode='full', lines='1-100')",
        "write_file(file_path, content, mode='overwrite', line=None)",
        "create_file(file_path, initial_content='')",
        "search_in_file(file_path, pattern, context_lines=0)",
        "grep_files(pattern, directory='.', ignore_case=False, glob=None)",
        "file_search(directory, name_pattern)",
        "stream_read_file(file_path, chunk_size=1000)",
        "continue_stream_read(stream_id)",
        "list_directory(directory_path='.')",
        "create_directory(directory_path)",
        "delete_file(file_path)",
        "write_attached(file_path, mode='overwrite', line=None)",
        "replace_text(file_path, old_text, new_text='', attached=False)",
        "finish(answer)",
    ]
    for item in ACTIONS:  # every parameter is described for the model
        schema = item.schema()["function"]
        assert len(schema["description"]) > 40
        for name, prop in schema["parameters"]["properties"].items():
            assert prop.get("description"), f"{item.name}.{name} has no description"
    modes = ACTIONS.actions["write_file"].schema()["function"]["parameters"]["properties"]["mode"]
    assert modes["enum"] == ["overwrite", "append", "insert"]


async def test_wrong_argument_types_come_back_as_observations(ctx: ActionContext) -> None:
    text = await fails(ctx, "write_file", file_path="Notebook/a.md", content="x", mode="replace")
    assert "mode" in text and "write_file(file_path, content" in text
    assert "file_path" in await fails(ctx, "read_file", file_path=42)
    assert "encoding: Extra inputs" in await fails(
        ctx, "read_file", file_path="Notebook/ch1.md", encoding="utf-8"
    )


# ----------------------------------------------------------------- create_file and write_file


async def test_create_file_creates_folders_and_refuses_an_existing_file(ctx: ActionContext, ws: Path) -> None:
    text = await ok(
        ctx, "create_file", file_path="Notebook/part2/02_methods.md", initial_content="# Methods\n"
    )
    assert text == "Created Notebook/part2/02_methods.md (1 line, 10 bytes)."
    assert (ws / "Notebook/part2/02_methods.md").read_text() == "# Methods\n"
    refused = await fails(
        ctx, "create_file", file_path="Notebook/part2/02_methods.md", initial_content="other"
    )
    assert "already exists" in refused
    assert (ws / "Notebook/part2/02_methods.md").read_text() == "# Methods\n"
    await ok(ctx, "create_file", file_path="Notebook/empty.md")
    assert (ws / "Notebook/empty.md").read_text() == ""


async def test_write_file_overwrite_append_and_insert(ctx: ActionContext, ws: Path) -> None:
    note = ws / "Notebook" / "n.md"
    assert (await ok(ctx, "write_file", file_path="Notebook/n.md", content="one\ntwo")).startswith("Created")
    assert note.read_text() == "one\ntwo"
    text = await ok(ctx, "write_file", file_path="Notebook/n.md", content="three\n", mode="append")
    assert note.read_text() == "one\ntwo\nthree\n"  # a newline was added before the appended text
    assert "now has 3 lines" in text
    await ok(ctx, "write_file", file_path="Notebook/n.md", content="zero", mode="insert", line=1)
    await ok(ctx, "write_file", file_path="Notebook/n.md", content="one and a half\n", mode="insert", line=3)
    await ok(ctx, "write_file", file_path="Notebook/n.md", content="four", mode="insert", line=6)
    assert note.read_text() == "zero\none\none and a half\ntwo\nthree\nfour\n"
    assert (await ok(ctx, "write_file", file_path="Notebook/n.md", content="fresh\n")).startswith("Wrote")
    assert note.read_text() == "fresh\n"
    await ok(ctx, "write_file", file_path="Notebook/new/appended.md", content="first\n", mode="append")
    assert (ws / "Notebook/new/appended.md").read_text() == "first\n"
    assert sorted(p.name for p in note.parent.iterdir() if p.name.startswith(".")) == []  # no temp files left


async def test_write_file_explains_wrong_line_arguments(ctx: ActionContext, ws: Path) -> None:
    before = (ws / "Notebook/ch1.md").read_text()
    assert "out of range" in await fails(
        ctx, "write_file", file_path="Notebook/ch1.md", content="x", mode="insert", line=9
    )
    assert "needs line" in await fails(
        ctx, "write_file", file_path="Notebook/ch1.md", content="x", mode="insert"
    )
    assert "only with mode" in await fails(
        ctx, "write_file", file_path="Notebook/ch1.md", content="x", line=2
    )
    assert "nothing to append" in await fails(
        ctx, "write_file", file_path="Notebook/ch1.md", content="", mode="append"
    )
    assert (ws / "Notebook/ch1.md").read_text() == before


async def test_the_dashboards_sources_and_runtime_files_are_read_only(ctx: ActionContext, ws: Path) -> None:
    dashboard = (ws / "overall_dashboard.md").read_text()
    for path in ("overall_dashboard.md", "current_dashboard.md", "sources/S1.md", ".runtime/run.json"):
        text = await fails(ctx, "write_file", file_path=path, content="changed", mode="append")
        assert "read-only" in text
        assert "read-only" in await fails(ctx, "delete_file", file_path=path)
    assert "dashboard actions" in await fails(
        ctx, "write_file", file_path="current_dashboard.md", content="x"
    )
    assert "read-only" in await fails(ctx, "create_file", file_path="sources/S2.md")
    assert "read-only" in await fails(ctx, "create_directory", directory_path="sources/new")
    assert (ws / "overall_dashboard.md").read_text() == dashboard
    assert "# Source 1" in await ok(ctx, "read_file", file_path="sources/S1.md")  # reading is fine


# ----------------------------------------------------------------- read_file


async def test_read_file_full_and_by_lines(ctx: ActionContext) -> None:
    text = await ok(ctx, "read_file", file_path="Notebook/ch1.md")
    assert text == "[Notebook/ch1.md · 38 bytes · 4 lines]\n# Chapter 1\n\nAlpha beta.\nGamma delta.\n"
    text = await ok(ctx, "read_file", file_path="Notebook/ch1.md", mode="lines", lines="3-4")
    assert text.splitlines()[1:] == ["     3\tAlpha beta.", "     4\tGamma delta."]
    text = await ok(ctx, "read_file", file_path="Notebook/ch1.md", mode="lines", lines="2-")
    assert "4\tGamma delta." in text and "1\t" not in text
    assert "end of file" in await ok(
        ctx, "read_file", file_path="Notebook/ch1.md", mode="lines", lines="3-50"
    )
    assert "has 4 lines" in await fails(
        ctx, "read_file", file_path="Notebook/ch1.md", mode="lines", lines="5-9"
    )
    for bad in ("10-2", "a-b", "0-3", ""):
        assert "not a line range" in await fails(
            ctx, "read_file", file_path="Notebook/ch1.md", mode="lines", lines=bad
        )
    assert "does not exist" in await fails(ctx, "read_file", file_path="Notebook/missing.md")
    assert "folder" in await fails(ctx, "read_file", file_path="Notebook")
    assert "empty file" in await ok(ctx, "read_file", file_path=await _empty(ctx))


async def _empty(ctx: ActionContext) -> str:
    await ok(ctx, "create_file", file_path="Notebook/empty.md")
    return "Notebook/empty.md"


async def test_read_file_on_a_large_file_returns_its_beginning_and_says_to_stream(
    ctx: ActionContext, ws: Path
) -> None:
    (ws / "Notebook/big.md").write_text("".join(f"line {n} of a long note\n" for n in range(1, 5001)))
    text = await ok(ctx, "read_file", file_path="Notebook/big.md")
    limit = ctx.settings.max_observation_chars
    assert len(text) <= limit
    assert "5,000 lines" in text and "stream_read_file" in text
    shown = re.search(r"here are lines 1-(\d+) of 5,000", text)
    assert shown is not None
    assert (
        f"line {shown.group(1)} of a long note\n" in text and f"line {int(shown.group(1)) + 1} of" not in text
    )
    text = await ok(ctx, "read_file", file_path="Notebook/big.md", mode="lines", lines="4000-4999")
    assert len(text) <= limit and "4000\tline 4000 of a long note" in text
    assert re.search(r'read on with lines="\d+-4999"', text)


async def test_read_file_on_a_single_huge_line(ctx: ActionContext, ws: Path) -> None:
    (ws / "Notebook/minified.md").write_text("x" * 50_000)
    text = await ok(ctx, "read_file", file_path="Notebook/minified.md")
    assert len(text) <= ctx.settings.max_observation_chars and "stream_read_file" in text
    text = await ok(ctx, "read_file", file_path="Notebook/minified.md", mode="lines", lines="1")
    assert len(text) <= ctx.settings.max_observation_chars and "longer than one read" in text


async def test_encodings_are_decoded_with_a_note_and_binary_files_refused(
    ctx: ActionContext, ws: Path
) -> None:
    (ws / "Notebook/cp1252.md").write_bytes("Café – “quoted”\n".encode("cp1252"))
    (ws / "Notebook/latin1.md").write_bytes(b"caf\xe9 \x81\n")  # 0x81 is undefined in cp1252
    (ws / "Notebook/utf16.md").write_bytes(codecs.BOM_UTF16_LE + "Grüße\nzweite Zeile\n".encode("utf-16-le"))
    (ws / "Notebook/bom.md").write_bytes(codecs.BOM_UTF8 + b"mit BOM\n")
    (ws / "Notebook/image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (ws / "Notebook/paper.pdf").write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj")
    (ws / "Notebook/data.bin").write_bytes(b"ab\x00cd" * 100)

    text = await ok(ctx, "read_file", file_path="Notebook/cp1252.md")
    assert "Café – “quoted”" in text and "Windows-1252" in text
    text = await ok(ctx, "read_file", file_path="Notebook/latin1.md")
    assert "café \x81" in text and "Latin-1" in text
    text = await ok(ctx, "read_file", file_path="Notebook/utf16.md", mode="lines", lines="1-2")
    assert "1\tGrüße" in text and "2\tzweite Zeile" in text and "UTF-16" in text
    text = await ok(ctx, "read_file", file_path="Notebook/bom.md")
    assert text.endswith("]\nmit BOM\n") and "note" not in text
    assert "a PNG image" in await fails(ctx, "read_file", file_path="Notebook/image.png")
    assert "a PDF document" in await fails(ctx, "stream_read_file", file_path="Notebook/paper.pdf")
    assert "not a text file" in await fails(
        ctx, "search_in_file", file_path="Notebook/data.bin", pattern="ab"
    )
    assert "not a text file" in await fails(
        ctx, "write_file", file_path="Notebook/data.bin", content="x", mode="append"
    )

    text = await ok(ctx, "write_file", file_path="Notebook/cp1252.md", content="more", mode="append")
    assert "now saved as UTF-8" in text
    assert (ws / "Notebook/cp1252.md").read_text("utf-8") == "Café – “quoted”\nmore"


# ----------------------------------------------------------------- search_in_file


async def test_search_in_file_with_line_numbers_and_context(ctx: ActionContext, ws: Path) -> None:
    lines = [f"line {n}" + (" [NEEDS RESEARCH: cost]" if n in (5, 7, 40) else "") for n in range(1, 61)]
    (ws / "Notebook/draft.md").write_text("\n".join(lines) + "\n")
    text = await ok(ctx, "search_in_file", file_path="Notebook/draft.md", pattern=r"NEEDS RESEARCH")
    assert text.splitlines() == [
        "3 matching lines in Notebook/draft.md for /NEEDS RESEARCH/:",
        "5: line 5 [NEEDS RESEARCH: cost]",
        "7: line 7 [NEEDS RESEARCH: cost]",
        "40: line 40 [NEEDS RESEARCH: cost]",
    ]
    text = await ok(ctx, "search_in_file", file_path="Notebook/draft.md", pattern=r"NEEDS", context_lines=1)
    assert text.splitlines()[1:] == [
        "4- line 4",
        "5: line 5 [NEEDS RESEARCH: cost]",
        "6- line 6",
        "7: line 7 [NEEDS RESEARCH: cost]",
        "8- line 8",
        "--",
        "39- line 39",
        "40: line 40 [NEEDS RESEARCH: cost]",
        "41- line 41",
    ]
    assert "No line" in await ok(ctx, "search_in_file", file_path="Notebook/draft.md", pattern="zeppelin")
    assert "(?i)" in ACTIONS.actions["search_in_file"].description
    assert "2 matching" in await ok(
        ctx, "search_in_file", file_path="Notebook/ch1.md", pattern="(?i)ALPHA|gamma"
    )
    assert "invalid regular expression" in await fails(
        ctx, "search_in_file", file_path="Notebook/ch1.md", pattern="([a-"
    )
    assert "between 0 and 20" in await fails(
        ctx, "search_in_file", file_path="Notebook/ch1.md", pattern="a", context_lines=99
    )


async def test_search_output_is_capped_with_a_count_of_the_rest(ctx: ActionContext, ws: Path) -> None:
    (ws / "Notebook/many.md").write_text(
        "".join(f"match number {n} " + "y" * 300 + "\n" for n in range(3000))
    )
    text = await ok(ctx, "search_in_file", file_path="Notebook/many.md", pattern="match")
    assert len(text) <= ctx.settings.max_observation_chars
    assert text.startswith("3,000 matching lines")
    shown = len([line for line in text.splitlines() if re.match(r"\d+: ", line)])
    assert f"[{3000 - shown:,} more matching lines not shown" in text


async def test_a_catastrophic_pattern_is_stopped(
    ctx: ActionContext, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "TOTAL_SECONDS", 0.5)
    monkeypatch.setattr(search, "FILE_SECONDS", 0.2)
    for n in range(5):
        (ws / f"Notebook/evil{n}.md").write_text("a" * 60 + "b\n")
    started = time.monotonic()
    text = await ok(ctx, "search_in_file", file_path="Notebook/evil0.md", pattern="(a|aa)+$")
    assert "too slow" in text
    text = await ok(ctx, "grep_files", pattern="(a|aa)+$", directory="Notebook")
    assert "too slow" in text and "Notebook/evil0.md" in text
    assert time.monotonic() - started < 5


# ----------------------------------------------------------------- grep_files and file_search


async def test_grep_files_finds_lines_across_the_notebook(ctx: ActionContext, ws: Path) -> None:
    (ws / "Notebook/sub").mkdir()
    (ws / "Notebook/sub/ch2.md").write_text("Nothing here.\nALPHA again [S3]\n")
    (ws / "Notebook/notes.txt").write_text("alpha in a text file\n")
    (ws / "Notebook/blob.bin").write_bytes(b"alpha\x00\x01\x02")
    text = await ok(ctx, "grep_files", pattern="alpha", directory="Notebook", ignore_case=True)
    assert text.splitlines() == [
        "3 matching lines in 3 files for /alpha/ (3 text files in Notebook/; 1 binary file skipped):",
        "Notebook/ch1.md:3: Alpha beta.",
        "Notebook/notes.txt:1: alpha in a text file",
        "Notebook/sub/ch2.md:2: ALPHA again [S3]",
    ]
    text = await ok(ctx, "grep_files", pattern="alpha", directory="Notebook", ignore_case=True, glob="*.md")
    assert "notes.txt" not in text and "2 matching lines" in text
    text = await ok(ctx, "grep_files", pattern=r"\[S\d+\]", glob="Notebook/sub/*")
    assert "Notebook/sub/ch2.md:2:" in text
    text = await ok(ctx, "grep_files", pattern="ALPHA", directory="Notebook")  # case matters by default
    assert text.splitlines()[1:] == ["Notebook/sub/ch2.md:2: ALPHA again [S3]"]
    assert text.startswith("1 matching line in 1 file for /ALPHA/")
    assert "No match" in await ok(ctx, "grep_files", pattern="omega", directory="Notebook")
    assert "does not exist" in await fails(ctx, "grep_files", pattern="a", directory="Notes")
    assert "is a file" in await fails(ctx, "grep_files", pattern="a", directory="Notebook/ch1.md")


async def test_grep_skips_trash_runtime_and_links_to_outside(ctx: ActionContext, ws: Path) -> None:
    (ws / "Notebook/old.md").write_text("zebra notes\n")
    (ws / ".runtime/observations/step-1.md").write_text("zebra in an observation\n")
    assert "Notebook/old.md:1" in await ok(ctx, "grep_files", pattern="zebra")
    await ok(ctx, "delete_file", file_path="Notebook/old.md")
    text = await ok(ctx, "grep_files", pattern="zebra")
    assert "No match" in text  # neither .trash/ nor .runtime/ was searched
    assert "step-1.md:1" in await ok(ctx, "grep_files", pattern="zebra", directory=".runtime")
    text = await ok(ctx, "grep_files", pattern="swordfish")
    assert "sources/S1.md:3" in text and "secret" not in text and "outside" not in text
    assert "No" in await ok(ctx, "file_search", directory=".", name_pattern="old.md")


async def test_grep_output_is_bounded_with_a_count_of_the_rest(ctx: ActionContext, ws: Path) -> None:
    for n in range(30):
        (ws / f"Notebook/n{n:02d}.md").write_text(
            "".join(f"needle {i} " + "z" * 400 + "\n" for i in range(20))
        )
    text = await ok(ctx, "grep_files", pattern="needle", directory="Notebook")
    assert len(text) <= ctx.settings.max_observation_chars
    assert text.startswith("600 matching lines in 30 files")
    shown = len([line for line in text.splitlines() if line.startswith("Notebook/")])
    assert 5 < shown < 600 and f"[{600 - shown} more matching lines in" in text
    assert all(len(line) < 300 for line in text.splitlines()[1:])  # long lines are shortened


async def test_file_search_by_name_glob_and_path(ctx: ActionContext, ws: Path) -> None:
    (ws / "Notebook/drafts").mkdir()
    (ws / "Notebook/drafts/02_Market_draft.md").write_text("x")
    text = await ok(ctx, "file_search", directory=".", name_pattern="market")
    assert "Notebook/drafts/02_Market_draft.md (1 bytes)" in text and text.startswith(
        "1 name under the workspace matches"
    )
    text = await ok(ctx, "file_search", directory="Notebook", name_pattern="*.md")
    assert "Notebook/ch1.md" in text and "Notebook/drafts/02_Market_draft.md" in text
    assert "Notebook/drafts/" in await ok(ctx, "file_search", directory=".", name_pattern="draft")
    assert "02_Market" in await ok(ctx, "file_search", directory=".", name_pattern="notebook/drafts/*")
    assert "No file" in await ok(ctx, "file_search", directory=".", name_pattern="secret")


# ----------------------------------------------------------------- streams


def chunk_body(text: str) -> str:
    """The file text a chunk carries: between its header line and its footer line."""
    lines = text.split("\n")
    assert lines[0].startswith("[stream ") and lines[-1].startswith("[")
    return "\n".join(lines[1:-1]) + "\n"


async def stream_all(ctx: ActionContext, path: str, **arguments: Any) -> list[str]:
    chunks = [await ok(ctx, "stream_read_file", file_path=path, **arguments)]
    stream_id = re.match(r"\[stream (s\d+) ", chunks[0])
    assert stream_id
    while "[end of file" not in chunks[-1]:
        chunks.append(await ok(ctx, "continue_stream_read", stream_id=stream_id.group(1)))
        assert len(chunks) < 10_000
    return chunks


async def test_a_stream_reads_a_5000_line_file_to_its_end_in_bounded_chunks(
    ctx: ActionContext, ws: Path
) -> None:
    content = "".join(f"line {n:04d}: {'word ' * (n % 17)}\n" for n in range(1, 5001))
    (ws / "Notebook/big.md").write_text(content)
    chunks = await stream_all(ctx, "Notebook/big.md", chunk_size=400)
    assert "".join(chunk_body(c) for c in chunks) == content
    assert all(len(c) <= ctx.settings.max_observation_chars for c in chunks)
    assert all(len(chunk_body(c).splitlines()) <= 400 for c in chunks)
    assert "lines 1-" in chunks[0] and "of 5,000" in chunks[0]
    assert chunks[-1].endswith("[end of file: stream s1 is finished]") and "(100%)" in chunks[-1]
    assert "already reached the end" in await fails(ctx, "continue_stream_read", stream_id="s1")
    small = await stream_all(ctx, "Notebook/big.md", chunk_size=7)
    assert all(len(chunk_body(c).splitlines()) <= 7 for c in small) and small[0].startswith("[stream s2 ")


async def test_stream_chunks_are_bounded_in_bytes_and_cut_long_lines_safely(
    ctx: ActionContext, ws: Path
) -> None:
    content = "short\n" + "é" * 9_000 + "\n" + "日本語のテキスト" * 1500 + "\nlast line without newline"
    (ws / "Notebook/long.md").write_text(content)
    chunks = await stream_all(ctx, "Notebook/long.md")
    assert len(chunks) > 4
    assert all(len(c.encode()) <= ctx.settings.max_observation_chars + 200 for c in chunks)
    assert any("continues in the next chunk" in c for c in chunks)
    rebuilt = ""
    for chunk in chunks:
        body = chunk_body(chunk)
        continues = "continues in the next chunk" in chunk.splitlines()[-1]
        last = chunk is chunks[-1]
        rebuilt += body[:-1] if continues or last else body  # a cut line or the file's end has no newline
    assert rebuilt == content
    assert "\ufffd" not in "".join(chunks)  # no character was split


async def test_a_utf16_file_streams_too(ctx: ActionContext, ws: Path) -> None:
    content = "".join(f"Zeile {n}: Grüße\n" for n in range(2000))
    (ws / "Notebook/utf16.md").write_bytes(codecs.BOM_UTF16_BE + content.encode("utf-16-be"))
    chunks = await stream_all(ctx, "Notebook/utf16.md")
    assert "".join(chunk_body(c) for c in chunks) == content and "UTF-16" in chunks[0]


async def test_stream_errors_are_observations(ctx: ActionContext, ws: Path) -> None:
    assert "no stream 's9'; no stream is open" in await fails(ctx, "continue_stream_read", stream_id="s9")
    (ws / "Notebook/big.md").write_text("".join(f"{n}\n" for n in range(100_000)))
    await ok(ctx, "stream_read_file", file_path="Notebook/big.md")
    text = await fails(ctx, "continue_stream_read", stream_id="s7")
    assert "open streams: s1 (Notebook/big.md, next line" in text
    assert "between 1 and" in await fails(ctx, "stream_read_file", file_path="Notebook/big.md", chunk_size=0)
    await ok(ctx, "write_file", file_path="Notebook/big.md", content="rewritten\n")
    assert "was replaced since stream s1 began" in await fails(ctx, "continue_stream_read", stream_id="s1")


async def test_streams_live_in_the_run_services(ctx: ActionContext, ws: Path) -> None:
    (ws / "Notebook/big.md").write_text("".join(f"{n}\n" for n in range(1, 3001)))
    await ok(ctx, "stream_read_file", file_path="Notebook/big.md", chunk_size=10)
    other = ctx.for_agent("file", ctx.model)  # a later file_operation's context: the same services
    assert "lines 11-20 of 3,000" in await ok(other, "continue_stream_read", stream_id="s1")
    fresh = make_context(ws)
    assert "no stream" in await fails(fresh, "continue_stream_read", stream_id="s1")


# ----------------------------------------------------------------- folders and the trash


async def test_list_directory_marks_folders_sizes_and_read_only_entries(ctx: ActionContext, ws: Path) -> None:
    text = await ok(ctx, "list_directory")
    lines = text.splitlines()
    assert lines[0].startswith("the workspace (")
    assert "Notebook/ (1 entry)" in lines  # links to outside are not counted
    assert "overall_dashboard.md" in text and any(
        line.startswith("sources/") and line.endswith("[read-only]") for line in lines
    )
    assert "link_in (38 bytes) → link to Notebook/ch1.md" in lines
    assert "chain1" not in text  # a link leading outside is not listed
    text = await ok(ctx, "list_directory", directory_path="Notebook")
    assert "ch1.md (38 bytes)" in text.splitlines() and "link_out" not in text
    assert "read-only" in (await ok(ctx, "list_directory", directory_path="sources")).splitlines()[0]
    assert "is a file" in await fails(ctx, "list_directory", directory_path="Notebook/ch1.md")
    assert "does not exist" in await fails(ctx, "list_directory", directory_path="Nowhere")
    for n in range(600):
        (ws / f"Notebook/file{n:03d}.md").write_text("x")
    text = await ok(ctx, "list_directory", directory_path="Notebook")
    assert len(text) <= ctx.settings.max_observation_chars and "more entries not shown" in text


async def test_create_directory(ctx: ActionContext, ws: Path) -> None:
    assert (
        await ok(ctx, "create_directory", directory_path="Notebook/a/b")
        == "Created the folder Notebook/a/b/."
    )
    assert (ws / "Notebook/a/b").is_dir()
    assert "already exists" in await ok(ctx, "create_directory", directory_path="Notebook/a")
    assert "is a file" in await fails(ctx, "create_directory", directory_path="Notebook/ch1.md")
    assert "is a file" in await fails(ctx, "create_directory", directory_path="Notebook/ch1.md/sub")


async def test_delete_file_moves_to_the_trash_with_a_timestamp(ctx: ActionContext, ws: Path) -> None:
    (ws / "Notebook/old.md").write_text("old draft\n")
    text = await ok(ctx, "delete_file", file_path="Notebook/old.md")
    match = re.search(r"moved to (\.trash/\d{8}-\d{6}-Notebook__old\.md)", text)
    assert match, text
    assert not (ws / "Notebook/old.md").exists() and (ws / match.group(1)).read_text() == "old draft\n"
    assert ".trash" not in await ok(ctx, "list_directory")
    assert "Notebook__old.md" in await ok(ctx, "list_directory", directory_path=".trash")
    assert "old draft" in await ok(ctx, "read_file", file_path=match.group(1))
    assert "does not exist" in await fails(ctx, "delete_file", file_path="Notebook/old.md")
    await ok(ctx, "delete_file", file_path="Notebook")  # a folder goes to the trash whole
    assert (ws / ".trash").is_dir() and not (ws / "Notebook").exists()


async def test_finish_hands_over_the_answer(ctx: ActionContext) -> None:
    observation = await run(ctx, "finish", answer="Created Notebook/a.md")
    assert observation.finished and observation.result == "Created Notebook/a.md"
    assert "empty" in await fails(ctx, "finish", answer="  ")


# ----------------------------------------------------------------- the sandbox, action by action

ESCAPES = [
    "../../etc/passwd",
    "Notebook/../../x",
    "/etc/passwd",
    "~/.bashrc",
    "./..",
    "../ws2/x",
    "../ws-old/x",
    "Notebook/link_out_file",
    "Notebook/link_out_dir/secret.txt",
    "chain1",
]
INVALID = ["a\x00b.md", "", "   ", "n" * 2000 + ".md", "Notebook/" + "n" * 300 + ".md"]
FILE_CALLS = [
    ("read_file", {}),
    ("read_file", {"mode": "lines", "lines": "1-3"}),
    ("write_file", {"content": "pwned\n"}),
    ("write_file", {"content": "pwned\n", "mode": "append"}),
    ("create_file", {"initial_content": "pwned\n"}),
    ("search_in_file", {"pattern": "secret"}),
    ("stream_read_file", {}),
    ("delete_file", {}),
]
FOLDER_CALLS = [
    ("list_directory", "directory_path", {}),
    ("create_directory", "directory_path", {}),
    ("grep_files", "directory", {"pattern": "secret"}),
    ("file_search", "directory", {"name_pattern": "secret"}),
]


async def test_every_escape_is_refused_as_an_observation(ctx: ActionContext, base: Path) -> None:
    before = snapshot_outside(base)
    for path in ESCAPES:
        for name, extra in FILE_CALLS:
            if name == "delete_file" and path in ("Notebook/link_out_file", "chain1"):
                continue  # deleting a link puts the link itself away: see the test below
            text = await fails(ctx, name, file_path=path, **extra)
            assert "path escapes the workspace" in text, (name, path, text)
            assert "swordfish" not in text and "canary" not in text
    for path in [*ESCAPES[:7], "Notebook/link_out_dir"]:
        for name, key, extra in FOLDER_CALLS:
            text = await fails(ctx, name, **{key: path}, **extra)
            assert "path escapes the workspace" in text, (name, path, text)
    text = await fails(ctx, "write_file", file_path="Notebook/link_out_dir/new.md", content="x")
    assert "path escapes the workspace" in text
    text = await fails(ctx, "create_file", file_path="Notebook/link_out_dir/sub/new.md")
    assert "path escapes the workspace" in text
    assert snapshot_outside(base) == before


async def test_deleting_a_link_to_outside_moves_the_link_not_its_target(
    ctx: ActionContext, base: Path
) -> None:
    text = await ok(ctx, "delete_file", file_path="Notebook/link_out_file")
    assert ".trash/" in text
    assert not (base / "ws/Notebook/link_out_file").is_symlink()
    assert (base / "outside/secret.txt").read_text() == SECRET
    trashed = next((base / "ws/.trash").iterdir())
    assert "path escapes the workspace" in await fails(ctx, "read_file", file_path=f".trash/{trashed.name}")


async def test_malformed_paths_are_refused_without_a_crash(ctx: ActionContext, base: Path) -> None:
    before = snapshot_outside(base)
    for path in INVALID:
        for name, extra in FILE_CALLS:
            text = await fails(ctx, name, file_path=path, **extra)
            assert "invalid path" in text, (name, path, text)
    for value in (42, None, ["Notebook/ch1.md"], {"path": "x"}):
        text = await fails(ctx, "read_file", file_path=value)
        assert "invalid arguments" in text and "file_path" in text
    assert snapshot_outside(base) == before


async def test_names_with_dots_are_names_not_traversal(ctx: ActionContext, ws: Path) -> None:
    for name in ("a..b.md", "..notes.md", "notes..md", "Notebook/..hidden.md"):
        await ok(ctx, "create_file", file_path=name, initial_content=name)
        assert (ws / name).read_text() == name
        assert name in await ok(ctx, "read_file", file_path=name)
    assert "Alpha beta" in await ok(ctx, "read_file", file_path="link_in")  # a link inside is fine
    assert "Alpha beta" in await ok(ctx, "read_file", file_path="Notebook/./sub/../ch1.md")


async def test_a_workspace_reached_through_a_symlinked_parent_works(base: Path) -> None:
    (base / "alias").symlink_to(base, target_is_directory=True)
    ctx = make_context(base / "alias" / "ws")
    await ok(ctx, "create_file", file_path="Notebook/via_alias.md", initial_content="ok\n")
    assert (base / "ws/Notebook/via_alias.md").read_text() == "ok\n"
    assert "Notebook/via_alias.md:1: ok" in await ok(ctx, "grep_files", pattern="ok", directory="Notebook")
    assert "path escapes" in await fails(ctx, "read_file", file_path="../outside/secret.txt")


# ----------------------------------------------------------------- races: a link planted after the check


def swap_after(monkeypatch: pytest.MonkeyPatch, method: str, swap: Any) -> None:
    """Run `swap()` right after the policy's `method` checked a path, as a concurrent process could."""
    original = getattr(PathPolicy, method)

    def checked_then_swapped(self: PathPolicy, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        swap()
        return result

    monkeypatch.setattr(PathPolicy, method, checked_then_swapped)


async def test_a_file_swapped_for_a_link_after_the_check_is_not_read(
    ctx: ActionContext, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = base / "ws/Notebook/ch1.md"

    def swap() -> None:
        note.unlink()
        note.symlink_to(base / "outside/secret.txt")

    swap_after(monkeypatch, "read_bytes", swap)
    text = await fails(ctx, "read_file", file_path="Notebook/ch1.md")
    assert "swordfish" not in text and "cannot open Notebook/ch1.md" in text


async def test_a_folder_swapped_for_a_link_after_the_check_is_caught(
    ctx: ActionContext, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (base / "outside/ch1.md").write_text(SECRET)
    notebook = base / "ws/Notebook"

    def swap() -> None:
        notebook.rename(base / "ws/Notebook.moved")
        notebook.symlink_to(base / "outside")

    swap_after(monkeypatch, "read_bytes", swap)
    text = await fails(ctx, "stream_read_file", file_path="Notebook/ch1.md")
    assert "path escapes the workspace" in text and "swordfish" not in text


async def test_create_directory_under_a_folder_swapped_for_a_link_creates_nothing_outside(
    ctx: ActionContext, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (base / "ws/Notebook/drafts").mkdir()
    drafts = base / "ws/Notebook/drafts"

    def swap() -> None:
        drafts.rmdir()
        drafts.symlink_to(base / "outside")

    swap_after(monkeypatch, "check_writable", swap)
    before = snapshot_outside(base)
    text = await fails(ctx, "create_directory", directory_path="Notebook/drafts/new")
    assert "symbolic link" in text
    assert snapshot_outside(base) == before


SEGMENTS = [
    "..",
    ".",
    "",
    "Notebook",
    "link_out_dir",
    "link_out_file",
    "chain1",
    "link_in",
    "ws2",
    "~",
    "a..b",
    "x.md",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    parts=st.lists(
        st.one_of(st.sampled_from(SEGMENTS), st.text(string.ascii_letters + ".~-", max_size=4)), max_size=5
    ),
    absolute=st.booleans(),
    action_name=st.sampled_from(["write_file", "create_file", "delete_file", "read_file"]),
)
def test_property_any_path_stays_inside_or_is_refused(
    base: Path, parts: list[str], absolute: bool, action_name: str
) -> None:
    """Whatever path the model names: the call is refused as an observation, or it acted inside the
    workspace; no file outside the workspace changes."""
    before = snapshot_outside(base)
    ctx = make_context(base / "ws")
    path = ("/" if absolute else "") + "/".join(parts)
    arguments: dict[str, Any] = {"file_path": path}
    if action_name == "write_file":
        arguments["content"] = "written\n"
    observation = asyncio.run(ACTIONS.run(ctx, action_name, arguments))
    if not observation.error:
        assert "escapes" not in observation.text
        real = os.path.realpath(base / "ws")
        named = re.findall(r"(?:Created|Wrote|to) (\S+?)(?: \(|;|\.$)", observation.text)
        for relative in named:
            assert os.path.realpath(os.path.join(real, relative)).startswith(real + os.sep)
    assert snapshot_outside(base) == before
