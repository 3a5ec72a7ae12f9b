"""The context guard's last resort on a long history: the time of `ContextGuard.fit` at 100, 1,000
and 5,000 messages against its floor, one estimate of the whole request (`ContextGuard.estimate`).
`fit` estimates each message once, and again only when it cuts it, so the ratio stays flat as the
history grows; the way it replaced (the whole request estimated again at every cut) grew with the
square of the messages: minutes at 5,000. That it returns the same request as that way did, byte
for byte, is held by tests/agent_runtime/engine/test_compression.py against stored outputs.

    python benchmarks/bench_scale_guard.py [--messages 100,1000,5000] [--over 1.5]

A history as a model that fails to summarize leaves it: a system prompt, the dashboards, then
steps of a tool call and its observation (most already pointers, some whole pages, some CJK),
`--over` times the hard limit, so that `fit` has to cut many of them. Both ways must return the
Times are CPU seconds of this process (`time.process_time`), the best of `--repeat` runs of each.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.context_guard import ContextGuard
from agent_runtime.engine.messages import Message, ToolSchema
from agent_runtime.engine.tokens import TokenEstimator

PAGE = "Solid-state electrolytes promise higher energy density and safety. "
CJK = "固体電解質はエネルギー密度と安全性を高める。"
TOOLS: list[ToolSchema] = [
    {"type": "function", "function": {"name": name, "description": f"{name}: " + "what it does. " * 30,
                                      "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}
    for name in ("web_search", "visit_url", "write_file", "update_current_dashboard")
]  # fmt: skip


def history(count: int, rng: random.Random) -> list[Message]:
    messages: list[Message] = [
        {"role": "system", "content": "You are a researcher. " * 400},
        {"role": "user", "content": "# Overall dashboard\n" + PAGE * 60},
    ]
    while len(messages) < count:
        step = len(messages)
        arguments = json.dumps({"q": f"solid-state electrolyte cost {step}"})
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{step}", "type": "function", "function": {"name": "web_search", "arguments": arguments}}
        ]})  # fmt: skip
        kind = rng.random()
        if kind < 0.6:  # compacted already
            content = f"[compacted: the web_search observation of step {step} (8,120 characters) was removed]"
        elif kind < 0.9:
            content = PAGE * rng.randint(10, 120)
        else:
            content = CJK * rng.randint(20, 200)
        messages.append({"role": "tool", "tool_call_id": f"c{step}", "content": content})
    return messages[:count]


def best_cpu_seconds(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", default="100,1000,5000", help="history lengths, comma-separated")
    parser.add_argument("--over", type=float, default=1.5, help="the request's size over the hard limit")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (the best is shown)")
    args = parser.parse_args()
    print(f"ContextGuard.fit, a request {args.over}x the hard limit; CPU seconds")
    print(f"{'messages':>9} {'cut':>6} {'estimate':>9} {'fit':>9} {'fit/estimate':>13}")
    with tempfile.TemporaryDirectory() as scratch:
        workspace = ResearchWorkspace(Path(scratch))
        for count in (int(n) for n in args.messages.split(",")):
            messages = history(count, random.Random(count))
            estimator = TokenEstimator()
            window = int(estimator.request(messages, TOOLS) / args.over)
            guard = ContextGuard(window, soft=0.6, hard=1.0, estimator=estimator, workspace=workspace)
            fitted = guard.fit(messages, TOOLS)
            assert guard.estimate(fitted, TOOLS) <= guard.hard_tokens, "the request does not fit"
            cut = sum(1 for before, after in zip(messages, fitted, strict=True) if before != after)
            floor = best_cpu_seconds(partial(guard.estimate, messages, TOOLS), args.repeat)
            fit = best_cpu_seconds(partial(guard.fit, messages, TOOLS), args.repeat)
            print(f"{count:>9,} {cut:>6,} {floor:>9.3f} {fit:>9.3f} {fit / max(floor, 1e-9):>12.1f}x")


if __name__ == "__main__":
    main()
