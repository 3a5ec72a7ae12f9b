"""Benchmark of the File agent's actions on large inputs (a script, not a test):

- grep_files over a Notebook of 2,000 files / 50 MB (the target: under 1 s), median of 5 runs
  per pattern, through `ActionSet.run` as the File agent calls it;
- stream_read_file + continue_stream_read through a 100 MB file to its end, with the peak
  memory traced by tracemalloc (the target: bounded, independent of the file's size).

    python benchmarks/bench_files.py [--files 2000] [--megabytes 50] [--stream-megabytes 100]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from agent_runtime.config import load_settings
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.registry import ActionSet
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import EventLog, RunMeta
from agent_runtime.testing import ScriptedModel, reply

WORDS = str.split(
    "battery cathode anode lithium sodium solid electrolyte cost capacity cycle life density market "
    "supply chain manufacturing yield research pilot plant vehicle grid storage safety thermal runaway "
    "the of and in to a is for with on that by as from at this an be are which"
)
PATTERNS = [
    ("literal, rare", "thermal runaway in pilot 7"),
    ("literal, common", "solid electrolyte"),
    ("regex, citations", r"\[S\d{3,}\]"),
    ("ignore_case=True", "needs research"),
    ("anchored heading", r"^## Section \d+$"),
    ("no match", r"zeppelin\w+"),
]


def make_context(root: Path) -> tuple[ActionContext, ActionSet]:
    # Imported here: importing the actions package before agent_runtime is a circular import.
    from actions.files import file_actions

    workspace = ResearchWorkspace(root)
    workspace.create("Benchmark", None)
    ctx = ActionContext(
        workspace,
        load_settings({}, env={}),
        ScriptedModel(lambda messages, tools: reply()),
        EventLog(workspace.events_file),
        RunMeta(title="Benchmark"),
        Prompts(),
    )
    return ctx, ActionSet.of(file_actions())


def build_notebook(root: Path, files: int, megabytes: int) -> int:
    """`files` Markdown files in 40 folders, `megabytes` in all; returns the bytes written."""
    rng = random.Random(7)
    per_file = megabytes * 1_000_000 // files
    total = 0
    for index in range(files):
        lines, size, section = [f"# Chapter {index}\n"], 0, 0
        while size < per_file:
            if rng.random() < 0.05:
                section += 1
                line = f"## Section {section}\n"
            else:
                words = " ".join(rng.choice(WORDS) for _ in range(14))
                line = (
                    f"{words} [S{rng.randint(1, 2000)}]"
                    + (" [NEEDS RESEARCH]" if rng.random() < 0.01 else "")
                    + "\n"
                )
            lines.append(line)
            size += len(line)
        folder = root / "Notebook" / f"part{index % 40:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        data = "".join(lines)
        (folder / f"chapter{index:04d}.md").write_text(data)
        total += len(data)
    return total


async def bench_grep(ctx: ActionContext, actions: ActionSet) -> None:
    for label, pattern in PATTERNS:
        times, first_line = [], ""
        for _ in range(5):
            started = time.perf_counter()
            arguments = {
                "pattern": pattern,
                "directory": "Notebook",
                "ignore_case": label.startswith("ignore"),
            }
            observation = await actions.run(ctx, "grep_files", arguments)
            times.append(time.perf_counter() - started)
            assert not observation.error, observation.text
            first_line = observation.text.splitlines()[0]
        print(
            f"  grep_files {label:<18} {pattern!r:<32} median {statistics.median(times):.3f} s   {first_line[:90]}"
        )


async def stream_to_end(ctx: ActionContext, actions: ActionSet, path: str) -> tuple[int, int]:
    """Stream `path` to its end; (chunks, largest observation in characters)."""
    observation = await actions.run(ctx, "stream_read_file", {"file_path": path})
    match = re.search(r"stream (s\d+)", observation.text)
    assert match, observation.text
    chunks, largest = 1, len(observation.text)
    while "end of file" not in observation.text.splitlines()[-1]:
        observation = await actions.run(ctx, "continue_stream_read", {"stream_id": match.group(1)})
        assert not observation.error, observation.text
        chunks += 1
        largest = max(largest, len(observation.text))
    return chunks, largest


async def bench_stream(ctx: ActionContext, actions: ActionSet, megabytes: int) -> None:
    path = ctx.workspace.root / "Notebook" / "huge.txt"
    line = "a line of a very large file, to be read chunk by chunk without loading it whole\n"
    block = line * 10_000
    with path.open("w") as handle:
        for _ in range(megabytes * 1_000_000 // len(block)):
            handle.write(block)
    size = path.stat().st_size
    started = time.perf_counter()
    chunks, largest = await stream_to_end(ctx, actions, "Notebook/huge.txt")
    elapsed = time.perf_counter() - started
    tracemalloc.start()
    await stream_to_end(ctx, actions, "Notebook/huge.txt")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"  stream_read_file {size / 1e6:.0f} MB to the end: {chunks:,} chunks (largest observation "
        f"{largest:,} characters) in {elapsed:.1f} s; peak traced memory {peak / 1e6:.2f} MB"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--megabytes", type=int, default=50)
    parser.add_argument("--stream-megabytes", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-files-") as tmp:
        ctx, actions = make_context(Path(tmp) / "ws")
        started = time.perf_counter()
        total = build_notebook(ctx.workspace.root, args.files, args.megabytes)
        print(
            f"Notebook: {args.files:,} files, {total / 1e6:.1f} MB (built in {time.perf_counter() - started:.1f} s)"
        )
        await bench_grep(ctx, actions)
        await bench_stream(ctx, actions, args.stream_megabytes)


if __name__ == "__main__":
    asyncio.run(main())
