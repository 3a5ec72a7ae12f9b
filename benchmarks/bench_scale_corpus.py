"""The local corpus at scale: building its index and answering a query at 100, 1,000 and 10,000
documents, against bare SQLite FTS5 doing the least any such index must do, measured in the same run.

The corpus: Markdown files of about 250 words (a Zipf-like draw from a vocabulary of 6,000 made-up
words, one document in ten with a paragraph of Chinese), 100 to a folder. The queries: 24, of one
or two common or rare English words and of 2- to 4-character Chinese words.

- build, bare FTS5: walk the folder, read and decode each file, insert title and body into a
  two-column FTS5 table (the same tokenizer) in one transaction.
- build, corpus: `LocalCorpus.sync()` on a new index: the same, plus extraction, the CJK bigram
  columns and the files table.
- query, bare FTS5: MATCH, bm25 ranking, snippet, LIMIT 10 on an open connection (no freshness
  check at all).
- query, corpus: `LocalCorpus.search_sync`, whose every query first makes sure that the index
  matches the folder (file system events where there are, see actions/web/corpus_watch.py).
- query, walk: the same with `watch=False`: the folder walked and every document stat'ed before
  each query, as every query did before.
- after an edit: one document rewritten in place before each query (the index brought up to date
  first, then the query).

Times are medians over three passes of the queries (build: the fastest of three, bare and
corpus alternated).

    python benchmarks/bench_scale_corpus.py [--sizes 100,1000,10000]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.web.local_corpus import LocalCorpus

WORDS = 250
ROUNDS = 3
HAN = "电池储能光伏风电氢能汽车充电电网价格政策技术市场企业研究成本安全材料固态钠离子锂资源产业"


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


def make_corpus(root: Path, count: int, seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    vocab = vocabulary(random.Random(1))
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    paths = []
    for n in range(count):
        folder = root / f"part{n // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        words = rng.choices(vocab, weights, k=WORDS)
        title = " ".join(words[:4]).capitalize()
        body = " ".join(words)
        if n % 10 == 0:
            body += "\n\n" + "".join(rng.choice(HAN) for _ in range(120)) + "。"
        path = folder / f"doc{n:05d}.md"
        path.write_text(f"# {title}\n\n{body}\n", "utf-8")
        paths.append(path)
    return paths


def queries() -> list[str]:
    vocab = vocabulary(random.Random(1))
    rng = random.Random(3)
    found = [vocab[i] for i in (0, 1, 5, 20, 100, 500, 2000, 5000)]
    found += [f"{rng.choice(vocab[:200])} {rng.choice(vocab[:3000])}" for _ in range(8)]
    found += ["电池", "储能", "光伏", "固态电池", "钠离子", "电网价格", "氢能", "市场"]
    return found


def bare_build(root: Path, index: Path) -> float:
    started = time.perf_counter()
    db = sqlite3.connect(index)
    db.execute(
        "CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize='porter unicode61 remove_diacritics 2')"
    )
    with db:
        for folder, subfolders, files in os.walk(root):
            subfolders.sort()
            for name in sorted(files):
                text = (Path(folder) / name).read_bytes().decode("utf-8")
                db.execute("INSERT INTO docs(title, body) VALUES (?, ?)", (text.split("\n", 1)[0], text))
    db.close()
    return time.perf_counter() - started


def bare_queries(index: Path, words: list[str]) -> list[float]:
    db = sqlite3.connect(index)
    times = []
    for query in words:
        match = " OR ".join('"' + w + '"' for w in query.split())
        started = time.perf_counter()
        db.execute(
            "SELECT rowid, title, snippet(docs, 1, '[', ']', '…', 40) FROM docs WHERE docs MATCH ? "
            "ORDER BY bm25(docs) LIMIT 10",
            (match,),
        ).fetchall()
        times.append(time.perf_counter() - started)
    db.close()
    return times


def timed(
    search: Callable[[str], object], words: list[str], before: Callable[[int], None] | None = None
) -> list[float]:
    times = []
    for n, query in enumerate(words):
        if before is not None:
            before(n)
        started = time.perf_counter()
        search(query)
        times.append(time.perf_counter() - started)
    return times


def run(count: int, scratch: Path) -> dict[str, float]:
    root = scratch / f"corpus{count}"
    paths = make_corpus(root, count)
    words = queries() * ROUNDS
    # Alternated, the fastest of three each: the machine's other load hits both alike.
    bares, builds = [], []
    for i in range(ROUNDS):
        bares.append(bare_build(root, scratch / f"bare{count}-{i}.sqlite"))
        local = LocalCorpus(root, scratch / f"index{count}-{i}.sqlite")
        started = time.perf_counter()
        local.sync()
        builds.append(time.perf_counter() - started)
        local.close()
    bare = min(bares)
    local = LocalCorpus(root, scratch / f"index{count}-0.sqlite")
    local.search_sync("warm", 10)  # the first query of a process walks the folder once
    walking = LocalCorpus(root, scratch / f"index{count}-0.sqlite", watch=False)
    walking.search_sync("warm", 10)
    rng = random.Random(5)

    def edit(n: int) -> None:
        path = rng.choice(paths)
        path.write_text(path.read_text("utf-8") + f"\nedited {n}\n", "utf-8")

    figures = {
        "build_bare": bare,
        "build_corpus": min(builds),
        "query_bare": statistics.median(bare_queries(scratch / f"bare{count}-0.sqlite", words)),
        "query_corpus": statistics.median(timed(lambda q: local.search_sync(q, 10), words)),
        "query_walk": statistics.median(timed(lambda q: walking.search_sync(q, 10), words)),
        "query_edit": statistics.median(timed(lambda q: local.search_sync(q, 10), words, edit)),
        "watching": float(local._tree.watching),
    }
    local.close()
    walking.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000,10000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for count in sizes:
            rows.append((count, run(count, Path(scratch))))
    ms = 1000.0
    print(f"{'docs':>6} | {'build bare':>10} {'corpus':>8} {'ratio':>6} | {'query bare':>10} {'corpus':>8} "
          f"{'ratio':>6} | {'walk':>8} {'ratio':>6} | {'after edit':>10} {'ratio':>6}")  # fmt: skip
    for count, f in rows:
        print(
            f"{count:>6} | {f['build_bare'] * ms:>8.0f}ms {f['build_corpus'] * ms:>6.0f}ms "
            f"{f['build_corpus'] / f['build_bare']:>5.2f}× | {f['query_bare'] * ms:>8.2f}ms "
            f"{f['query_corpus'] * ms:>6.2f}ms {f['query_corpus'] / f['query_bare']:>5.2f}× | "
            f"{f['query_walk'] * ms:>6.2f}ms {f['query_walk'] / f['query_bare']:>5.2f}× | "
            f"{f['query_edit'] * ms:>8.2f}ms {f['query_edit'] / f['query_bare']:>5.2f}×"
        )
    watching = all(f["watching"] for _, f in rows)
    print(f"freshness: {'inotify' if watching else 'a walk before every query (no inotify here)'}")


if __name__ == "__main__":
    main()
