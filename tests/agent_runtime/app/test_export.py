"""`deep-researcher export`: the report of a finished run as HTML, DOCX and PDF.

The workspaces are made by real runs: a scripted model reads three pages served on 127.0.0.1
(visit_url), attaches a chapter with a table, lists, code, a `<script>` in its text and Chinese,
and finishes; the runtime audits the citations, renumbers them and writes report.md, the
References and report.citations.json. One run is English, one Chinese (固态电池). The files are
then read as a user's programs read them: the DOCX with python-docx, the PDF's text with pdfium
(and its Chinese glyphs looked at), the HTML in Chromium driven by Playwright.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.export import export_report
from agent_runtime.app.markdown_html import short_passage
from agent_runtime.app.researcher import Researcher
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.errors import ExportError
from agent_runtime.testing import Reply, ScriptedModel, call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.loopback import Handler, LoopbackServer, send
from tests.support.runs import settings, start_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
CITATION = re.compile(r"\[(\d+(?:, \d+)*)\]")

EN_TITLE = "Battery chemistries in 2026"
EN_PAGES = {
    "/lfp": (
        "Lithium iron phosphate cells",
        "Lithium iron phosphate cells last for more than 6000 charge cycles. "
        "In 2025 LFP cells cost 95 USD per kWh at the pack level.",
    ),
    "/ssb": (
        "Solid-state batteries",
        "Solid electrolytes do not burn, which makes solid-state batteries safer. "
        "NMC cells cost 120 USD per kWh at the pack level.",
    ),
    "/zh": ("固态电池产业化", "固态电池的成本正在快速下降，多家企业计划在2027年量产。"),
}
EN_CHAPTER = """## Findings

Lithium iron phosphate cells last for more than 6000 charge cycles [{lfp}]. Solid electrolytes do not \
burn, which makes solid-state batteries safer [{ssb}].

### Costs

| Chemistry | Pack cost (USD per kWh) |
|---|--:|
| LFP | 95 [{lfp}] |
| NMC | 120 [{ssb}] |

- **Safety**: solid electrolytes do not burn [{ssb}].
- *Cycle life*: LFP cells last for more than 6000 charge cycles [{lfp}].

1. Read the sources.
2. Compare the costs.

A second list counts from one again:

1. Check the dates.

```python
print("cost per kWh")
```

Some web pages carry scripts such as <script>document.title = "pwned"; window.pwned = true</script>, \
which the report shows as text.

## Chinese sources

固态电池的成本正在快速下降，多家企业计划在2027年量产 [{zh}]。
"""
ZH_TITLE = "固态电池的产业化进展"
ZH_PAGES = {
    "/sulfide": (
        "硫化物固态电池",
        "固态电池的成本正在快速下降，多家企业计划在2027年量产。硫化物电解质的离子电导率最高。",
    ),
    "/oxide": ("氧化物电解质", "氧化物电解质的稳定性好，但界面阻抗较高。固态电解质不会燃烧，因此更加安全。"),
}
ZH_CHAPTER = """## 产业化进展

固态电池的成本正在快速下降，多家企业计划在2027年量产 [{sulfide}]。

### 技术路线对比

| 路线 | 特点 |
|---|---|
| 硫化物 | 离子电导率最高 [{sulfide}] |
| 氧化物 | 稳定性好，但界面阻抗较高 [{oxide}] |

