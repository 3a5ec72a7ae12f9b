"""One run per workspace, a workspace that is complete or absent, a full disk, a crash, and the
workspace argument: what a second process, a kill at the first writes, a full disk and a bug did to
a run, through the real CLI where a process is involved."""

from __future__ import annotations

import asyncio
import errno
import json
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from actions.files.write import list_directory
from agent_runtime.config import load_settings
from agent_runtime.domain.layout import ResearchWorkspace, default_workspace
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import EventLog, RunMeta, load_meta, save_meta
from agent_runtime.testing import Reply, ScriptedEndpoint, ScriptedModel, call, reply
from tests.support.cli import cli_env, run_cli, write_cited_report
from tests.support.kill_resume import Gate, resume_env, script_for, start_cli


def finishing(workspace: Path) -> Callable[..., Reply]:
    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("all_finished", result="ok", report_path=write_cited_report(workspace)))

    return script


# -- 8. one run per workspace ------------------------------------------------------------------------
@pytest.mark.slow
def test_a_second_process_is_refused_while_a_run_works_and_a_killed_run_leaves_no_stuck_lock(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    gate = Gate(2)

    server = endpoint(script_for(ws, 3, gate))
    first = start_cli(ws, server.url)
    try:
        assert gate.reached.wait(60)
        second = run_cli(["resume", str(ws), "-q"], resume_env(server.url))
        assert second.code == 1
        assert "in use by a run still working" in second.stderr and f"process {first.pid}" in second.stderr
        again = run_cli(["run", "Other", "--workspace", str(ws), "-q"], resume_env(server.url))
        assert again.code == 1 and "already holds a research run" in again.stderr
        assert len(server.requests) == 2  # the second process never asked the model anything
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    finally:
        gate.release.set()
    # The kernel released the dead process's lock: resume works at once.
    resumed = run_cli(["resume", str(ws), "-q"], resume_env(server.url))
    assert resumed.code == 0, resumed.stderr
    assert json.loads((ws / ".runtime" / "run.json").read_text())["status"] == "finished"


# -- 9. complete or absent ------------------------------------------------------------------------
def killed_before_run_json(ws: Path) -> None:
    """What a creation killed before run.json leaves: skeleton folders and a writer's temp file."""
    for folder in ("Notebook", "sources", ".runtime/observations"):
        (ws / folder).mkdir(parents=True)
    (ws / ".overall_dashboard.md.k2j4h6g8.tmp").write_text("# half")


@pytest.mark.slow
def test_a_creation_killed_before_its_metadata_is_no_run_and_can_be_started_again(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    killed_before_run_json(ws)
    server = endpoint(finishing(ws))
    refused = run_cli(["resume", str(ws), "-q"], cli_env(server.url))
    assert refused.code == 1 and "holds no research run" in refused.stderr
    assert f"deep-researcher run TITLE --workspace {ws}" in refused.stderr
    started = run_cli(["run", "Again", "--workspace", str(ws), "-q"], cli_env(server.url))
    assert started.code == 0, started.stderr
    assert not (ws / ".overall_dashboard.md.k2j4h6g8.tmp").exists()


@pytest.mark.slow
def test_a_creation_killed_after_its_metadata_resumes_with_the_settings_the_user_chose(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "doc.md").write_text("# Private\n\nSodium cells are cheap.\n")
    ws = tmp_path / "ws"
    # The state a kill leaves between run.json (written first, with the settings) and the dashboards.
    (ws / ".runtime").mkdir(parents=True)
    save_meta(
        ws / ".runtime" / "run.json",
        RunMeta(title="Private", settings={"search": "local", "corpus": str(corpus)}),
    )
    (ws / ".runtime" / ".run.json.abcdefgh.tmp").write_text("{")
    searched: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query="sodium cells"))
        searched.append(observations[0])
        return reply(call("all_finished", result="ok", report_path=write_cited_report(ws)))

    server = endpoint(script)
    result = run_cli(["resume", str(ws), "-q"], cli_env(server.url))
    assert result.code == 0, result.stderr
    assert "(local)" in searched[0] and "corpus:doc.md" in searched[0]  # never a public engine
    assert (ws / "overall_dashboard.md").read_text().startswith("# Private")
    assert not (ws / ".runtime" / ".run.json.abcdefgh.tmp").exists()


