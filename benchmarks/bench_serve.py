"""`deep-researcher serve`: the time to the first byte of a streamed answer (goal: under a second
after the request), and the server's own cost per request against `deep-researcher run` of the same
scripted research (the demo research on a local corpus, against one scripted endpoint).

    python benchmarks/bench_serve.py [--runs 3]

Each request and each `run` is one research; they take turns, so that the figures compare
like with like on a shared machine. The overhead is the serve request's wall time minus the `run`
command's (both start the CLI in a fresh process: the child of serve is that same command).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.testing import ScriptedEndpoint, demo_script
from tests.support.cli import cli_env
from tests.support.served import Served, write_corpus

FLAGS = ["--search", "local", "--verify-citations", "lexical"]


def streamed(server: Served, title: str) -> tuple[float, float]:
    """(seconds to the first byte of the body, seconds to the end) of one streamed answer."""
    body = {"model": "deep-researcher", "stream": True, "messages": [{"role": "user", "content": title}]}
    started = time.perf_counter()
    first = 0.0
    with httpx.stream(
        "POST", f"{server.base_url}/chat/completions", json=body,
        headers={"Authorization": f"Bearer {server.key}"}, timeout=300,
    ) as response:  # fmt: skip
        for raw in response.iter_raw():
            if raw and not first:
                first = time.perf_counter() - started
    return first, time.perf_counter() - started


def direct(folder: Path, corpus: Path, url: str, title: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", title, "--workspace", str(folder / title.replace(" ", "-")),
         "--corpus", str(corpus), "-q", *FLAGS],
        env=cli_env(url), capture_output=True, check=True,
    )  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as scratch, ScriptedEndpoint(demo_script) as endpoint:
        root = Path(scratch)
        corpus = write_corpus(root / "corpus")
        server = Served(root / "served", endpoint.url, corpus)
        (root / "direct").mkdir()
        firsts, totals, plain = [], [], []
        try:
            for n in range(runs):  # in turn, so that a busier moment of the machine weighs on both
                first, total = streamed(server, f"Solar power efficiency {n}")
                firsts.append(first)
                totals.append(total)
                plain.append(direct(root / "direct", corpus, endpoint.url, f"Solar power efficiency {n}"))
        finally:
            server.stop()
    print(f"{runs} researches each way, in turn (the scripted demo research on a local corpus)")
    print(f"  time to first byte, streamed:  median {statistics.median(firsts) * 1000:.0f} ms, "
          f"max {max(firsts) * 1000:.0f} ms  (goal: under 1,000 ms)")  # fmt: skip
    print(f"  a whole streamed answer:       median {statistics.median(totals):.2f} s")
    print(f"  `deep-researcher run`:         median {statistics.median(plain):.2f} s")
    overhead = statistics.median(t - p for t, p in zip(totals, plain, strict=True))
    print(f"  serve's overhead per request:  median {overhead:+.2f} s of the pairs ({overhead / statistics.median(plain):+.0%} of a run)")


if __name__ == "__main__":
    main()
