"""Compression benchmark: a scripted 200-step research, in-process, with and without compression.

Each step reads about 8 KB (a page), every tenth step updates the current dashboard. Without
compression the whole history is replayed at every step, as most agent frameworks do.

Prints: peak and total prompt tokens of both runs and their ratios (targets: peak ≤ 25%,
total ≤ 20%), the runtime's overhead per step (time outside the model; target: median ≤ 2 ms),
and the share of each request that repeats the previous request's prefix (prompt-cache reuse).

    python benchmarks/bench_compression.py [--steps 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_runtime.app.researcher import Researcher
from agent_runtime.config import load_settings
from agent_runtime.engine.registry import action
from agent_runtime.testing import Reply, ScriptedModel, call, count_tokens, reply

PAGE = ("Solid-state electrolytes promise higher energy density and safety. " * 120)[:8000]


@action
async def read_page(number: int) -> str:
    """Read a page (a stand-in for visit_url).

    Args:
        number: the page number.
    """
    return f"Page {number}\n\n{PAGE}"


class TimedModel(ScriptedModel):
    """Records when each model call started and ended, to measure the time spent outside it."""

    def __init__(self, script: Any) -> None:
        super().__init__(script)
        self.spans: list[tuple[float, float]] = []

    async def complete(self, messages: Any, tools: Any, **options: Any) -> Any:
        started = time.perf_counter()
        raw = await super().complete(messages, tools, **options)
        self.spans.append((started, time.perf_counter()))
        return raw


def script_for(workspace: Path, steps: int) -> Any:
    count = {"n": 0}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        count["n"] += 1
        n = count["n"]
        if n > steps:
            (workspace / "report.md").write_text("# Report\n")
            return reply(call("all_finished", result="done", report_path="report.md"))
        if n % 10 == 0:
            findings = "\n".join(f"- finding {i} [S{i}]" for i in range(n // 10 * 3))
            return reply(call("update_current_dashboard", content=f"# Current\n\n## Findings\n{findings}\n"))
        return reply(call("read_page", number=n))

    return script


def common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    low, high = 0, limit
    while low < high:  # binary search on prefix equality: fast for long strings
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


async def one_run(steps: int, compression: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        settings = load_settings(
            {
                "compression": compression,
                "max_steps": steps + 5,
                "context_window": 64_000 if compression else 10_000_000,
            },
            env={},
        )
        model = TimedModel(script_for(workspace, steps))
        researcher = Researcher.start(
            "Benchmark", workspace=workspace, settings=settings, model=model, extra_actions=[read_page]
        )
        result = await researcher.run()
        assert result.status == "finished", result.reason
        sizes = [count_tokens(messages, tools) for messages, tools in model.requests]
        bodies = [json.dumps({"tools": tools, "messages": messages}) for messages, tools in model.requests]
        shares = [common_prefix(bodies[i - 1], bodies[i]) / len(bodies[i]) for i in range(1, len(bodies))]
        overheads = [model.spans[i][0] - model.spans[i - 1][1] for i in range(1, len(model.spans))]
        return {"sizes": sizes, "shares": shares, "overheads": overheads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    compressed = asyncio.run(one_run(args.steps, compression=True))
    replayed = asyncio.run(one_run(args.steps, compression=False))
    c, r = compressed["sizes"], replayed["sizes"]
    print(f"{args.steps}-step scripted research, ~8 KB observation a step, dashboard update every 10 steps")
    print(f"{'':28}{'compressed':>14}{'whole history':>16}{'ratio':>9}")
    print(f"{'peak prompt tokens':28}{max(c):>14,}{max(r):>16,}{max(c) / max(r):>9.1%}   (target <= 25%)")
    print(f"{'total prompt tokens':28}{sum(c):>14,}{sum(r):>16,}{sum(c) / sum(r):>9.1%}   (target <= 20%)")
    over = [o * 1000 for o in compressed["overheads"]]
    print(
        f"runtime overhead per step (outside the model), compressed run: median {statistics.median(over):.2f} ms, "
        f"p90 {statistics.quantiles(over, n=10)[-1]:.2f} ms, max {max(over):.2f} ms   (target: median <= 2 ms)"
    )
    for name, run in (("compressed", compressed), ("whole history", replayed)):
        shares = run["shares"]
        print(
            f"prefix repeated from the previous request, {name}: median {statistics.median(shares):.1%}, "
            f"mean {statistics.mean(shares):.1%}, min {min(shares):.1%}"
        )
    print(f"(python {sys.version.split()[0]}, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
