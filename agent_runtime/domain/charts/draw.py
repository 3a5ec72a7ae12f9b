"""A chart drawn by code: matplotlib's object API on its Agg backend, no model code anywhere.

Why matplotlib (and not Vega-Lite through vl-convert): it is the most used and longest kept
plotting library of Python, draws SVG with its text kept as text (`svg.fonttype: none`) and PNG
from one figure, and finds the system's fonts itself, so Noto Sans CJK (the README's
`fonts-noto-cjk`) draws Chinese labels; vl-convert carries a JavaScript engine in a 100 MB wheel
and needs its fonts registered by hand. It is imported on the first chart only: the CLI's start
never pays for it.

The drawing holds a lock (matplotlib's state is global) and is deterministic: no date, a fixed
hash salt, so the same values give the same files and an edit of a file shows in its digest.
"""

from __future__ import annotations

import hashlib
import io
import threading
import warnings
from dataclasses import dataclass
from typing import Any

from agent_runtime.domain.charts.spec import ChartSpec

_LOCK = threading.Lock()
# Latin text in DejaVu (matplotlib's own), then the CJK fonts of Linux, macOS and Windows: each
# glyph falls back along the list, so a Chinese label never turns into boxes where one is installed.
_FONTS = ("DejaVu Sans", "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "PingFang SC", "Microsoft YaHei")
_COLOURS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b")
_SHOWN_LABEL = 28  # characters of a category drawn under its bar; the full one is in the record
_PNG_DPI = 160


@dataclass(frozen=True)
class Drawing:
    svg: bytes
    png: bytes
    cjk_font: bool  # a CJK font was found (without one, Chinese labels cannot be drawn)

    def digests(self) -> dict[str, str]:
        return {"svg": digest(self.svg), "png": digest(self.png)}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _installed(names: tuple[str, ...]) -> list[str]:
    from matplotlib import font_manager

    have = {f.name for f in font_manager.fontManager.ttflist}
    return [n for n in names if n in have]


def _short(label: str) -> str:
    return label if len(label) <= _SHOWN_LABEL else label[: _SHOWN_LABEL - 1] + "…"


def draw(spec: ChartSpec) -> Drawing:
    """The chart as SVG (text as text) and PNG bytes."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    with _LOCK:
        fonts = _installed(_FONTS)
        settings: dict[str, Any] = {
            "font.family": fonts or ["sans-serif"],
            "svg.fonttype": "none",
            "svg.hashsalt": "deep-researcher",
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.unicode_minus": False,  # a CJK font's minus sign is the hyphen
            "text.parse_math": False,  # "$5 to $10" is money, not mathtext (an unbalanced $ would raise)
        }
        with matplotlib.rc_context(settings), warnings.catch_warnings():  # type: ignore[arg-type]
            warnings.simplefilter("ignore")  # a missing glyph is reported as cjk_font, not printed
            figure = Figure(figsize=(7.2, 4.2 if spec.kind != "pie" else 4.8), layout="constrained")
            axes = figure.subplots()
            _plot(axes, spec)
            axes.set_title(spec.title, fontsize=12, loc="left" if spec.kind != "pie" else "center")
            svg, png = io.BytesIO(), io.BytesIO()
            figure.savefig(svg, format="svg", metadata={"Date": None})
            figure.savefig(png, format="png", dpi=_PNG_DPI, metadata={"Software": None})
    return Drawing(svg.getvalue(), png.getvalue(), any(n not in ("DejaVu Sans",) for n in fonts))


def _plot(axes: Any, spec: ChartSpec) -> None:
    labels = [_short(label) for label in spec.labels]
    several = len(spec.series) > 1
    if spec.kind == "pie":
        values = spec.series[0].values
        shown = [(label, v) for label, v in zip(labels, values, strict=True) if v > 0]
        axes.pie(
            [v for _, v in shown], labels=[label for label, _ in shown], colors=_COLOURS[: len(shown)] if len(shown) <= len(_COLOURS) else None,
            autopct="%1.0f%%" if len(shown) <= 12 else None, startangle=90, counterclock=False,
            wedgeprops={"linewidth": 1, "edgecolor": "white"},
        )  # fmt: skip
        axes.set_aspect("equal")
        return
    positions = list(range(len(labels)))
    if spec.kind == "line":
        for i, series in enumerate(spec.series):
            axes.plot(positions, series.values, marker="o", color=_COLOURS[i], label=series.name)
    else:
        stacked = spec.kind == "stacked_bar"
        width = 0.8 if stacked or not several else 0.8 / len(spec.series)
        bottoms = [0.0] * len(labels)
        for i, series in enumerate(spec.series):
            offset = 0.0 if stacked or not several else (i - (len(spec.series) - 1) / 2) * width
            bars = axes.bar(
                [p + offset for p in positions], series.values, width, bottom=bottoms if stacked else None,
                color=_COLOURS[i], label=series.name,
            )  # fmt: skip
            if len(labels) * len(spec.series) <= 24:
                axes.bar_label(bars, fmt="{:,.10g}", fontsize=8, label_type="center" if stacked else "edge", padding=2)
            if stacked:
                bottoms = [b + v for b, v in zip(bottoms, series.values, strict=True)]
        axes.axhline(0, color="#57606a", linewidth=0.8)
    axes.set_xticks(positions, labels)
    if len(labels) > 8 or max(len(label) for label in labels) > 10:
        axes.tick_params(axis="x", labelrotation=35)
        for tick in axes.get_xticklabels():
            tick.set_horizontalalignment("right")
    if spec.unit:
        axes.set_ylabel(spec.unit)
    axes.grid(axis="y", color="#d0d7de", linewidth=0.6)
    axes.set_axisbelow(True)
    if several:
        axes.legend(frameon=False, fontsize=9)
