"""The figures of a report: found, checked again, numbered, and recorded as value checks.

A figure is the block the `chart` action returns, an image line and its caption:

    ![Title](figures/<name>.svg)

    *Figure: Title, in unit. Source: [S3].*

At finalization (`review_figures`), each figure's record (`Notebook/figures/<name>.json`) is read
and every value checked again against its source: a record or a value edited since, or a source
that no longer states it, is a problem the agent is told, and a forced finalization removes the
figure. A figure file deleted or edited since it was drawn is drawn again from the checked values
(`redraw`), so the picture is always the checked numbers. `apply` numbers the captions in the
report's order ("Figure 1", "图1") and points the images at `Notebook/figures/` (the report sits at
the workspace's top). The caption is never checked as a sentence of its source: `masked` hides it
from the lexical audit, and its citations are recorded with `pairs`, checked by value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_runtime.domain.charts import store
from agent_runtime.domain.charts.draw import draw
from agent_runtime.domain.charts.spec import FIGURES, ChartError, ChartSpec
from agent_runtime.domain.charts.values import SeriesCheck, check_chart
from agent_runtime.domain.citation_audit import CitedPair, source_text
from agent_runtime.domain.citecheck.claims import clean
from agent_runtime.domain.citecheck.verdict import CitationCheck
from agent_runtime.domain.finalize import Problem
from agent_runtime.domain.sources.ledger import Ledger

# An image line pointing at a figure of the Notebook (from a chapter, the report or a sub-folder).
IMAGE = re.compile(
    r"^\s*!\[(?P<alt>[^\]\n]*)\]\(\s*<?(?P<path>(?:\./|\.\./)*(?:Notebook/)?figures/(?P<name>[^/\s()<>]+)\.(?:svg|png))>?\s*\)\s*$"
)
CAPTION = re.compile(r"^(?P<lead>\s*[*_]{1,2})(?P<word>Figure|图)\s*\d*\s*(?P<colon>[:：.．])\s*")
_FENCE = re.compile(r"^\s*(```|~~~)")
JUDGED_BY = "figure values"  # report.citations.json's judged_by of a caption's citation


@dataclass
class Figure:
    name: str
    image: int  # the image's line (0-based)
    caption: int | None  # the caption's line, when it has one
    spec: ChartSpec | None = None
    problem: str = ""  # why it cannot stay, for the agent ("" when it is fine)
    checks: list[SeriesCheck] = field(default_factory=list)


def find_figures(text: str) -> list[Figure]:
    """The figures of a Markdown text, in order (code blocks left out)."""
    lines = text.split("\n")
    found: list[Figure] = []
    fence = ""
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence:
            fence = "" if m and m.group(1) == fence else fence
            continue
        if m:
            fence = m.group(1)
            continue
        image = IMAGE.match(line)
        if image is None:
            continue
        caption = None
        for j in (i + 1, i + 2):
            if j < len(lines) and CAPTION.match(lines[j]):
                caption = j
                break
            if j < len(lines) and lines[j].strip():
                break
        found.append(Figure(image.group("name"), i, caption))
    return found


@dataclass
class FigureReview:
    figures: list[Figure]
    masked: str  # the text with every figure's lines blank: what the lexical audit reads
    pairs: list[CitedPair]  # each caption's (statement, source), checked by value

    def problems(self) -> list[Problem]:
        """For the agent: each figure that cannot stay, and why."""
        return [Problem("figure", f"{_shown(f)}: {f.problem}") for f in self.figures if f.problem]

    def problems_for_reader(self) -> list[Problem]:
        """For the appendix of a forced finalization: the figures removed, by title."""
        return [Problem("figure", _shown(f)) for f in self.figures if f.problem]

    def to_redraw(self, root: Path) -> list[Figure]:
        """The sound figures whose file was deleted or edited since they were drawn."""
        return [f for f in self.figures if not f.problem and f.spec and not store.unchanged(root, f.name, f.spec)]

    def apply(self, text: str, language: str) -> str:
        """The report's text with each sound figure numbered in order and its image pointed at
        Notebook/figures/ (the report's folder is the workspace), and each unsound one removed."""
        lines = text.split("\n")
        number = 0
        for figure in self.figures:
            if figure.problem:
                lines[figure.image] = ""
                if figure.caption is not None:
                    lines[figure.caption] = ""
                continue
            number += 1
            image = IMAGE.match(lines[figure.image])
            assert image is not None
            lines[figure.image] = f"![{image.group('alt')}]({FIGURES}/{image.group('path').rsplit('/', 1)[1]})"
            if figure.caption is not None:
                lines[figure.caption] = _numbered(lines[figure.caption], number, language)
        return "\n".join(lines)


def _numbered(caption: str, number: int, language: str) -> str:
    """The caption as "Figure 3: …" (English and other languages) or "图3：…" (Chinese)."""
    m = CAPTION.match(caption)
    if m is None:
        return caption
    label = f"图{number}：" if language == "zh" else f"Figure {number}: "
    return m.group("lead") + label + caption[m.end() :]


def _shown(figure: Figure) -> str:
    return f"'{figure.spec.title}'" if figure.spec else f"{FIGURES}/{figure.name}.svg"


def review_figures(text: str, root: Path, ledger: Ledger, sources_dir: Path) -> FigureReview:
    """Every figure of `text` checked again from its record against its sources."""
    figures = find_figures(text)
    lines = text.split("\n")
    masked = list(lines)
    pairs: list[CitedPair] = []
    for figure in figures:
        masked[figure.image] = ""
        if figure.caption is not None:
            masked[figure.caption] = ""
        try:
            figure.spec = store.load(root, figure.name)
            figure.checks = check_chart(figure.spec, ledger, sources_dir)
        except ChartError as exc:
            figure.problem = str(exc).removeprefix("the chart was not drawn: ")
            continue
        failed = [c for c in figure.checks if not c.ok]
        if failed:
            figure.problem = "; ".join(c.refusal() for c in failed)
            continue
        cited = set(re.findall(r"S\d+", lines[figure.caption])) if figure.caption is not None else set()
        if figure.caption is None or not cited:
            figure.problem = f"it has no caption citing {', '.join(f'[{s}]' for s in figure.spec.sources)}: put back the caption the chart action gave"
            continue
        pairs += _pairs(figure, lines[figure.caption], cited, ledger, sources_dir)
    return FigureReview(figures, "\n".join(masked), pairs)


def _pairs(figure: Figure, caption: str, cited: set[str], ledger: Ledger, sources_dir: Path) -> list[CitedPair]:
    """One (caption, source) pair per source the caption cites, with the passages stating its values."""
    assert figure.spec is not None and figure.caption is not None
    statement = clean(caption.strip().strip("*_"))
    out = []
    for source_id in figure.spec.sources:
        if source_id not in cited:
            continue
        found = [f for c in figure.checks if c.series.source == source_id for f in c.found]
        record = ledger.get(source_id)
        offset = source_text(record, sources_dir)[1] if record else 0
        passages = list(dict.fromkeys(f.sentence for f in found))
        check = CitationCheck(
            claim=statement, verdict="supported", passage=" … ".join(passages[:6]),
            lines=(min(f.lines[0] for f in found), max(f.lines[1] for f in found)) if found else (0, 0),
            judged_by=JUDGED_BY, score=1.0,
        )  # fmt: skip
        values = [{"label": f.label, "value": f.value, "stated_as": f.said, "near_label": f.near_label} for f in found]
        line = figure.caption + 1
        pair = CitedPair(source_id, line, check, offset, (line, 0), (line, len(caption)))
        pair.figure = {"file": f"{FIGURES}/{figure.name}.svg", "values": values}
        out.append(pair)
    return out


def redraw(root: Path, figures: list[Figure]) -> list[str]:
    """Draw each figure again from its checked record (its file was deleted or edited); the names."""
    for figure in figures:
        assert figure.spec is not None
        store.save(root, figure.spec, draw(figure.spec), name=figure.name)
    return [f.name for f in figures]