- **安全性**：固态电解质不会燃烧，因此更加安全 [{oxide}]。
"""
ZH_SENTENCE = "固态电池的成本正在快速下降，多家企业计划在2027年量产"


def _page(pages: dict[str, tuple[str, str]]) -> Any:
    def answer(handler: Handler) -> None:
        title, text = pages[handler.path]
        body = f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>"
        send(handler, body.encode())

    return answer


def finished_run(root: Path, title: str, pages: dict[str, tuple[str, str]], chapter: str) -> Path:
    """A real run that reads `pages`, writes `chapter` (its {names} are the pages' source ids) and
    finishes with all_finished: report.md, report.citations.json and sources/ as a user gets them."""
    ws = root / "ws"
    steps: list[int] = []
    with LoopbackServer(_page(pages)) as server:
        base = f"http://127.0.0.1:{server.port}"

        def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
            if str(messages[0]["content"]).startswith("You are the File agent"):
                return reply(
                    call("write_attached", file_path="Notebook/01.md"), call("finish", answer="written")
                )
            steps.append(1)
            if len(steps) == 1:
                return reply(call("visit_url", url=[base + path for path in pages]))
            if len(steps) == 2:
                ledger = Ledger.load(ws / "sources")
                ids = {path.strip("/"): ledger.lookup(base + path).id for path in pages}  # type: ignore[union-attr]
                text = chapter.format(**ids)
                return reply(call("file_operation", operation_description="Write the attached chapter to Notebook/01.md", content=text))  # fmt: skip
            return reply(call("all_finished", result="done", chapters=["Notebook/01.md"]))

        researcher = Researcher.start(
            title, purpose=None, workspace=ws, settings=settings(allow_private_urls=True, max_steps=8),
            model=ScriptedModel(script),
        )  # fmt: skip
        result = asyncio.run(researcher.run())
    assert result.status == "finished", result.reason
    assert "[S" not in (ws / "report.md").read_text()  # renumbered by the runtime
    return ws


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return finished_run(tmp_path_factory.mktemp("en"), EN_TITLE, EN_PAGES, EN_CHAPTER)


@pytest.fixture(scope="module")
def chinese(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return finished_run(tmp_path_factory.mktemp("zh"), ZH_TITLE, ZH_PAGES, ZH_CHAPTER)


def cited_urls(ws: Path) -> dict[int, str]:
    """Citation number → the URL of its source, from the run's own records."""
    ledger = Ledger.load(ws / "sources")
    records = json.loads((ws / "report.citations.json").read_text())["citations"]
    urls = {}
    for item in records:
        source = ledger.get(item["source"])
        assert source is not None
        urls[item["citation"]] = source.final_url or source.url
    return urls


# -- DOCX ---------------------------------------------------------------------------------------
def open_docx(path: Path) -> Any:
    import docx

    return docx.Document(str(path))


def test_the_docx_has_word_headings_lists_a_table_code_and_linked_references(
    english: Path, tmp_path: Path
) -> None:
    written = export_report(english, "docx", output=tmp_path / "report.docx")
    document = open_docx(written)
    paragraphs = document.paragraphs
    headings = [(p.style.name, p.text) for p in paragraphs if p.style.name.startswith("Heading")]
    assert headings == [
        ("Heading 1", EN_TITLE), ("Heading 2", "Findings"), ("Heading 3", "Costs"),
        ("Heading 2", "Chinese sources"), ("Heading 2", "References"),
    ]  # fmt: skip
    styles = {p.text: p.style.name for p in paragraphs}
    assert styles["Safety: solid electrolytes do not burn [2]."] == "List Bullet"
    assert styles["Read the sources."] == styles["Check the dates."] == "List Number"
    assert styles['print("cost per kWh")'] == "Code Block"
    safety = next(p for p in paragraphs if p.text.startswith("Safety"))
    assert [r.text for r in safety.runs if r.bold] == ["Safety"]
    # The second numbered list counts from 1 again: its own numbering instance, started at 1.
    first, second = (
        next(p for p in paragraphs if p.text == t) for t in ("Read the sources.", "Check the dates.")
    )
    assert first._p.pPr.numPr.numId.val != second._p.pPr.numPr.numId.val
    assert ZH_SENTENCE + " [3]。" in styles  # Chinese intact, in its own paragraph

    table = document.tables[0]
    assert [[cell.text for cell in row.cells] for row in table.rows] == [
        ["Chemistry", "Pack cost (USD per kWh)"], ["LFP", "95 [1]"], ["NMC", "120 [2]"],
    ]  # fmt: skip
    assert table.style.name == "Table Grid"

    # The References: one numbered entry per cited source, each linking to the source's URL; the
    # citations of the body are exactly those numbers, and each links to its entry's bookmark.
    start = next(i for i, p in enumerate(paragraphs) if p.text == "References") + 1
    entries = paragraphs[start:]
    urls = cited_urls(english)
    assert [e.text.split(".")[0] for e in entries] == [str(n) for n in sorted(urls)]
    assert [[link.address for link in e.hyperlinks] for e in entries] == [[urls[n]] for n in sorted(urls)]
    body = [p.text for p in paragraphs[: start - 1]] + [c.text for row in table.rows for c in row.cells]
    cited = {int(n) for text in body for group in CITATION.findall(text) for n in group.split(", ")}
    assert cited == set(urls) == {1, 2, 3}
    internal = {link.fragment for p in paragraphs[: start - 1] for link in p.hyperlinks}
    assert internal == {"ref_1", "ref_2", "ref_3"}
    bookmarks = {b.get(qn("w:name")) for b in document.element.body.iter(qn("w:bookmarkStart"))}
    assert {"ref_1", "ref_2", "ref_3"} <= bookmarks
    assert any("<script>document.title" in p.text for p in paragraphs)  # shown as text


def qn(tag: str) -> str:
    from docx.oxml.ns import qn as namespaced

    return str(namespaced(tag))


def test_a_chinese_docx_names_an_east_asian_font_and_keeps_the_chinese(chinese: Path) -> None:
    document = open_docx(export_report(chinese, "docx"))
    assert (chinese / "report.docx").is_file()  # the default place
    texts = [p.text for p in document.paragraphs]
    assert texts[0] == ZH_TITLE and document.paragraphs[0].style.name == "Heading 1"
    assert "参考文献" in texts and "References" not in texts
    assert ZH_SENTENCE + " [1]。" in texts
    assert "安全性：固态电解质不会燃烧，因此更加安全 [2]。" in texts
    assert document.tables[0].cell(2, 1).text == "稳定性好，但界面阻抗较高 [2]"
    # Word takes the font of Chinese characters from w:eastAsia; a theme font would override it.
    for name in ("Normal", "Heading 1", "Heading 2"):
        fonts = document.styles[name].element.rPr.rFonts
        assert fonts.get(qn("w:eastAsia")) == "Microsoft YaHei", name
        assert fonts.get(qn("w:eastAsiaTheme")) is None, name
    assert document.core_properties.title == ZH_TITLE
    assert document.core_properties.language == "zh-CN"


# -- PDF ----------------------------------------------------------------------------------------
def pdf_text(path: Path) -> str:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


def glyph_images(path: Path, characters: str) -> list[Any]:
    """Each of `characters` (on the first page) as Chromium drew it, cut from the rendered page."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    page = pdf[0]
    textpage = page.get_textpage()
    text = textpage.get_text_range()
    scale, height = 4, page.get_height()
    picture = page.render(scale=scale).to_pil().convert("L")
    images = []
    for character in characters:
        left, bottom, right, top = textpage.get_charbox(text.index(character))
        box = (
            int(left * scale),
            int((height - top) * scale),
            int(right * scale) + 1,
            int((height - bottom) * scale) + 1,
        )
        images.append(picture.crop(box))
    pdf.close()
    return images


@needs_chromium
def test_the_pdf_holds_the_report_and_real_chinese_glyphs(
    chinese: Path, english: Path, tmp_path: Path
) -> None:
    written = export_report(chinese, "pdf", output=tmp_path)  # a folder: report.pdf inside it
    assert written == tmp_path / "report.pdf"
    assert written.read_bytes().startswith(b"%PDF")
    text = pdf_text(written)
    flat = re.sub(r"\s+", "", text)
    assert ZH_TITLE in flat and "参考文献" in flat and re.sub(r"\s+", "", ZH_SENTENCE) in flat
    assert "\ufffd" not in text
    # Without a CJK font Chromium draws the same empty box for every character: real glyphs differ
    # from one another, are about square, and have ink.
    glyphs = glyph_images(written, "固态电池产业")
    assert len({image.tobytes() for image in glyphs}) == len(glyphs), "Chinese drawn as identical boxes"
    for image in glyphs:
        width, height = image.size
        assert 0.6 < width / height < 1.6 and image.getextrema()[0] < 128
    english_text = pdf_text(export_report(english, "pdf", output=tmp_path / "en.pdf"))
    assert EN_TITLE in english_text and "References" in english_text
    assert "Lithium iron phosphate cells last for more than 6000 charge cycles" in " ".join(
        english_text.split()
    )


@needs_chromium
def test_the_pdf_links_citations_to_references_and_references_to_their_sources(
    english: Path, tmp_path: Path
) -> None:
    from pypdf import PdfReader

    annotations = [a.get_object() for page in PdfReader(export_report(english, "pdf", output=tmp_path / "r.pdf")).pages for a in page.get("/Annots", [])]  # fmt: skip
    uris = {a["/A"]["/URI"] for a in annotations if "/A" in a and "/URI" in a["/A"]}
    destinations = {str(a["/Dest"]) for a in annotations if "/Dest" in a}
    assert uris == set(cited_urls(english).values())
    assert destinations == {"/ref-1", "/ref-2", "/ref-3"}


# -- HTML in Chromium ---------------------------------------------------------------------------
@pytest.mark.slow
@needs_chromium
def test_the_html_works_in_chromium_offline_and_runs_no_script(english: Path, tmp_path: Path) -> None:
    from playwright.sync_api import Route, sync_playwright

    page_file = export_report(english, "html", output=tmp_path / "report.html")
    urls = cited_urls(english)
    passages = json.loads((english / "report.citations.json").read_text())["citations"]
    outside: list[str] = []

    def refuse(route: Route) -> None:  # the page must need nothing but itself
        if not route.request.url.startswith("file://"):
            outside.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 900, "height": 500})
            page.route("**/*", refuse)
            page.goto(page_file.as_uri())
            assert page.title() == EN_TITLE  # not "pwned": the report's <script> did not run
            assert page.evaluate("typeof window.pwned") == "undefined"
            assert "<script>document.title" in page.inner_text("main")
            assert page.get_attribute("html", "lang") == "en"
            reference = page.locator("#ref-1")
            assert reference.evaluate("e => e.getBoundingClientRect().top") > 500  # below the fold
            first = page.locator("a.cite[data-cite='1']").first
            assert first.get_attribute("title") == short_passage(passages[0]["passage"])
            first.click()
            page.wait_for_url(re.compile(r"#ref-1$"))  # a fragment, no navigation away
            assert page.evaluate("document.querySelector(':target').id") == "ref-1"
            top = reference.evaluate("e => e.getBoundingClientRect().top")
            assert 0 <= top < 500  # scrolled to the entry
            for number, url in urls.items():
                assert page.locator(f"#ref-{number} a").get_attribute("href") == url
            assert page.locator("link, script, img, iframe").count() == 0
            # The column the report aligns right ("|--:|") is right-aligned: by a class, no style attribute.
            cost = page.locator("td.align-right").first
            assert cost.evaluate("e => getComputedStyle(e).textAlign") == "right"
            assert page.locator("[style]").count() == 0
        finally:
            browser.close()
    assert outside == []


@pytest.mark.slow
@needs_chromium
def test_the_chinese_html_names_cjk_fonts_and_its_language(chinese: Path) -> None:
    from playwright.sync_api import sync_playwright

    page_file = export_report(chinese, "html")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(page_file.as_uri())
            assert page.get_attribute("html", "lang") == "zh"
            assert page.title() == ZH_TITLE
            family = page.evaluate("getComputedStyle(document.body).fontFamily")
            assert family.startswith('"Noto Sans CJK SC"') and "Microsoft YaHei" in family
            assert ZH_SENTENCE in page.inner_text("main")
            assert page.locator("h2").all_inner_texts()[-1] == "参考文献"
        finally:
            browser.close()


# -- the command line and its errors --------------------------------------------------------------
@pytest.mark.slow
def test_export_through_the_cli(english: Path, tmp_path: Path) -> None:
    out = tmp_path / "memo.docx"
    done = run_cli(["export", str(english), "--format", "docx", "--output", str(out)], cli_env())
    assert done.code == 0, done.stderr
    assert done.stdout.strip() == f"Exported: {out}"
    assert open_docx(out).paragraphs[0].text == EN_TITLE
    done = run_cli(["export", str(english), "--format", "html"], cli_env())
    assert done.code == 0 and (english / "report.html").read_text().startswith("<!DOCTYPE html>")


def one_line_error(done: Any) -> str:
    assert done.code == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return str(lines[0])


@pytest.mark.slow
async def test_an_unfinished_run_says_so_and_how_to_finish_it(tmp_path: Path) -> None:
    script = lambda m, t: reply(call("update_current_dashboard", content="# Current\n\nReading.\n"))  # noqa: E731
    result, _ = await start_run(tmp_path, script, max_steps=1)
    assert result.status == "stopped"
    ws = tmp_path / "ws"
    (ws / "report.draft.md").write_text("# Draft\n")
    done = await asyncio.to_thread(run_cli, ["export", str(ws), "--format", "html"], cli_env())
    line = one_line_error(done)
    assert "has not finished" in line and "report.draft.md" in line and f"deep-researcher resume {ws}" in line
    assert not list(ws.glob("report.html")) and not list(ws.glob(".report*"))


@pytest.mark.slow
def test_a_folder_that_is_no_workspace_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    line = one_line_error(run_cli(["export", str(tmp_path), "--format", "docx"], cli_env()))
    assert "is not a research workspace" in line
    line = one_line_error(run_cli(["export", str(tmp_path / "missing"), "--format", "docx"], cli_env()))
    assert "does not exist" in line


@pytest.mark.slow
def test_a_bad_format_is_a_usage_error(english: Path) -> None:
    done = run_cli(["export", str(english), "--format", "odt"], cli_env())
    assert done.code == 2 and "invalid choice: 'odt'" in done.stderr
    with pytest.raises(ExportError, match="the formats are html, docx, pdf"):
        export_report(english, "odt")


@pytest.mark.slow
def test_an_output_that_cannot_be_written_is_one_message(english: Path, tmp_path: Path) -> None:
    line = one_line_error(run_cli(["export", str(english), "--format", "html", "--output", str(tmp_path / "no" / "r.html")], cli_env()))  # fmt: skip
    assert "does not exist" in line
    line = one_line_error(run_cli(["export", str(english), "--format", "html", "--output", str(english / "report.md")], cli_env()))  # fmt: skip
    assert "the run's own file" in line
    assert (english / "report.md").read_text().startswith(f"# {EN_TITLE}")
    line = one_line_error(run_cli(["export", str(english), "--format", "html", "--output", "/proc/report.html"], cli_env()))  # fmt: skip
    assert line.startswith("deep-researcher: error: cannot write /proc/report.html")


@pytest.mark.slow
def test_a_pdf_without_chromium_says_what_to_install(english: Path, tmp_path: Path) -> None:
    env = cli_env(PATH=str(tmp_path))  # nothing on PATH: no browser to find
    line = one_line_error(run_cli(["export", str(english), "--format", "pdf"], env))
    assert "apt-get install chromium" in line and "--browser-path" in line and "--format html" in line
    line = one_line_error(run_cli(["export", str(english), "--format", "pdf", "--browser-path", str(tmp_path / "chrome")], env))  # fmt: skip
    assert f"{tmp_path / 'chrome'} is not an executable browser" in line
    assert not (english / "report.pdf").exists() and not list(english.glob(".report.pdf*"))


# -- what the export reads from a workspace -------------------------------------------------------
SMALL_REPORT = """# Small report

A fact [1].

## References

1. A page. https://a.example/page (accessed 2026-01-02)
"""


def small_workspace(root: Path, report: str = SMALL_REPORT, name: str = "ws") -> Path:
    """A folder export takes for a workspace (it has an overall dashboard), made without a run."""
    ws = root / name
    ws.mkdir()
    (ws / "overall_dashboard.md").write_text("# Overall\n")
    (ws / "report.md").write_text(report)
    return ws


@pytest.mark.slow
@pytest.mark.parametrize("name", ["report.md", "report.citations.json", ".runtime/run.json"])
def test_a_file_linked_to_outside_the_workspace_is_refused(tmp_path: Path, name: str) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text('# Private key\n\n{"citations": [{"citation": 1, "passage": "PRIVATE KEY"}]}\n')
    ws = small_workspace(tmp_path)
    (ws / name).parent.mkdir(exist_ok=True)
    (ws / name).unlink(missing_ok=True)
    (ws / name).symlink_to(secret)
    for fmt in ("html", "docx"):
        with pytest.raises(ExportError, match="outside the workspace") as refused:
            export_report(ws, fmt)
        assert str(ws / name) in str(refused.value) and "PRIVATE KEY" not in str(refused.value)
        assert not list(ws.glob(f"*report.{fmt}*"))
    line = one_line_error(run_cli(["export", str(ws), "--format", "html"], cli_env()))
    assert "symbolic link to outside the workspace" in line


def test_a_link_that_stays_inside_the_workspace_is_followed(tmp_path: Path) -> None:
    ws = small_workspace(tmp_path)
    (ws / "Notebook").mkdir()
    (ws / "report.md").rename(ws / "Notebook" / "final.md")
    (ws / "report.md").symlink_to("Notebook/final.md")
    assert "A fact" in export_report(ws, "html").read_text()


def test_a_report_larger_than_the_cap_is_refused_with_its_size(tmp_path: Path) -> None:
    ws = small_workspace(tmp_path)
    (ws / "report.md").write_bytes(b"# Huge\n\n" + b"x" * 21_000_000)
    with pytest.raises(ExportError, match=r"report\.md is larger than 20 MB"):
        export_report(ws, "html")


def test_citations_are_read_in_the_one_format_the_runtime_writes(tmp_path: Path) -> None:
    from agent_runtime.app.export.report import Citation, load_citations

    ws = small_workspace(tmp_path)
    assert load_citations(ws) == []  # none written (yet): no passages, no error
    records = [
        {"citation": 1, "source": "S2", "statement": "A fact.", "passage": "The fact.", "file": "sources/S2.md",
         "lines": [3, 4], "score": 0.8, "verdict": "supported", "judged_by": "lexical"},
        {"citation": 2, "source": "S5", "statement": "B.", "passage": None, "file": None, "lines": None,
         "score": 0.1, "verdict": "unsupported", "judged_by": "lexical"},
        {"citation": True, "passage": "a bool is no citation number"}, {"citation": "3"}, "junk",
        {"citation": 4, "statement": 7, "lines": ["x"], "passage": "split \ud83d pair"},
    ]  # fmt: skip
    (ws / "report.citations.json").write_text(json.dumps({"citations": records}))
    found = load_citations(ws)
    assert [c.citation for c in found] == [1, 2, 4]
    assert found[0] == Citation(
        1, "S2", "A fact.", "The fact.", "sources/S2.md", (3, 4), 0.8, "supported", "lexical"
    )
    assert (found[1].passage, found[1].file, found[1].lines) == ("", None, None)
    assert (found[2].statement, found[2].lines, found[2].passage) == ("", None, "split \ufffd pair")
    for damaged in ("not json", "[]", '{"citations": {"1": "x"}}', json.dumps(records)):  # a bare list too
        (ws / "report.citations.json").write_text(damaged)
        assert load_citations(ws) == []
    assert export_report(ws, "html").is_file()  # a damaged file loses only the hover titles


TWO_CLAIMS = """# Two claims

The network has 134 stations [1]. The network has more than 150 stations [2]†.

## References

1. Network facts. https://a.example/facts (accessed 2026-01-02)
2. Network plans. https://a.example/plans (accessed 2026-01-02)
"""
SUPPORTED = {
    "citation": 1, "source": "S1", "statement": "The network has 134 stations.", "verdict": "supported",
    "judged_by": "lexical", "passage": "The network now has 134 stations.", "passage_is": "supporting",
    "file": "sources/S1.md", "lines": [6, 6], "score": 0.9, "reasons": [],
}  # fmt: skip
UNSUPPORTED = {
    "citation": 2, "source": "S2", "statement": "The network has more than 150 stations.",
    "verdict": "unsupported", "judged_by": "model:judge-1", "passage": "The plan adds 12 stations by 2030.",
    "passage_is": "closest", "file": "sources/S2.md", "lines": [8, 8], "score": 0.2,
    "reasons": ["the source gives 12; the sentence says more than 150", "stations is not in the passage"],
}  # fmt: skip


def cite_titles(page: str) -> dict[int, list[str | None]]:
    """Citation number → the hover title of each of its marks in an exported page, in order."""
    titles: dict[int, list[str | None]] = {}
    for number, title in re.findall(
        r'<a class="cite" href="#ref-\d+" data-cite="(\d+)"(?: title="([^"]*)")?>', page
    ):
        titles.setdefault(int(number), []).append(html.unescape(title) if title else None)
    return titles


def test_an_unverified_citation_is_labelled_not_verified_never_shown_as_its_support(tmp_path: Path) -> None:
    ws = small_workspace(tmp_path, TWO_CLAIMS)
    summary = {"checked": 2, "supported": 1, "weak": 0, "unsupported": 1, "citation_accuracy": 0.5,
               "effective_citations": 1, "unverified": 1, "checked_by": "model:judge-1", "judge": None}  # fmt: skip
    (ws / "report.citations.json").write_text(
        json.dumps({"summary": summary, "citations": [SUPPORTED, UNSUPPORTED]})
    )
    page = export_report(ws, "html").read_text()
    titles = cite_titles(page)
    assert titles[1] == ["The network now has 134 stations."]  # the support, as it is
    (shown,) = titles[2]
    assert shown == (
        "closest passage — not verified: the source gives 12; the sentence says more than 150 "
        "— “The plan adds 12 stations by 2030.”"
    )
    assert 'title="The plan adds 12 stations by 2030."' not in page  # never the bare passage
    # The † of a forced finalization stays as text right after the citation's link.
    assert 'data-cite="2" title="closest passage' in page
    assert re.search(r'data-cite="2"[^>]*>2</a>\]</span>†\.', page)
    paragraphs = [p.text for p in open_docx(export_report(ws, "docx")).paragraphs]
    assert "The network has 134 stations [1]. The network has more than 150 stations [2]†." in paragraphs

    # A passage called "supporting" with a verdict that is not "supported" is not shown as support,
    # nor is a weak one; a closest passage with no reason, or no passage at all, still says so.
    for changed, expected in [
        ({"verdict": "weak", "passage_is": "supporting", "reasons": ["12 is not 150"]},
         "closest passage — not verified: 12 is not 150 — “The plan adds 12 stations by 2030.”"),
        ({"reasons": []}, "closest passage — not verified — “The plan adds 12 stations by 2030.”"),
        ({"passage": "", "reasons": ["no passage of the source shares the claim's words"]},
         "no passage found — not verified: no passage of the source shares the claim's words"),
    ]:  # fmt: skip
        record = {**UNSUPPORTED, **changed}
        (ws / "report.citations.json").write_text(json.dumps({"citations": [SUPPORTED, record]}))
        assert cite_titles(export_report(ws, "html").read_text())[2] == [expected]


def test_an_older_citations_file_without_passage_is_or_reasons_still_loads(tmp_path: Path) -> None:
    """Files written before the audit said whether a passage supports its statement: it is inferred
    from the verdict, and only a supported one is shown as the support."""
    from agent_runtime.app.export.report import load_citations

    ws = small_workspace(tmp_path, TWO_CLAIMS)
    old = [
        {k: v for k, v in record.items() if k not in ("passage_is", "reasons")}
        for record in (SUPPORTED, UNSUPPORTED)
    ]
    no_verdict = {"citation": 2, "statement": "B.", "passage": "Something else."}
    damaged = {
        "citation": 2,
        "passage": "P.",
        "verdict": "supported",
        "passage_is": 5,
        "reasons": "not a list",
    }
    mixed = {
        "citation": 2,
        "passage": "Q.",
        "verdict": "unsupported",
        "passage_is": "maybe",
        "reasons": [3, "kept", None],
    }
    (ws / "report.citations.json").write_text(json.dumps({"citations": [*old, no_verdict, damaged, mixed]}))
    found = load_citations(ws)
    assert [(c.citation, c.passage_is, c.verified, c.reasons) for c in found] == [
        (1, "supporting", True, ()),
        (2, "closest", False, ()),
        (2, "closest", False, ()),  # no verdict: nothing says it supports the statement
        (2, "supporting", True, ()),
        (2, "closest", False, ("kept",)),
    ]
    (ws / "report.citations.json").write_text(json.dumps({"citations": old}))
    titles = cite_titles(export_report(ws, "html").read_text())
    assert titles == {
        1: ["The network now has 134 stations."],
        2: ["closest passage — not verified — “The plan adds 12 stations by 2030.”"],
    }


def test_the_hover_titles_of_a_real_run_say_which_citations_were_not_verified(
    english: Path, tmp_path: Path
) -> None:
    """The audit's own records: each mark whose record is not supported is labelled, the others
    show their passage."""
    records = json.loads((english / "report.citations.json").read_text())["citations"]
    assert all({"passage_is", "reasons"} <= set(record) for record in records)
    titles = cite_titles(export_report(english, "html", output=tmp_path / "r.html").read_text())
    for number, marks in titles.items():
        own = [r for r in records if r["citation"] == number]
        if len(own) != len(marks):
            continue  # the renderer gives every mark the first passage then: see markdown_html._Titles
        for record, title in zip(own, marks, strict=True):
            if record["verdict"] == "supported":
                assert title == short_passage(record["passage"])
            else:
                assert title is not None and title.startswith("closest passage — not verified")


def test_the_export_module_the_view_reads_citations_with_starts_light() -> None:
    """The view imports the shared reader: it must not pull in the model client (the citation
    audit's module does) or the writers."""
    import subprocess
    import sys

    probe = "import json, sys, agent_runtime.app.export.report; print(json.dumps(sorted(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert not {"openai", "docx", "markdown_it", "lxml"} & {
        name.partition(".")[0] for name in json.loads(loaded)
    }


# -- DOCX: large tables, alignment, characters XML cannot hold ------------------------------------
def test_a_docx_table_keeps_every_cell_its_header_row_and_its_column_alignment(tmp_path: Path) -> None:
    rows = "".join(f"| row {i} | {2000 + i} | {i}.5 |\n" for i in range(300))
    ws = small_workspace(tmp_path, f"# Table\n\n| Name | Year | Value |\n|:--|:-:|--:|\n{rows}")
    table = open_docx(export_report(ws, "docx")).tables[0]
    cells = [[cell.text for cell in row.cells] for row in table.rows]
    assert cells[0] == ["Name", "Year", "Value"] and len(cells) == 301
    assert cells[1:] == [[f"row {i}", str(2000 + i), f"{i}.5"] for i in range(300)]
    header = [
        row._tr.trPr is not None and row._tr.trPr.find(qn("w:tblHeader")) is not None for row in table.rows
    ]
    assert header == [True] + [False] * 300
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    assert [cell.paragraphs[0].alignment for cell in table.rows[5].cells] == [
        None, WD_ALIGN_PARAGRAPH.CENTER, WD_ALIGN_PARAGRAPH.RIGHT,
    ]  # fmt: skip


CONTROL_REPORT = (
    "# Scanned \x1b[1mtitle\x0c\n\n"
    "Page one ends here.\x0cPage two\x0bbegins [1]. Bell\x07 and NUL\x00 and &#12; entity.\n\n"
    "| Cell\x0cone | Cell\x1btwo |\n|---|---|\n| a\x0bb | [link\x0ctext](https://a.example/x) |\n\n"
    "```\ncode\x0cblock\x1b[0m\n```\n\n"
    "## References\n\n1. Page\x0c. https://a.example/p\x1bq (accessed 2026-01-02)\n"
)


@pytest.mark.slow
def test_control_characters_from_pdf_text_do_not_break_the_docx(tmp_path: Path) -> None:
    ws = small_workspace(tmp_path, CONTROL_REPORT)
    done = run_cli(["export", str(ws), "--format", "docx"], cli_env())
    assert done.code == 0, done.stderr
    document = open_docx(ws / "report.docx")
    texts = [p.text for p in document.paragraphs]
    allowed = {"\t", "\n"}
    for text in [*texts, *(c.text for row in document.tables[0].rows for c in row.cells)]:
        assert not any(ord(ch) < 0x20 and ch not in allowed for ch in text), repr(text)
    assert texts[0] == "Scanned [1mtitle"
    assert document.core_properties.title == "Scanned [1mtitle"
    body = next(t for t in texts if t.startswith("Page one"))
    assert body == "Page one ends here. Page two begins [1]. Bell and NUL\ufffd and   entity."
    assert [[c.text for c in row.cells] for row in document.tables[0].rows] == [
        ["Cell one", "Celltwo"], ["a b", "link text"],
    ]  # fmt: skip
    assert "code block[0m" in texts
    entry = document.paragraphs[-1]
    assert entry.text.startswith("1. Page . https://a.example/pq")
    assert [link.address for link in entry.hyperlinks] == ["https://a.example/pq"]


def test_a_title_with_bytes_that_are_no_utf_8_exports_in_every_format(tmp_path: Path) -> None:
    """A report with no heading is titled by its folder's name, which may be any bytes (a lone
    surrogate in Python); the passages may hold lone surrogates too (JSON "\\ud83d")."""
    import os

    ws = small_workspace(tmp_path, "No heading, a fact [1].\n", name=os.fsdecode(b"run-\xff"))
    (ws / "report.citations.json").write_text(
        '{"citations": [{"citation": 1, "passage": "half \\ud83d", "verdict": "supported", "passage_is": "supporting"}]}'
    )
    page = export_report(ws, "html").read_text()
    assert "<title>run-\ufffd</title>" in page and 'title="half \ufffd"' in page
    assert open_docx(export_report(ws, "docx")).core_properties.title == "run-\ufffd"


# -- PDF: Chromium's sandbox ----------------------------------------------------------------------
def fake_chromium(folder: Path) -> Path:
    """A stand-in for Chromium that writes down its arguments and prints a one-line 'PDF'."""
    browser = folder / "chromium"
    browser.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > "{folder}/args"\n'
        'for a in "$@"; do case "$a" in --print-to-pdf=*) printf "%%PDF-1.4" > "${a#--print-to-pdf=}";; esac; done\n'
    )
    browser.chmod(0o755)
    return browser


