"""Is every value of a chart stated in the source its series cites?

The source's sentences and their quantities are the citation check's own (`citecheck.page`,
`citecheck.facts`): a value is stated when some quantity of the source equals it once the chart's
unit is applied (`facts.read_unit`: 1.2 with unit "million" is the source's "1.2 million" or
"1,200,000"; 12 with "万辆" is "12万辆"; 12 with "%" is "12%" or "百分之十二"). A chart may round
a precise figure (1.2 thousand for 1,213), never add precision the source lacks (1,234,567 for
"1.2 million"), and never take a bound for a value ("more than 120" is not 120).

A value is stated *near its label* when the sentence (or table row) that states it, or a heading
above it, names the label; the check prefers such a passage, and says which values it found only
elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from agent_runtime.domain.charts.spec import ChartError, ChartSpec, Series, number_text
from agent_runtime.domain.citation_audit import source_text
from agent_runtime.domain.citecheck.facts import Quantity, extract, read_unit
from agent_runtime.domain.citecheck.page import Passage, source_passages
from agent_runtime.domain.sources.ledger import Ledger

_SHOWN = 12  # the source's figures named in a refusal


@dataclass(frozen=True)
class Found:
    label: str
    value: float
    said: str  # as the source writes it
    sentence: str
    lines: tuple[int, int]
    near_label: bool


@dataclass
class SeriesCheck:
    series: Series
    found: list[Found] = field(default_factory=list)
    missing: list[tuple[str, float]] = field(default_factory=list)  # (label, value) not stated
    gives: list[str] = field(default_factory=list)  # what the source states instead

    @property
    def ok(self) -> bool:
        return not self.missing

    def refusal(self) -> str:
        """One sentence naming what is not stated and what the source gives."""
        values = ", ".join(f"{number_text(v)} ({label})" for label, v in self.missing[:10])
        more = f" and {len(self.missing) - 10} more" if len(self.missing) > 10 else ""
        verb = "is" if len(self.missing) == 1 else "are"
        gives = f"; it gives {', '.join(self.gives)}" if self.gives else "; it states no figure"
        return f"{values}{more} of series {self.series.name!r} {verb} not stated in [{self.series.source}]{gives}"


def _precision(value: float) -> float:
    """The step a value is written with: 120 → 1, 1.25 → 0.01 (the chart's own rounding)."""
    exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    return 10.0 ** min(0, exponent if isinstance(exponent, int) else 0)


def _matches(value: float, scale: float, kind: str, stated: Quantity, *, unit_named: bool) -> bool:
    """Whether the source's quantity states the chart's value. A share stated as 12% is the value 12
    of a chart whose unit is "%" or that names no unit; a chart of counts never takes it."""
    if stated.bound not in ("eq", "approx") or stated.kind == "ordinal":
        return False
    if stated.kind != kind and not (kind == "number" and stated.kind == "percent" and not unit_named):
        return False
    target = value * scale
    tolerance = _precision(value) * scale / 2 + 1e-9 * max(1.0, abs(target))
    return abs(stated.value - target) <= tolerance


@dataclass(frozen=True)
class _Stated:
    """A sentence of the source and the amounts it states (no words read: no Chinese segmenter is
    loaded for a chart)."""

    passage: Passage
    amounts: tuple[Quantity, ...]

    @property
    def text(self) -> str:
        return self.passage.text

    @property
    def headings(self) -> tuple[str, ...]:
        return self.passage.headings


@lru_cache(maxsize=16)
def _statements(source_text: str) -> tuple[_Stated, ...]:
    return tuple(
        _Stated(p, extract(p.text, strict=False).amounts) for p in source_passages(source_text)
    )


def _names(sentence: _Stated, label: str) -> bool:
    """Whether the sentence, or a heading above it, names the label (all of its words)."""
    text = " ".join((sentence.text, *sentence.headings)).casefold()
    wanted = label.casefold()
    if wanted in text:
        return True
    words = [w for w in re.findall(r"\w+", wanted) if len(w) > 1]
    return bool(words) and all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in words)


