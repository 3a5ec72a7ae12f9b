"""SIGKILL of the CLI process at several points: nothing written before is lost, no file is torn,
and `resume` finishes every time."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.researcher import resume_note
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.run_record import RunMeta
from agent_runtime.testing import ScriptedEndpoint
from tests.support.cli import cli_env, run_cli
from tests.support.expected import stored
from tests.support.kill_resume import LARGE, Gate, resume_env, script_for, start_cli, versioned
from tests.support.random_logs import resume_cases


def assert_whole(path: Path) -> int:
    """The file is one complete version (never a torn mix): returns its version number."""
    text = path.read_bytes().decode("utf-8")  # must decode: no half-written multibyte tail
    if (
        text.startswith("# Current dashboard")
        or text.startswith("# Solid")
        or "v" not in text.split("\n", 1)[0]
    ):
        return 0  # the template version
    head = re.match(r"# \w+ v(\d+)\n", text)
    assert head, text[:80]
    assert text.endswith(f"END v{head.group(1)}\n"), "torn dashboard"
    return int(head.group(1))


def check_workspace(ws: Path) -> None:
    for md in ws.rglob("*.md"):
        assert_whole(md) if md.name == "current_dashboard.md" else md.read_bytes().decode("utf-8")
    run_file = ws / ".runtime" / "run.json"
    if run_file.exists():
        json.loads(run_file.read_text())


def resume_to_the_end(ws: Path, url: str) -> None:
    result = run_cli(["resume", str(ws), "-q"], resume_env(url))
    assert result.code == 0, result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "finished" and meta["resumes"] == 1
    assert assert_whole(ws / "current_dashboard.md") == 3


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["before_first_dashboard_write", "after_a_dashboard_write"])
def test_kill_while_waiting_on_the_model(
    moment: str, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    block_at = 1 if moment == "before_first_dashboard_write" else 3  # request 3 follows the 2nd write
    gate = Gate(block_at)

    server = endpoint(script_for(ws, 3, gate))
    process = start_cli(ws, server.url)
    try:
        assert gate.reached.wait(60), "the CLI never reached the blocking request"
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        gate.release.set()
    check_workspace(ws)
    expected = 0 if block_at == 1 else 2
    assert assert_whole(ws / "current_dashboard.md") == expected  # nothing written before was lost
    resume_to_the_end(ws, server.url)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.05, 0.15, 0.3])
def test_kill_during_dashboard_writes(
    delay: float, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    """Large dashboards written back to back; the kill lands at an arbitrary moment, often mid-write."""
    ws = tmp_path / "ws"
    server = endpoint(script_for(ws, 3, lambda n: None))
    process = start_cli(ws, server.url)
    deadline = time.monotonic() + 60
    while not (ws / "current_dashboard.md").exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait(30)
    check_workspace(ws)
    run_file = ws / ".runtime" / "run.json"
    if run_file.exists() and json.loads(run_file.read_text())["status"] == "finished":
        return  # the whole run beat the kill on a fast machine
    resume_to_the_end(ws, server.url)


@pytest.mark.slow
def test_resume_without_run_metadata_needs_new_settings_and_takes_the_title_from_the_dashboard(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    gate = Gate(2)

    server = endpoint(script_for(ws, 3, gate))
    process = start_cli(ws, server.url)
    try:
        assert gate.reached.wait(60)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        gate.release.set()
    os.remove(ws / ".runtime" / "run.json")
    # a person edits the current dashboard before resuming: the agent works from the edited text
    (ws / "current_dashboard.md").write_text(versioned("Current", 2))
    # The run's settings are gone with run.json: never a silent fall-back to defaults.
    refused = run_cli(["resume", str(ws), "-q"], resume_env(server.url))
    assert (
        refused.code == 1 and "--new-settings" in refused.stderr and "settings of this run" in refused.stderr
    )
    assert len(server.requests) == 2
    result = run_cli(["resume", str(ws), "--new-settings", "-q"], resume_env(server.url))
    assert result.code == 0, result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["title"] == "Kill test" and meta["status"] == "finished"
    resumed = server.requests[2]["messages"]
    assert "# Current v2" in resumed[1]["content"]  # the edited dashboard
    assert "[resumed]" in resumed[2]["content"] and "update_current_dashboard" in resumed[2]["content"]
    assert meta["totals"]["steps"] == 2  # v3, then all_finished: the edit skipped a step


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_stops_resumably_with_exit_130(
    sig: signal.Signals, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    gate = Gate(2)

    server = endpoint(script_for(ws, 3, gate))
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Interrupted", "--workspace", str(ws)],
        env=cli_env(server.url, **LARGE), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert gate.reached.wait(60)
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=30)
    finally:
        gate.release.set()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and f"deep-researcher resume {ws}" in stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "interrupted" and meta["totals"]["steps"] == 1
    resume_to_the_end(ws, server.url)


# ----------------------------------------------------------------- the resume note from a long log


def test_the_resume_note_read_as_a_stream_is_the_note_read_from_the_whole_log(tmp_path: Path) -> None:
    """The note is built in one pass over the log, keeping only what it tells: the same text, byte
    for byte, as when the whole log was read into memory (stored in
    tests/data/expected/resume_notes.json from that old way's output)."""
    prompts = Prompts()
    expected = stored("resume_notes.json")
    tasks_told = 0
    cases = list(resume_cases(tmp_path))
    assert len(cases) == len(expected)
    for case, (ws, meta) in enumerate(cases):
        assert resume_note(ws, meta, prompts) == expected[case]["5"], case
        for last in (1, 3):
            assert resume_note(ws, meta, prompts, last=last) == expected[case][str(last)]
        tasks_told += "[research tasks]" in expected[case]["5"]
    assert 5 < tasks_told < 35  # notes with and without unfinished tasks were both compared


def test_the_resume_note_does_not_hold_the_log_in_memory(tmp_path: Path) -> None:
    """A log of many MB: the note's peak of Python memory stays a small fraction of it (the whole
    log in memory took several times its size)."""
    ws = ResearchWorkspace(tmp_path / "ws")
    ws.create("T", None)
    observation = "Pack prices reached 115 dollars per kWh. " * 50  # ~2 KB a line
    with ws.events_file.open("w", encoding="utf-8") as handle:
        for run in range(4):
            handle.write(json.dumps({"event": "run_started", "title": "T"}) + "\n")
            handle.write(json.dumps({"event": "agent_started", "agent": f"research-{run}", "task": run,
                                     "question": "costs", "notes_file": "Notebook/x.md"}) + "\n")  # fmt: skip
            for step in range(2_000):
                event = {"event": "action", "step": step, "agent": "main", "action": "visit_url",
                         "arguments": {"url": f"https://example.org/{step}"}, "observation": observation}  # fmt: skip
                handle.write(json.dumps(event) + "\n")
    size = ws.events_file.stat().st_size
    assert size > 15_000_000
    prompts = Prompts()
    meta = RunMeta(title="T", status="stopped")
    prompts.render("resume_note.j2", stopped="budget", last_actions=[])  # the template compiled before
    tracemalloc.start()
    try:
        note = resume_note(ws, meta, prompts)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "step 1999: visit_url(url='https://example.org/1999')" in note and "research-3" in note
    assert peak < size / 10