@pytest.mark.slow
@pytest.mark.parametrize(("uid", "sandboxed"), [(1000, True), (0, False)])
def test_chromium_prints_in_its_sandbox_unless_it_runs_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, uid: int, sandboxed: bool
) -> None:
    """The report's text comes from the web: the sandbox contains a renderer bug it might hit.
    Only as root, where Chromium refuses to start with it, is it turned off."""
    import agent_runtime.app.export.pdf as pdf

    monkeypatch.setattr(pdf.os, "geteuid", lambda: uid)
    assert pdf.print_pdf("<p>x</p>", fake_chromium(tmp_path)) == b"%PDF-1.4"
    args = (tmp_path / "args").read_text().splitlines()
    assert "--headless" in args and ("--no-sandbox" not in args) is sandboxed


@pytest.mark.slow
def test_a_machine_where_the_sandbox_cannot_start_is_told_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_runtime.app.export.pdf as pdf

    browser = tmp_path / "chromium"
    browser.write_text(
        "#!/bin/sh\necho '[1:1:0101/000000.000:FATAL:zygote_host_impl_linux.cc(127)] No usable sandbox! "
        "Update your kernel' >&2\nexit 1\n"
    )
    browser.chmod(0o755)
    monkeypatch.setattr(pdf.os, "geteuid", lambda: 1000)
    with pytest.raises(ExportError, match="cannot start its sandbox here") as refused:
        pdf.print_pdf("<p>x</p>", browser)
    assert "--format html" in str(refused.value)


