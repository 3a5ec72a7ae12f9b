"""The context guard's last resort on a long history: the time of `ContextGuard.fit` at 100, 1,000
and 5,000 messages, the old way (the whole request estimated again at every cut; a copy kept
here) against the new (each message estimated once, and again only when it is cut).

    python benchmarks/bench_scale_guard.py [--messages 100,1000,5000] [--over 1.5]

A history as a model that fails to summarize leaves it: a system prompt, the dashboards, then
steps of a tool call and its observation (most already pointers, some whole pages, some CJK),
`--over` times the hard limit, so that `fit` has to cut many of them. Both ways must return the
same request (checked). Times are CPU seconds of this process (`time.process_time`), the best of
`--repeat` runs for the new way; the old way runs once (minutes at 5,000 messages).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
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


def old_fit(guard: ContextGuard, messages: list[Message], tools: Sequence[ToolSchema]) -> list[Message]:
    """`ContextGuard.fit` as it was: quadratic in the messages."""
    fitted = [dict(m) for m in messages]
    for _ in range(len(fitted) * 4):
        excess = guard.estimate(fitted, tools) - guard.hard_tokens
        if excess <= 0:
            return fitted
        index = max(
            range(len(fitted)),
            key=lambda i: len(str(fitted[i].get("content") or "")) if fitted[i]["role"] != "system" else -1,
        )
        text = str(fitted[index].get("content") or "")
        keep = max(0, len(text) - int(excess * 4.5) - 400)
        if keep >= len(text) or not text:
            break
        fitted[index]["content"] = (
            text[:keep] + f"\n\n[… {len(text) - keep:,} characters cut to fit the context window; "
            "the full text is in the workspace files]"
        )
    return fitted


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


Fit = Callable[[ContextGuard, list[Message], Sequence[ToolSchema]], list[Message]]


def cpu_seconds(fit: Fit, guard: ContextGuard, messages: list[Message]) -> tuple[float, list[Message]]:
    started = time.process_time()
    result = fit(guard, messages, TOOLS)
    return time.process_time() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", default="100,1000,5000", help="history lengths, comma-separated")
    parser.add_argument("--over", type=float, default=1.5, help="the request's size over the hard limit")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the new way (the best is shown)")
    args = parser.parse_args()
    print(f"ContextGuard.fit, a request {args.over}x the hard limit; CPU seconds")
    print(f"{'messages':>9} {'cut':>6} {'old':>9} {'new':>9} {'speed-up':>9}")
    with tempfile.TemporaryDirectory() as scratch:
        workspace = ResearchWorkspace(Path(scratch))
        for count in (int(n) for n in args.messages.split(",")):
            messages = history(count, random.Random(count))
            estimator = TokenEstimator()
            window = int(estimator.request(messages, TOOLS) / args.over)
            guard = ContextGuard(window, soft=0.6, hard=1.0, estimator=estimator, workspace=workspace)
            new_times = []
            for _ in range(args.repeat):
                seconds, new = cpu_seconds(ContextGuard.fit, guard, messages)
                new_times.append(seconds)
            old_seconds, old = cpu_seconds(old_fit, guard, messages)
            assert json.dumps(new, ensure_ascii=False) == json.dumps(old, ensure_ascii=False), "not the same"
            cut = sum(1 for before, after in zip(messages, new, strict=True) if before != after)
            best = min(new_times)
            print(f"{count:>9,} {cut:>6,} {old_seconds:>9.3f} {best:>9.3f} {old_seconds / best:>8.0f}x")


if __name__ == "__main__":
    main()