@pytest.mark.slow
def test_temp_files_of_dead_writers_are_cleaned_and_never_listed(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    server = endpoint(lambda m, t: reply(call("update_current_dashboard", content="# Current\n")))
    first = run_cli(["run", "T", "--workspace", str(ws), "--max-steps", "1", "-q"], cli_env(server.url))
    assert first.code == 3
    leftovers = [ws / ".overall_dashboard.md.a1b2c3d4.tmp", ws / "Notebook" / ".01_x.md.zz_9y8x7.tmp",
                 ws / "sources" / ".ledger.json.q1w2e3r4.tmp", ws / ".runtime" / ".run.json.p0o9i8u7.tmp"]  # fmt: skip
    for path in leftovers:
        path.write_text("half")
    (ws / "Notebook" / "01_x.md").write_text("# Chapter\n")

    for folder in ("Notebook", "."):  # what the File agent's list_directory shows
        listing = asyncio.run(list_directory.run(file_agent_context(ws), {"directory_path": folder}))
        assert ".tmp" not in listing.text and not listing.error
    assert (
        "01_x.md"
        in asyncio.run(list_directory.run(file_agent_context(ws), {"directory_path": "Notebook"})).text
    )

    resumed = run_cli(["resume", str(ws), "--max-steps", "2", "-q"], cli_env(server.url))
    assert resumed.code == 3, resumed.stderr
    assert not any(path.exists() for path in leftovers)
    assert (ws / "Notebook" / "01_x.md").read_text() == "# Chapter\n"


def file_agent_context(ws: Path) -> ActionContext:
    meta = load_meta(ws / ".runtime" / "run.json")
    assert meta is not None
    model = ScriptedModel(lambda m, t: reply())
    events = EventLog(ws.parent / "test-events.jsonl")
    return ActionContext(ResearchWorkspace(ws), load_settings({}, env={}), model, events, meta, Prompts())


# -- 10. a full disk --------------------------------------------------------------------------------
@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs: a real file system that fills up (root only; skipped where mount is refused)."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount_point)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here ({done.stderr.decode().strip()}); the patched-write test covers it"
        )
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(disk: Path) -> None:
    with (disk / "filler.bin").open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


