"""Saving the source ledger at scale: bytes written and CPU time per new source when the ledger
already holds 100, 300, 3,000 and 10,000 sources, the old way (the whole `ledger.json` rewritten,
with its fsyncs, on every save) against the journal (one appended line and one fsync per save, the
whole file rewritten only when the journal has outgrown it), measured in the same run.

The work is what a research step does to the ledger: one search adds 20 new sources (one save, a
batch), then two of them are visited (one save each). Each record is shaped as a real one: a URL of
~70 characters, a title, a search snippet of ~250 characters; a visited one gains a snapshot path,
a final URL and a hash.

- old ("rewrite"): a window of 200 new sources from N; every save costs about the same there, so a
  short window is exact.
- new ("journal"): from N (just compacted) until the journal has been folded into ledger.json
  again: one whole compaction cycle, its rewrite included, so that the compaction is paid for in
  full, neither left out of the window nor counted twice. The window grows with N (a compaction
  comes once the journal has outgrown ledger.json); the cost per source does not.

Bytes are those handed to write(2) (`wchar` of /proc/self/io: deterministic); CPU is the process's
(time.process_time: JSON encoding, copying, the system calls' own CPU); wall time adds the wait for
the disk (fsync), and varies with the machine's load. "slowest step": the wall time of the
slowest research step in the window (for the journal, the one whose save compacted: that rewrite
still grows with the ledger, but comes once per cycle, not once per save).

    python benchmarks/bench_scale_ledger.py [--sizes 100,300,3000,10000] [--window 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.domain.sources.journal import JOURNAL_FILE
from agent_runtime.domain.sources.ledger import Ledger
from sandbox import atomic_write_text

SNIPPET = (
    "Solid-state cells reached 400 Wh/kg in pilot lines this year, according to the manufacturer's "
    "report; costs remain above those of LFP packs, and volume production is planned for 2027 at the "
    "earliest, with sulfide electrolytes the most advanced of the three families."
)


class RewriteLedger(Ledger):
    """The ledger as it saved before the journal: `ledger.json` rewritten whole (temp file, fsync,
    rename, fsync of the folder) on every save, exactly as the old `Ledger.save` did."""

    def _flush(self) -> None:
        if not self._pending:
            return
        self._pending.clear()
        data = {"format": 1, "next_id": self._next, "sources": [r.to_json() for r in self.records()]}
        self.sources_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def url(n: int) -> str:
    return f"https://www.example-research-site.org/articles/2026/solid-state-batteries-{n}?page=1"


def build(cls: type[Ledger], sources: Path, size: int) -> Ledger:
    """A ledger of `size` sources, one in ten visited, saved once (ledger.json whole)."""
    ledger = cls(sources)
    with ledger.batch():
        for n in range(1, size + 1):
            ledger.register(url(n), f"Solid-state batteries, part {n}: costs and outlook", snippet=SNIPPET)
        for n in range(1, size + 1, 10):
            visit(ledger, n)
    if isinstance(ledger, RewriteLedger):
        return ledger
    ledger.save()  # the journal version: ledger.json whole, the journal empty
    return ledger


def visit(ledger: Ledger, n: int) -> None:
    record = ledger.lookup(url(n))
    assert record is not None
    ledger.mark_fetched(
        record.id,
        final_url=url(n).replace("?page=1", ""),
        title=f"Solid-state batteries, part {n}",
        content_type="text/html",
        sha256="9f" * 32,
        snapshot=f"sources/{record.id}.md",
    )


def step(ledger: Ledger, first: int) -> None:
    """One research step: a search adding 20 new sources (one save), two of them visited."""
    with ledger.batch():
        for n in range(first, first + 20):
            ledger.register(url(n), f"Solid-state batteries, part {n}: costs and outlook", snippet=SNIPPET)
    visit(ledger, first)
    visit(ledger, first + 1)


def bytes_written() -> int | None:
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return None
    return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("wchar:"))


@dataclass
class Cost:
    sources: int  # new sources added in the window
    saves: int
    bytes: int | None
    cpu: float
    wall: float
    slowest: float  # wall seconds of the slowest step (a compaction's, for the journal)

    def per_source(self) -> tuple[float | None, float, float]:
        n = self.sources
        return (None if self.bytes is None else self.bytes / n), self.cpu / n, self.wall / n


def measure(ledger: Ledger, size: int, done: Callable[[Ledger, int], bool]) -> Cost:
    """Research steps from `size` sources until `done(ledger, added)` says the window is over."""
    bytes_before, cpu_before, wall_before = bytes_written(), time.process_time(), time.perf_counter()
    first, slowest = size + 1, 0.0
    while not done(ledger, first - size - 1):
        started = time.perf_counter()
        step(ledger, first)
        slowest = max(slowest, time.perf_counter() - started)
        first += 20
    after = bytes_written()
    added = first - size - 1
    return Cost(
        sources=added,
        saves=added // 20 * 3,
        bytes=None if after is None or bytes_before is None else after - bytes_before,
        cpu=time.process_time() - cpu_before,
        wall=time.perf_counter() - wall_before,
        slowest=slowest,
    )


def rewrite_cost(folder: Path, size: int, window: int) -> Cost:
    ledger = build(RewriteLedger, folder / "sources", size)
    return measure(ledger, size, lambda _ledger, added: added >= window)


def journal_cost(folder: Path, size: int) -> Cost:
    """One whole cycle: from a just-compacted ledger, appends until the journal is folded into
    ledger.json again (its size drops), that compaction included."""
    ledger = build(Ledger, folder / "sources", size)
    journal = folder / "sources" / JOURNAL_FILE
    sizes = [0]

    def done(_ledger: Ledger, _added: int) -> bool:
        current = journal.stat().st_size if journal.exists() else 0
        sizes.append(current)
        return current < sizes[-2]

    return measure(ledger, size, done)


def row(size: int, name: str, cost: Cost) -> str:
    per_bytes, per_cpu, per_wall = cost.per_source()
    shown = "n/a" if per_bytes is None else f"{per_bytes:,.0f}"
    return (
        f"{size:>8,}  {name:<8} {cost.sources:>7,} {cost.saves:>6,}  {shown:>14}  "
        f"{per_cpu * 1000:>10.3f}  {per_wall * 1000:>11.3f}  {cost.slowest * 1000:>10.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,300,3000,10000")
    parser.add_argument("--window", type=int, default=200, help="new sources measured the old way")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("Per new source; a step = 20 new sources in one save + 2 visits (one save each).")
    print(f"{'ledger':>8}  {'approach':<8} {'window':>7} {'saves':>6}  {'bytes/source':>14}  "
          f"{'CPU ms/src':>10}  {'wall ms/src':>11}  {'slowest step ms':>10}")  # fmt: skip
    ratios: list[str] = []
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-ledger-") as scratch:
            old = rewrite_cost(Path(scratch) / "old", size, args.window)
            new = journal_cost(Path(scratch) / "new", size)
        print(row(size, "rewrite", old))
        print(row(size, "journal", new))
        old_bytes, old_cpu, _ = old.per_source()
        new_bytes, new_cpu, _ = new.per_source()
        if old_bytes is not None and new_bytes is not None:
            ratios.append(
                f"{size:,}: {old_bytes / new_bytes:.1f}x fewer bytes, {old_cpu / new_cpu:.1f}x less CPU"
            )
    print("\njournal against rewrite: " + "; ".join(ratios))


if __name__ == "__main__":
    main()