# -- DOCX: the document the writer makes, pinned -------------------------------------------------
# The writer puts paragraphs, runs and their properties into the XML itself (python-docx's
# helpers look each style up among all styles at every call: a 1 MB report took a minute). The
# outline below was read from the document python-docx's own helpers wrote before that change; the
# document must still read the same, run by run: text, character style, bold / italic / strike,
# link targets, list numbering, bookmarks, table cells and alignment.
RICH_REPORT = """# Solid-state batteries: a *review* of 2026

Intro with a citation [1], two [1, 2] and a full-width comma [2，3]. A number that is no
citation [99] stays. A soft break joins lines; **bold [3]**, *italic*, ~~struck~~, ***both***,
`inline code`, a [link to the maker](https://maker.example/cells?a=1&b=2) and [a `code` link](https://maker.example/code).
A hard break\\
here. An image ![the chart](https://img.example/chart.png), a heading anchor [up](#top) and
a reference anchor [see 2](#ref-2). A tab\there, a form feed\x0chere.

## Lists

- First bullet [1]
- Second bullet with **bold lead**: text
  - Nested bullet
    - Deeper bullet
      - Deepest bullet
- Third, with a second paragraph:

  The item's second paragraph.

3. Starts at three [2]
4. Four
   1. Nested number

Between the lists.

1. A new list counts from one

> A quote [3] with a line
> that continues.
>
> - a list in a quote

### Table

| Chemistry | Cost | Note |
|:--|--:|:-:|
| LFP | 95 [1] | **cheap** |
| Sulfide | | `n/a` |

```python
print("cost\tper kWh")
x = 1
```

    indented code

---

<div>raw html block</div>

#### Level four
##### Level five
###### Level six

## 中文部分

固态电池的成本正在快速下降，多家企业计划
在2027年量产 [1]。硫化物电解质的离子电导率最高，见 [3]。

## References

1. Maker page. https://maker.example/cells?a=1&b=2 (accessed 2026-01-02)
2. 硫化物固态电池. https://zh.example/sulfide（访问于 2026-01-02）
3. A page with (parens). https://x.org/a_(b). And https://maker.example/code too.

   A second paragraph of entry three.
"""

