"""Office documents and an e-book made in the tests: DOCX with python-docx, PPTX with python-pptx,
XLSX with openpyxl, a CSV, and a minimal EPUB zipped by hand; English and Chinese text in each."""

from __future__ import annotations

import io
import zipfile


def make_docx(title: str, paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.title = title
    document.add_heading(title, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_pptx(slides: list[tuple[str, list[str]]], notes: dict[int, str] | None = None) -> bytes:
    import pptx

    presentation = pptx.Presentation()
    for number, (title, lines) in enumerate(slides, 1):
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])  # title and content
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = lines[0]
        for line in lines[1:]:
            body.add_paragraph().text = line
        if notes and number in notes:
            slide.notes_slide.notes_text_frame.text = notes[number]
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def make_xlsx(sheets: dict[str, list[list[object]]]) -> bytes:
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def make_epub(title: str, chapters: list[tuple[str, str]]) -> bytes:
    """A minimal EPUB 3: mimetype (stored first), container.xml, the package file, one XHTML file
    per chapter in the spine."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(
            zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED
        )
        archive.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
            '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        items = "".join(
            f'<item id="c{n}" href="text/ch{n}.xhtml" media-type="application/xhtml+xml"/>'
            for n in range(1, len(chapters) + 1)
        )
        spine = "".join(f'<itemref idref="c{n}"/>' for n in range(1, len(chapters) + 1))
        archive.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            f'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></metadata>'
            f"<manifest>{items}</manifest><spine>{spine}</spine></package>",
        )
        for n, (heading, text) in enumerate(chapters, 1):
            archive.writestr(
                f"OEBPS/text/ch{n}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>{heading}</title></head><body><h1>{heading}</h1><p>{text}</p></body></html>",
            )
    return out.getvalue()


def encrypt_docx(body: bytes, password: str = "secret") -> bytes:
    from msoffcrypto.format.ooxml import OOXMLFile

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(body)).encrypt(password, out)
    return out.getvalue()
