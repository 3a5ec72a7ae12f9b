"""Half-saved edits (issue 34, item 5): N in-place saves of the dashboards, each paused 0.1–0.6 s in
the middle of its write, during a real `deep-researcher run` (the CLI process, a scripted model on
the loopback endpoint that updates a dashboard at every step, so the runtime reads and writes them
as often as it can while the person saves).

Prints how many saves were lost (in neither what the model was shown nor .trash/; goal 0), how
many the model was never shown (kept only in .trash/; goal 0), how many times a save cut in the
middle was given to the model as final (goal 0), and how much later the model saw each save:
seconds from the save's close to the first request that carried it (median, max). Before this
work the same run showed the model 1 of 20 saves and gave it about a thousand half lines.

    python benchmarks/bench_half_saves.py [--saves 40] [--seed 34]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.engine.writers import QUIET, Writers
from tests.support.half_saves import run_with_half_saves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=40)
    parser.add_argument("--seed", type=int, default=34)
    args = parser.parse_args()
    how = "inotify close-after-write" if Writers().kernel else f"settle time ({QUIET:g} s without a change)"
    with tempfile.TemporaryDirectory() as folder:
        outcome = run_with_half_saves(Path(folder), args.saves, seed=args.seed)
    if outcome.cli.code != 0:
        sys.exit(f"the run failed (exit {outcome.cli.code}):\n{outcome.cli.stderr[-3000:]}")
    delays = sorted(outcome.delays)
    kinds = Counter(e["event"] for e in outcome.events)
    print(f"waiting for writers by: {how}")
    print(f"half-saves during the run: {outcome.saves}   model requests: {outcome.requests}")
    print(f"lost (neither shown to the model nor in .trash/): {len(outcome.lost)}   (goal 0)")
    print(f"kept in .trash/ but never shown to the model:    {len(outcome.unseen)}   (goal 0)")
    print(f"half saves given to the model as final:          {len(outcome.half)}   (goal 0)")
    if delays:
        print(
            f"seen by the model after the save closed: median {statistics.median(delays):.3f} s, "
            f"max {delays[-1]:.3f} s ({len(delays)} saves)"
        )
    print(
        f"events: dashboard_edited {kinds['dashboard_edited']}, dashboard_edit_kept "
        f"{kinds['dashboard_edit_kept']}, writer_wait_expired {kinds['writer_wait_expired']}"
    )


if __name__ == "__main__":
    main()