RICH_OUTLINE = [
    "Heading 1 | Solid-state batteries: a _review_ of 2026",
    "Normal | Intro with a citation [<#ref_1|1>], two [<#ref_1|1>, <#ref_2|2>] and a full-width comma "
    "[<#ref_2|2>, <#ref_3|3>]. A number that is no citation [99] stays. A soft break joins lines; "
    "**bold [**<#ref_3|**3**>**]**, _italic_, ~~struck~~, **_both_**, `inline code`, a "
    "<https://maker.example/cells?a=1&b=2|link to the maker> and <https://maker.example/code|a `code` link>. "
    "A hard break<br>here. An image <https://img.example/chart.png|the chart>, a heading anchor up and a "
    "reference anchor <#ref_2|see 2>. A tab<tab>here, a form feed here.",
    "Heading 2 | Lists",
    "List Bullet | First bullet [<#ref_1|1>]",
    "List Bullet | Second bullet with **bold lead**: text",
    "List Bullet 2 | Nested bullet",
    "List Bullet 3 | Deeper bullet",
    "List Bullet 3 | Deepest bullet",
    "List Bullet | Third, with a second paragraph:",
    "List Continue | The item's second paragraph.",
    "List Number (list 1 from 3) | Starts at three [<#ref_2|2>]",
    "List Number (list 1 from 3) | Four",
    "List Number 2 (list 2 from 1) | Nested number",
    "Normal | Between the lists.",
    "List Number (list 3 from 1) | A new list counts from one",
    "Quote | A quote [<#ref_3|3>] with a line that continues.",
    "List Bullet | a list in a quote",
    "Heading 3 | Table",
    [
        ["**Chemistry**", "(right) **Cost**", "(center) **Note**"],
        ["LFP", "(right) 95 [<#ref_1|1>]", "(center) **cheap**"],
        ["Sulfide", "(right) ", "(center) `n/a`"],
    ],
    "Normal | ",
    'Code Block | print("cost<tab>per kWh")<br>x = 1',
    "Code Block | indented code",
    "Normal (rule) | ",
    "Normal | <div>raw html block</div>",
    "Heading 4 | Level four",
    "Heading 5 | Level five",
    "Heading 6 | Level six",
    "Heading 2 | 中文部分",
    "Normal | 固态电池的成本正在快速下降，多家企业计划在2027年量产 [<#ref_1|1>]。硫化物电解质的离子电导率最高，见 [<#ref_3|3>]。",
    "Heading 2 | References",
    "List | {ref_1}1. Maker page. <https://maker.example/cells?a=1&b=2|https://maker.example/cells?a=1&b=2> "
    "(accessed 2026-01-02)",
    "List | {ref_2}2. 硫化物固态电池. <https://zh.example/sulfide|https://zh.example/sulfide>（访问于 2026-01-02）",
    "List | {ref_3}3. A page with (parens). <https://x.org/a_(b)|https://x.org/a_(b)>. And "
    "<https://maker.example/code|https://maker.example/code> too.",
    "List Continue | A second paragraph of entry three.",
]


