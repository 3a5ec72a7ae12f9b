"""The figures of a report: numbered in order, pointed at Notebook/figures/, hidden from the
lexical audit, and refused without their caption or their record."""

from __future__ import annotations

from pathlib import Path

from agent_runtime.domain.charts.draw import draw
from agent_runtime.domain.charts.inreport import find_figures, review_figures
from agent_runtime.domain.charts.spec import ChartSpec
from agent_runtime.domain.charts.store import save
from agent_runtime.domain.sources.ledger import Ledger

DRAFT = """# Report

![A](figures/a.svg)

*Figure: A. Source: [S1].*

```
![B](figures/b.svg)
```

![B](../figures/b.svg)
*图：B。数据来源：[S1]。*
"""


def test_figures_are_found_in_order_outside_code() -> None:
    found = find_figures(DRAFT)
    assert [(f.name, f.image, f.caption) for f in found] == [("a", 2, 4), ("b", 10, 11)]


def test_each_figure_is_numbered_and_pointed_at_the_notebook(tmp_path: Path) -> None:
    review = review_figures(DRAFT, tmp_path, Ledger(tmp_path / "sources"), tmp_path / "sources")
    for figure in review.figures:  # both sound, as if checked
        figure.problem = ""
    english = review.apply(DRAFT, "en").split("\n")
    assert english[2] == "![A](Notebook/figures/a.svg)" and english[4] == "*Figure 1: A. Source: [S1].*"
    assert english[10] == "![B](Notebook/figures/b.svg)" and english[11] == "*Figure 2: B。数据来源：[S1]。*"
    chinese = review.apply(DRAFT, "zh").split("\n")
    assert chinese[4] == "*图1：A. Source: [S1].*" and chinese[11] == "*图2：B。数据来源：[S1]。*"
    assert "![B](figures/b.svg)" in chinese[7]  # code is left alone


def test_a_figure_without_its_record_or_caption_cannot_stay(tmp_path: Path) -> None:
    spec = ChartSpec.parse("A", "bar", ["x"], [{"name": "s", "values": [1], "source": "S1"}])
    save(tmp_path, spec, draw(spec))
    draft = "![A](figures/a.svg)\n\nNo caption here [S1].\n\n![C](figures/c.svg)\n\n*Figure: C. Source: [S1].*\n"
    review = review_figures(draft, tmp_path, Ledger(tmp_path / "sources"), tmp_path / "sources")
    problems = [str(p) for p in review.problems()]
    assert any("[S1] (series 's') is not a source" in p for p in problems)  # A's source is unknown here
    assert any("Notebook/figures/c.json cannot be read" in p for p in problems)
    assert review.masked.split("\n")[0] == "" and review.masked.split("\n")[6] == ""
    kept = review.apply(draft, "en")
    assert "figures/" not in kept and "No caption here [S1]." in kept


def test_a_record_edited_since_its_drawing_is_drawn_again(tmp_path: Path) -> None:
    from agent_runtime.domain.charts.store import figure_path, load, unchanged

    spec = ChartSpec.parse("Stations", "bar", ["Eastby", "Westby"], [{"name": "s", "values": [120, 180], "source": "S1"}], None)
    save(tmp_path, spec, draw(spec))
    assert unchanged(tmp_path, spec.name, load(tmp_path, spec.name))
    record = tmp_path / figure_path(spec.name, "json")
    record.write_text(record.read_text().replace("180", "260"))  # other values, the pictures untouched
    assert not unchanged(tmp_path, spec.name, load(tmp_path, spec.name))
