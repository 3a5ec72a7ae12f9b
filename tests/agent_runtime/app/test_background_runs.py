"""The one launcher of background runs (agent_runtime/app/background_runs.py), run for real: a title that
starts with a dash reaches the run as its title, the key goes by the environment only, a child
tied to its parent stops resumably when the parent is killed with SIGKILL, and a folder named
`agent_runtime` in the working folder (a workspace the agent wrote files into) is never imported."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.background_runs import environment, flag_arguments, launch, run_arguments
from agent_runtime.app.run_state import lock_state
from agent_runtime.testing import ScriptedEndpoint
from tests.support.batch_script import BatchScript, progress_writes
from tests.support.cli import cli_env
from tests.support.mcp_servers import alive

KEY = "sk-children-secret-77aa"


def wait_for(check: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_dash_title_and_purpose_reach_the_run_and_the_key_stays_off_its_command_line(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint], monkeypatch: Any
) -> None:
    workspace = tmp_path / "ws"
    server = endpoint(BatchScript(tmp_path, {"-draft: solid-state": "ws"}, steps=1))
    for name, value in cli_env(server.url, DEEP_RESEARCHER_VERIFY_CITATIONS="lexical").items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENAI_API_KEY")
    options = flag_arguments({"model": "-odd-model", "api_key": KEY, "max_steps": 20, "quiet": True})
    assert options == ["--model=-odd-model", "--max-steps=20"]  # the key and -q are not passed on
    with (tmp_path / "run.log").open("ab") as log:
        process = launch(
            run_arguments("-draft: solid-state", workspace, [*options, "-q"], purpose="-a memo"),
            env=environment(api_key=KEY), log=log, cwd=tmp_path,
        )  # fmt: skip
        assert KEY.encode() not in Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert f"OPENAI_API_KEY={KEY}".encode() in Path(f"/proc/{process.pid}/environ").read_bytes()
        assert process.wait(120) == 0, (tmp_path / "run.log").read_text()
    meta = json.loads((workspace / ".runtime" / "run.json").read_text())
    assert (meta["title"], meta["purpose"], meta["status"]) == ("-draft: solid-state", "-a memo", "finished")
    assert meta["settings"]["model"] == "-odd-model"


PARENT = """
import sys
from pathlib import Path
from agent_runtime.app.background_runs import environment, launch, run_arguments
log = open(sys.argv[2], "ab")
child = launch(run_arguments("Offshore wind in 2026", sys.argv[1], ["-q"]), env=environment(), log=log)
print(child.pid, flush=True)
child.wait()
"""


@pytest.mark.slow
def test_a_child_stops_resumably_when_its_parent_is_killed(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    workspace = tmp_path / "ws"
    server = endpoint(BatchScript(tmp_path, {"Offshore wind in 2026": "ws"}, steps=10_000, delay=0.2))
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(workspace), str(tmp_path / "run.log")],
        env=cli_env(server.url), stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert os.getsid(child) == child != os.getsid(parent.pid)  # a session of its own
        wait_for(lambda: len(progress_writes(workspace)) >= 2, "the run to get going")
        parent.kill()  # SIGKILL: the parent has no say in it
        parent.wait(10)
        wait_for(lambda: not alive(child), "the child to end with its parent", seconds=60)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
    assert not lock_state(workspace).held
    meta = json.loads((workspace / ".runtime" / "run.json").read_text())
    assert meta["status"] == "interrupted", (tmp_path / "run.log").read_text()


@pytest.mark.slow
def test_a_folder_named_agent_runtime_in_the_working_folder_is_not_imported(tmp_path: Path) -> None:
    planted = tmp_path / "agent_runtime"
    (planted / "app").mkdir(parents=True)
    marker = tmp_path / "imported"
    code = f"open({str(marker)!r}, 'w').write('planted code ran')\n"
    (planted / "__init__.py").write_text(textwrap.dedent(code))
    (planted / "app" / "__init__.py").write_text("")
    for tied in (True, False):
        with (tmp_path / "out.log").open("ab") as log:
            process = launch(["--version"], env=environment(), log=log, cwd=tmp_path, die_with_parent=tied)
            assert process.wait(60) == 0, (tmp_path / "out.log").read_text()
        assert not marker.exists()
    assert "deep-researcher" in (tmp_path / "out.log").read_text()


def test_stopping_runs_get_their_grace_and_one_that_ignores_the_stop_is_killed() -> None:
    from agent_runtime.app.background_runs import wait_or_kill

    quick = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    stubborn = subprocess.Popen(
        [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE,
    )
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    stubborn.terminate()  # ignored: only the kill after the grace ends it
    wait_or_kill([quick, stubborn], grace=1.0)
    assert quick.returncode == 0
    assert stubborn.returncode == -signal.SIGKILL
