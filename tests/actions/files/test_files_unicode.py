"""The File agent's actions with names in either Unicode normal form (issue 13): a Notebook file
saved on macOS is named in NFD (`附录 lǜsè.md` as u + two combining marks), while a model writes
the NFC spelling; each finds the other, new files are named in NFC, and globs compare in NFC.
A lone surrogate in a path is an error observation, never an unexpected exception."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.run_context import ActionContext
from tests.support.file_actions import fails, make_context, ok, run

NAME = "附录 lǜsè.md"
NFC = unicodedata.normalize("NFC", NAME)
NFD = unicodedata.normalize("NFD", NAME)
FORMS = pytest.mark.parametrize(("on_disk", "given"), [(NFD, NFC), (NFC, NFD)], ids=["nfd-disk", "nfc-disk"])
TEXT = "# 附录\n\nGreen (lǜsè) is the colour.\nSecond line.\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = ResearchWorkspace(tmp_path / "ws")
    workspace.create("Test research", None)
    return workspace.root.resolve()


@pytest.fixture
def ctx(ws: Path) -> ActionContext:
    return make_context(ws)


def notebook(ws: Path) -> list[str]:
    return sorted(os.listdir(ws / "Notebook"))


def put(ws: Path, name: str, text: str = TEXT) -> Path:
    path = ws / "Notebook" / name
    path.write_text(text, "utf-8")
    return path


@FORMS
async def test_read_file_finds_the_other_spelling(
    ctx: ActionContext, ws: Path, on_disk: str, given: str
) -> None:
    put(ws, on_disk)

    full = await ok(ctx, "read_file", file_path=f"Notebook/{given}")
    lines = await ok(ctx, "read_file", file_path=f"Notebook/{given}", mode="lines", lines="3")

    assert "Green (lǜsè) is the colour." in full
    assert "3\tGreen (lǜsè) is the colour." in lines


@FORMS
async def test_stream_read_file_finds_the_other_spelling(
    ctx: ActionContext, ws: Path, on_disk: str, given: str
) -> None:
    put(ws, on_disk)

    first = await ok(ctx, "stream_read_file", file_path=f"Notebook/{given}", chunk_size=2)
    rest = await ok(ctx, "continue_stream_read", stream_id="s1")

    assert "# 附录" in first and "Second line." in rest and "end of file" in rest


@FORMS
async def test_write_file_changes_the_file_on_disk(
    ctx: ActionContext, ws: Path, on_disk: str, given: str
) -> None:
    path = put(ws, on_disk)

    await ok(ctx, "write_file", file_path=f"Notebook/{given}", content="Appended.", mode="append")
    await ok(ctx, "write_file", file_path=f"Notebook/{given}", content="Top.", mode="insert", line=1)

    assert notebook(ws) == [on_disk]  # no twin file beside the original
    assert path.read_text("utf-8") == "Top.\n" + TEXT + "Appended.\n"  # insert ends the last line


@FORMS
async def test_create_file_refuses_the_other_spelling_of_an_existing_file(
    ctx: ActionContext, ws: Path, on_disk: str, given: str
) -> None:
    put(ws, on_disk)

    text = await fails(ctx, "create_file", file_path=f"Notebook/{given}", initial_content="dup\n")

    assert "already exists" in text
    assert notebook(ws) == [on_disk]


async def test_new_files_and_folders_are_named_in_nfc(ctx: ActionContext, ws: Path) -> None:
    folder_nfd = unicodedata.normalize("NFD", "Café")

    await ok(ctx, "create_file", file_path=f"Notebook/{NFD}", initial_content="created\n")
    await ok(ctx, "write_file", file_path=f"Notebook/{folder_nfd}/{NFD}", content="written\n")

    assert notebook(ws) == sorted([NFC, unicodedata.normalize("NFC", "Café")])
    assert os.listdir(ws / "Notebook" / unicodedata.normalize("NFC", "Café")) == [NFC]


@FORMS
async def test_search_in_file_finds_the_other_spelling(
    ctx: ActionContext, ws: Path, on_disk: str, given: str
) -> None:
    put(ws, on_disk)

    text = await ok(ctx, "search_in_file", file_path=f"Notebook/{given}", pattern="colour")

    assert "3: Green (lǜsè) is the colour." in text


@FORMS
async def test_grep_glob_matches_in_nfc(ctx: ActionContext, ws: Path, on_disk: str, given: str) -> None:
    put(ws, on_disk)
    glob_given = unicodedata.normalize("NFC" if given == NFC else "NFD", "*lǜsè.md")

    by_name = await ok(ctx, "grep_files", pattern="colour", glob=glob_given)
    by_path = await ok(ctx, "grep_files", pattern="colour", glob=f"Notebook/{given}")

    assert "1 matching line" in by_name and "colour" in by_name
    assert "1 matching line" in by_path


@FORMS
async def test_file_search_matches_in_nfc(ctx: ActionContext, ws: Path, on_disk: str, given: str) -> None:
    put(ws, on_disk)
    part = unicodedata.normalize("NFC" if given == NFC else "NFD", "lǜsè")

    plain = await ok(ctx, "file_search", directory=".", name_pattern=part)
    glob = await ok(ctx, "file_search", directory="Notebook", name_pattern=f"*{part}*")
    path = await ok(ctx, "file_search", directory=".", name_pattern=f"Notebook/{given}")

    for text in (plain, glob, path):
        assert "1 name under" in text and f"Notebook/{on_disk}" in text


@FORMS
async def test_delete_file_trashes_the_other_spelling(
    ctx: ActionContext, ws: Path, on_disk: str, given: str
) -> None:
    put(ws, on_disk)

    await ok(ctx, "delete_file", file_path=f"Notebook/{given}")

    assert notebook(ws) == []
    assert [p.read_text("utf-8") for p in (ws / ".trash").iterdir()] == [TEXT]


@FORMS
async def test_list_directory_finds_a_folder_spelled_the_other_way(
    ctx: ActionContext, ws: Path, on_disk: str, given: str
) -> None:
    form_on_disk = "NFD" if on_disk == NFD else "NFC"
    form_given = "NFC" if given == NFC else "NFD"
    folder = ws / "Notebook" / unicodedata.normalize(form_on_disk, "Café")
    folder.mkdir()
    (folder / on_disk).write_text(TEXT, "utf-8")

    text = await ok(
        ctx, "list_directory", directory_path=f"Notebook/{unicodedata.normalize(form_given, 'Café')}"
    )

    assert "(1 entry)" in text and on_disk in text


SURROGATE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"file_path": "Notebook/\ud800.md"}),
    ("write_file", {"file_path": "Notebook/\ud800.md", "content": "x"}),
    ("create_file", {"file_path": "\ud800"}),
    ("create_file", {"file_path": "Notebook/\udc80.md"}),
    ("search_in_file", {"file_path": "Notebook/a\udfff.md", "pattern": "x"}),
    ("grep_files", {"pattern": "x", "directory": "\ud800"}),
    ("file_search", {"directory": "Notebook/\ud800", "name_pattern": "x"}),
    ("stream_read_file", {"file_path": "\ud800"}),
    ("list_directory", {"directory_path": "\ud800"}),
    ("create_directory", {"directory_path": "Notebook/\ud800"}),
    ("delete_file", {"file_path": "Notebook/\ud800"}),
]


@pytest.mark.parametrize(("name", "arguments"), SURROGATE_CALLS)
async def test_a_lone_surrogate_in_a_path_is_an_error_observation(
    ctx: ActionContext, ws: Path, name: str, arguments: dict[str, Any]
) -> None:
    text = await fails(ctx, name, **arguments)

    assert "unexpected" not in text
    assert "cannot be a file name" in text


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("grep_files", {"pattern": "colour", "glob": "*\ud800*"}),
        ("file_search", {"directory": ".", "name_pattern": "\ud800"}),
        ("file_search", {"directory": ".", "name_pattern": "*\udc80*"}),
    ],
)
async def test_a_lone_surrogate_in_a_name_pattern_matches_nothing(
    ctx: ActionContext, ws: Path, name: str, arguments: dict[str, Any]
) -> None:
    put(ws, NFD)

    observation = await run(ctx, name, **arguments)

    assert "unexpected" not in observation.text
    assert "No " in observation.text
