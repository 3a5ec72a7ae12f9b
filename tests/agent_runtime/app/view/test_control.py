"""Stop and Resume from the page: Stop signals only the process that really holds the workspace's
lock; Resume starts `deep-researcher resume` detached and reports a start that fails."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view.control import run_started
from agent_runtime.app.view.events import EventTail
from agent_runtime.engine.workspace import Workspace
from tests.support.view import AUTH

# Holds a workspace as a run does (agent_runtime.engine.run_lock.RunLock) and ends like the CLI on Ctrl-C.
HOLDER = """
import sys, time
from pathlib import Path
from agent_runtime.app.view.control import run_started
from agent_runtime.app.view.events import EventTail
from agent_runtime.engine.workspace import Workspace
lock = Workspace(Path(sys.argv[1])).lock()
print("locked", flush=True)
try:
    time.sleep(60)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


@pytest.fixture
def holder(runs: Path) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(runs / "ssb")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "locked"
        yield process
    finally:
        process.kill()
        process.wait(10)


def test_stop_needs_a_running_run(client: TestClient) -> None:
    answer = client.post("/api/stop?ws=ssb", headers=AUTH)
    assert answer.status_code == 409 and answer.json()["error"] == "no run is working in this workspace"


@pytest.mark.slow
def test_stop_sends_sigint_to_the_process_holding_the_lock(
    client: TestClient, holder: subprocess.Popen[str]
) -> None:
    summary = client.get("/api/summary?ws=ssb", headers=AUTH).json()
    assert summary["status"] == "running" and summary["running"] and not summary["resumable"]
    answer = client.post("/api/stop?ws=ssb", headers=AUTH)
    assert answer.status_code == 200 and answer.json() == {"stopping": holder.pid}
    assert holder.wait(20) == 130
    assert holder.stdout is not None and holder.stdout.read().strip() == "interrupted"


@pytest.mark.slow
def test_stop_refuses_a_pid_in_the_lock_file_that_does_not_hold_the_lock(
    client: TestClient, runs: Path, holder: subprocess.Popen[str]
) -> None:
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (runs / "ssb" / ".runtime" / "lock").write_text(f"process {bystander.pid}")  # a stale pid
        answer = client.post("/api/stop?ws=ssb", headers=AUTH)
        assert answer.status_code == 409 and "cannot be identified" in answer.json()["error"]
        time.sleep(0.2)
        assert bystander.poll() is None and holder.poll() is None  # nobody was signalled
    finally:
        bystander.kill()
        bystander.wait(10)


def test_stop_never_signals_the_view_itself(client: TestClient, runs: Path) -> None:
    lock = Workspace(runs / "ssb").lock()  # this process holds it, and the lock file names it
    try:
        previous = signal.getsignal(signal.SIGINT)
        answer = client.post("/api/stop?ws=ssb", headers=AUTH)
        assert answer.status_code == 409
        assert signal.getsignal(signal.SIGINT) is previous
    finally:
        lock.release()


@pytest.mark.slow
def test_resume_refuses_a_running_or_finished_run_or_one_without_metadata(
    client: TestClient, runs: Path, holder: subprocess.Popen[str]
) -> None:
    answer = client.post("/api/resume?ws=ssb", headers=AUTH)
    assert answer.status_code == 409 and "already working" in answer.json()["error"]
    holder.kill()
    holder.wait(10)
    run_file = runs / "ssb" / ".runtime" / "run.json"
    run_file.write_text(run_file.read_text().replace('"stopped"', '"finished"'))
    assert "nothing to resume" in client.post("/api/resume?ws=ssb", headers=AUTH).json()["error"]
    run_file.unlink()
    answer = client.post("/api/resume?ws=ssb", headers=AUTH)
    assert answer.status_code == 409 and "--new-settings" in answer.json()["error"]


def test_a_resume_that_fails_at_once_says_why(
    client: TestClient, runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith(("OPENAI_", "DEEP_RESEARCHER_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    answer = client.post("/api/resume?ws=ssb", headers=AUTH)
    assert answer.status_code == 409, answer.text
    error = answer.json()["error"]
    assert error.startswith("the resumed run ended at once (exit 1): deep-researcher: error:"), error
    log = (runs / "ssb" / ".runtime" / "view-resume.log").read_text()
    assert "resume from the live view" in log and "127.0.0.1:9" in log


def test_resume_never_runs_python_code_from_the_views_folder(
    client: TestClient, runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cd WORKSPACE && deep-researcher view .`: a File agent can write agent_runtime/app/cli.py into the
    workspace, and `python -m` would import it from the current folder (sys.path[0]) before the
    installed package. The resumed run must be the installed one."""
    marker = runs.parent / "planted-code-ran"
    planted = runs / "ssb" / "agent_runtime"
    planted.mkdir()
    (planted / "__init__.py").write_text("")
    (planted / "cli.py").write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n")
    monkeypatch.chdir(runs / "ssb")
    for name in [n for n in os.environ if n.startswith(("OPENAI_", "DEEP_RESEARCHER_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # the real resume fails at once here
    answer = client.post("/api/resume?ws=ssb", headers=AUTH)
    assert not marker.exists(), "the resume ran the planted agent_runtime/app/cli.py"
    assert answer.status_code == 409 and "127.0.0.1:9" in answer.json()["error"] + (
        runs / "ssb" / ".runtime" / "view-resume.log"
    ).read_text()


def test_resume_sees_the_run_start_however_its_event_is_spelled(tmp_path: Path) -> None:
    """Resume waits for the resumed run's run_started event: found by reading the events, not by
    matching bytes that depend on how json.dumps spaced them."""
    log = tmp_path / "events.jsonl"
    log.write_text('{"event": "run_started"}\n')
    tail = EventTail(log, log.stat().st_size)  # what was there before the resume does not count
    assert not run_started(tail)
    with log.open("a") as handle:
        handle.write('{"time":"2026-01-01T00:00:00","event":"model_call"}\n{"event" :"run_started","resumes":1}\n')
    assert run_started(tail)
