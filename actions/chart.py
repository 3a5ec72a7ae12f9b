"""chart: a figure drawn by code from values its sources state, for the main agent and the
Research agents.

The model gives the numbers, never code: the spec is validated (`charts.spec`), every value is
checked against the snapshot of the source its series cites (`charts.values`: the citation check's
own number reading), and only then is the chart drawn with matplotlib (`charts.draw`) into
`Notebook/figures/<name>.svg|png`, with the checked spec beside it as `<name>.json`. A refused
chart writes no file and names each value its source does not state, with the figures the source
does give, so the model can correct it. The observation carries the Markdown to put into a
chapter: the image and a caption citing the sources, which finalization numbers and checks again.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

from agent_runtime.domain.charts import store
from agent_runtime.domain.charts.draw import draw
from agent_runtime.domain.charts.spec import ChartSpec
from agent_runtime.domain.charts.values import SeriesCheck, check_chart
from agent_runtime.domain.layout import SOURCES, title_slug
from agent_runtime.domain.sources.ledger import ledger_for
from agent_runtime.engine.registry import Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError
from agent_runtime.language import resolve as resolve_language
from agent_runtime.language import text as language_text

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>#|])")


def _escaped(text: str) -> str:
    """Text as Markdown shows it literally: a title's * or [S9] is no emphasis and no citation."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", text)


def figure_markdown(spec: ChartSpec, language: str) -> str:
    """The image and its caption, as a chapter in Notebook/ refers to the figure."""
    ids = "".join(f"[{s}]" for s in spec.sources)
    caption = language_text(language, "figure.caption", title=_escaped(spec.title))
    if spec.unit:
        caption += language_text(language, "figure.unit", unit=_escaped(spec.unit))
    caption += ("。" if language == "zh" else ". ") + language_text(language, "figure.source", ids=ids)
    if spec.note:
        caption += ("" if language == "zh" else " ") + _escaped(spec.note)
    alt = spec.title.replace("]", ")").replace("[", "(")
    return f"![{alt}](figures/{spec.name}.svg)\n\n*{caption}*\n"


def _elsewhere(checks: list[SeriesCheck]) -> str:
    far = [f"{f.label} ({f.said})" for c in checks for f in c.found if not f.near_label]
    if not far:
        return ""
    return (
        f" Note: {', '.join(far[:8])} {'is' if len(far) == 1 else 'are'} stated in the source, but not in a "
        "sentence that names its label: make sure each value belongs to its label."
    )


@action(concurrent=True, conflicts=lambda args: frozenset({f"figure:{title_slug(str(args.get('title', '')), empty='chart')}"}))
async def chart(
    ctx: ActionContext,
    title: str,
    kind: Literal["bar", "stacked_bar", "line", "pie"],
    labels: list[str | int | float],
    series: list[dict[str, Any]],
    unit: str | None = None,
    note: str | None = None,
) -> Observation:
    """A chart drawn by code from numbers a source you read states, each checked in it. Returns
    the Markdown to put into a chapter.

    Args:
        title: in the report's language.
        kind: pie: one series.
        labels: categories or x values.
        series: [{"name", "values": [one per label], "source": "S<n>"}]
        unit: as the source gives it: %, million USD, 万辆.
        note: for the caption.
    """
    spec = ChartSpec.parse(title, kind, labels, series, unit, note)
    root = ctx.workspace.root
    # the value check reads whole snapshots: off the event loop, as parallel actions go on
    checks = await asyncio.to_thread(check_chart, spec, ledger_for(ctx), root / SOURCES)
    failed = [c for c in checks if not c.ok]
    if failed:
        raise ActionError(
            "the chart was not drawn: "
            + "; ".join(c.refusal() for c in failed)
            + ". Give only values the cited source states (as it writes them, or with the unit that scales "
            "them: 1.2 with unit \"million\" for 1,200,000), or cite the source that states them."
        )
    taken = store.title_of(root, spec.name)
    if taken is not None and taken != spec.title:  # "Revenue ($bn)" and "Revenue (€bn)" share a file name
        raise ActionError(
            f"the chart was not drawn: its file name {store.figure_path(spec.name, 'svg')} is taken by the figure "
            f"“{taken}”; give this chart a title that differs in its words (not only in signs), or draw that one "
            "again with the same title to replace it"
        )
    drawing = await asyncio.to_thread(draw, spec)
    store.save(root, spec, drawing)
    language = resolve_language(ctx.settings.language, ctx.meta.title, ctx.meta.purpose)
    fonts = (
        ""
        if drawing.cjk_font or not re.search(r"[\u3000-\u9fff]", spec.title + "".join(spec.labels))
        else " No CJK font is installed (Debian: fonts-noto-cjk): the PNG shows Chinese as boxes."
    )
    values = sum(len(s.values) for s in spec.series)
    return Observation(
        f"Chart drawn: {store.figure_path(spec.name, 'svg')} (and .png); its {values} values are stated in "
        f"{', '.join(f'[{s}]' for s in spec.sources)}.{_elsewhere(checks)}{fonts} Put this into the chapter "
        "(a file in Notebook/) where it belongs, as it is; the figure is numbered in the report:\n\n"
        + figure_markdown(spec, language)
    )
