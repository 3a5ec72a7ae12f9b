"""The live view shows the figures the chart action drew, in a Notebook file and in the report, as
`data:` images its Content-Security-Policy allows; nothing outside the figures folder is inlined."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

from starlette.testclient import TestClient

from agent_runtime.domain.charts.draw import draw
from agent_runtime.domain.charts.spec import ChartSpec
from agent_runtime.domain.charts.store import save
from tests.support.view import AUTH

FIGURE = re.compile(r'<img class="figure" src="data:image/svg\+xml;base64,([^"]+)" alt="([^"]*)">')


def with_figure(runs: Path) -> Path:
    ws = runs / "ssb"
    spec = ChartSpec.parse("Costs by year", "line", ["2023", "2024"], [{"name": "cost", "values": [10, 8], "source": "S1"}])
    save(ws, spec, draw(spec))
    return ws


def test_a_chapter_and_the_report_show_their_figure(client: TestClient, runs: Path) -> None:
    ws = with_figure(runs)
    (ws / "Notebook/02_figure.md").write_text("## Costs\n\n![Costs by year](figures/costs-by-year.svg)\n\n*Figure: Costs by year. Source: [S1].*\n")
    html = client.get("/api/file?ws=ssb&path=Notebook/02_figure.md", headers=AUTH).json()["html"]
    found = FIGURE.search(html)
    assert found is not None and found.group(2) == "Costs by year"
    assert base64.b64decode(found.group(1)) == (ws / "Notebook/figures/costs-by-year.svg").read_bytes()
    report = ws / "report.md"
    report.write_text(report.read_text() + "\n![Costs by year](Notebook/figures/costs-by-year.svg)\n")
    assert FIGURE.search(client.get("/api/report?ws=ssb", headers=AUTH).json()["html"])
    assert "img-src 'self' data:" in client.get("/api/report?ws=ssb", headers=AUTH).headers["content-security-policy"]


def test_an_image_elsewhere_or_a_figure_that_leads_outside_stays_a_link(client: TestClient, runs: Path, tmp_path: Path) -> None:
    ws = with_figure(runs)
    outside = tmp_path / "secret.svg"
    outside.write_text("<svg>secret</svg>")
    os.symlink(outside, ws / "Notebook/figures/leak.svg")
    (ws / "Notebook/03.md").write_text(
        "![x](figures/leak.svg)\n\n![y](../sources/S1.md)\n\n![z](https://tracker.example/p.png)\n"
    )
    html = client.get("/api/file?ws=ssb&path=Notebook/03.md", headers=AUTH).json()["html"]
    assert "<img" not in html and "secret" not in html


def test_a_research_agents_notes_one_folder_deeper_show_the_figure_too(client: TestClient, runs: Path) -> None:
    ws = with_figure(runs)
    (ws / "Notebook/notes").mkdir()
    (ws / "Notebook/notes/costs.md").write_text("![Costs by year](figures/costs-by-year.svg)\n")
    html = client.get("/api/file?ws=ssb&path=Notebook/notes/costs.md", headers=AUTH).json()["html"]
    assert FIGURE.search(html)