_MINUS = "-−–"  # a hyphen, the minus sign, an en dash written as one


def _negative(sentence: str, said: str) -> bool:
    """Whether the source writes its figure with a minus sign ("-3.2%", "增速为-3.2%")."""
    at = sentence.find(said)
    return at > 0 and sentence[at - 1] in _MINUS and not (at > 1 and sentence[at - 2].isalnum() and sentence[at - 2].isascii())


def _stated_negative(value: float, scale: float, kind: str, sentence: str) -> str | None:
    """A negative chart value the number reader passes by (it reads no sign): the figure written
    with its minus in the sentence, as the chart gives it ("-3.2" with unit %, "−1.5")."""
    shown = number_text(abs(value))
    for variant in {shown, shown.replace(",", "")}:
        for minus in _MINUS:
            found = re.search(rf"(?<![A-Za-z0-9.]){re.escape(minus)}\s?{re.escape(variant)}(?![\d.])", sentence)
            if found and (kind != "percent" or re.match(r"\s*[%％]", sentence[found.end():])):
                return found.group(0)
    return None


def check_series(series: Series, labels: list[str], unit: str | None, source_text: str) -> SeriesCheck:
    """Where the source states each value of `series` (one per label), preferring a passage that
    names the label; the values it does not state, and what it gives instead."""
    reading = read_unit(unit)
    sentences = _statements(source_text)
    result = SeriesCheck(series)
    for label, value in zip(labels, series.values, strict=True):
        best: Found | None = None
        for sentence in sentences:
            said = None
            if value < 0:  # a sign the reader does not keep: the figure must be written with its minus
                said = _stated_negative(value, reading.scale, reading.kind, sentence.text)
            else:
                for stated in sentence.amounts:
                    # a figure written "-3.2%" is no 3.2: a fall charted as a rise is not stated
                    if _matches(value, reading.scale, reading.kind, stated, unit_named=bool(unit)) and not (
                        value > 0 and _negative(sentence.text, stated.text)
                    ):
                        said = stated.text
                        break
            if said is not None:
                near = _names(sentence, label)
                if best is None or (near and not best.near_label):
                    where = (sentence.passage.first, sentence.passage.last)
                    best = Found(label, value, said, sentence.text, where, near)
            if best is not None and best.near_label:
                break
        if best is None:
            result.missing.append((label, value))
        else:
            result.found.append(best)
    if result.missing:
        result.gives = _what_it_gives(sentences, labels)
    return result


def _what_it_gives(sentences: tuple[_Stated, ...], labels: list[str]) -> list[str]:
    """The source's figures as it writes them, those near the chart's labels first."""
    near = [s for s in sentences if any(_names(s, label) for label in labels)]
    ordered = [*near, *(s for s in sentences if s not in near)]
    said = [q.text for s in ordered for q in s.amounts]
    return list(dict.fromkeys(said))[:_SHOWN]


def check_chart(spec: ChartSpec, ledger: Ledger, sources_dir: Path) -> list[SeriesCheck]:
    """Every series of the chart checked against the snapshot of the source it cites. ChartError
    for a source the ledger does not know, or one that was only a search result (never read: its
    snippet is no place to state a series)."""
    problems = []
    checks = []
    for series in spec.series:
        record = ledger.get(series.source)
        if record is None:
            problems.append(f"[{series.source}] (series {series.name!r}) is not a source any search or visit returned")
            continue
        if not record.fetched or not record.snapshot:
            problems.append(
                f"[{series.source}] (series {series.name!r}) was only a search result, never read: visit it "
                "first (visit_url), then draw the chart from the page's own figures"
            )
            continue
        text, _ = source_text(record, sources_dir)
        checks.append(check_series(series, spec.labels, spec.unit, text))
    if problems:
        raise ChartError("the chart was not drawn: " + "; ".join(problems))
    return checks
