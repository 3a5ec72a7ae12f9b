"""SIGKILL of the CLI process at several points: nothing written before is lost, no file is torn,
and `resume` finishes every time."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.conftest import cli_env, run_cli, write_cited_report

PAD = "filler line for a large dashboard\n" * 30_000  # ~1 MB: a write that takes a while
# A window and an output cap that let a 1 MB dashboard through one reply (the scripted endpoint cuts
# a reply at the cap, as real servers do).
LARGE = {"DEEP_RESEARCHER_CONTEXT_WINDOW": "4000000", "DEEP_RESEARCHER_MAX_OUTPUT_TOKENS": "500000"}


def versioned(kind: str, n: int) -> str:
    return f"# {kind} v{n}\n\n{PAD}\nEND v{n}\n"


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


@dataclass
class Gate:
    """Holds the scripted model at its `at`-th request (so a test can act on the CLI meanwhile)
    until `release` is set."""

    at: int
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, n: int) -> None:
        if n == self.at:
            self.reached.set()
            self.release.wait(30)


def script_for(workspace: Path, versions: int, gate: Callable[[int], None]) -> Callable[..., Reply]:
    """Writes `versions` large current dashboards, then the report; stateless across restarts:
    it reads its progress from the current dashboard the model is shown."""
    served = {"n": 0}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        served["n"] += 1
        gate(served["n"])
        shown = "\n".join(str(m.get("content")) for m in messages)
        found = re.findall(r"# Current v(\d+)\n", shown)
        done = int(found[-1]) if found else 0
        if done >= versions:
            return reply(call("all_finished", result="ok", report_path=write_cited_report(workspace)))
        return reply(call("update_current_dashboard", content=versioned("Current", done + 1)))

    return script


def start_cli(ws: Path, url: str) -> subprocess.Popen[bytes]:
    env = cli_env(url, **LARGE)
    return subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Kill test", "--workspace", str(ws), "-q"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def check_workspace(ws: Path) -> None:
    for md in ws.rglob("*.md"):
        assert_whole(md) if md.name == "current_dashboard.md" else md.read_bytes().decode("utf-8")
    run_file = ws / ".runtime" / "run.json"
    if run_file.exists():
        json.loads(run_file.read_text())


def resume_env(url: str) -> dict[str, str]:
    return cli_env(url, **LARGE)


def resume_to_the_end(ws: Path, url: str) -> None:
    result = run_cli(["resume", str(ws), "-q"], resume_env(url))
    assert result.code == 0, result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "finished" and meta["resumes"] == 1
    assert assert_whole(ws / "current_dashboard.md") == 3


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
