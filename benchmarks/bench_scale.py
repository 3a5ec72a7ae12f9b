"""Every cost that could grow faster than the work, in one run: each part is a benchmark of its own
(bench_scale_<part>.py, runnable alone with its own options), and each prints its figures beside the
baseline it measured in the same run on the same machine, so a busy machine slows both alike.

    part     what grows                                   baseline
    ledger   bytes and CPU per new source, 300-10,000     the whole-file rewrite it replaced
    resume   time and peak RSS, 1/50/200 MB of log         a streaming JSON parse of the same log
    guard    the context guard's last-resort fit          the quadratic re-estimate it replaced
    view     list and summary, 1/100/1,000 workspaces      a bare Starlette endpoint
    corpus   query and index build, 100/1k/10k documents   bare SQLite FTS5
    export   DOCX and PDF, 10 KB / 100 KB / 1 MB           pandoc; Chromium printing the same HTML

    python benchmarks/bench_scale.py [--only ledger,view] [--quick]

--quick runs the smaller sizes only (a minute or two; the full run takes several).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# part -> (full options, quick options)
PARTS: dict[str, tuple[list[str], list[str]]] = {
    "ledger": ([], ["--sizes", "100,300,3000"]),
    "resume": ([], ["--sizes", "1,50", "--no-old"]),
    "guard": ([], ["--messages", "100,1000"]),
    "view": ([], ["--sizes", "1,100"]),
    "corpus": ([], ["--sizes", "100,1000"]),
    "export": ([], ["--sizes", "10,100", "--repeat", "2"]),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(PARTS), help="parts to run, comma-separated")
    parser.add_argument("--quick", action="store_true", help="the smaller sizes only")
    args = parser.parse_args()
    chosen = [part.strip() for part in args.only.split(",") if part.strip()]
    unknown = [part for part in chosen if part not in PARTS]
    if unknown:
        parser.error(f"unknown part {', '.join(unknown)}; the parts are {', '.join(PARTS)}")
    failed: list[str] = []
    for part in chosen:
        script = HERE / f"bench_scale_{part}.py"
        if not script.exists():
            print(f"\n## {part}: {script.name} is missing, skipped", flush=True)
            failed.append(part)
            continue
        full, quick = PARTS[part]
        options = quick if args.quick else full
        print(f"\n## {part}  (python benchmarks/{script.name} {' '.join(options)})".rstrip(), flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *options])
        print(f"[{part}: {time.perf_counter() - started:.0f} s{'' if code == 0 else f', exit {code}'}]", flush=True)
        if code != 0:
            failed.append(part)
    if failed:
        print(f"\nparts that did not finish: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
