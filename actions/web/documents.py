"""Office documents and e-books → Markdown that says where each passage came from.

| kind | read with | where a passage is |
|------|-----------|--------------------|
| DOCX | python-docx: paragraphs, headings, lists and tables in document order | its headings |
| PPTX | python-pptx: each slide's text frames, tables, groups and speaker notes | `## Slide 3: Title` |
| XLSX | openpyxl (read-only, cached values of formulas) | `## Sheet: Q1`, rows `\\| 12 \\| … \\|` |
| CSV  | the csv module (dialect sniffed, charset detected as for web pages) | rows `\\| 12 \\| … \\|` |
| EPUB | zipfile + lxml: the spine's chapters in reading order | `## Chapter 2: Title` |

(PDF pages are marked `[page 3]` by extract.py.) `location(text, offset)` reads these markers back,
so a search snippet can say "slide 3" or "sheet Q1, row 12", and the snapshot a citation is checked
against keeps them.

Why these libraries and not a converter on top: MarkItDown (Microsoft, MIT) uses the same python-pptx
and openpyxl (through pandas) and mammoth for DOCX, but also requires magika, whose file-type model
runs on onnxruntime, and pandas with numpy: about 150 MB installed for what these few hundred lines
do, and its output has no row numbers. Docling is heavier still (PyTorch, layout models fetched from
a hub at first use, which cannot happen here). python-docx is already a dependency (the DOCX export).

Bounded: a document is refused before it is opened when its zip members would unpack to more than
MAX_UNPACKED_BYTES (a zip bomb), and a workbook stops after MAX_CELLS cells with a note. Damaged
files, password-protected Office files and the old binary formats (.doc, .xls, .ppt) are refused
with an ExtractionError saying which and what to do. Everything here is synchronous and CPU-bound:
callers run it in a worker thread, as for PDF.
"""

from __future__ import annotations

import csv
import io
import os
import posixpath
import re
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from agent_runtime.errors import ExtractionError

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
EPUB = "application/epub+zip"
CSV = "text/csv"
OFFICE_TYPES = {DOCX: "docx", PPTX: "pptx", XLSX: "xlsx", EPUB: "epub", CSV: "csv"}
OFFICE_KINDS = frozenset({"docx", "pptx", "xlsx", "epub"})  # zip files: no faster way to read them

# The documents the local corpus reads, by file extension.
CONTENT_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".docx": DOCX,
    ".pptx": PPTX,
    ".xlsx": XLSX,
    ".csv": CSV,
    ".epub": EPUB,
}
_GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/zip",
                            "application/x-zip-compressed", "application/download"})  # fmt: skip
MAX_UNPACKED_BYTES = 400 * 1024 * 1024
MAX_CELLS = 300_000
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_LABEL = {"docx": "Word document (DOCX)", "pptx": "PowerPoint presentation (PPTX)",
          "xlsx": "Excel workbook (XLSX)", "epub": "EPUB e-book", "csv": "CSV file"}  # fmt: skip


def readable(name: str) -> bool:
    """Does the local corpus read a file of this name?"""
    return os.path.splitext(name)[1].lower() in CONTENT_TYPES


def content_type_of(name: str) -> str | None:
    return CONTENT_TYPES.get(os.path.splitext(name)[1].lower())


def office_kind(content_type: str, url: str, body: bytes) -> str | None:
    """docx | pptx | xlsx | epub | csv when the response is one of these (by its type, or, for a
    generic type, by the URL's extension or the zip's contents), else None. An OLE file with a
    generic type or an Office extension is answered here too, so it gets a clear refusal."""
    kind = OFFICE_TYPES.get(content_type)
    if kind is not None:
        return kind
    if content_type not in _GENERIC_TYPES:
        return None
    path = url.split("?", 1)[0].split("#", 1)[0].lower()
    by_suffix = OFFICE_TYPES.get(content_type_of(path) or "")
    if by_suffix is not None:
        return by_suffix
    if body.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                names = set(archive.namelist())
                mimetype = archive.read("mimetype")[:40] if "mimetype" in names else b""
        except (zipfile.BadZipFile, OSError, KeyError):
            return None
        if mimetype.startswith(EPUB.encode()):
            return "epub"
        for prefix, found in (("word/", "docx"), ("ppt/", "pptx"), ("xl/", "xlsx")):
            if "[Content_Types].xml" in names and any(n.startswith(prefix) for n in names):
                return found
    return None


class Text(Protocol):
    """What extract.py lends for the text inside documents (passed in: extract imports this module)."""

    def decode(self, body: bytes, *, html: bool) -> str: ...

    def html_markdown(self, html: str) -> tuple[str, str]:
        """(title, Markdown) of an HTML page, converted whole."""
        ...


