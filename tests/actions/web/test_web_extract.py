"""Extraction details that the HTTP tests do not isolate: charset detection, the PDF fallback,
and which content is refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from actions.web.digest import goal_passages, outline, terms
from actions.web.extract import PDF_READERS, decode, extract, extract_pdf
from agent_runtime.errors import ExtractionError


@pytest.mark.parametrize(
    ("data", "declared", "html", "expected"),
    [
        ("Grüße aus Köln".encode("cp1252"), "windows-1252", False, "Grüße aus Köln"),
        ("naïve café".encode(), None, False, "naïve café"),
        ("\ufeffBOM text".encode("utf-8"), None, False, "BOM text"),
        ("Привет, мир. Это тест кодировки.".encode("cp1251") * 5, None, False, "Привет, мир."),
        ("日本語のテキストです。".encode("shift_jis") * 5, None, False, "日本語のテキストです。"),
        ('<meta charset="iso-8859-1"><p>Señor</p>'.encode("latin-1"), None, True, "Señor"),
        ("déclaré faux".encode(), "ascii", False, "déclaré faux"),  # a wrong declaration is ignored
        (b"x", "no-such-charset", False, "x"),
    ],
)
def test_charsets_are_detected(data: bytes, declared: str | None, html: bool, expected: str) -> None:
    text, _ = decode(data, declared, html=html)
    assert expected in text


def test_a_pdf_falls_back_to_pypdf_when_pdfium_fails(make_pdf: Callable[..., bytes]) -> None:
    def broken(body: bytes) -> tuple[str, str]:
        raise RuntimeError("pdfium unavailable")

    (first, _), pypdf = PDF_READERS
    assert first == "pdfium"  # the one the fault stands in for
    result = extract_pdf(make_pdf([["Fallback works."]]), readers=(("pdfium", broken), pypdf))
    assert result.method == "pypdf" and "Fallback works." in result.text


def test_a_pdf_is_recognised_by_its_bytes_whatever_the_header(make_pdf: Callable[..., bytes]) -> None:
    result = extract(
        make_pdf([["Mislabelled PDF"]]), content_type="application/octet-stream", charset=None, url="u"
    )
    assert result.kind == "pdf" and result.title == "Mislabelled PDF"


def test_a_truncated_or_damaged_pdf_is_refused_with_the_reason(make_pdf: Callable[..., bytes]) -> None:
    pdf = make_pdf([["x"]])
    with pytest.raises(ExtractionError, match="larger than the download cap"):
        extract(pdf[:40], content_type="application/pdf", charset=None, url="u", truncated=True)
    with pytest.raises(ExtractionError, match="could not be read"):
        extract(b"%PDF-1.7 garbage", content_type="application/pdf", charset=None, url="u")


@pytest.mark.parametrize(
    ("content_type", "body", "words"),
    [
        ("application/zip", b"PK\x03\x04", "is application/zip content"),
        ("video/mp4", b"\x00\x00\x00\x18ftyp", "is video/mp4 content"),
        ("application/octet-stream", bytes(range(256)), "sent binary data"),
        ("text/html", b"<html>\x00\x01\x02\x03" * 50, "sent binary data (text/html)"),
        ("text/html", b"<html><body><script>x()</script></body></html>", "has no readable text"),
    ],
)
def test_unreadable_content_is_refused(content_type: str, body: bytes, words: str) -> None:
    with pytest.raises(ExtractionError, match=words.replace("(", r"\(").replace(")", r"\)")):
        extract(body, content_type=content_type, charset=None, url="http://x/")


def test_untyped_html_is_sniffed() -> None:
    page = (
        b"<!DOCTYPE html><html><head><title>T</title></head><body><p>" + b"word " * 80 + b"</p></body></html>"
    )
    assert extract(page, content_type="", charset=None, url="http://x/").kind == "html"


def test_outline_skips_code_blocks_and_is_bounded() -> None:
    text = "# A\n\n```\n# not a heading\n```\n\n## B\n\n" + "\n\n".join(f"### Part {i}" for i in range(100))
    shown = outline(text, max_chars=120)
    assert shown.startswith("- A\n  - B\n")
    assert "not a heading" not in shown and "more headings" in shown and len(shown) < 170


def test_goal_passages_match_other_word_forms_and_cjk() -> None:
    text = "# Intro\n\nNothing here.\n\n## Prices\n\nBattery costs fell in 2024.\n\n## 中文\n\n固态电池的能量密度更高。"
    assert "Battery costs fell" in goal_passages(text, "battery cost", 500)
    assert "能量密度" in goal_passages(text, "能量密度", 500)
    assert goal_passages(text, "unrelated zebra", 500) == ""
    assert "batteri" not in terms("batteries") and "battery" in terms("batteries")
