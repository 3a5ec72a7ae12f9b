"""The local corpus follows its folder without walking it before every search: a file added,
edited in place (even keeping its size and mtime), or deleted after the first search is seen by the
next one; so are folders created, renamed and removed. Without inotify (`watch=False`) the folder is
walked every time, with the same answers. Two instances on one index stay consistent, and a
damaged index is rebuilt."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from actions.web.local_corpus import LocalCorpus


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "sodium.md").write_text("# Sodium\n\nSodium-ion cells avoid cobalt.\n", "utf-8")
    (root / "lithium.txt").write_text("Lithium prices fell in 2023.\n", "utf-8")
    return root


def make_corpus(root: Path, tmp_path: Path, watch: bool = True) -> LocalCorpus:
    return LocalCorpus(root, tmp_path / "ws" / ".runtime" / "corpus" / "index.sqlite", watch=watch)


async def urls(local: LocalCorpus, query: str) -> list[str]:
    return [r.url for r in await local.search(query, 10)]


@pytest.mark.parametrize("watch", [True, False])
async def test_added_edited_and_deleted_files_are_seen_by_the_next_search(
    corpus: Path, tmp_path: Path, watch: bool
) -> None:
    local = make_corpus(corpus, tmp_path, watch)
    assert await urls(local, "cobalt") == ["corpus:notes/sodium.md"]
    if watch and sys.platform.startswith("linux"):
        assert local._tree.watching  # inotify, not a walk before every search

    (corpus / "notes" / "new.md").write_text("# Manganese\n\nManganese cathodes are cheap.\n", "utf-8")
    assert await urls(local, "manganese") == ["corpus:notes/new.md"]

    with open(corpus / "lithium.txt", "a", encoding="utf-8") as handle:  # edited in place
        handle.write("Nickel demand rose.\n")
    assert await urls(local, "nickel") == ["corpus:lithium.txt"]

    (corpus / "notes" / "sodium.md").unlink()
    assert await urls(local, "cobalt") == []
    local.close()


async def test_an_edit_keeping_size_and_mtime_is_seen(corpus: Path, tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("needs inotify")
    local = make_corpus(corpus, tmp_path)
    assert await urls(local, "lithium") == ["corpus:lithium.txt"]
    path = corpus / "lithium.txt"
    before = path.stat()

    path.write_text("Cobalts prices fell in 2023.\n", "utf-8")  # the same length
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime

    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert await urls(local, "lithium") == []
    assert sorted(await urls(local, "cobalt")) == ["corpus:lithium.txt", "corpus:notes/sodium.md"]
    local.close()


@pytest.mark.parametrize("watch", [True, False])
async def test_folders_created_renamed_and_removed(corpus: Path, tmp_path: Path, watch: bool) -> None:
    local = make_corpus(corpus, tmp_path, watch)
    await local.search("cobalt", 5)

    (corpus / "new" / "deeper").mkdir(parents=True)
    (corpus / "new" / "deeper" / "hydro.md").write_text("# Hydro\n\nPumped hydro stores water.\n", "utf-8")
    assert await urls(local, "pumped hydro") == ["corpus:new/deeper/hydro.md"]

    (corpus / "new").rename(corpus / "renamed")
    assert await urls(local, "pumped hydro") == ["corpus:renamed/deeper/hydro.md"]
    (corpus / "renamed" / "deeper" / "more.md").write_text("# More\n\nMore water.\n", "utf-8")
    assert sorted(await urls(local, "water")) == [
        "corpus:renamed/deeper/hydro.md",
        "corpus:renamed/deeper/more.md",
    ]

    for path in sorted((corpus / "renamed").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (corpus / "renamed").rmdir()
    assert await urls(local, "water") == []
    assert await urls(local, "cobalt") == ["corpus:notes/sodium.md"]
    local.close()


async def test_two_instances_on_one_index_stay_consistent(corpus: Path, tmp_path: Path) -> None:
    first, second = make_corpus(corpus, tmp_path), make_corpus(corpus, tmp_path)
    await first.search("cobalt", 5)
    await second.search("cobalt", 5)

    (corpus / "new.md").write_text("# Vanadium\n\nVanadium flow batteries.\n", "utf-8")
    assert await urls(second, "vanadium") == ["corpus:new.md"]  # the second indexes it
    assert await urls(first, "vanadium") == ["corpus:new.md"]  # the first sees the index changed
    assert first.sync().added == 0
    first.close()
    second.close()


async def test_a_damaged_index_is_built_again(corpus: Path, tmp_path: Path) -> None:
    local = make_corpus(corpus, tmp_path)
    await local.search("cobalt", 5)
    local.close()
    index = tmp_path / "ws" / ".runtime" / "corpus" / "index.sqlite"
    index.write_bytes(b"this is not a database" * 100)

    again = make_corpus(corpus, tmp_path)
    assert await urls(again, "cobalt") == ["corpus:notes/sodium.md"]
    again.close()


async def test_an_unreadable_file_is_named_once(corpus: Path, tmp_path: Path) -> None:
    local = make_corpus(corpus, tmp_path)
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    await local.search("cobalt", 5)

    note = local.failure_note()
    assert note is not None and note.startswith(
        "1 corpus file could not be read and is left out: broken.pdf ("
    )
    assert local.failure_note() is None
    assert local.unreadable()[0][0] == "broken.pdf"
    local.close()


async def test_out_of_watches_falls_back_to_walking(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from actions.web import corpus_watch

    def no_more_watches(self: object, path: str) -> int:
        raise OSError(28, "inotify_add_watch failed: no space left (fs.inotify.max_user_watches)")

    # Patched by name: the ctypes inotify goes with the move to watchfiles (issue 35).
    monkeypatch.setattr(corpus_watch._Inotify, "add", no_more_watches)
    local = make_corpus(corpus, tmp_path)
    assert await urls(local, "cobalt") == ["corpus:notes/sodium.md"]
    assert not local._tree.watching

    (corpus / "notes" / "new.md").write_text("# Manganese\n\nManganese cathodes are cheap.\n", "utf-8")
    assert await urls(local, "manganese") == ["corpus:notes/new.md"]
    local.close()


def doc(path: Path, words: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {path.stem}\n\nEvery quartzite here: {words}.\n", "utf-8")


async def everything(local: LocalCorpus) -> list[str]:
    """Every document the index holds (they all say "quartzite")."""
    return sorted(await urls(local, "quartzite"))


@pytest.mark.parametrize("watch", [True, False])
async def test_a_folder_replaced_by_rename_is_seen(corpus: Path, tmp_path: Path, watch: bool) -> None:
    doc(corpus / "a" / "x.md", "xenon")
    local = make_corpus(corpus, tmp_path, watch)
    assert await everything(local) == ["corpus:a/x.md"]

    (corpus / "a").rename(corpus / "a.old")  # mv a a.old; mkdir a; echo > a/y.md
    (corpus / "a").mkdir()
    doc(corpus / "a" / "y.md", "yttrium")
    assert await everything(local) == ["corpus:a.old/x.md", "corpus:a/y.md"]

    doc(corpus / "a" / "z.md", "zinc")  # the new `a` is followed, the old one under its new name
    doc(corpus / "a.old" / "w.md", "tungsten")
    assert await everything(local) == [
        "corpus:a.old/w.md", "corpus:a.old/x.md", "corpus:a/y.md", "corpus:a/z.md"
    ]  # fmt: skip
    local.close()


@pytest.mark.parametrize("watch", [True, False])
async def test_a_folder_deleted_and_made_again_is_followed(corpus: Path, tmp_path: Path, watch: bool) -> None:
    doc(corpus / "a" / "b" / "x.md", "xenon")
    local = make_corpus(corpus, tmp_path, watch)
    assert await everything(local) == ["corpus:a/b/x.md"]

    (corpus / "a" / "b" / "x.md").unlink()
    (corpus / "a" / "b").rmdir()  # the file system may give the new folder the same inode number
    (corpus / "a" / "b").mkdir()
    doc(corpus / "a" / "b" / "y.md", "yttrium")
    assert await everything(local) == ["corpus:a/b/y.md"]
    doc(corpus / "a" / "b" / "z.md", "zinc")
    assert await everything(local) == ["corpus:a/b/y.md", "corpus:a/b/z.md"]
    local.close()


@pytest.mark.parametrize("watch", [True, False])
async def test_a_folder_moved_out_of_the_corpus_disappears(corpus: Path, tmp_path: Path, watch: bool) -> None:
    doc(corpus / "a" / "deep" / "x.md", "xenon")
    doc(corpus / "b" / "y.md", "yttrium")
    local = make_corpus(corpus, tmp_path, watch)
    assert await everything(local) == ["corpus:a/deep/x.md", "corpus:b/y.md"]

    (corpus / "a").rename(tmp_path / "elsewhere")
    assert await everything(local) == ["corpus:b/y.md"]
    doc(tmp_path / "elsewhere" / "deep" / "z.md", "zinc")  # no longer part of the corpus
    assert await everything(local) == ["corpus:b/y.md"]
    local.close()


@pytest.mark.parametrize("watch", [True, False])
async def test_a_folder_moved_in_from_outside_appears(corpus: Path, tmp_path: Path, watch: bool) -> None:
    local = make_corpus(corpus, tmp_path, watch)
    assert await everything(local) == []
    doc(tmp_path / "outside" / "x.md", "xenon")
    doc(tmp_path / "outside" / "deep" / "deeper" / "y.md", "yttrium")

    (tmp_path / "outside").rename(corpus / "notes" / "inside")
    assert await everything(local) == ["corpus:notes/inside/deep/deeper/y.md", "corpus:notes/inside/x.md"]
    doc(corpus / "notes" / "inside" / "deep" / "deeper" / "z.md", "zinc")
    assert await everything(local) == [
        "corpus:notes/inside/deep/deeper/y.md",
        "corpus:notes/inside/deep/deeper/z.md",
        "corpus:notes/inside/x.md",
    ]
    local.close()


@pytest.mark.parametrize("watch", [True, False])
async def test_a_folder_renamed_within_the_corpus_moves_its_documents(
    corpus: Path, tmp_path: Path, watch: bool
) -> None:
    doc(corpus / "a" / "deep" / "x.md", "xenon")
    (corpus / "archive").mkdir()
    local = make_corpus(corpus, tmp_path, watch)
    assert await everything(local) == ["corpus:a/deep/x.md"]

    (corpus / "a").rename(corpus / "archive" / "a2")  # to another parent
    assert await everything(local) == ["corpus:archive/a2/deep/x.md"]
    doc(corpus / "archive" / "a2" / "deep" / "y.md", "yttrium")
    assert await everything(local) == ["corpus:archive/a2/deep/x.md", "corpus:archive/a2/deep/y.md"]

    # Two folders swap names in one go: each path now holds the other's documents.
    doc(corpus / "b" / "z.md", "zinc")
    assert await everything(local) == [
        "corpus:archive/a2/deep/x.md", "corpus:archive/a2/deep/y.md", "corpus:b/z.md"
    ]  # fmt: skip
    (corpus / "b").rename(corpus / "swap")
    (corpus / "archive" / "a2").rename(corpus / "b")
    (corpus / "swap").rename(corpus / "archive" / "a2")
    assert await everything(local) == ["corpus:archive/a2/z.md", "corpus:b/deep/x.md", "corpus:b/deep/y.md"]
    doc(corpus / "b" / "deep" / "w.md", "tungsten")
    doc(corpus / "archive" / "a2" / "v.md", "vanadium")
    assert await everything(local) == [
        "corpus:archive/a2/v.md", "corpus:archive/a2/z.md",
        "corpus:b/deep/w.md", "corpus:b/deep/x.md", "corpus:b/deep/y.md",
    ]  # fmt: skip
    local.close()


def test_the_file_system_type_is_read_as_statfs_gives_it(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux") or shutil.which("stat") is None:
        pytest.skip("statfs f_type is read on Linux only")
    from actions.web import corpus_watch

    shown = subprocess.run(["stat", "-f", "--format=%t", str(tmp_path)], capture_output=True, text=True)
    assert corpus_watch.filesystem_type(str(tmp_path)) == int(shown.stdout.strip(), 16)
    assert corpus_watch.filesystem_type(str(tmp_path / "missing")) is None


@pytest.mark.parametrize(("magic", "name"), [(0x6969, "NFS"), (0xFE534D42, "SMB2"), (0x65735546, "FUSE")])
async def test_on_a_network_file_system_the_folder_is_walked_instead_of_watched(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, magic: int, name: str
) -> None:
    """inotify starts fine on NFS, SMB or sshfs but never hears of another host's changes."""
    from actions.web import corpus_watch

    monkeypatch.setattr(corpus_watch, "filesystem_type", lambda path: magic)
    assert corpus_watch.remote_filesystem(str(corpus)) == name
    local = make_corpus(corpus, tmp_path)
    assert await urls(local, "cobalt") == ["corpus:notes/sodium.md"]
    assert not local._tree.watching and local._tree.remote == name

    doc(corpus / "notes" / "deep" / "x.md", "xenon")
    with open(corpus / "lithium.txt", "a", encoding="utf-8") as handle:
        handle.write("Nickel demand rose.\n")
    assert await everything(local) == ["corpus:notes/deep/x.md"]
    assert await urls(local, "nickel") == ["corpus:lithium.txt"]
    (corpus / "notes").rename(corpus / "notes.old")
    assert await urls(local, "cobalt") == ["corpus:notes.old/sodium.md"]
    assert not local._tree.watching
    local.close()
