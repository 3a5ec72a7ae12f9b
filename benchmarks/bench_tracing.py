"""Traces cost a run nothing it would notice: the same scripted research (the real CLI, two parallel
searches, a visit, a chapter through the File agent, the citation judge, the report) with traces
off, sent to a collector that is up, one that is down (nothing listens), and one that is slow
(each export answered after `--slow` seconds, longer than the export timeout).

Prints each case's median wall time over `--repeat` runs and its ratio to the run without traces
(goal: up and down within noise of off, about 1.0; slow at most FLUSH_SECONDS more, since a run's
end waits that long at most for its last spans).

    python benchmarks/bench_tracing.py [--repeat 3] [--delay 0.2] [--slow 8]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.app.tracing import FLUSH_SECONDS
from agent_runtime.testing import Reply, ScriptedEndpoint
from tests.support.cli import run_cli
from tests.support.otlp_receiver import OtlpReceiver
from tests.support.traced_runs import TITLE, by_name, research_script, traced_env


def corpus(folder: Path) -> Path:
    root = folder / "corpus"
    root.mkdir()
    (root / "zorblat.md").write_text(
        "# Zorblat reactor\n\nThe Zorblat reactor in Ulm ran for 41 days without a stop.\n", "utf-8"
    )
    (root / "ulm.md").write_text("# Ulm\n\nUlm is a city on the Danube.\n", "utf-8")
    return root


def slowed(script: Callable[..., Reply], delay: float) -> Callable[..., Reply]:
    def answer(messages: list[dict[str, Any]], tools: Any) -> Reply:
        time.sleep(delay)  # a model takes a while: batches of spans leave while the run works
        return script(messages, tools)

    return answer


def one_run(folder: Path, collector: str | None, delay: float) -> float:
    workspace = folder / "ws"
    with ScriptedEndpoint(slowed(research_script(workspace), delay)) as endpoint:
        env = traced_env(endpoint, collector or "")
        if collector is None:
            del env["OTEL_EXPORTER_OTLP_ENDPOINT"]
        env.pop("OTEL_BSP_SCHEDULE_DELAY")  # the SDK's default: a batch every 5 s
        started = time.perf_counter()
        result = run_cli(
            ["run", TITLE, "--workspace", str(workspace), "--search", "local", "--corpus", str(corpus(folder)),
             "--max-steps", "10", "-q"], env, cwd=folder,
        )  # fmt: skip
        seconds = time.perf_counter() - started
    assert result.code == 0, result.stderr
    return seconds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the model takes per call")
    parser.add_argument("--slow", type=float, default=8.0, help="seconds the slow collector takes per export")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"off": [], "up": [], "down": [], "slow": []}
    received = 0
    for _ in range(args.repeat):
        for case in times:
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                if case in ("up", "slow"):
                    with OtlpReceiver(delay=args.slow if case == "slow" else 0.0) as receiver:
                        times[case].append(one_run(folder, receiver.url, args.delay))
                        if case == "up":
                            received = len(by_name(receiver.spans, ""))
                else:
                    down = f"http://127.0.0.1:{free_port()}" if case == "down" else None
                    times[case].append(one_run(folder, down, args.delay))
    base = statistics.median(times["off"])
    print(f"a scripted research through the real CLI, model {args.delay:g} s a call, median of {args.repeat}:")
    for case, values in times.items():
        median = statistics.median(values)
        spread = f"{min(values):.2f}-{max(values):.2f}"
        print(f"  traces {case:<5} {median:6.2f} s  (range {spread} s)  ratio to off {median / base:.2f}")
    print(f"  spans received from the last run with the collector up: {received}")
    print(f"  (a run's end waits at most {FLUSH_SECONDS:g} s for its spans; a collector that is down, not at all)")


if __name__ == "__main__":
    main()