def docx_outline(document: Any) -> list[Any]:
    """The document's body as python-docx reads it back: one line per paragraph ("style | runs"),
    a list of rows per table. Runs are written Markdown-like: **bold**, _italic_, ~~strike~~,
    `inline code` (the Inline Code style), <target|runs> a link (its runs in the Hyperlink style:
    any other style is written out), {name} a bookmark, <br> and <tab>; a numbered paragraph
    says which of the document's lists it is in and where that list starts."""
    from docx.table import Table
    from docx.text.hyperlink import Hyperlink

    numbering = document.part.numbering_part.element
    lists: dict[int, int] = {}

    def run_text(run: Any, link: bool) -> str:
        text = "".join(
            {qn("w:tab"): "<tab>", qn("w:br"): "<br>"}.get(child.tag, child.text or "")
            for child in run._r
            if child.tag in (qn("w:t"), qn("w:tab"), qn("w:br"))
        )
        style = run.style.name if run._r.rPr is not None and run._r.rPr.rStyle is not None else None
        if style == "Inline Code":
            text = f"`{text}`"
        elif style not in ((None, "Hyperlink") if link else (None,)):
            text = f"{{style {style}}}{text}"
        if run.font.strike:
            text = f"~~{text}~~"
        if run.italic:
            text = f"_{text}_"
        if run.bold:
            text = f"**{text}**"
        return text

    def paragraph_text(paragraph: Any) -> str:
        parts = []
        for child in paragraph._p:
            if child.tag == qn("w:bookmarkStart"):
                parts.append("{" + child.get(qn("w:name")) + "}")
        for item in paragraph.iter_inner_content():
            if isinstance(item, Hyperlink):
                target = item.address or f"#{item.fragment}"
                parts.append(f"<{target}|{''.join(run_text(r, True) for r in item.runs)}>")
            else:
                parts.append(run_text(item, False))
        return "".join(parts)

    def head(paragraph: Any) -> str:
        words = [paragraph.style.name]
        properties = paragraph._p.pPr
        if properties is not None and properties.numPr is not None:
            num_id = properties.numPr.numId.val
            start = numbering.num_having_numId(num_id).xpath("./w:lvlOverride/w:startOverride/@w:val")
            lists.setdefault(num_id, len(lists) + 1)
            words.append(f"(list {lists[num_id]} from {start[0]})")
        if properties is not None and properties.find(qn("w:pBdr")) is not None:
            words.append("(rule)")
        return " ".join(words)

    def cell_text(cell: Any) -> str:
        (paragraph,) = cell.paragraphs
        align = paragraph.alignment
        return (f"({align.name.lower()}) " if align is not None else "") + paragraph_text(paragraph)

    outline: list[Any] = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            outline.append([[cell_text(cell) for cell in row.cells] for row in block.rows])
        else:
            outline.append(f"{head(block)} | {paragraph_text(block)}")
    return outline


