"""Office documents and e-books (DOCX, PPTX, XLSX, CSV, EPUB) in the local corpus and through
visit_url: found by local search in English and Chinese with where the passage is (slide, sheet and
row, chapter, page), read over HTTP with their real content types, and damaged, password-protected
or unknown files named with what is wrong while the rest goes on."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from actions.web.documents import CSV, DOCX, EPUB, PPTX, XLSX, location
from actions.web.local_corpus import LocalCorpus, unread_files, unread_note
from actions.web.search import web_search
from actions.web.visit import visit_url
from tests.support.office_files import encrypt_docx, make_docx, make_epub, make_pptx, make_xlsx
from tests.support.web_server import ContextFactory, Route, WebServer


@pytest.fixture
def office(tmp_path: Path) -> dict[str, bytes]:
    return {
        "memo.docx": make_docx(
            "Sodium memo",
            ["Sodium-ion cells avoid cobalt entirely.", "钠离子电池不使用钴，适合储能电站。"],
            table=[["Metric", "Value"], ["Cycle life", "4000 cycles"]],
        ),
        "deck.pptx": make_pptx(
            [
                ("Overview", ["Grid storage is growing."]),
                ("Costs", ["Pack prices fell to 115 dollars per kWh.", "电池组价格继续下降。"]),
                ("Outlook", ["Vanadium flow batteries suit long durations."]),
            ],
            notes={3: "Speaker note about electrolyte leasing."},
        ),
        "sales.xlsx": make_xlsx(
            {
                "Summary": [["Region", "Units"], ["Europe", 120]],
                "Q1": [["Region", "Units"], ["Asia", 300], ["Africa", 45], ["华东地区", 870]],
            }
        ),
        "plants.csv": "name,capacity\nHornsdale,150\nMoss Landing,750\n青海共和,1000\n".encode(),
        "book.epub": make_epub(
            "Storage handbook",
            [
                ("Pumped hydro", "Water is lifted uphill at night."),
                ("压缩空气储能", "压缩空气储能利用地下盐穴储存能量。"),
            ],
        ),
    }


@pytest.fixture
def corpus(tmp_path: Path, office: dict[str, bytes]) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    for name, body in office.items():
        (root / name).write_bytes(body)
    return root


def make_corpus(root: Path, tmp_path: Path) -> LocalCorpus:
    return LocalCorpus(root, tmp_path / "ws" / ".runtime" / "corpus" / "index.sqlite")


@pytest.mark.parametrize(
    ("query", "url", "where"),
    [
        ("cobalt", "corpus:memo.docx", None),
        ("4000 cycles", "corpus:memo.docx", None),
        ("kWh pack prices", "corpus:deck.pptx", "[slide 2]"),
        ("electrolyte leasing", "corpus:deck.pptx", "[slide 3]"),
        ("Africa", "corpus:sales.xlsx", "[sheet Q1, row 3]"),
        ("Moss Landing", "corpus:plants.csv", "[row 3]"),
        ("uphill", "corpus:book.epub", "[chapter 1]"),
        # Chinese, found inside sentences and cells by the bigram index
        ("储能电站", "corpus:memo.docx", None),
        ("价格", "corpus:deck.pptx", "[slide 2]"),
        ("华东", "corpus:sales.xlsx", "[sheet Q1, row 4]"),
        ("青海", "corpus:plants.csv", "[row 4]"),
        ("盐穴", "corpus:book.epub", "[chapter 2]"),
    ],
)
async def test_office_documents_are_found_with_where_the_passage_is(
    corpus: Path, tmp_path: Path, query: str, url: str, where: str | None
) -> None:
    results = await make_corpus(corpus, tmp_path).search(query, 3)

    assert results and results[0].url == url, [r.url for r in results]
    if where is not None:
        assert results[0].snippet.startswith(where + " "), results[0].snippet


async def test_titles_come_from_the_documents(corpus: Path, tmp_path: Path) -> None:
    local = make_corpus(corpus, tmp_path)
    assert local.sync().added == 5
    titles = {r.url: r.title for r in await local.search("storage OR cobalt OR Asia OR Hornsdale", 10)}
    assert titles.get("corpus:memo.docx") == "Sodium memo"
    assert titles.get("corpus:book.epub") == "Storage handbook"
    assert (await local.search("Hornsdale", 1))[0].title == "plants"  # a CSV has none: its file name


async def test_a_pdf_passage_says_its_page(tmp_path: Path, make_pdf: Callable[..., bytes]) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "study.pdf").write_bytes(
        make_pdf([["Introduction to storage."], ["Vanadium lasts twenty years."]])
    )
    results = await make_corpus(root, tmp_path).search("vanadium", 3)
    assert results[0].snippet.startswith("[page 2] ")


def test_location_reads_the_markers() -> None:
    text = "## Sheet: Q1\n\n| row | A |\n| --- | --- |\n| 2 | x |\n| 9 | y |\n\n## Slide 4: Costs\n\nz"
    assert location(text, text.index("y")) == "sheet Q1, row 9"
    assert location(text, text.index("z")) == "slide 4"
    assert location("plain text", 3) is None
    assert location("| row | A |\n| --- | --- |\n| 7 | q |", 30) == "row 7"


async def test_visit_url_reads_office_documents_served_with_their_types(
    office: dict[str, bytes], web_server: WebServer, make_ctx: ContextFactory
) -> None:
    types = {"memo.docx": DOCX, "deck.pptx": PPTX, "sales.xlsx": XLSX, "plants.csv": CSV, "book.epub": EPUB}
    for name, content_type in types.items():
        web_server.routes[f"/files/{name}"] = Route(body=office[name], content_type=content_type)
    # Served as a generic download without a telling name: recognised by what is inside the zip.
    web_server.routes["/download?id=7"] = Route(
        body=office["deck.pptx"], content_type="application/octet-stream"
    )
    ctx = make_ctx(allow_private_urls=True)

    obs = await visit_url.run(
        ctx, {"url": [web_server.url(f"/files/{n}") for n in types] + [web_server.url("/download?id=7")]}
    )

    assert obs.text.startswith("visit_url: 6 of 6 pages read"), obs.text[:400]
    sources = ctx.workspace.root / "sources"
    snapshots = {n: (sources / f"S{i}.md").read_text("utf-8") for i, n in enumerate(types, 1)}
    assert (
        "钠离子电池不使用钴" in snapshots["memo.docx"]
        and "| Cycle life | 4000 cycles |" in snapshots["memo.docx"]
    )
    assert "## Slide 2: Costs" in snapshots["deck.pptx"] and "电池组价格继续下降。" in snapshots["deck.pptx"]
    assert "Notes: Speaker note about electrolyte leasing." in snapshots["deck.pptx"]
    assert "## Sheet: Q1" in snapshots["sales.xlsx"] and "| 4 | 华东地区 | 870 |" in snapshots["sales.xlsx"]
    assert "| 3 | Moss Landing | 750 |" in snapshots["plants.csv"]
    assert "## Chapter 2: 压缩空气储能" in snapshots["book.epub"]
    assert "## Slide 3: Outlook" in (sources / "S6.md").read_text("utf-8")


async def test_damaged_and_protected_files_are_named_and_the_rest_goes_on(
    corpus: Path, office: dict[str, bytes], make_ctx: ContextFactory, web_server: WebServer
) -> None:
    (corpus / "broken.docx").write_bytes(office["memo.docx"][:2000])  # cut short: not a valid zip
    (corpus / "locked.docx").write_bytes(encrypt_docx(office["memo.docx"]))
    ctx = make_ctx(search="local", corpus=corpus, allow_private_urls=True)

    first = await web_search.run(ctx, {"query": "cobalt", "max_results": 5})
    second = await web_search.run(ctx, {"query": "cobalt", "max_results": 5})
    visited = await visit_url.run(
        ctx, {"url": ["corpus:locked.docx", "corpus:broken.docx", "corpus:memo.docx"]}
    )
    web_server.routes["/locked.docx"] = Route(body=encrypt_docx(office["memo.docx"]), content_type=DOCX)
    over_http = await visit_url.run(ctx, {"url": web_server.url("/locked.docx")})

    assert "corpus:memo.docx" in first.text  # the search still answers
    assert "2 corpus files could not be read and are left out" in first.text
    assert "broken.docx (the Word document (DOCX) is damaged" in first.text
    assert "locked.docx (the Word document (DOCX) is password-protected" in first.text
    assert "could not be read" not in second.text  # named once, not at every search
    assert visited.text.startswith("visit_url: 1 of 3 pages read")
    assert "password-protected (encrypted), so its text cannot be read" in visited.text
    assert "is damaged or is not really one" in visited.text
    assert over_http.error and "password-protected" in over_http.text


def test_files_of_a_kind_not_read_are_counted_and_named(corpus: Path) -> None:
    (corpus / "a.bin").write_bytes(b"\x00\x01")
    (corpus / "sub").mkdir()
    (corpus / "sub" / "b.dwg").write_bytes(b"AC1032")
    (corpus / ".hidden.bin").write_bytes(b"x")  # hidden files are not the user's documents

    files = unread_files(corpus)

    assert files == ["a.bin", "sub/b.dwg"]
    assert unread_note(files).startswith(
        "Corpus: skipped 2 files of a kind that is not read: a.bin, sub/b.dwg"
    )


def test_other_unreadable_documents_say_what_is_wrong(
    office: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    from actions.web import documents
    from actions.web.extract import extract
    from agent_runtime.errors import ExtractionError

    drm = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(office["book.epub"])) as source, zipfile.ZipFile(drm, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item.filename))
        target.writestr(
            "META-INF/encryption.xml",
            '<encryption><CipherReference URI="OEBPS/text/ch1.xhtml"/></encryption>',
        )
    old_doc = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4000)  # an OLE file: a Word 97 .doc, say
    cases = [
        (drm.getvalue(), EPUB, "DRM-protected"),
        (old_doc, DOCX, "old binary Office file (.doc, .xls or .ppt)"),
        (b"PK\x03\x04 not really a zip", XLSX, "Excel workbook (XLSX) is damaged"),
    ]
    for body, content_type, words in cases:
        with pytest.raises(ExtractionError, match=re.escape(words)):
            extract(body, content_type=content_type, charset=None, url="x")
    with pytest.raises(ExtractionError, match="larger than the download cap"):
        extract(office["memo.docx"][:3000], content_type=DOCX, charset=None, url="x", truncated=True)

    monkeypatch.setattr(documents, "MAX_UNPACKED_BYTES", 10_000)
    with pytest.raises(ExtractionError, match=r"would unpack to .* MB, more than the limit"):
        extract(office["deck.pptx"], content_type=PPTX, charset=None, url="x")
    monkeypatch.undo()
    monkeypatch.setattr(documents, "MAX_CELLS", 5)
    text = extract(office["sales.xlsx"], content_type=XLSX, charset=None, url="x").text
    assert "(the rest is left out: more than" in text and "华东地区" not in text
