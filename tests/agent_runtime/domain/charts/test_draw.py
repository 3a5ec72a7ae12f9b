"""The drawing: SVG with its text as text, a PNG, deterministic files, Chinese drawn with a CJK
font (two different Chinese labels give two different pictures: boxes would be the same)."""

from __future__ import annotations

import subprocess
import sys

from agent_runtime.domain.charts.draw import draw
from agent_runtime.domain.charts.spec import ChartSpec


def spec(labels: list[str], kind: str = "bar", title: str = "地铁车站数量") -> ChartSpec:
    return ChartSpec.parse(title, kind, labels, [{"name": "车站", "values": [490, 508][: len(labels)], "source": "S1"}], "座")


def test_svg_keeps_text_and_png_is_a_png() -> None:
    drawing = draw(spec(["北京", "上海"]))
    svg = drawing.svg.decode()
    assert "<text" in svg and "北京" in svg and "地铁车站数量" in svg
    assert drawing.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert drawing.cjk_font


def test_chinese_is_drawn_with_glyphs_not_boxes() -> None:
    a = draw(spec(["北京"], title="车站"))
    b = draw(spec(["上海"], title="车站"))
    assert a.png != b.png


def test_the_same_values_draw_the_same_files() -> None:
    assert draw(spec(["北京", "上海"])).digests() == draw(spec(["北京", "上海"])).digests()


def test_every_kind_draws() -> None:
    for kind in ("bar", "stacked_bar", "line", "pie"):
        assert draw(spec(["北京", "上海"], kind)).png


def test_matplotlib_is_not_imported_by_the_cli_or_the_actions() -> None:
    code = "import sys, agent_runtime.app.cli, actions; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