def convert(kind: str, body: bytes, text: Text, *, url: str, truncated: bool = False) -> tuple[str, str]:
    """(title, Markdown) of an office document or e-book; raises ExtractionError."""
    label = _LABEL[kind]
    if kind == "csv":
        return "", csv_markdown(text.decode(body, html=False))
    if body.startswith(_OLE_MAGIC):
        if b"E\x00n\x00c\x00r\x00y\x00p\x00t\x00e\x00d\x00P\x00a\x00c\x00k\x00a\x00g\x00e" in body:
            raise ExtractionError(
                f"the {label} is password-protected (encrypted), so its text cannot be read; ask for an "
                "unprotected copy or use another source"
            )
        raise ExtractionError(
            f"this is an old binary Office file (.doc, .xls or .ppt), not a {label}; it cannot be read: "
            "save it as .docx, .xlsx or .pptx, or use another source"
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(body))
    except zipfile.BadZipFile:
        if truncated:
            raise ExtractionError(
                f"the {label} is larger than the download cap, and a file cut short cannot be read"
            ) from None
        raise ExtractionError(f"the {label} is damaged or is not really one (not a valid zip file)") from None
    with archive:
        unpacked = sum(info.file_size for info in archive.infolist())
        if unpacked > MAX_UNPACKED_BYTES:
            raise ExtractionError(
                f"the {label} would unpack to {unpacked / 1e6:.0f} MB, more than the limit of "
                f"{MAX_UNPACKED_BYTES / 1e6:.0f} MB; it is not read"
            )
        try:
            if kind == "epub":
                return epub_markdown(archive, text)
            reader = {"docx": docx_markdown, "pptx": pptx_markdown, "xlsx": xlsx_markdown}[kind]
            return reader(body)
        except ExtractionError:
            raise
        except Exception as exc:  # the libraries raise many types on damaged files
            raise ExtractionError(
                f"the {label} could not be read ({type(exc).__name__}); it may be damaged"
            ) from None


# --------------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return " ".join(str(value).split()).replace("|", "\\|")


def _table(rows: Iterable[tuple[int, list[str]]], note_cells: int = MAX_CELLS) -> list[str]:
    """Numbered rows as a Markdown table: `| row | A | B |` then `| 12 | … |` per non-empty row."""
    lines: list[str] = []
    cells = 0
    width = 0
    for number, values in rows:
        while values and not values[-1]:
            values.pop()
        if not values:
            continue
        width = max(width, len(values))
        cells += len(values)
        if cells > note_cells:
            lines.append(f"(the rest is left out: more than {note_cells:,} cells)")
            break
        lines.append(f"| {number} | " + " | ".join(values) + " |")
    if not lines:
        return []
    header = "| row | " + " | ".join(_column(i) for i in range(max(width, 1))) + " |"
    return [header, "|" + " --- |" * (max(width, 1) + 1), *lines]