@pytest.mark.slow
def test_a_full_disk_stops_the_run_at_once_and_resume_continues_after_space_is_freed(
    tiny_disk: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tiny_disk / "ws"
    pages = iter(range(1000))

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if "[resumed]" in json.dumps(messages) or "v1" in json.dumps(messages):
            return reply(call("all_finished", result="ok", report_path=write_cited_report(ws)))
        if not (tiny_disk / "filler.bin").exists():
            return reply(call("update_current_dashboard", content=f"# Current {next(pages)}\n"))
        return reply(call("update_current_dashboard", content="# Current v1\n" + "x" * 200_000))

    server = endpoint(script)
    started = run_cli(["run", "Disk", "--workspace", str(ws), "--max-steps", "4", "-q"], cli_env(server.url))
    assert started.code == 3, started.stderr  # a first stretch, stopped by the step budget
    fill(tiny_disk)
    calls_before = len(server.requests)
    full = run_cli(["resume", str(ws), "-q"], cli_env(server.url))
    assert full.code == 1
    assert "Traceback" not in full.stderr
    assert f"cannot write in {ws}" in full.stderr and "no space left on the disk (ENOSPC)" in full.stderr
    assert "deep-researcher resume" in full.stderr
    assert len(server.requests) - calls_before <= 1  # stopped at once: no retries of a failing action
    assert (ws / "current_dashboard.md").read_text().startswith("# Current")  # nothing torn
    json.loads((ws / ".runtime" / "run.json").read_text())

    (tiny_disk / "filler.bin").unlink()
    resumed = run_cli(["resume", str(ws), "--max-steps", "10", "-q"], cli_env(server.url))
    assert resumed.code == 0, resumed.stderr


# -- 11. an unexpected exception ---------------------------------------------------------------------
@pytest.mark.slow
def test_a_crash_is_recorded_and_resumable_with_the_traceback_only_on_debug(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "nudge_no_action.j2").write_text("{{ 1 / 0 }}")  # a bug, met in the middle of the run
    ws = tmp_path / "ws"
    server = endpoint(lambda m, t: reply(content="I will think about it."))
    result = run_cli(
        ["run", "T", "--workspace", str(ws), "--prompts", str(prompts), "-q"], cli_env(server.url)
    )
    assert result.code == 1
    assert "Traceback" not in result.stderr
    assert "crashed: ZeroDivisionError" in result.stderr and "deep-researcher resume" in result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "error" and "crashed: ZeroDivisionError" in meta["stop_reason"]
    assert "ZeroDivisionError" in (ws / ".runtime" / "crash.log").read_text()

    debug = run_cli(["resume", str(ws), "--debug", "-q"], cli_env(server.url))
    assert debug.code == 1 and "Traceback (most recent call last)" in debug.stderr

    fixed = run_cli(["resume", str(ws), "-q"], cli_env(endpoint(finishing(ws)).url))
    assert fixed.code == 0, fixed.stderr


@pytest.mark.slow
def test_an_unexpected_error_before_the_run_shows_one_line_unless_debug(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "main_system.j2").write_text("{{ 1 / 0 }}")
    server = endpoint(finishing(tmp_path / "ws"))
    args = ["run", "T", "--workspace", str(tmp_path / "ws"), "--prompts", str(prompts), "-q"]
    plain = run_cli(args, cli_env(server.url))
    assert plain.code == 1 and "Traceback" not in plain.stderr
    assert "unexpected ZeroDivisionError" in plain.stderr and "--debug" in plain.stderr
    (tmp_path / "ws2").mkdir()
    debug = run_cli([*args[:3], str(tmp_path / "ws2"), *args[4:], "--debug"], cli_env(server.url))
    assert debug.code == 1 and "Traceback (most recent call last)" in debug.stderr


# -- 12. the workspace argument ---------------------------------------------------------------------
@pytest.mark.slow
def test_a_folder_of_the_users_own_files_is_never_adopted(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    mine = tmp_path / "my-documents"
    mine.mkdir()
    (mine / "thesis.md").write_text("my thesis")
    server = endpoint(finishing(mine))
    result = run_cli(["run", "T", "--workspace", str(mine), "-q"], cli_env(server.url))
    assert result.code == 1 and "is not empty" in result.stderr and "--corpus" in result.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["thesis.md"]
    assert server.requests == []


def test_default_workspace_names_are_readable_and_unique_in_any_script(tmp_path: Path) -> None:
    assert (
        default_workspace("Solid-state batteries in 2026", tmp_path).name == "solid-state-batteries-in-2026"
    )
    first = default_workspace("固态电池的产业化进展", tmp_path)
    assert first.name == "固态电池的产业化进展"
    ResearchWorkspace(first).create("固态电池的产业化进展", None)
    assert default_workspace("固态电池的产业化进展", tmp_path).name == "固态电池的产业化进展-2"
    assert default_workspace("Ελληνικά: μπαταρίες!", tmp_path).name == "ελληνικά-μπαταρίες"
    assert default_workspace("🔋⚡", tmp_path).name == "research"
    (tmp_path / "empty").mkdir()
    assert default_workspace("empty", tmp_path).name == "empty"  # an empty folder is fine


@pytest.mark.slow
def test_two_chinese_titles_get_two_workspaces_through_the_cli(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    server = endpoint(lambda m, t: reply(call("update_current_dashboard", content="# 当前\n")))
    for _ in range(2):
        result = run_cli(
            ["run", "固态电池的产业化进展", "--max-steps", "1", "-q"], cli_env(server.url), cwd=tmp_path
        )
        assert result.code == 3, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["固态电池的产业化进展", "固态电池的产业化进展-2"]
