"""Claims read in their page's context, at the report level, through the real CLI: the scripted
model reads three encyclopedia-style pages served on 127.0.0.1 (a title, headings, "she", "its",
"that year") and finishes with a chapter of nine sentences. A clean report whose true sentences
name their pages' subjects has no † at all; a report of wrong numbers, swapped people, a wrong
direction, a wrong section's year and a citation of the wrong page has nearly all of them marked.
In English and in Chinese."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.web_server import Route, WebServer

PAGES_EN = {
    "/curie": ("Marie Curie - Encyclopedia", """<h1>Marie Curie</h1>
<p>Marie Skłodowska Curie was a Polish-born physicist and chemist who worked in France. She was the first woman to win a Nobel Prize.</p>
<h2>Nobel Prizes</h2>
<p>In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel. She won her second Nobel Prize, in Chemistry, in 1911.</p>
<h2>Family</h2><h3>Pierre Curie</h3>
<p>Pierre was a French physicist and her husband. He was killed in 1906 in a street accident in Paris.</p>
<h2>Later life</h2>
<p>During the First World War she developed mobile radiography units. Dr. Curie died in 1934 at a sanatorium in Passy.</p>"""),
    "/baikal": ("Lake Baikal | Encyclopedia", """<h1>Lake Baikal</h1>
<p>Lake Baikal is a rift lake in southern Siberia, Russia, and the oldest lake on Earth.</p>
<h2>Geography</h2>
<p>Its maximum depth is 1,642 metres. It holds about a fifth of the world's unfrozen fresh surface water.</p>
<h2>Ecology</h2>
<p>The lake is home to more than 2,500 animal species, most of which live nowhere else.</p>"""),
    "/tamworth": ("Tamworth Mill - Encyclopedia", """<h1>Tamworth Mill</h1>
<p>Tamworth Mill is a market town on the river Anker, known for its weekly cattle market.</p>
<h2>2011 census</h2>
<p>The population was 2,904, of whom 18% were over 65.</p>
<h2>2021 census</h2>
<p>The population was 3,207. The town's first secondary school opened that year.</p>"""),
}
TRUE_EN = [
    ("curie", "Marie Curie won her second Nobel Prize, in Chemistry, in 1911."),
    ("curie", "Marie Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel."),
    ("curie", "Marie Curie died in 1934 at a sanatorium in Passy."),
    ("baikal", "Lake Baikal is 1,642 metres deep at its deepest point."),
    ("baikal", "Lake Baikal holds about a fifth of the world's unfrozen fresh surface water."),
    ("baikal", "Lake Baikal is home to more than 2,500 animal species."),
    ("tamworth", "In the 2021 census Tamworth Mill had 3,207 inhabitants."),
    ("tamworth", "Tamworth Mill's population rose from 2,904 in 2011 to 3,207 in 2021."),
    ("tamworth", "Tamworth Mill's first secondary school opened in 2021."),
]
WRONG_EN = [
    ("curie", "Marie Curie won her second Nobel Prize, in Chemistry, in 1912."),  # a number
    ("curie", "Marie Curie was killed in 1906 in a street accident in Paris."),  # Pierre's section
    ("curie", "Pierre Curie won his second Nobel Prize, in Chemistry, in 1911."),  # "she" is Marie
    ("baikal", "Lake Baikal is 1,246 metres deep at its deepest point."),  # a number
    ("baikal", "Lake Baikal holds about half of the world's unfrozen fresh surface water."),  # a share
    ("tamworth", "Tamworth Mill's population fell from 2,904 in 2011 to 3,207 in 2021."),  # a direction
    ("tamworth", "In the 2011 census Tamworth Mill had 3,207 inhabitants."),  # the other section's year
    ("tamworth", "Tamworth Mill's first secondary school opened in 2011."),  # a date
    ("curie", "Lake Baikal is home to more than 2,500 animal species."),  # the wrong page
]

PAGES_ZH = {
    "/zhang": ("张三 - 百科", """<h1>张三</h1>
<p>张三是中国科学院院士、材料学家，1962年生于江苏南通。他长期从事高温合金研究。</p>
<h2>研究经历</h2>
<p>2005年，张教授带领团队研制出新型高温合金。该合金于2012年获得国家技术发明一等奖。</p>
<h2>学生</h2><h3>李四</h3>
<p>李四是张三的学生。他于2019年创办了一家电池公司。</p>"""),
    "/qinghai": ("青海湖 - 百科", """<h1>青海湖</h1>
<p>青海湖位于青藏高原东北部，是我国最大的内陆咸水湖。</p>
<h2>地理</h2>
<p>其湖面海拔约3196米，面积约4400平方千米。湖中的鸟岛是斑头雁等候鸟的重要繁殖地。</p>
<h2>旅游</h2>
<p>每年7月，环青海湖国际公路自行车赛在此举行。</p>"""),
    "/bus": ("江州市公共交通 - 百科", """<h1>江州市公共交通</h1>
<p>江州市公共交通由市公交集团运营，共有线路212条。</p>
<h2>2023年</h2>
<p>全市公交日均客运量为86万人次。</p>
<h2>2024年</h2>
<p>全市公交日均客运量为103万人次。当年新开通快速公交线路5条。</p>"""),
}
TRUE_ZH = [
    ("zhang", "2005年，张三带领团队研制出新型高温合金。"),
    ("zhang", "张三团队研制的新型高温合金于2012年获得国家技术发明一等奖。"),
    ("zhang", "张三1962年生于江苏南通。"),
    ("qinghai", "青海湖湖面海拔约3196米。"),
    ("qinghai", "青海湖面积约4400平方千米。"),
    ("qinghai", "每年7月，环青海湖国际公路自行车赛在青海湖举行。"),
    ("bus", "2024年，江州市公交日均客运量为103万人次。"),
    ("bus", "江州市公交日均客运量从2023年的86万人次增长到2024年的103万人次。"),
    ("bus", "2024年，江州市新开通快速公交线路5条。"),
]
WRONG_ZH = [
    ("zhang", "2005年，张四带领团队研制出新型高温合金。"),  # the same surname, another person
    ("zhang", "张三于2019年创办了一家电池公司。"),  # 他 in 李四's section
    ("zhang", "张三团队研制的新型高温合金于2015年获得国家技术发明一等奖。"),  # a year
    ("qinghai", "青海湖湖面海拔约2196米。"),  # a number
    ("qinghai", "青海湖面积约1400平方千米。"),  # a number
    ("bus", "江州市公交日均客运量从2023年的86万人次下降到2024年的103万人次。"),  # a direction
    ("bus", "2023年，江州市公交日均客运量为103万人次。"),  # the other section's year
    ("bus", "2023年，江州市新开通快速公交线路5条。"),  # a year
    ("zhang", "青海湖面积约4400平方千米。"),  # the wrong page
]


