"""`deep-researcher batch --scheduler`: real `dask scheduler` and `dask worker` processes on
127.0.0.1 (the venv's own commands), the real CLI, one loopback scripted endpoint."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import ScriptedEndpoint
from tests.support.batch_script import BatchScript, progress_writes, results, write_jsonl
from tests.support.cli import cli_env, run_cli
from tests.support.cluster import Cluster, holder, parent, wait_for

pytest.importorskip("distributed")
FLAGS = ["--verify-citations", "lexical"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = Cluster(tmp_path_factory.mktemp("dask"))
    yield running
    running.close()


@pytest.mark.slow
def test_a_batch_on_the_cluster_survives_a_worker_killed_mid_run(
    cluster: Cluster, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = [
        {"id": f"t{i}", "title": f"Research topic {i}: heat pumps", "language": "en"} for i in range(1, 5)
    ]
    tasks[3] = {"id": "t4", "title": "研究课题 4：热泵的市场前景", "language": "zh"}
    out = tmp_path / "shared"  # the "shared filesystem": one folder every worker sees
    script = BatchScript(out, {str(t["title"]): str(t["id"]) for t in tasks}, steps=4, delay=0.4)
    server = endpoint(script)
    doomed, survivor = cluster.worker(), cluster.worker()
    wait_for(lambda: cluster.workers_seen() == 2, "two workers")
    query = write_jsonl(tmp_path / "tasks.jsonl", tasks)
    batch = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "batch", str(query), "--out", str(out),
         "--scheduler", cluster.address, *FLAGS],
        env=cli_env(server.url), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        on_doomed: list[str] = []

        def a_run_of_the_doomed_worker_got_going() -> bool:
            on_doomed[:] = [
                str(t["id"]) for t in tasks
                if (pid := holder(out / str(t["id"]))) and parent(pid) == doomed.pid
                and len(progress_writes(out / str(t["id"]))) >= 1
            ]  # fmt: skip
            return bool(on_doomed)

        wait_for(a_run_of_the_doomed_worker_got_going, "a run on the first worker", 120)
        doomed.send_signal(signal.SIGKILL)
        stdout, stderr = batch.communicate(timeout=300)
    finally:
        if batch.poll() is None:
            batch.kill()
        cluster.stop_workers()

    assert batch.returncode == 0, stderr.decode()
    rows = results(out)
    assert [rows[str(t["id"])]["status"] for t in tasks] == ["finished"] * 4
    assert rows["t4"]["words"] > 0 and (out / "t4" / "report.md").is_file()
    for task_id in on_doomed:  # resumed on the other worker where it was
        writes = progress_writes(out / task_id)
        assert writes.count(1) == 1 and sorted(set(writes)) == [1, 2, 3, 4], writes
        assert json.loads((out / task_id / ".runtime" / "run.json").read_text())["resumes"] >= 1
    assert all(n == 1 for n in script.most_at_once.values()), script.most_at_once  # never two at once
    assert b"test-key" not in stdout + stderr and survivor.pid


@pytest.mark.slow
def test_the_same_batch_again_on_the_cluster_redoes_nothing(
    cluster: Cluster, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = [{"id": f"r{i}", "title": f"Research topic {i}: district heating"} for i in range(1, 4)]
    out = tmp_path / "shared"
    script = BatchScript(out, {str(t["title"]): str(t["id"]) for t in tasks}, steps=1)
    server = endpoint(script)
    cluster.worker()
    wait_for(lambda: cluster.workers_seen() == 1, "a worker")
    command = [
        "batch",
        str(write_jsonl(tmp_path / "t.jsonl", tasks)),
        "--out",
        str(out),
        "--scheduler",
        cluster.address,
        *FLAGS,
    ]
    try:
        first = run_cli(command, cli_env(server.url), timeout=300)
        assert first.code == 0, first.stderr
        asked = sum(script.requests.values())
        again = run_cli(command, cli_env(server.url), timeout=300)
    finally:
        cluster.stop_workers()
    assert again.code == 0, again.stderr
    assert sum(script.requests.values()) == asked
    assert [row["status"] for row in results(out).values()] == ["finished"] * 3


@pytest.mark.slow
def test_an_unreachable_scheduler_is_named_at_once(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and nothing listens once closed
    address = f"tcp://127.0.0.1:{port}"
    good = write_jsonl(tmp_path / "t.jsonl", [{"title": "a"}])
    result = run_cli(
        ["batch", str(good), "--out", str(tmp_path / "out"), "--scheduler", address],
        cli_env("http://127.0.0.1:9/v1"),
        timeout=60,
    )
    assert result.code == 1 and f"cannot reach the Dask scheduler at {address}" in result.stderr, (
        result.stderr
    )
    assert "Traceback" not in result.stderr
    assert os.path.exists(tmp_path / "out") is True  # the folder is checked first; no run in it
    assert not (tmp_path / "out" / "a").exists()
