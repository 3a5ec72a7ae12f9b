"""Figures through the real CLI with the scripted endpoint, in English and in Chinese: a chart drawn
from a local document's numbers, put into a chapter, shown in the finished report, and carried by
the HTML, DOCX and PDF exports."""

from __future__ import annotations

import base64
import io
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli

pytestmark = pytest.mark.slow  # real CLI processes (docs/testing.md: the quick loop leaves them out)

RESULT = re.compile(r"^\[(S\d+)\] ", re.M)
CASES = {
    "en": {
        "title": "Metro networks of three cities",
        "document": "# Metro networks\n\nEastby has 120 stations. Westby has 180 stations. Northby has 260 stations.\n",
        "query": "stations",
        "chart": {"title": "Stations by city", "kind": "bar", "labels": ["Eastby", "Westby", "Northby"], "unit": "stations"},
        "values": [120, 180, 260],
        "sentence": "Eastby has 120 stations [{id}].",
        "caption": "*Figure 1: Stations by city, in stations. Source: [1].*",
        "file": "stations-by-city",
        "label": "Northby",
    },
    "zh": {
        "title": "三座城市的地铁网络",
        "document": "# 各城市地铁车站\n\n北京地铁共有车站490座。上海地铁共有车站508座。广州地铁共有车站302座。\n",
        "query": "车站",
        "chart": {"title": "各城市地铁车站数量", "kind": "bar", "labels": ["北京", "上海", "广州"], "unit": "座"},
        "values": [490, 508, 302],
        "sentence": "北京地铁共有车站490座 [{id}]。",
        "caption": "*图1：各城市地铁车站数量（单位：座）。数据来源：[1]。*",
        "file": "各城市地铁车站数量",
        "label": "广州",
    },
}


def research(case: dict[str, Any]) -> Any:
    state: dict[str, Any] = {}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith("You are the File agent"):
            return reply(call("write_attached", file_path="Notebook/01.md"), call("finish", answer="written"))
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query=case["query"], max_results=3))
        if len(observations) == 1:
            state["id"] = RESULT.findall(observations[0])[0]
            return reply(call("visit_url", url=re.search(r"— (corpus:\S+)", observations[0]).group(1)))  # type: ignore[union-attr]
        if len(observations) == 2:
            series = [{"name": case["chart"]["title"], "values": case["values"], "source": state["id"]}]
            return reply(call("chart", **case["chart"], series=series))
        if len(observations) == 3:
            state["drawn"] = observations[-1]
            figure = observations[-1].split("the figure is numbered in the report:\n\n", 1)[1]
            chapter = f"## {case['chart']['title']}\n\n{case['sentence'].format(id=state['id'])}\n\n{figure}"
            return reply(call("file_operation", operation_description="Write the attached chapter to Notebook/01.md", content=chapter))
        return reply(call("all_finished", result="done", chapters=["Notebook/01.md"]))

    return script, state


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_figure_from_a_local_document_in_the_report_and_its_exports(tmp_path: Path, language: str) -> None:
    case = CASES[language]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "metro.md").write_text(case["document"])
    script, state = research(case)
    ws = tmp_path / "ws"
    with ScriptedEndpoint(script) as server:
        result = run_cli(
            ["run", case["title"], "--workspace", str(ws), "--search", "local", "--corpus", str(corpus),
             "--verify-citations", "lexical", "--max-steps", "10", "-q"],
            cli_env(server.url), cwd=tmp_path,
        )  # fmt: skip
    assert result.code == 0, result.stderr + result.stdout
    assert "Chart drawn" in state["drawn"], state["drawn"]
    report = (ws / "report.md").read_text()
    image = f"![{case['chart']['title']}](Notebook/figures/{case['file']}.svg)"
    assert image in report and case["caption"] in report, report
    assert (ws / "Notebook" / "figures" / f"{case['file']}.svg").is_file()

    for fmt in ("html", "docx", "pdf"):
        exported = run_cli(["export", str(ws), "--format", fmt], cli_env(), cwd=tmp_path)
        assert exported.code == 0, exported.stderr
        assert "warning" not in exported.stderr
    page = (ws / "report.html").read_text()
    inline = re.search(r'<img class="figure" src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert inline is not None
    assert case["label"] in base64.b64decode(inline.group(1)).decode()
    assert case["caption"].strip("*") in re.sub(r"<[^>]+>", "", page).replace("&quot;", '"')

    from docx import Document

    document = Document(str(ws / "report.docx"))
    assert len(document.inline_shapes) == 1
    texts = [p.text for p in document.paragraphs]
    assert case["caption"].strip("*") in texts

    from pypdf import PdfReader

    pdf = PdfReader(io.BytesIO((ws / "report.pdf").read_bytes()))
    # NFKC: a CJK font's cmap may give 广 as the Kangxi radical ⼴, which is the same character to a reader
    text = unicodedata.normalize("NFKC", "".join(page.extract_text() for page in pdf.pages)).replace(" ", "")
    assert "".join(case["chart"]["labels"]) in text  # the figure's own labels, drawn as text in the PDF
    assert ("图1:" if language == "zh" else "Figure1:") in text  # the numbered caption


def finished_run(tmp_path: Path) -> Path:
    case = CASES["en"]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "metro.md").write_text(case["document"])
    script, _ = research(case)
    ws = tmp_path / "ws"
    with ScriptedEndpoint(script) as server:
        result = run_cli(
            ["run", case["title"], "--workspace", str(ws), "--search", "local", "--corpus", str(corpus),
             "--verify-citations", "lexical", "--max-steps", "10", "-q"],
            cli_env(server.url), cwd=tmp_path,
        )  # fmt: skip
    assert result.code == 0, result.stderr
    return ws


def test_audit_checks_a_figure_by_its_values_and_notices_an_edited_one(tmp_path: Path) -> None:
    ws = finished_run(tmp_path)
    audited = run_cli(["audit", str(ws), "--verify-citations", "lexical"], cli_env(), cwd=tmp_path)
    assert audited.code == 0, audited.stdout + audited.stderr
    report = (ws / "report.md").read_text()
    assert "*Figure 1: Stations by city, in stations. Source: [1].*" in report and "Appendix" not in report
    record = ws / "Notebook/figures/stations-by-city.json"
    record.write_text(record.read_text().replace("260", "999"))
    audited = run_cli(["audit", str(ws), "--verify-citations", "lexical"], cli_env(), cwd=tmp_path)
    assert audited.code == 3
    assert "999 (Northby) of series 'Stations by city' is not stated in [S1]" in audited.stdout
    report = (ws / "report.md").read_text()
    assert "stations-by-city.svg" not in report and "a figure was removed: 'Stations by city'" in report


def test_a_broken_figure_file_is_named_and_the_export_goes_on(tmp_path: Path) -> None:
    ws = finished_run(tmp_path)
    (ws / "Notebook/figures/stations-by-city.svg").write_text("not a picture")
    (ws / "Notebook/figures/stations-by-city.png").unlink()
    for fmt in ("html", "docx"):
        exported = run_cli(["export", str(ws), "--format", fmt], cli_env(), cwd=tmp_path)
        assert exported.code == 0, exported.stderr
        assert "warning: a figure was left out of the export: Notebook/figures/stations-by-city." in exported.stderr
    assert "Stations by city" in (ws / "report.html").read_text()  # the rest of the report is there
