"""Documents made in the tests: DOCX with python-docx, PPTX with python-pptx, XLSX with openpyxl, a
CSV, a minimal EPUB zipped by hand (English and Chinese text in each), and a minimal PDF written by
hand (one Helvetica text object per page: no PDF library needed)."""

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


def build_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A valid PDF whose pages hold the given lines of (Latin-1) text."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for index, lines in enumerate(pages):
        content_id = page_ids[index] + 1
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {content_id} 0 R >>".encode()
        )
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 740 Td"]
        for line in lines:
            ops.append(f"{_pdf_string(line)} Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    info_id = None
    if title is not None:
        objects.append(f"<< /Title {_pdf_string(title)} >>".encode("latin-1"))
        info_id = len(objects)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R"
    if info_id is not None:
        trailer += f" /Info {info_id} 0 R"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"
