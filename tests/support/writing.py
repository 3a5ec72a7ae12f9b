"""The long report's chapters and facts, shared by the long writing run and its benchmark."""

from __future__ import annotations

import random

WORDS = [
    "cell",
    "anode",
    "cathode",
    "electrolyte",
    "sodium",
    "lithium",
    "cost",
    "capacity",
    "cycle",
    "plant",
    "supply",
    "demand",
    "grid",
    "storage",
]

CHAPTERS = 12


def chapter_text(n: int, ids: list[str]) -> str:
    """About 8,000-12,000 characters of chapter n, citing two sources, with one research marker."""
    rng = random.Random(n)
    target = rng.randint(8_000, 12_000)
    lines = [f"## Chapter {n}: storage economics, part {n}", ""]
    while sum(len(line) + 1 for line in lines) < target:
        sentence = " ".join(rng.choice(WORDS) for _ in range(14)).capitalize()
        lines.append(f"{sentence} [{rng.choice(ids)}].")
    lines += ["", f"[NEEDS RESEARCH: the cost figure for chapter {n}]", ""]
    return "\n".join(lines)


def fact(n: int, ids: list[str]) -> str:
    return f"Chapter {n} costs fell {10 + n}% in 2026 [{ids[n % len(ids)]}]."
