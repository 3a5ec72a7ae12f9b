"""The workspace path policy, on real folders: escapes, malformed input, symlinks, races, trash."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_runtime.errors import InvalidPathError, PathEscapeError, ReadOnlyPathError, SandboxError
from sandbox.paths import PathPolicy
from tests.support.cli import snapshot_outside

SECRET = "outside secret\n"
DASHBOARD_REASON = "the dashboards change only through update_overall_dashboard / update_current_dashboard"


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """base/ws is the workspace; base/ws-old, base/ws2 and base/outside must never be touched."""
    ws = tmp_path / "ws"
    (ws / "Notebook").mkdir(parents=True)
    (ws / "Notebook" / "ch1.md").write_text("chapter one\n")
    (ws / "sources").mkdir()
    (ws / "sources" / "S1.md").write_text("source one\n")
    (ws / "overall_dashboard.md").write_text("# Overall\n")
    for sibling in ("ws-old", "ws2"):
        (tmp_path / sibling).mkdir()
        (tmp_path / sibling / "x").write_text(f"{sibling} canary\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (ws / "link_in").symlink_to("Notebook/ch1.md")
    (ws / "link_in_dir").symlink_to("Notebook")
    (ws / "link_out").symlink_to(outside / "secret.txt")
    (ws / "link_out_dir").symlink_to(outside)
    (ws / "chain1").symlink_to("chain2")
    (ws / "chain2").symlink_to("Notebook/chain3")
    (ws / "Notebook" / "chain3").symlink_to("../../outside/secret.txt")
    (ws / "loop_a").symlink_to("loop_b")
    (ws / "loop_b").symlink_to("loop_a")
    (ws / "old").symlink_to("../ws-old")
    (ws / "two").symlink_to(tmp_path / "ws2")
    return tmp_path


@pytest.fixture
def policy(base: Path) -> PathPolicy:
    return PathPolicy(
        base / "ws",
        read_only={
            "overall_dashboard.md": DASHBOARD_REASON,
            "sources": "sources/ is written by code when a page is retrieved",
            ".runtime": "",
        },
    )




# ----------------------------------------------------------------- escapes and names


@pytest.mark.parametrize(
    "user_path",
    [
        "../../etc/passwd",
        "Notebook/../../x",
        "/etc/passwd",
        "~/.bashrc",
        "~root/x",
        "~",
        "./..",
        "..",
        "../",
        "Notebook/../..",
        "a/./../../b",
        "../ws/Notebook/ch1.md",  # comes back in, but names the folders around the workspace
        "//etc/passwd",
    ],
)
def test_escapes_are_refused(policy: PathPolicy, user_path: str) -> None:
    with pytest.raises(PathEscapeError, match="escapes the workspace"):
        policy.resolve(user_path)


def test_escape_message_is_for_the_model(policy: PathPolicy) -> None:
    with pytest.raises(PathEscapeError) as info:
        policy.resolve("../../etc/passwd")
    assert str(info.value) == (
        "path escapes the workspace: '../../etc/passwd' (all paths are relative to the workspace folder)"
    )


@pytest.mark.parametrize("user_path", ["a..b.md", "..notes.md", "notes..md", "...", "Notebook/..x..md"])
def test_names_with_dots_are_names(policy: PathPolicy, user_path: str) -> None:
    assert policy.resolve(user_path) == policy.root / user_path
    created = policy.create_new(user_path, "dots\n")
    assert created.read_text() == "dots\n"
    assert policy.read_bytes(user_path) == b"dots\n"


@pytest.mark.parametrize(
    ("user_path", "expected"),
    [
        (".", "."),
        ("./", "."),
        ("Notebook/", "Notebook"),
        ("./Notebook//ch1.md", "Notebook/ch1.md"),
        ("Notebook/../overall_dashboard.md", "overall_dashboard.md"),
        ("Notebook/new/deeper.md", "Notebook/new/deeper.md"),
        ("link_in", "Notebook/ch1.md"),
        ("link_in_dir/ch1.md", "Notebook/ch1.md"),
    ],
)
def test_paths_inside_resolve_to_real_paths(policy: PathPolicy, user_path: str, expected: str) -> None:
    resolved = policy.resolve(user_path)
    assert resolved == policy.root / expected
    assert policy.relative(resolved) == expected


def test_nonexistent_component_does_not_hide_a_symlink_after_dotdot(policy: PathPolicy) -> None:
    # `missing/..` climbs back to the root, where link_out_dir leads outside: still refused.
    with pytest.raises(PathEscapeError):
        policy.resolve("missing/../link_out_dir/secret.txt")


def test_relative_refuses_outside_paths(policy: PathPolicy, base: Path) -> None:
    with pytest.raises(PathEscapeError):
        policy.relative(base / "ws2" / "x")
    assert policy.relative(policy.root) == "."


# ----------------------------------------------------------------- siblings (CVE-2025-53110)


@pytest.mark.parametrize("user_path", ["../ws-old/x", "../ws2/x", "old/x", "old", "two/x", "two"])
def test_sibling_folders_are_outside(policy: PathPolicy, user_path: str) -> None:
    with pytest.raises(PathEscapeError):
        policy.resolve(user_path)


@pytest.mark.parametrize("user_path", ["old/new.md", "two/x"])
def test_writing_into_a_sibling_through_a_link_is_refused(
    policy: PathPolicy, base: Path, user_path: str
) -> None:
    before = snapshot_outside(base)
    with pytest.raises(PathEscapeError):
        policy.replace_text(user_path, "pwned")
    with pytest.raises(PathEscapeError):
        policy.create_new(user_path, "pwned")
    assert snapshot_outside(base) == before


# ----------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    "user_path",
    [
        "",
        "   ",
        "Notebook/\x00.md",
        "\x00",
        "Notebook/a\nb.md",
        "x" * 1025,
        "a/" * 400 + "b" * 300,
        "n" * 256,
        "Notebook/" + "é" * 128,  # 256 bytes in UTF-8
        "Notebook/\ud800.md",  # a lone surrogate cannot be a file name
        None,
        3,
        b"x",
        ["a"],
        Path("Notebook/ch1.md"),
    ],
    ids=repr,
)
@pytest.mark.parametrize(
    "operation",
    [
        lambda p, u: p.resolve(u),
        lambda p, u: p.check_writable(u),
        lambda p, u: p.create_new(u, "x"),
        lambda p, u: p.replace_text(u, "x"),
        lambda p, u: p.read_bytes(u),
        lambda p, u: p.iter_directory(u),
        lambda p, u: p.move_to_trash(u),
    ],
    ids=["resolve", "check_writable", "create_new", "replace_text", "read_bytes", "iter", "trash"],
)
def test_malformed_paths_are_refused_cleanly(
    policy: PathPolicy, base: Path, user_path: object, operation: Callable[[PathPolicy, object], object]
) -> None:
    before = snapshot_outside(base)
    with pytest.raises(InvalidPathError, match="invalid path"):
        operation(policy, user_path)
    assert snapshot_outside(base) == before


def test_empty_path_message(policy: PathPolicy) -> None:
    with pytest.raises(InvalidPathError) as info:
        policy.resolve("")
    assert str(info.value) == (
        "invalid path: empty path — give a path relative to the workspace, such as Notebook/chapter1.md"
    )


def test_longest_allowed_name_is_accepted(policy: PathPolicy) -> None:
    assert policy.resolve("n" * 255) == policy.root / ("n" * 255)


# ----------------------------------------------------------------- symlinks


@pytest.mark.parametrize("user_path", ["link_out", "link_out_dir/secret.txt", "chain1", "chain2"])
def test_reading_and_writing_through_a_link_to_outside_is_refused(
    policy: PathPolicy, base: Path, user_path: str
) -> None:
    before = snapshot_outside(base)
    with pytest.raises(PathEscapeError, match="symbolic link"):
        policy.resolve(user_path)
    with pytest.raises(PathEscapeError):
        policy.read_bytes(user_path)
    with pytest.raises(PathEscapeError):
        policy.replace_text(user_path, "pwned")
    with pytest.raises(PathEscapeError):
        policy.create_new(user_path, "pwned")
    assert snapshot_outside(base) == before
    assert (base / "outside" / "secret.txt").read_text() == SECRET


def test_listing_through_a_link_to_an_outside_folder_is_refused(policy: PathPolicy) -> None:
    with pytest.raises(PathEscapeError):
        policy.iter_directory("link_out_dir")


def test_writing_a_new_file_under_a_link_to_outside_creates_nothing(policy: PathPolicy, base: Path) -> None:
    before = snapshot_outside(base)
    for write in (policy.create_new, policy.replace_text):
        with pytest.raises(PathEscapeError):
            write("link_out_dir/new.md", "pwned")
        with pytest.raises(PathEscapeError):
            write("link_out_dir/deeper/new.md", "pwned")
    assert snapshot_outside(base) == before
    assert not (base / "outside" / "new.md").exists()


@pytest.mark.parametrize("user_path", ["loop_a", "loop_b/x.md", "Notebook/../loop_a/x"])
def test_symlink_loops_are_refused_cleanly(policy: PathPolicy, user_path: str) -> None:
    with pytest.raises(InvalidPathError, match="loop of symbolic links"):
        policy.resolve(user_path)
    with pytest.raises(InvalidPathError):
        policy.replace_text(user_path, "x")


def test_self_loop_is_refused(policy: PathPolicy) -> None:
    (policy.root / "me").symlink_to("me")
    with pytest.raises(InvalidPathError):
        policy.read_bytes("me")


def test_listing_skips_links_that_escape_or_loop(policy: PathPolicy) -> None:
    names = {entry.name for entry in policy.iter_directory(".")}
    assert names == {"Notebook", "sources", "overall_dashboard.md", "link_in", "link_in_dir"}
    entries = {entry.name: entry for entry in policy.iter_directory(".")}
    assert entries["link_in_dir"].is_dir and entries["link_in_dir"].is_symlink
    assert not entries["link_in"].is_dir and entries["link_in"].relative == "link_in"
    assert entries["Notebook"].is_dir and not entries["Notebook"].is_symlink
    # Notebook/chain3 leads outside: left out of the Notebook listing too.
    assert [entry.relative for entry in policy.iter_directory("Notebook")] == ["Notebook/ch1.md"]


def test_listing_a_file_or_a_missing_folder_is_refused(policy: PathPolicy) -> None:
    with pytest.raises(SandboxError, match="not a folder"):
        policy.iter_directory("Notebook/ch1.md")
    with pytest.raises(SandboxError, match="does not exist"):
        policy.iter_directory("Nowhere")


def test_replace_through_a_link_inside_writes_its_target(policy: PathPolicy) -> None:
    written = policy.replace_text("link_in", "rewritten\n")
    assert written == policy.root / "Notebook" / "ch1.md"
    assert (policy.root / "link_in").is_symlink()
    assert (policy.root / "Notebook" / "ch1.md").read_text() == "rewritten\n"


def test_absolute_link_to_inside_is_followed(policy: PathPolicy) -> None:
    (policy.root / "abs_in").symlink_to(policy.root / "Notebook" / "ch1.md")
    assert policy.read_bytes("abs_in") == b"chapter one\n"


# ----------------------------------------------------------------- races (TOCTOU)


def plant_after_check(monkeypatch: pytest.MonkeyPatch, method: str, plant: Callable[[Path], None]) -> None:
    """Run `plant(resolved)` right after the policy's check: the window an attacker would use."""
    original = getattr(PathPolicy, method)

    def checked_then_planted(self: PathPolicy, user_path: object) -> Path:
        resolved: Path = original(self, user_path)
        plant(resolved)
        return resolved

    monkeypatch.setattr(PathPolicy, method, checked_then_planted)