def test_the_docx_of_a_rich_report_reads_as_python_docx_wrote_it(tmp_path: Path) -> None:
    ws = small_workspace(tmp_path, RICH_REPORT)
    document = open_docx(export_report(ws, "docx"))
    assert docx_outline(document) == RICH_OUTLINE
    # Every style the XML names is one of the document's, of the kind that uses it (a wrong id
    # would read back as the default style, which the outline alone might not tell).
    styles = {(s.style_id, s.type) for s in document.styles}
    from docx.enum.style import WD_STYLE_TYPE

    body = document.element.body
    named = [(e.get(qn("w:val")), WD_STYLE_TYPE.PARAGRAPH) for e in body.iter(qn("w:pStyle"))]
    named += [(e.get(qn("w:val")), WD_STYLE_TYPE.CHARACTER) for e in body.iter(qn("w:rStyle"))]
    named += [(e.get(qn("w:val")), WD_STYLE_TYPE.TABLE) for e in body.iter(qn("w:tblStyle"))]
    assert named and set(named) <= styles
    # One relationship per URL, however often it is linked; the body still ends with its section.
    links = [r for r in document.part.rels.values() if r.reltype.endswith("/hyperlink")]
    assert sorted(r.target_ref for r in links) == sorted(
        {"https://maker.example/cells?a=1&b=2", "https://maker.example/code", "https://img.example/chart.png",
         "https://zh.example/sulfide", "https://x.org/a_(b)"}
    )  # fmt: skip
    assert all(r.is_external for r in links) and body[-1].tag == qn("w:sectPr")
    # The header row is repeated on each page; the table has the grid style and full width.
    table = document.tables[0]
    assert [row._tr.trPr is not None for row in table.rows] == [True, False, False]
    assert table.style.name == "Table Grid"


