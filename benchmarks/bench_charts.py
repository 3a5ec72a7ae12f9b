"""How long a chart takes: the first chart of a fresh process (matplotlib's import included, as a
run meets it) and the next ones, each checked against a source and drawn to SVG and PNG; and the
CPU time of `deep-researcher --help`, here and, with --baseline DIR (a checkout of the commit
before the charts, e.g. `git archive main | tar -x -C DIR`), before. Goal: the first chart under
1 s, and `--help` no slower (the chart action imports matplotlib only when it draws).

    python benchmarks/bench_charts.py [--runs 5] [--baseline DIR]

CPU seconds (the wall time of the first chart is printed too), so that other work on a shared
machine changes the figures little.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_FIRST_AND_NEXT = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from agent_runtime.domain.citation_audit import audit  # a run has the citation check loaded already
c0, t0 = time.process_time(), time.perf_counter()
from agent_runtime.domain.charts.draw import draw
from agent_runtime.domain.charts.spec import ChartSpec
from agent_runtime.domain.charts.values import check_series
SOURCE = "北京地铁共有车站490座。上海地铁共有车站508座。广州地铁共有车站302座。Eastby has 1,234 stations."
def one(title):
    spec = ChartSpec.parse(title, "bar", ["北京", "上海", "广州"], [{"name": "车站", "values": [490, 508, 302], "source": "S1"}], "座")
    assert check_series(spec.series[0], spec.labels, spec.unit, SOURCE).ok
    drawing = draw(spec)
    assert drawing.svg and drawing.png
one("各城市地铁车站数量"); c1, t1 = time.process_time(), time.perf_counter()
for i in range(5):
    one(f"chart {i}")
c2 = time.process_time()
print(f"{c1 - c0:.3f} {t1 - t0:.3f} {(c2 - c1) / 5:.3f}")
"""


def cpu_seconds(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def help_seconds(tree: Path, runs: int, env: dict[str, str]) -> tuple[float, bool]:
    """Median CPU seconds of `--help` run from `tree`, and whether it imported matplotlib."""
    argv = [sys.executable, "-m", "agent_runtime.app.cli", "--help"]
    tree_env = {**env, "PYTHONPATH": str(tree)}
    times = [cpu_seconds(argv, tree_env, tree) for _ in range(runs)]
    probe = "import sys, agent_runtime.app.cli as c, actions; print('matplotlib' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", probe], env=tree_env, cwd=tree, capture_output=True, text=True, check=True)
    return statistics.median(times), loaded.stdout.strip() == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="a checkout of the commit before the charts")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DEEP_RESEARCHER_"))}
    firsts, walls, nexts = [], [], []
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", _FIRST_AND_NEXT, str(ROOT)], env=env, capture_output=True, text=True, check=True)
        first, wall, following = (float(x) for x in out.stdout.split())
        firsts.append(first)
        walls.append(wall)
        nexts.append(following)
    first = statistics.median(firsts)
    print(f"charts (value check + draw to SVG and PNG), median of {args.runs} fresh processes")
    print(f"  first chart, import included  {first:.3f} s CPU (min {min(firsts):.3f}, max {max(firsts):.3f}); "
          f"{statistics.median(walls):.3f} s wall  goal ≤ 1 s: {'met' if first <= 1 else 'NOT met'}")
    print(f"  each next chart               {statistics.median(nexts):.3f} s CPU")
    now, loaded = help_seconds(ROOT, args.runs, env)
    print(f"--help, CPU seconds, median of {args.runs}")
    print(f"  with charts                   {now:.3f} s  (matplotlib imported at start: {loaded})")
    if args.baseline:
        before, _ = help_seconds(args.baseline.resolve(), args.runs, env)
        print(f"  before (baseline)             {before:.3f} s  (ratio {now / before:.2f})")


if __name__ == "__main__":
    main()