def test_create_new_fails_on_a_link_planted_after_the_check(
    policy: PathPolicy, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = base / "outside" / "secret.txt"
    plant_after_check(monkeypatch, "check_writable", lambda target: target.symlink_to(secret))
    before = snapshot_outside(base)
    with pytest.raises(SandboxError, match="already exists"):
        policy.create_new("Notebook/new.md", "pwned")
    assert secret.read_text() == SECRET
    assert snapshot_outside(base) == before


def test_create_new_fails_on_a_link_to_a_missing_outside_file_planted_after_the_check(
    policy: PathPolicy, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dangling = base / "outside" / "planted.md"
    plant_after_check(monkeypatch, "check_writable", lambda target: target.symlink_to(dangling))
    with pytest.raises(SandboxError):
        policy.create_new("Notebook/new.md", "pwned")
    assert not dangling.exists()


def test_create_new_fails_when_a_parent_folder_is_swapped_for_a_link(
    policy: PathPolicy, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def swap_parent(target: Path) -> None:
        target.parent.rename(policy.root / "moved")
        target.parent.symlink_to(base / "outside")

    plant_after_check(monkeypatch, "check_writable", swap_parent)
    before = snapshot_outside(base)
    with pytest.raises(SandboxError, match="symbolic link"):
        policy.create_new("Notebook/new.md", "pwned")
    assert snapshot_outside(base) == before


def test_replace_text_replaces_a_link_planted_after_the_check(
    policy: PathPolicy, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = base / "outside" / "secret.txt"

    def swap_for_link(target: Path) -> None:
        target.unlink()
        target.symlink_to(secret)

    plant_after_check(monkeypatch, "check_writable", swap_for_link)
    before = snapshot_outside(base)
    written = policy.replace_text("Notebook/ch1.md", "new text\n")
    assert secret.read_text() == SECRET
    assert snapshot_outside(base) == before
    assert not written.is_symlink()
    assert written.read_text() == "new text\n"


def test_read_bytes_refuses_a_link_planted_after_the_check(
    policy: PathPolicy, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def swap_for_link(target: Path) -> None:
        target.unlink()
        target.symlink_to(base / "outside" / "secret.txt")

    plant_after_check(monkeypatch, "resolve", swap_for_link)
    with pytest.raises(InvalidPathError, match="symbolic link"):
        policy.read_bytes("Notebook/ch1.md")


# ----------------------------------------------------------------- a symlinked parent folder


def test_workspace_reached_through_a_symlinked_parent_works(tmp_path: Path) -> None:
    (tmp_path / "real" / "ws" / "Notebook").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    policy = PathPolicy(tmp_path / "alias" / "ws")
    assert policy.root == tmp_path.resolve() / "real" / "ws"
    created = policy.create_new("Notebook/a.md", "alpha\n")
    assert created == policy.root / "Notebook" / "a.md"
    assert policy.read_bytes("Notebook/a.md") == b"alpha\n"
    policy.replace_text("Notebook/a.md", "beta\n")
    assert policy.read_bytes("Notebook/a.md") == b"beta\n"
    assert [entry.relative for entry in policy.iter_directory("Notebook")] == ["Notebook/a.md"]
    # An absolute link spelled through the alias is still inside.
    (policy.root / "via_alias").symlink_to(tmp_path / "alias" / "ws" / "Notebook" / "a.md")
    assert policy.read_bytes("via_alias") == b"beta\n"
    trashed = policy.move_to_trash("Notebook/a.md")
    assert policy.is_hidden(trashed)


# ----------------------------------------------------------------- read-only areas


@pytest.mark.parametrize(
    ("user_path", "message"),
    [
        ("overall_dashboard.md", f"overall_dashboard.md is read-only here: {DASHBOARD_REASON}"),
        ("sources/S1.md", "sources/S1.md is read-only here (inside sources/): sources/ is written by code"),
        ("sources/new.md", "inside sources/"),
        (".runtime/events.jsonl", "maintained by the runtime"),
        ("Notebook/../overall_dashboard.md", "overall_dashboard.md is read-only here"),
    ],
)
def test_read_only_areas_refuse_writes(policy: PathPolicy, user_path: str, message: str) -> None:
    with pytest.raises(ReadOnlyPathError, match=re.escape(message)):
        policy.check_writable(user_path)
    with pytest.raises(ReadOnlyPathError):
        policy.replace_text(user_path, "x")
    with pytest.raises(ReadOnlyPathError):
        policy.create_new(user_path, "x")
    assert policy.resolve(user_path)  # reading is fine


def test_read_only_file_reached_through_a_link_is_refused(policy: PathPolicy) -> None:
    (policy.root / "Notebook" / "dash").symlink_to("../overall_dashboard.md")
    with pytest.raises(ReadOnlyPathError, match=re.escape("overall_dashboard.md is read-only")):
        policy.replace_text("Notebook/dash", "x")
    assert (policy.root / "overall_dashboard.md").read_text() == "# Overall\n"


def test_read_only_as_a_plain_list_has_a_default_reason(base: Path) -> None:
    policy = PathPolicy(base / "ws", read_only=["sources"])
    with pytest.raises(ReadOnlyPathError, match=re.escape("sources/S1.md is read-only here")):
        policy.check_writable("sources/S1.md")
    assert policy.check_writable("sourcesX.md") == policy.root / "sourcesX.md"


# ----------------------------------------------------------------- file operations


def test_create_new_makes_parents_and_refuses_existing_files(policy: PathPolicy) -> None:
    created = policy.create_new("Notebook/part2/ch2.md", "two\n")
    assert created.read_text() == "two\n"
    with pytest.raises(SandboxError, match="already exists"):
        policy.create_new("Notebook/part2/ch2.md", "again")
    assert created.read_text() == "two\n"
    with pytest.raises(SandboxError, match="is a folder"):
        policy.create_new("Notebook", "x")
    with pytest.raises(SandboxError, match="is a folder"):
        policy.replace_text(".", "x")


def test_a_file_used_as_a_folder_is_refused(policy: PathPolicy) -> None:
    with pytest.raises(SandboxError, match="is a file, not a folder"):
        policy.create_new("Notebook/ch1.md/x.md", "x")
    with pytest.raises(SandboxError, match="is a file, not a folder"):
        policy.replace_text("Notebook/ch1.md/x.md", "x")


def test_read_bytes_limits_and_refusals(policy: PathPolicy) -> None:
    assert policy.read_bytes("Notebook/ch1.md", limit=7) == b"chapter"
    assert policy.read_bytes("Notebook/ch1.md") == b"chapter one\n"
    with pytest.raises(SandboxError, match="is a folder"):
        policy.read_bytes("Notebook")
    with pytest.raises(SandboxError, match="is a folder"):
        policy.read_bytes(".")
    with pytest.raises(SandboxError, match="does not exist"):
        policy.read_bytes("Notebook/missing.md")


def test_read_bytes_refuses_a_fifo_without_hanging(policy: PathPolicy) -> None:
    os.mkfifo(policy.root / "pipe")
    with pytest.raises(SandboxError, match="not a regular file"):
        policy.read_bytes("pipe")


def test_replace_text_creates_missing_folders(policy: PathPolicy) -> None:
    written = policy.replace_text("Notebook/new/deep/ch.md", "deep\n")
    assert written.read_text() == "deep\n"


# ----------------------------------------------------------------- trash


def test_move_to_trash_keeps_the_file_under_trash(policy: PathPolicy) -> None:
    trashed = policy.move_to_trash("Notebook/ch1.md")
    assert not (policy.root / "Notebook" / "ch1.md").exists()
    assert trashed.parent == policy.root / ".trash"
    assert trashed.name.endswith("-Notebook__ch1.md")
    assert trashed.read_text() == "chapter one\n"
    assert policy.is_hidden(trashed)
    assert policy.is_hidden(".trash/anything")
    assert not policy.is_hidden("Notebook/x.md")
    assert not policy.is_hidden(".trashy")
    assert ".trash" not in {entry.name for entry in policy.iter_directory(".")}
    assert [entry.path for entry in policy.iter_directory(".trash")] == [trashed]


def test_trashing_the_same_name_twice_keeps_both(policy: PathPolicy) -> None:
    first = policy.move_to_trash("Notebook/ch1.md")
    policy.create_new("Notebook/ch1.md", "second\n")
    second = policy.move_to_trash("Notebook/ch1.md")
    assert first != second
    assert first.read_text() == "chapter one\n"
    assert second.read_text() == "second\n"


def test_trashing_a_folder_moves_it_whole(policy: PathPolicy) -> None:
    trashed = policy.move_to_trash("Notebook")
    assert (trashed / "ch1.md").read_text() == "chapter one\n"
    assert not (policy.root / "Notebook").exists()


def test_trashing_a_link_to_outside_moves_only_the_link(policy: PathPolicy, base: Path) -> None:
    before = snapshot_outside(base)
    trashed = policy.move_to_trash("link_out_dir")
    assert trashed.is_symlink()
    assert not (policy.root / "link_out_dir").exists()
    assert snapshot_outside(base) == before


@pytest.mark.parametrize(
    ("user_path", "error", "message"),
    [
        (".", SandboxError, "workspace folder itself"),
        ("Notebook/..", SandboxError, "workspace folder itself"),
        ("overall_dashboard.md", ReadOnlyPathError, "read-only"),
        ("sources/S1.md", ReadOnlyPathError, "read-only"),
        ("sources", ReadOnlyPathError, "read-only"),
        ("Notebook/missing.md", SandboxError, "does not exist"),
        ("../ws2/x", PathEscapeError, "escapes"),
        ("link_out_dir/secret.txt", PathEscapeError, "escapes"),
    ],
)
def test_trash_refusals(
    policy: PathPolicy, base: Path, user_path: str, error: type[SandboxError], message: str
) -> None:
    before = snapshot_outside(base)
    with pytest.raises(error, match=message):
        policy.move_to_trash(user_path)
    assert snapshot_outside(base) == before


def test_trash_refuses_a_folder_holding_a_read_only_file(base: Path) -> None:
    policy = PathPolicy(base / "ws", read_only={"Notebook/keep.md": "kept by the runtime"})
    with pytest.raises(ReadOnlyPathError, match=re.escape("Notebook holds Notebook/keep.md")):
        policy.move_to_trash("Notebook")


def test_trash_refuses_what_is_already_in_the_trash(policy: PathPolicy) -> None:
    trashed = policy.move_to_trash("Notebook/ch1.md")
    with pytest.raises(SandboxError, match=re.escape("already in .trash")):
        policy.move_to_trash(policy.relative(trashed))


def test_trash_refuses_a_trash_that_is_a_link(policy: PathPolicy, base: Path) -> None:
    (policy.root / ".trash").symlink_to(base / "outside")
    before = snapshot_outside(base)
    with pytest.raises(SandboxError, match="symbolic link"):
        policy.move_to_trash("Notebook/ch1.md")
    assert snapshot_outside(base) == before
    assert (policy.root / "Notebook" / "ch1.md").exists()
