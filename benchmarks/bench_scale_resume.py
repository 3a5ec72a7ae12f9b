"""Resume on a long event log: the time and the peak memory of the resume note (the only part of a
resume that reads `.runtime/events.jsonl`) at 1, 50 and 200 MB of log.

Each measurement runs in a fresh child process and reports its CPU time (the figure to read on a
shared machine), its wall time, its peak RSS (`resource.getrusage(RUSAGE_SELF).ru_maxrss`) and
that peak's growth over the process after the imports of a resume (done in every case, so that
the peaks compare). Compared with the baseline: a bare streaming parse of the same file
(`json.loads` on each line, nothing kept), the floor for any reader of the log. (The note was once
built from the whole log read into a list, its peak growing with the log; that the streaming note
says the same, byte for byte, is held by tests/agent_runtime/app/test_kill_resume.py against
stored outputs.)

    python benchmarks/bench_scale_resume.py [--sizes 1,50,200] [--dir /tmp]

The logs are written to a temporary folder (under --dir) and deleted at the end. A log is several
runs of a research: the main agent's model calls and actions (some with long arguments: the
files it writes), research tasks with their own calls and actions, some never ended, compactions.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MB = 1_000_000
FINDINGS = "Cell costs fell 14 percent in 2025 [S3]; pack prices reached 115 dollars per kWh [S7]. "
NOTES = "# Costs\n\n## battery cell costs\n- Cell costs fell 14 percent in 2025 [S3].\n"


def event_stream(rng: random.Random) -> Any:
    """Events as a long research logs them, one run after another, forever."""
    step, task, run = 0, 0, 0
    clock = 1_767_225_600.0
    while True:
        run += 1
        yield {"event": "run_started", "title": "Solid-state batteries in 2026", "resumed": run > 1}
        for _ in range(rng.randint(2_000, 6_000)):
            step += 1
            clock += rng.uniform(1, 30)
            yield {"event": "model_call", "step": step, "agent": "main", "model": "qwen3-32b",
                   "prompt_tokens": rng.randint(8_000, 60_000), "completion_tokens": rng.randint(50, 2_000),
                   "seconds": round(rng.uniform(1, 40), 2), "calls": ["web_search"], "problems": [],
                   "t": round(clock, 3)}  # fmt: skip
            kind = rng.random()
            if kind < 0.1:
                content = FINDINGS * rng.randint(5, 60)  # a Notebook file the main agent writes
                yield {"event": "action", "step": step, "agent": "main", "action": "write_file",
                       "arguments": {"path": f"Notebook/notes/{step:05d}.md", "content": content},
                       "observation_chars": 120, "seconds": 0.01, "t": round(clock, 3)}  # fmt: skip
            elif kind < 0.15:
                task += 1
                agent = f"research-{task}"
                yield {"event": "agent_started", "step": step, "agent": agent, "task": task,
                       "question": f"What did battery cells cost in {2000 + task % 26}, by region?",
                       "notes_file": "Notebook/notes/costs.md", "depth": "standard"}  # fmt: skip
                for local in range(1, rng.randint(3, 12)):
                    yield {"event": "model_call", "step": step, "agent": agent, "local_step": local,
                           "prompt_tokens": rng.randint(3_000, 20_000), "completion_tokens": 300,
                           "calls": ["web_search"], "problems": []}  # fmt: skip
                    yield {"event": "action", "step": step, "agent": agent, "action": "web_search",
                           "arguments": {"query": f"battery cell cost {local} {task}"},
                           "observation_chars": rng.randint(2_000, 9_000)}  # fmt: skip
                if rng.random() < 0.9:
                    yield {"event": "agent_ended", "step": step, "agent": agent, "task": task,
                           "outcome": rng.choice(["finished", "finished", "max_steps", "interrupted"]),
                           "steps": 6, "reason": ""}  # fmt: skip
            elif kind < 0.17:
                yield {"event": "compaction", "step": step, "agent": "main", "how": "pointers",
                       "tokens_before": 70_000, "tokens_after": 20_000}  # fmt: skip
            else:
                query = f"solid-state electrolyte {rng.choice(['cost', 'safety', 'density'])} {step}"
                yield {"event": "action", "step": step, "agent": "main", "action": "web_search",
                       "arguments": {"query": query}, "observation_chars": rng.randint(1_000, 9_000),
                       "error": None if rng.random() < 0.95 else "the search engine did not answer",
                       "seconds": 1.2, "t": round(clock, 3)}  # fmt: skip


def make_workspace(root: Path, megabytes: int) -> Path:
    """A research workspace whose event log holds about `megabytes` MB; the last run is cut short
    by a kill, during a research task."""
    from agent_runtime.domain.layout import ResearchWorkspace

    space = ResearchWorkspace(root)
    space.create("Solid-state batteries in 2026", None)
    (space.root / "Notebook" / "notes").mkdir(parents=True, exist_ok=True)
    (space.root / "Notebook" / "notes" / "costs.md").write_text(NOTES, "utf-8")
    rng = random.Random(megabytes)
    with space.events_file.open("w", encoding="utf-8") as handle:
        written = 0
        for event in event_stream(rng):
            line = json.dumps(event, ensure_ascii=False) + "\n"
            handle.write(line)
            written += len(line)
            if written >= megabytes * MB and event["event"] == "agent_started":
                break  # killed during a research task: the note has one to tell
    return space.root


# ----------------------------------------------------------------- what a child process measures


def new_resume_note(root: Path) -> str:
    from agent_runtime.app.researcher import resume_note
    from agent_runtime.domain.layout import ResearchWorkspace
    from agent_runtime.engine.prompts import Prompts
    from agent_runtime.engine.run_record import RunMeta

    return resume_note(ResearchWorkspace(root), RunMeta(title="T", status="running"), Prompts())


def bare_parse(root: Path) -> str:
    """The floor: every line parsed, nothing kept."""
    count = 0
    with (root / ".runtime" / "events.jsonl").open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            json.loads(line)
            count += 1
    return f"{count} events"


CASES: dict[str, Callable[[Path], str]] = {
    "baseline": bare_parse,
    "new": new_resume_note,
}


def child(case: str, root: Path) -> None:
    """Run one case in this (fresh) process and print what it cost, as JSON."""
    # The imports a resume has done before it reads the log, in every case (the baseline's too, so
    # that the peaks compare): outside the measurement.
    import agent_runtime.app.researcher  # noqa: F401

    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started, cpu_started = time.perf_counter(), time.process_time()
    text = CASES[case](root)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_kib": peak, "floor_kib": floor, "text": text}))


def measure(case: str, root: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", case, str(root)], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,50,200", help="log sizes in MB, comma-separated")
    parser.add_argument("--dir", default=None, help="where the logs are written (a temporary folder in it)")
    parser.add_argument("--child", nargs=2, metavar=("CASE", "WORKSPACE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    cases = list(CASES)
    print("resume note on a long event log; each figure from a fresh process")
    print("  peak RSS: the process's high-water mark; growth: over the process after its imports")
    print(f"{'log':>8} {'case':<9} {'CPU s':>7} {'wall s':>7} {'peak RSS':>10} {'growth':>9}")
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        for megabytes in (int(size) for size in args.sizes.split(",")):
            root = make_workspace(Path(scratch) / f"ws{megabytes}", megabytes)
            size = (root / ".runtime" / "events.jsonl").stat().st_size / MB
            results = {case: measure(case, root) for case in cases}
            for case, result in results.items():
                peak, growth = result["peak_kib"] / 1024, (result["peak_kib"] - result["floor_kib"]) / 1024
                times = f"{result['cpu']:>7.2f} {result['seconds']:>7.2f}"
                print(f"{size:>6.0f}MB {case:<9} {times} {peak:>8.0f}MB {growth:>7.0f}MB")
            shutil.rmtree(root)  # the next log needs the room, not this one


if __name__ == "__main__":
    main()
