"""`deep-researcher batch`: N model-bound runs (one scripted endpoint on 127.0.0.1 that every run
shares, answering each call after a fixed delay), the real CLI and its child processes.

1. Local: --jobs 1, 4, 8. Wall time and the speed-up against --jobs 1 (goal: at least 0.8 x jobs,
   up to 8 jobs on a 2-core machine, since the runs wait on the model).
2. A local Dask cluster (`dask scheduler` + 2 `dask worker`, 4 threads each, on 127.0.0.1): the
   same batch, its overhead per task against the local --jobs 8; then a worker killed with -9
   while its runs work, and the time from its death to its runs' next model call elsewhere.

    python benchmarks/bench_batch.py [--runs 8] [--delay 2.0] [--steps 8]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.engine.run_record import read_events
from agent_runtime.testing import ScriptedEndpoint
from tests.support.batch_script import BatchScript, write_jsonl
from tests.support.cli import cli_env
from tests.support.cluster import Cluster, holder, parent, wait_for

FLAGS = ["--verify-citations", "lexical"]


def tasks(n: int, tag: str) -> list[dict[str, str]]:
    return [{"id": f"{tag}{i}", "title": f"Research topic {tag}{i}: storage"} for i in range(1, n + 1)]


def batch(folder: Path, name: str, n: int, args: argparse.Namespace, extra: list[str]) -> tuple[float, float]:
    """Wall seconds of one whole batch of `n` fresh runs, and the CPU seconds a run took (locally:
    the batch's children and theirs; on the cluster the workers' runs are not counted)."""
    before = _children_cpu()
    todo = tasks(n, name)
    out = folder / name
    script = BatchScript(out, {t["title"]: t["id"] for t in todo}, steps=args.steps, delay=args.delay)
    with ScriptedEndpoint(script) as server:
        query = write_jsonl(folder / f"{name}.jsonl", todo)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "agent_runtime.app.cli", "batch", str(query), "--out", str(out), *FLAGS, *extra],
            env=cli_env(server.url), capture_output=True, text=True,
        )  # fmt: skip
        seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"batch {name} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, (_children_cpu() - before) / n


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def failover(folder: Path, cluster: Cluster, args: argparse.Namespace) -> tuple[float, int]:
    """Seconds from a worker's kill -9 to the first model call of one of its runs elsewhere."""
    todo = tasks(4, "f")
    out = folder / "failover"
    script = BatchScript(out, {t["title"]: t["id"] for t in todo}, steps=6, delay=args.delay)
    doomed = cluster.worker(4)  # room on each for the other's runs: no wait for a free thread
    cluster.worker(4)
    wait_for(lambda: cluster.workers_seen() == 2, "two workers")
    with ScriptedEndpoint(script) as server:
        query = write_jsonl(folder / "failover.jsonl", todo)
        process = subprocess.Popen(
            [sys.executable, "-m", "agent_runtime.app.cli", "batch", str(query), "--out", str(out),
             "--scheduler", cluster.address, *FLAGS],
            env=cli_env(server.url), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        moved: list[str] = []

        def running_on_doomed() -> bool:
            moved[:] = [
                t["id"] for t in todo if (pid := holder(out / t["id"])) and parent(pid) == doomed.pid
            ]
            return len(moved) >= 1

        wait_for(running_on_doomed, "a run on the first worker", 120)
        killed = time.time()
        doomed.send_signal(signal.SIGKILL)
        process.wait(600)
    cluster.stop_workers()
    later = [
        e["t"] for task_id in moved for e in read_events(out / task_id / ".runtime" / "events.jsonl")
        if e.get("event") == "run_started" and e["t"] > killed
    ]  # fmt: skip
    if process.returncode != 0 or not later:
        raise SystemExit(f"failover batch ended with {process.returncode}, resumed runs: {len(later)}")
    return min(later) - killed, len(later)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--delay", type=float, default=2.0, help="seconds the model takes per call")
    parser.add_argument("--steps", type=int, default=8, help="dashboard updates before the report")
    args = parser.parse_args()
    calls = args.steps + 1
    print(
        f"{args.runs} runs of {calls} model calls, {args.delay:.1f}s each (model time per run {calls * args.delay:.1f}s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        measured = {
            jobs: batch(folder, f"j{jobs}-", args.runs, args, ["--jobs", str(jobs)]) for jobs in (1, 4, 8)
        }
        local = {jobs: wall for jobs, (wall, _) in measured.items()}
        print(f"{'mode':<26}{'wall s':>9}{'speed-up':>10}{'goal':>8}{'CPU s/run':>11}")
        for jobs, (seconds, cpu) in measured.items():
            goal = f"{0.8 * jobs:.1f}x" if jobs > 1 else ""
            row = f"{'local --jobs ' + str(jobs):<26}{seconds:>9.1f}{local[1] / seconds:>9.2f}x{goal:>8}"
            print(f"{row}{cpu:>11.2f}")
        print(
            f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: runs share the CPU with all else)"
        )
        cluster = Cluster(folder)
        try:
            cluster.worker(4)
            cluster.worker(4)
            wait_for(lambda: cluster.workers_seen() == 2, "two workers")
            dask, _ = batch(folder, "dask-", args.runs, args, ["--scheduler", cluster.address])
            cluster.stop_workers()
            overhead = (dask - local[8]) / args.runs
            print(f"{'dask, 2 workers x 4':<26}{dask:>9.1f}{local[1] / dask:>9.2f}x")
            print(
                f"Dask overhead per task against local --jobs 8: {overhead:+.2f}s ({dask:.1f}s vs {local[8]:.1f}s, {args.runs} tasks)"
            )
            gap, resumed = failover(folder, cluster, args)
            print(
                f"Worker killed with -9: its runs continued on the other worker after {gap:.2f}s ({resumed} resumed)"
            )
        finally:
            cluster.close()


if __name__ == "__main__":
    main()