def test_a_large_report_exports_every_citation_link_and_reference(tmp_path: Path) -> None:
    """Hundreds of sections, thousands of citations and hundreds of references (the shape of a
    1 MB report, smaller): each citation still links to its entry, each entry to its URL."""
    sources = 150
    chapters = "\n\n".join(
        f"## Chapter {k}\n\nFinding {k} holds [{k % sources + 1}] and so does the next [{(k * 7) % sources + 1}, "
        f"{(k * 11) % sources + 1}].\n\n- point {k} [{(k * 3) % sources + 1}]\n\n1. step {k}\n2. step two"
        for k in range(400)
    )
    entries = "\n".join(
        f"{n}. Source {n}. https://s{n}.example/page (accessed 2026-01-02)" for n in range(1, sources + 1)
    )
    ws = small_workspace(tmp_path, f"# Large\n\n{chapters}\n\n## References\n\n{entries}\n")
    document = open_docx(export_report(ws, "docx"))
    paragraphs = document.paragraphs
    start = next(i for i, p in enumerate(paragraphs) if p.text == "References") + 1
    fragments = [link.fragment for p in paragraphs[:start] for link in p.hyperlinks]
    assert len(fragments) == 400 * 4 and set(fragments) == {f"ref_{n}" for n in range(1, sources + 1)}
    assert [[link.address for link in p.hyperlinks] for p in paragraphs[start:]] == [
        [f"https://s{n}.example/page"] for n in range(1, sources + 1)
    ]
    numbered = {p._p.pPr.numPr.numId.val for p in paragraphs if p.text.startswith("step")}
    assert len(numbered) == 400  # each list its own numbering, counting from 1
