"""How long the CLI takes to answer: CPU seconds of `deep-researcher --help`, `--version` and
`inspect WS`, each in a fresh interpreter (median of N), and the heaviest imports of each by
`python -X importtime`. Target on the 2-core dev machine: under 0.4 s of CPU for `--help` and
`inspect`.

    python benchmarks/bench_cli_start.py [--runs 7]

CPU time (user + system of the child), not wall time, so that other work on a shared machine
changes the figures little. `python -c pass` is printed too: the interpreter's own floor.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.domain.layout import ResearchWorkspace


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def heaviest_imports(args: list[str], env: dict[str, str], top: int = 4) -> list[tuple[str, float]]:
    """Top-level packages by cumulative import time, from -X importtime."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent_runtime.app.cli", *args],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    totals: dict[str, float] = {}
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if match and len(match.group(2)) == 1:  # a module imported at the top level
            totals[match.group(3)] = totals.get(match.group(3), 0) + int(match.group(1)) / 1e6
    return sorted(totals.items(), key=lambda item: -item[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DEEP_RESEARCHER_"))}
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch) / "ws"
        ResearchWorkspace(workspace).create("Solid-state batteries", "a memo")
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "--help": [sys.executable, "-m", "agent_runtime.app.cli", "--help"],
            "--version": [sys.executable, "-m", "agent_runtime.app.cli", "--version"],
            "inspect WS": [sys.executable, "-m", "agent_runtime.app.cli", "inspect", str(workspace)],
        }
        print(f"CPU seconds, median of {runs} fresh processes")
        for name, argv in cases.items():
            times = [cpu_seconds(argv, env) for _ in range(runs)]
            print(
                f"  {name:<16} {statistics.median(times):.3f} s  (min {min(times):.3f}, max {max(times):.3f})"
            )
        for name in ("--help", "inspect WS"):
            args = cases[name][3:]
            heavy = ", ".join(
                f"{module} {seconds * 1000:.0f} ms" for module, seconds in heaviest_imports(args, env)
            )
            print(f"  heaviest imports of {name}: {heavy}")


if __name__ == "__main__":
    main()
