"""The labelled claim/source pairs of the citation check: the one reader, checker and writer of every
set, for the tests and for benchmarks/bench_citations.py.

Each set is JSONL, one pair a line, in UTF-8:

    {"id": "en-017", "claim": "...", "source": "the source's text", "label": "supported",
     "kind": "number_changed", "lang": "en", "title": "the page's title (optional)"}

- `label`: the right verdict, `supported` or `unsupported` (the check may also answer `weak`);
- `kind`: what was done to the claim (`verbatim`, `paraphrase`, `number_changed`, `entity_swap`…);
- `lang`: `en` or `zh`;
- a pair may name its source's text by file, `"source_file": "S3.txt"`, in a `sources/` folder beside
  the set, in place of `source` (the first set shares 23 sources among 230 pairs).

The sets (see bench_citations.py for what each is for):

    earlier           tests/data/citations/pairs.jsonl (+ sources/)
    dev               benchmarks/data/citation_pairs_{en,zh}.jsonl
    heldout           benchmarks/data/heldout_pairs_{en,zh}.jsonl
    context dev       benchmarks/data/context_pairs_{en,zh}.jsonl
    context heldout   benchmarks/data/heldout_context_{en,zh}.jsonl
    context dev 2     benchmarks/data/context2_pairs_{en,zh}.jsonl
    context heldout 2 benchmarks/data/heldout2_context_{en,zh}.jsonl
    context dev 3     benchmarks/data/context3_pairs_{en,zh}.jsonl
    context dev 4     benchmarks/data/context4_pairs_{en,zh}.jsonl
    context dev 5     benchmarks/data/context5_pairs_{en,zh}.jsonl  (summaries and report sentences)
    context heldout 3 benchmarks/data/heldout3_context_{en,zh}.jsonl
    context heldout 4 benchmarks/data/heldout4_context_{en,zh}.jsonl  (summaries and report sentences)
    context dev 6     benchmarks/data/context6_pairs_{en,zh}.jsonl  (summaries and report sentences)
    context dev 7     benchmarks/data/context7_pairs_{en,zh}.jsonl  (report sentences and their wrong twins)
    context heldout 5 benchmarks/data/heldout5_context_{en,zh}.jsonl  (every kind of issue 33, new pages)
    context dev 8     benchmarks/data/context8_pairs_zh.jsonl  (the same kinds, Chinese only)

The held-out sets are for measuring only: load them through `load`, compare aggregate figures, and
never read them pair by pair while changing the rules (an error here names a file and a line, never
a pair's text).

    python tests/support/labelled.py            # checks every set; exit 1 naming each bad line
    python tests/support/labelled.py --rewrite  # also writes each set back in the one format

To add pairs, append lines to a set (any editor, or `write_set`) and run the check.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK_DATA = ROOT / "benchmarks" / "data"
TEST_DATA = ROOT / "tests" / "data" / "citations"

SETS: dict[str, tuple[Path, ...]] = {
    "earlier": (TEST_DATA / "pairs.jsonl",),
    "dev": (BENCHMARK_DATA / "citation_pairs_en.jsonl", BENCHMARK_DATA / "citation_pairs_zh.jsonl"),
    "heldout": (BENCHMARK_DATA / "heldout_pairs_en.jsonl", BENCHMARK_DATA / "heldout_pairs_zh.jsonl"),
    "context dev": (BENCHMARK_DATA / "context_pairs_en.jsonl", BENCHMARK_DATA / "context_pairs_zh.jsonl"),
    "context heldout": (BENCHMARK_DATA / "heldout_context_en.jsonl", BENCHMARK_DATA / "heldout_context_zh.jsonl"),
    "context dev 2": (BENCHMARK_DATA / "context2_pairs_en.jsonl", BENCHMARK_DATA / "context2_pairs_zh.jsonl"),
    "context heldout 2": (BENCHMARK_DATA / "heldout2_context_en.jsonl", BENCHMARK_DATA / "heldout2_context_zh.jsonl"),
    "context dev 3": (BENCHMARK_DATA / "context3_pairs_en.jsonl", BENCHMARK_DATA / "context3_pairs_zh.jsonl"),
    "context dev 4": (BENCHMARK_DATA / "context4_pairs_en.jsonl", BENCHMARK_DATA / "context4_pairs_zh.jsonl"),
    "context dev 5": (BENCHMARK_DATA / "context5_pairs_en.jsonl", BENCHMARK_DATA / "context5_pairs_zh.jsonl"),
    "context heldout 3": (BENCHMARK_DATA / "heldout3_context_en.jsonl", BENCHMARK_DATA / "heldout3_context_zh.jsonl"),
    "context heldout 4": (BENCHMARK_DATA / "heldout4_context_en.jsonl", BENCHMARK_DATA / "heldout4_context_zh.jsonl"),
    "context dev 6": (BENCHMARK_DATA / "context6_pairs_en.jsonl", BENCHMARK_DATA / "context6_pairs_zh.jsonl"),
    "context dev 7": (BENCHMARK_DATA / "context7_pairs_en.jsonl", BENCHMARK_DATA / "context7_pairs_zh.jsonl"),
    "context heldout 5": (BENCHMARK_DATA / "heldout5_context_en.jsonl", BENCHMARK_DATA / "heldout5_context_zh.jsonl"),
    "context dev 8": (BENCHMARK_DATA / "context8_pairs_zh.jsonl",),
}
LABELS = ("supported", "unsupported")
LANGS = ("en", "zh")
REQUIRED = ("id", "claim", "label", "kind", "lang")
KNOWN = (*REQUIRED, "source", "source_file", "title")


class LabelledSetError(ValueError):
    """A set that does not load: the file, the line and what is wrong, never the pair's text."""


