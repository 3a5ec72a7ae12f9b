"""The local batch stopped by SIGTERM (its runs stop resumably, exit 130), a run whose lock
another process holds (waited for, never run twice at once), and the progress bar on a terminal."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.engine.workspace import Workspace
from agent_runtime.testing import ScriptedEndpoint
from tests.support.batch_script import BatchScript, progress_writes, results, write_jsonl
from tests.support.cli import cli_env, run_cli

FLAGS = ["--verify-citations", "lexical"]


def _batch(query: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "agent_runtime.app.cli",
        "batch",
        str(query),
        "--out",
        str(out),
        *FLAGS,
        *extra,
    ]


def _tasks(n: int) -> list[dict[str, Any]]:
    return [{"id": f"s{i}", "title": f"Research topic {i}: offshore wind"} for i in range(1, n + 1)]


def _wait_for(check: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.slow
def test_sigterm_stops_the_runs_resumably_and_the_same_command_finishes(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = _tasks(3)
    out = tmp_path / "out"
    script = BatchScript(out, {t["title"]: t["id"] for t in tasks}, steps=4, delay=0.3)
    server = endpoint(script)
    query = write_jsonl(tmp_path / "t.jsonl", tasks)
    batch = subprocess.Popen(
        _batch(query, out, "--jobs", "2"),
        env=cli_env(server.url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _wait_for(lambda: sum(len(progress_writes(out / t["id"])) for t in tasks) >= 2, "the runs to get going")
    batch.send_signal(signal.SIGTERM)
    _, stderr = batch.communicate(timeout=120)

    assert batch.returncode == 130, stderr.decode()
    rows = results(out)
    assert rows["s3"]["status"] == "pending"  # --jobs 2: the third never started
    assert {rows["s1"]["status"], rows["s2"]["status"]} == {"interrupted"}
    assert b"Continue with: deep-researcher batch " in stderr and b"# the same command" in stderr

    again = run_cli(["batch", str(query), "--out", str(out), *FLAGS], cli_env(server.url), timeout=300)
    assert again.code == 0, again.stderr
    for task_id in ("s1", "s2"):
        assert progress_writes(out / task_id).count(1) == 1
    assert all(n == 1 for n in script.most_at_once.values())


@pytest.mark.slow
def test_a_run_another_process_holds_is_waited_for_then_resumed(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = _tasks(2)
    out = tmp_path / "out"
    script = BatchScript(out, {t["title"]: t["id"] for t in tasks}, steps=3)
    server = endpoint(script)
    query = write_jsonl(tmp_path / "t.jsonl", tasks)
    stopped = run_cli(
        ["batch", str(query), "--out", str(out), *FLAGS, "--max-steps", "1"], cli_env(server.url)
    )
    assert stopped.code == 3, stopped.stderr
    assert [row["status"] for row in results(out).values()] == ["stopped", "stopped"]
    assert "step" in results(out)["s1"]["error"]  # the run's own stop reason

    lock = Workspace(out / "s1").lock()  # as a run still working there would
    asked = script.requests["s1"]
    try:
        batch = subprocess.Popen(
            _batch(query, out, "--max-steps", "20"), env=cli_env(server.url),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_for(lambda: results(out)["s2"]["status"] == "finished", "the free run to finish")
        assert batch.poll() is None and script.requests["s1"] == asked  # s1 waits: no second process
        assert results(out)["s1"]["status"] == "stopped"
    finally:
        lock.release()
    assert batch.wait(120) == 0
    assert results(out)["s1"]["status"] == "finished" and script.requests["s1"] > asked


@pytest.mark.slow
def test_on_a_terminal_a_bar_shows_done_running_failed_cost_and_eta(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = _tasks(2)
    out = tmp_path / "out"
    server = endpoint(BatchScript(out, {t["title"]: t["id"] for t in tasks}, steps=2, delay=0.5))
    query = write_jsonl(tmp_path / "t.jsonl", tasks)
    leader, follower = pty.openpty()
    env = cli_env(
        server.url, DEEP_RESEARCHER_PRICE_INPUT="1", DEEP_RESEARCHER_PRICE_OUTPUT="2"
    )  # a cost to show
    batch = subprocess.Popen(
        _batch(query, out, "--jobs", "1"), env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=follower,
    )  # fmt: skip
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        assert ready, "no output"
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the batch ended
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert batch.wait(60) == 0
    text = seen.decode("utf-8", "replace")
    assert "\r" in text and "1/2 done · 1 running · 0 failed · $" in text and "ETA" in text, text
    assert "[1/2]" not in text  # no per-run lines on a terminal, only the bar