def serve(web_server: WebServer, pages: dict[str, tuple[str, str]]) -> dict[str, str]:
    for path, (title, body) in pages.items():
        html = f"<html><head><meta charset='utf-8'><title>{title}</title></head><body><nav>Home · Search</nav><article>{body}</article></body></html>"
        web_server.routes[path] = Route(body=html.encode())
    return {path.strip("/"): web_server.url(path) for path in pages}


def research(workspace: Path, urls: dict[str, str], sentences: list[tuple[str, str]], heading: str) -> Any:
    """Read the three pages in one visit_url, then write one chapter citing each sentence's page and
    finish with it (again after each refusal, unchanged: the report is finalized as it stands)."""
    ids: dict[str, str] = {}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("visit_url", url=list(urls.values())))
        if not ids:
            for source_id, url in re.findall(r"^## \[(S\d+)\].*?(http://\S+)", observations[0], re.M):
                ids.update({name: source_id for name, page in urls.items() if url.rstrip(")") == page})
        chapter = f"## {heading}\n\n" + "\n".join(f"{text[:-1]} [{ids[page]}]{text[-1]}" for page, text in sentences)
        (workspace / "Notebook").mkdir(exist_ok=True)
        (workspace / "Notebook" / "01.md").write_text(chapter + "\n", "utf-8")  # what the File agent would do
        return reply(call("all_finished", result="done", chapters=["Notebook/01.md"]))

    return script, ids


def run(tmp_path: Path, web_server: WebServer, pages: dict[str, tuple[str, str]], sentences: list[tuple[str, str]], title: str) -> tuple[str, list[dict[str, Any]]]:
    urls = serve(web_server, pages)
    workspace = tmp_path / "ws"
    script, ids = research(workspace, urls, sentences, "Findings" if title.isascii() else "发现")
    with ScriptedEndpoint(script) as endpoint:
        result = run_cli(
            ["run", title, "--workspace", str(workspace), "--allow-private-urls", "--verify-citations", "lexical",
             "--max-steps", "10", "-q"],
            cli_env(endpoint.url), cwd=tmp_path,
        )  # fmt: skip
    assert result.code == 0, result.stdout + result.stderr
    assert len(ids) == 3, ids
    report = (workspace / "report.md").read_text("utf-8")
    citations = json.loads((workspace / "report.citations.json").read_text("utf-8"))["citations"]
    return report, citations


@pytest.mark.slow
@pytest.mark.parametrize(("pages", "sentences", "title"), [(PAGES_EN, TRUE_EN, "Three pages"), (PAGES_ZH, TRUE_ZH, "三个页面")])
def test_a_clean_report_naming_its_pages_subjects_has_no_dagger(
    tmp_path: Path, web_server: WebServer, pages: dict[str, tuple[str, str]], sentences: list[tuple[str, str]], title: str
) -> None:
    report, citations = run(tmp_path, web_server, pages, sentences, title)
    flagged = [c for c in citations if c["verdict"] == "unsupported"]
    assert not flagged, [(c["statement"], c["reasons"]) for c in flagged]
    assert "†" not in report
    assert len(citations) == 9
    in_sections = [c for c in citations if "›" in c["context"]]  # each passage read under its headings
    assert len(in_sections) >= 6, [c["context"] for c in citations]


@pytest.mark.slow
@pytest.mark.parametrize(("pages", "sentences", "title"), [(PAGES_EN, WRONG_EN, "Three pages"), (PAGES_ZH, WRONG_ZH, "三个页面")])
def test_a_report_of_wrong_sentences_has_nearly_all_marked(
    tmp_path: Path, web_server: WebServer, pages: dict[str, tuple[str, str]], sentences: list[tuple[str, str]], title: str
) -> None:
    report, citations = run(tmp_path, web_server, pages, sentences, title)
    body = report.split("## Appendix")[0].split("## 附录")[0]
    marked = body.count("†")
    assert marked >= 8, (marked, [(c["statement"], c["verdict"], c["reasons"]) for c in citations])
    assert sum(c["verdict"] == "unsupported" for c in citations) >= 8