def _problem(record: Any, sources: Path) -> str | None:
    """What is wrong with one line's record, or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    missing = [key for key in REQUIRED if not isinstance(record.get(key), str) or not record[key]]
    if missing:
        return f"missing or empty: {', '.join(missing)}"
    unknown = sorted(set(record) - set(KNOWN))
    if unknown:
        return f"unknown keys: {', '.join(unknown)}"
    if ("source" in record) == ("source_file" in record):
        return "needs exactly one of source and source_file"
    if "source" in record and (not isinstance(record["source"], str) or not record["source"].strip()):
        return "source is not a non-empty text"
    if "source_file" in record and not (sources / str(record["source_file"])).is_file():
        return f"source_file {record['source_file']!r} is not in {sources}"
    if not isinstance(record.get("title", ""), str):
        return "title is not a text"
    if record["label"] not in LABELS:
        return f"label is not one of {', '.join(LABELS)}"
    if record["lang"] not in LANGS:
        return f"lang is not one of {', '.join(LANGS)}"
    return None


def read_set(path: Path) -> list[dict[str, Any]]:
    """The pairs of one JSONL file, checked, each with its source's text under `source`."""
    sources = path.parent / "sources"
    pairs: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise LabelledSetError(f"{path.name}, line {number}: not valid JSON ({error.msg})") from None
        problem = _problem(record, sources)
        if problem is None and record["id"] in seen:
            problem = f"the id {record['id']!r} is used twice"
        if problem is not None:
            raise LabelledSetError(f"{path.name}, line {number}: {problem}")
        seen.add(record["id"])
        if "source_file" in record:
            record["source"] = (sources / record.pop("source_file")).read_text("utf-8")
        pairs.append(record)
    if not pairs:
        raise LabelledSetError(f"{path.name}: no pairs")
    return pairs


def load(name: str) -> list[dict[str, Any]]:
    """Every pair of the set `name` (a key of SETS), its files in order."""
    if name not in SETS:
        raise LabelledSetError(f"no labelled set {name!r}; the sets: {', '.join(SETS)}")
    return [pair for path in SETS[name] for pair in read_set(path)]


def write_set(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Writes `records` as a set, one compact line each, keys in the one order, text as it is
    (no escapes for Chinese). The file is replaced whole."""
    order = {key: n for n, key in enumerate(KNOWN)}
    lines = [
        json.dumps(dict(sorted(r.items(), key=lambda item: order.get(item[0], len(order)))), ensure_ascii=False)
        for r in records
    ]
    temporary = path.with_suffix(".jsonl.tmp")
    temporary.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    temporary.replace(path)


def main(argv: list[str]) -> int:
    rewrite = "--rewrite" in argv
    failed = False
    for name, paths in SETS.items():
        for path in paths:
            try:
                pairs = read_set(path)
            except (LabelledSetError, OSError) as error:
                print(f"{name}: {error}", file=sys.stderr)
                failed = True
                continue
            if rewrite:
                raw = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
                write_set(path, raw)
            print(f"{name}: {path.relative_to(ROOT)}: {len(pairs)} pairs")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
