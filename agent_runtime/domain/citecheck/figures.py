"""A report's citation figures, as DeepResearch Bench's FACT defines them.

- citation accuracy: the share of checked (statement, source) pairs that the source supports;
- effective citations: the number of distinct (statement, source) pairs that are supported (a
  statement cited twice to the same source counts once).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_runtime.domain.citecheck.verdict import VERDICTS


def fact_figures(pairs: Iterable[tuple[str, str, str]]) -> dict[str, Any]:
    """From (statement, source id, verdict) triples: the counts per verdict, `checked`,
    `citation_accuracy` (None when nothing was checked) and `effective_citations`."""
    items = list(pairs)
    counts: dict[str, int] = {verdict: sum(1 for _, _, v in items if v == verdict) for verdict in VERDICTS}
    checked = len(items)
    effective = len({(" ".join(statement.split()), source) for statement, source, v in items if v == "supported"})
    return {
        "checked": checked,
        **counts,
        "citation_accuracy": round(counts["supported"] / checked, 4) if checked else None,
        "effective_citations": effective,
    }


def describe(figures: dict[str, Any]) -> str:
    """One line: the verdicts and the FACT figures."""
    accuracy = figures.get("citation_accuracy")
    share = f"{accuracy:.0%}" if isinstance(accuracy, float) else "n/a"
    unverified = figures.get("unverified", 0)
    tail = f"; {unverified} could not be verified" if unverified else ""
    return (
        f"citations: {figures.get('checked', 0)} checked ({figures.get('checked_by', 'lexical')}): "
        f"{figures.get('supported', 0)} supported, {figures.get('weak', 0)} weak, {figures.get('unsupported', 0)} "
        f"unsupported; citation accuracy {share}, effective citations {figures.get('effective_citations', 0)}{tail}"
    )