def _column(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def csv_markdown(text: str) -> str:
    text = text.lstrip("\ufeff")
    try:
        dialect: Any = csv.Sniffer().sniff(text[:20_000], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        lines = _table((n, [_cell(v) for v in row]) for n, row in enumerate(reader, 1))
    except csv.Error as exc:
        raise ExtractionError(f"the CSV file could not be read ({exc})") from None
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# DOCX, PPTX, XLSX
# --------------------------------------------------------------------------------------------------


def docx_markdown(body: bytes) -> tuple[str, str]:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = docx.Document(io.BytesIO(body))
    blocks: list[str] = []
    first_heading = ""
    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(element, document)
            text = " ".join(paragraph.text.split())
            if not text:
                continue
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            level = _heading_level(style)
            if level:
                blocks.append("#" * level + " " + text)
                first_heading = first_heading or text
            elif "List" in style:
                blocks.append("- " + text)
            else:
                blocks.append(text)
        elif tag == "tbl":
            rows = [[_cell(c.text) for c in row.cells] for row in Table(element, document).rows]
            rows = [r for r in rows if any(r)]
            if rows:
                table = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
                table += ["| " + " | ".join(r) + " |" for r in rows[1:]]
                blocks.append("\n".join(table))
    title = " ".join((document.core_properties.title or "").split()) or first_heading
    return title, "\n\n".join(blocks)


def _heading_level(style: str) -> int:
    if style == "Title":
        return 1
    match = re.fullmatch(r"(?:Heading|heading|标题)\s*([1-6])", style)
    return int(match.group(1)) if match else 0


def pptx_markdown(body: bytes) -> tuple[str, str]:
    import pptx

    presentation = pptx.Presentation(io.BytesIO(body))
    blocks: list[str] = []
    first_title = ""
    for number, slide in enumerate(presentation.slides, 1):
        title_shape = slide.shapes.title
        title = " ".join((title_shape.text_frame.text if title_shape is not None else "").split())
        first_title = first_title or title
        blocks.append(f"## Slide {number}: {title}" if title else f"## Slide {number}")
        for shape in _shapes(slide.shapes):
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            if getattr(shape, "has_table", False) and shape.has_table:
                rows = [[_cell(c.text) for c in row.cells] for row in shape.table.rows]
                if rows:
                    table = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
                    blocks.append("\n".join(table + ["| " + " | ".join(r) + " |" for r in rows[1:]]))
            elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
                for paragraph in shape.text_frame.paragraphs:
                    text = " ".join("".join(run.text for run in paragraph.runs).split())
                    if text:
                        blocks.append(("  " * paragraph.level) + "- " + text if paragraph.level else text)
        if slide.has_notes_slide:
            notes = " ".join(slide.notes_slide.notes_text_frame.text.split())
            if notes:
                blocks.append(f"Notes: {notes}")
    title = " ".join((presentation.core_properties.title or "").split()) or first_title
    return title, "\n\n".join(blocks)


def _shapes(shapes: Iterable[Any]) -> Iterator[Any]:
    """Every shape, the ones inside groups included, in the slide's order."""
    for shape in shapes:
        if getattr(shape, "shapes", None) is not None and shape.shape_type == 6:  # MSO_SHAPE_TYPE.GROUP
            yield from _shapes(shape.shapes)
        else:
            yield shape


def xlsx_markdown(body: bytes) -> tuple[str, str]:
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(body), read_only=True, data_only=True)
    try:
        blocks: list[str] = []
        left = MAX_CELLS
        for sheet in workbook.worksheets:
            blocks.append(f"## Sheet: {sheet.title}")
            rows = (
                (number, [_cell(v) for v in values])
                for number, values in enumerate(sheet.iter_rows(values_only=True), 1)
            )
            table = _table(rows, note_cells=max(left, 1))
            left -= sum(line.count(" | ") for line in table[2:])
            blocks.append("\n".join(table) if table else "(empty sheet)")
        title = " ".join((workbook.properties.title or "").split())
    finally:
        workbook.close()
    return title, "\n\n".join(blocks)


# --------------------------------------------------------------------------------------------------
# EPUB
# --------------------------------------------------------------------------------------------------

_CONTAINER_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container"}
_OPF_NS = {"opf": "http://www.idpf.org/2007/opf", "dc": "http://purl.org/dc/elements/1.1/"}


def _xml(data: bytes) -> Any:
    import lxml.etree

    parser = lxml.etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    return lxml.etree.fromstring(data, parser)


def epub_markdown(archive: zipfile.ZipFile, text: Text) -> tuple[str, str]:
    try:
        container = _xml(archive.read("META-INF/container.xml"))
        opf_path = str(container.xpath("//c:rootfile/@full-path", namespaces=_CONTAINER_NS)[0])
        opf = _xml(archive.read(opf_path))
    except (KeyError, IndexError):
        raise ExtractionError("the EPUB e-book is damaged (no container or package file)") from None
    base = posixpath.dirname(opf_path)
    manifest = {
        str(item.get("id")): posixpath.normpath(posixpath.join(base, str(item.get("href"))))
        for item in opf.xpath("//opf:manifest/opf:item", namespaces=_OPF_NS)
    }
    title = " ".join(" ".join(opf.xpath("//dc:title//text()", namespaces=_OPF_NS)).split())
    try:  # fonts are often obfuscated; chapters listed here are DRM-encrypted
        encrypted = archive.read("META-INF/encryption.xml").decode("utf-8", "replace")
    except KeyError:
        encrypted = ""
    blocks: list[str] = []
    number = 0
    for idref in opf.xpath("//opf:spine/opf:itemref/@idref", namespaces=_OPF_NS):
        href = manifest.get(str(idref))
        if href is None:
            continue
        if encrypted and posixpath.basename(href) in encrypted and href.endswith(("html", "htm")):
            raise ExtractionError(
                "the EPUB e-book is DRM-protected (its chapters are encrypted), so its text cannot be read"
            )
        try:
            page = text.decode(archive.read(href), html=True)
        except KeyError:
            continue
        heading, markdown = text.html_markdown(page)
        if not markdown:
            continue
        number += 1
        blocks.append(f"## Chapter {number}: {heading}" if heading else f"## Chapter {number}")
        blocks.append(markdown)
    return title, "\n\n".join(blocks)


# --------------------------------------------------------------------------------------------------
# Where a passage is
# --------------------------------------------------------------------------------------------------

_MARKER = re.compile(
    r"^(?:\[(page) (\d+)\]|## (Slide) (\d+)\b.*|## (Sheet): (.+)|## (Chapter) (\d+)\b.*)$", re.MULTILINE
)
_ROW = re.compile(r"\| (\d+) \|")


def location(text: str, offset: int) -> str | None:
    """Where `offset` of a converted document lies: "page 3", "slide 2", "sheet Q1, row 12",
    "row 7" (CSV), "chapter 4"; None when the text has no markers before it."""
    head = text[:offset]
    last = None
    for last in _MARKER.finditer(head):  # noqa: B007 - the last one is wanted
        pass
    where = None
    if last is not None:
        groups = [g for g in last.groups() if g is not None]
        kind, value = groups[0].lower(), groups[1].strip()
        where = f"sheet {value}" if kind == "sheet" else f"{kind} {value}"
    line_start = text.rfind("\n", 0, offset) + 1
    row = _ROW.match(text, line_start)
    header = text.rfind("\n| row |", 0, offset)
    if header < 0 and text.startswith("| row |"):
        header = 0
    if row is not None and header >= 0 and (last is None or header > last.start()):
        return f"{where}, row {row.group(1)}" if where else f"row {row.group(1)}"
    return where
