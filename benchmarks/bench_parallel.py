"""Parallel research: the same scripted research of 6 sub-questions, run with --parallel 1 and
--parallel 4, in-process with the real runtime, a local corpus and a model that takes 1 s a call.

The main agent hands the six sub-questions to research_task in one reply, then assembles the report from the six notes files (all_finished(chapters=…)). Each Research agent
searches, reads the two best results, writes its cited notes and finishes: four calls.

Prints wall time, model calls and tokens for both (and --parallel 6, one slot per sub-question, for
reference). Target: wall time with 4 at most 0.4x the sequential one, at equal model calls (within
5%). With 4 slots the six tasks take two rounds: (2 + 2x4) / (2 + 6x4) calls' time, 0.38, is the floor.

    python benchmarks/bench_parallel.py [--latency 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.app.researcher import Researcher
from agent_runtime.config import load_settings
from agent_runtime.engine.messages import Message
from agent_runtime.testing import Reply, ScriptedModel, call, reply

RESEARCH = "You are a Research agent"
TOPICS = {
    "costs": ("Battery cell costs", "Cell costs fell 14 percent in 2025 as factories scaled up."),
    "sodium": ("Sodium-ion cells", "Sodium-ion cells avoid lithium and cobalt and suit stationary storage."),
    "grid": ("Grid storage", "Grid storage batteries were the fastest-growing market in 2025."),
    "solid": ("Solid-state cells", "Solid-state pilot lines produced their first automotive samples in 2025."),
    "recycling": ("Battery recycling", "Recycling recovered 95 percent of the cobalt in spent cells."),
    "supply": ("Lithium supply", "Lithium carbonate prices fell by half between 2023 and 2025."),
}


def write_corpus(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for key, (title, fact) in TOPICS.items():
        filler = " ".join(f"{title} detail {n}: {fact}" for n in range(12))
        (root / f"{key}.md").write_text(f"# {title}\n\n{fact}\n\n{filler}\n", "utf-8")
        (root / f"{key}-outlook.md").write_text(f"# {title}: outlook\n\n{fact} Analysts expect more.\n", "utf-8")


def _turns(messages: list[Message]) -> int:
    return sum(1 for m in messages if m["role"] == "assistant")


def _research(messages: list[Message]) -> Reply:
    brief = str(messages[1]["content"])
    question = re.search(r"Research question: (.*)", brief).group(1)  # type: ignore[union-attr]
    tool_texts = [str(m["content"]) for m in messages if m["role"] == "tool"]
    step = _turns(messages)
    if step == 0:
        return reply(call("web_search", query=question, max_results=3))
    found = re.findall(r"\[(S\d+)\] [^\n]*? — (corpus:\S+)", tool_texts[0])[:2]
    if step == 1:
        return reply(call("visit_url", url=[url for _, url in found], goal=question))
    if step == 2:
        ids = "][".join(sid for sid, _ in found)
        fact = next(fact for title, fact in TOPICS.values() if title == question)
        return reply(call("write_notes", content=f"## {question}\n\n{fact} [{ids}]\n"))
    return reply(call("finish", answer=f"{question}: see the notes."))


def script(latency: float) -> Any:
    async def answer(messages: list[Message], tools: Any) -> Reply:
        await asyncio.sleep(latency)  # the model's time for one call
        if str(messages[0]["content"]).startswith(RESEARCH):
            return _research(messages)
        done = [str(m["content"]) for m in messages if m["role"] == "tool"]
        if not done:
            return reply(
                *[
                    call("research_task", question=title, notes_file=f"Notebook/{n:02d}_{key}.md")
                    for n, (key, (title, _)) in enumerate(TOPICS.items(), start=1)
                ]
            )
        chapters = [f"Notebook/{n:02d}_{key}.md" for n, key in enumerate(TOPICS, start=1)]
        return reply(call("all_finished", result="The six sub-questions are answered.", chapters=chapters))

    return answer


async def one_run(parallel: int, latency: float, root: Path) -> dict[str, Any]:
    corpus = root / "corpus"
    write_corpus(corpus)
    settings = load_settings(
        {"search": "local", "corpus": corpus, "parallel": parallel, "model": "scripted"}, env={}
    )
    model = ScriptedModel(script(latency))
    started = time.perf_counter()
    result = await Researcher.start(
        "Batteries in 2025", purpose="a benchmark", workspace=root / f"ws-{parallel}", settings=settings,
        model=model,
    ).run()  # fmt: skip
    wall = time.perf_counter() - started
    assert result.status == "finished", (result.status, result.reason)
    totals = result.totals
    return {
        "wall": wall,
        "calls": totals.model_calls,
        "tokens": totals.prompt_tokens + totals.completion_tokens,
        "requests": len(model.requests),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    latency = parser.parse_args().latency
    with tempfile.TemporaryDirectory() as folder:
        runs = {n: asyncio.run(one_run(n, latency, Path(folder) / f"p{n}")) for n in (1, 4, 6)}
    print(f"6 sub-questions, {latency:.1f} s per model call")
    print(f"{'':12} {'wall':>8} {'model calls':>12} {'tokens':>9}")
    for n, run in runs.items():
        print(f"--parallel {n} {run['wall']:7.1f}s {run['calls']:>12} {run['tokens']:>9,}")
    ratio = runs[4]["wall"] / runs[1]["wall"]
    calls = runs[4]["calls"] / runs[1]["calls"]
    print(f"wall time ratio 4/1: {ratio:.2f} (target ≤ 0.40); model calls ratio: {calls:.2f} (target 1 ± 0.05)")


if __name__ == "__main__":
    main()
