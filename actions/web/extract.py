"""Page bytes → clean Markdown text.

- HTML: trafilatura keeps the main content (links and tables kept, navigation, ads and comments
  dropped). When it finds too little — a page that is mostly a list of links, an unusual layout —
  the whole page is converted instead, so a page is never reduced to nothing.
- PDF: pypdfium2, with pypdf as the fallback when pdfium fails or finds no text.
- Plain text, Markdown and JSON are kept as they are.
- DOCX, PPTX, XLSX, CSV and EPUB: documents.py, Markdown with markers of where each passage is.
- Anything else (images, archives, other binary data) is refused with a clear message.

Charset: the Content-Type header, then a BOM, then an HTML `<meta charset>`, then detection by
charset-normalizer; a declared charset that cannot decode the bytes is ignored.

Everything here is synchronous and CPU-bound: callers run it in a worker thread
(`asyncio.to_thread`), so one large page does not stall the other fetches. A worker thread cannot
be stopped, so the work is bounded by size: HTML too large for trafilatura is converted whole
(`MAX_MAIN_CONTENT_CHARS`). When even that does not fit a page's deadline, `plain_text` is the
fast way out.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import charset_normalizer
import lxml.html
import trafilatura

from actions.web.documents import OFFICE_KINDS, convert, office_kind
from agent_runtime.errors import ExtractionError

# Main text shorter than this is "too little": the whole page is converted instead.
MIN_MAIN_CHARS = 250
# trafilatura takes about two seconds per million characters of HTML (more on a busy machine);
# a larger page is converted whole instead, about ten times faster.
MAX_MAIN_CONTENT_CHARS = 3_000_000

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
_XML_TEXT_TYPES = frozenset({"application/xml", "application/rss+xml", "application/atom+xml"})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_HTML_START = re.compile(
    rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL
)

# pdfium is not thread-safe: one document at a time in this process.
_PDFIUM_LOCK = threading.Lock()


@dataclass
class Extracted:
    title: str
    text: str  # Markdown
    kind: str  # html | pdf | text | markdown | json | docx | pptx | xlsx | csv | epub
    method: str  # how the text was obtained: trafilatura, whole page, pdfium, pypdf, as is
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# Kind and charset
# --------------------------------------------------------------------------------------------------


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def _looks_binary(sample: bytes) -> bool:
    if not sample:
        return False
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    if b"\x00" in sample:
        return True
    # Control bytes other than tab, newline, carriage return, form feed and escape are rare in text
    # (counted by deleting the others, in C).
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return controls > len(sample) * 0.05


def detect_kind(content_type: str, url: str, body: bytes) -> str:
    """html | pdf | text | markdown | json, or an office kind (docx | pptx | xlsx | csv | epub);
    raises ExtractionError for anything unreadable."""
    office = office_kind(content_type, url, body)
    if office is not None:
        return office
    head = body[:4096]
    if head.lstrip().startswith(b"%PDF-") or content_type == "application/pdf":
        return "pdf"
    path = url.split("?", 1)[0].split("#", 1)[0].lower()
    if content_type in _HTML_TYPES:
        kind = "html"
    elif content_type in _MARKDOWN_TYPES or (
        content_type in ("", "text/plain") and path.endswith((".md", ".markdown"))
    ):
        kind = "markdown"
    elif content_type == "application/json" or content_type.endswith("+json") or content_type == "text/json":
        kind = "json"
    elif content_type.startswith("text/") or content_type in _XML_TEXT_TYPES:
        kind = "text"
    elif content_type in ("", "application/octet-stream", "binary/octet-stream"):
        # No useful type: look at the bytes.
        kind = "html" if _HTML_START.match(head) else "text"
    else:
        raise ExtractionError(
            f"{url} is {content_type} content, which cannot be read as text; only web pages, PDFs, "
            "plain text, Markdown, JSON and office documents (DOCX, PPTX, XLSX, CSV, EPUB) are supported"
        )
    if _looks_binary(head):
        shown = content_type or "no declared type"
        raise ExtractionError(
            f"{url} sent binary data ({shown}), which cannot be read as text; only web pages, PDFs, "
            "plain text, Markdown, JSON and office documents (DOCX, PPTX, XLSX, CSV, EPUB) are supported"
        )
    return kind


def _valid_codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode(body: bytes, declared: str | None = None, *, html: bool = False) -> tuple[str, str]:
    """(text, encoding used). Tries the declared charset, a BOM, an HTML meta charset, then
    detection; never fails (undecodable bytes become U+FFFD as a last resort)."""
    candidates: list[str | None] = [_valid_codec(declared)]  # tried in this order
    for bom, bom_codec in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if body.startswith(bom):
            candidates.insert(0, bom_codec)
    if html:
        meta = _META_CHARSET.search(body[:4096])
        if meta:
            candidates.append(_valid_codec(meta.group(1).decode("ascii", "ignore")))
    for name in candidates:
        if name is None:
            continue
        try:
            return body.decode(name), name
        except (UnicodeDecodeError, LookupError):
            continue
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(body[:200_000]).best()
    if best is not None and best.encoding:
        return body.decode(best.encoding, errors="replace"), best.encoding
    return body.decode("utf-8", errors="replace"), "utf-8"


# --------------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------------

_DROP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "head",
     "form", "button", "select", "input", "textarea"}
)  # fmt: skip
_BLOCK_TAGS = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote",
     "ul", "ol", "dl", "dt", "dd", "figure", "figcaption", "table", "thead", "tbody", "tfoot",
     "address", "details", "summary", "hr", "center"}
)  # fmt: skip
_SPACE = re.compile(r"[ \t\r\f\v\n]+")
_BLOCK_START = re.compile(
    r"</?(?:"
    + "|".join(sorted(_BLOCK_TAGS | {"br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre"}))
    + r")\b",
    re.IGNORECASE,
)


def _parse_html(text: str) -> Any:
    # lxml refuses str input that starts with an XML declaration naming an encoding.
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text, count=1)
    try:
        return lxml.html.document_fromstring(text)
    except (ValueError, lxml.etree.ParserError):
        return None


def _html_title(tree: Any) -> str:
    if tree is None:
        return ""
    for xpath in ("//meta[@property='og:title']/@content", "//title//text()", "//h1//text()"):
        found = " ".join(" ".join(str(t) for t in tree.xpath(xpath)).split())
        if found:
            return found[:300]
    return ""


class _WholePage:
    """A plain HTML → Markdown walk over the whole body: headings, paragraphs, lists, links,
    code blocks and table rows. Used when the main-content extraction finds too little."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.blocks: list[str] = []
        self.line: list[str] = []

    def flush(self, prefix: str = "") -> None:
        text = _SPACE.sub(" ", "".join(self.line)).strip()
        self.line = []
        if text:
            self.blocks.append(prefix + text)

    def walk(self, element: Any) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        tag = tag.lower()
        if tag in _DROP_TAGS or not isinstance(element.tag, str):
            if element.tail:
                self.line.append(element.tail)
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.flush()
            self.line.append(element.text_content())
            self.flush("#" * int(tag[1]) + " ")
        elif tag == "pre":
            self.flush()
            code = element.text_content().strip("\n")
            if code.strip():
                self.blocks.append(f"```\n{code}\n```")
        elif tag == "li":
            self.flush()
            self._children(element)
            self.flush("- ")
        elif tag == "tr":
            self.flush()
            cells = [_SPACE.sub(" ", c.text_content()).strip() for c in element if isinstance(c.tag, str)]
            if any(cells):
                self.blocks.append("| " + " | ".join(cells) + " |")
        elif tag == "a":
            text = _SPACE.sub(" ", element.text_content()).strip()
            href = (element.get("href") or "").strip()
            if text and href and not href.lower().startswith(("javascript:", "#")):
                self.line.append(f"[{text}]({_join(self.base_url, href)})")
            else:
                self.line.append(text)
        elif tag == "br":
            self.flush()
        elif tag in _BLOCK_TAGS:
            self.flush()
            self._children(element)
            self.flush()
        else:
            self._children(element)
        if element.tail:
            self.line.append(element.tail)

    def _children(self, element: Any) -> None:
        if element.text:
            self.line.append(element.text)
        for child in element:
            self.walk(child)


def _join(base: str, href: str) -> str:
    from urllib.parse import urljoin

    try:
        return urljoin(base, href)
    except ValueError:
        return href


def whole_page_markdown(tree: Any, base_url: str) -> str:
    if tree is None:
        return ""
    body = tree.find("body")
    walker = _WholePage(base_url)
    walker.walk(body if body is not None else tree)
    walker.flush()
    return "\n\n".join(walker.blocks)


def extract_html(text: str, url: str) -> Extracted:
    tree = _parse_html(text)
    title = _html_title(tree)
    if len(text) > MAX_MAIN_CONTENT_CHARS:
        note = (
            f"the page is too large for main-content extraction ({len(text) / 1e6:.1f} million characters "
            "of HTML), so the whole page was converted, navigation and all"
        )
        return Extracted(title, whole_page_markdown(tree, url).strip(), "html", "whole page", [note])
    main = trafilatura.extract(
        text,
        url=url or None,
        output_format="markdown",
        include_links=True,
        include_tables=True,
        include_comments=False,
        include_formatting=True,
        include_images=False,
        deduplicate=False,
    )
    main = (main or "").strip()
    if len(main) >= MIN_MAIN_CHARS:
        return Extracted(title, main, "html", "trafilatura")
    whole = whole_page_markdown(tree, url).strip()
    if len(whole) > len(main):
        note = "the main-content extraction found little text, so the whole page was converted"
        return Extracted(title, whole, "html", "whole page", [note])
    return Extracted(title, main, "html", "trafilatura")


# --------------------------------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------------------------------


def _join_pages(pages: list[str]) -> str:
    if len(pages) == 1:
        return pages[0].strip()
    return "\n\n".join(f"[page {n}]\n\n{page.strip()}" for n, page in enumerate(pages, 1) if page.strip())


def _pdf_with_pdfium(body: bytes) -> tuple[str, str]:
    import pypdfium2

    with _PDFIUM_LOCK:
        pdf = pypdfium2.PdfDocument(body)
        try:
            title = str(pdf.get_metadata_dict().get("Title") or "")
            pages: list[str] = []
            for index in range(len(pdf)):
                page = pdf[index]
                textpage = page.get_textpage()
                try:
                    pages.append(textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n"))
                finally:
                    textpage.close()
                    page.close()
        finally:
            pdf.close()
    return title, _join_pages(pages)


def _pdf_with_pypdf(body: bytes) -> tuple[str, str]:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(body))
    title = ""
    if reader.metadata is not None and reader.metadata.title:
        title = str(reader.metadata.title)
    return title, _join_pages([page.extract_text() or "" for page in reader.pages])


PdfReader = Callable[[bytes], tuple[str, str]]  # the PDF's bytes -> (its title, its text)
# The readers tried in turn: pdfium (fast, keeps the layout's reading order), then pypdf (pure
# Python) for a file pdfium cannot open. A caller (a test) may pass others to `extract_pdf`.
PDF_READERS: tuple[tuple[str, PdfReader], ...] = (("pdfium", _pdf_with_pdfium), ("pypdf", _pdf_with_pypdf))


def extract_pdf(
    body: bytes, *, truncated: bool = False, readers: Sequence[tuple[str, PdfReader]] = PDF_READERS
) -> Extracted:
    """The PDF's text from the first of `readers` (name, reader) that finds any; each failure is
    named in the error if none does."""
    problems: list[str] = []
    for method, reader in readers:
        try:
            title, text = reader(body)
        except Exception as exc:  # both libraries raise many types on damaged files
            problems.append(f"{method}: {type(exc).__name__}")
            continue
        if text.strip():
            title = " ".join(title.split()) or _first_line(text)
            return Extracted(title, text, "pdf", method)
        problems.append(f"{method}: no text")
    if truncated:
        raise ExtractionError(
            "the PDF is larger than the download cap, and a PDF cut short cannot be read; "
            "look for an HTML version or a smaller document"
        )
    if all(p.endswith("no text") for p in problems):
        raise ExtractionError(
            "the PDF has no text layer (probably scanned images), so no text can be extracted; "
            "look for an HTML or text version of the document"
        )
    raise ExtractionError(
        f"the PDF could not be read ({'; '.join(problems)}); it may be damaged or encrypted"
    )


# --------------------------------------------------------------------------------------------------
# Everything together
# --------------------------------------------------------------------------------------------------


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line and not line.startswith("[page "):
            return line[:200]
    return ""


def _markdown_title(text: str) -> str:
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", text, re.MULTILINE)
    return match.group(1)[:300] if match else _first_line(text)


def extract(
    body: bytes, *, content_type: str, charset: str | None, url: str, truncated: bool = False
) -> Extracted:
    """Turn a response body into Markdown; raises ExtractionError when it cannot be read as text."""
    office = office_kind(content_type, url, body)
    if office is not None:
        title, text = convert(office, body, _TEXT, url=url, truncated=truncated)
        if not text.strip():
            raise ExtractionError(f"the {office.upper()} file holds no text")
        if not title and office not in ("csv", "xlsx"):  # a table's first line is no title
            title = _first_line(text)
        return Extracted(title, text, office, office)
    kind = detect_kind(content_type, url, body)
    if kind == "pdf":
        result = extract_pdf(body, truncated=truncated)
    else:
        text, _encoding = decode(body, charset, html=kind == "html")
        text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
        if kind == "html":
            result = extract_html(text, url)
        elif kind == "json":
            result = Extracted(_json_title(text), f"```json\n{text.strip()}\n```", "json", "as is")
        elif kind == "markdown":
            result = Extracted(_markdown_title(text), text.strip(), "markdown", "as is")
        else:
            result = Extracted(_first_line(text), text.strip(), "text", "as is")
    if not result.text.strip():
        raise ExtractionError(
            "the page has no readable text (its content may be drawn by JavaScript); try another source"
        )
    return result


class _DocumentText:
    """decode and the whole-page HTML converter, lent to documents.py (EPUB chapters, CSV)."""

    def decode(self, body: bytes, *, html: bool) -> str:
        return decode(body, html=html)[0]

    def html_markdown(self, html: str) -> tuple[str, str]:
        tree = _parse_html(html)
        return _html_title(tree), whole_page_markdown(tree, "").strip()


_TEXT = _DocumentText()


def plain_text(body: bytes, *, content_type: str, charset: str | None, url: str) -> Extracted:
    """The fast way out when `extract` runs out of time. An HTML page gives its text without
    structure (no headings, links or tables): lxml parses and walks it in C, a 10 MB page in well
    under a second. Text, Markdown and JSON are read as `extract` reads them, which is fast already;
    a PDF or an office document has no faster way and raises ExtractionError."""
    office = office_kind(content_type, url, body)
    if office in OFFICE_KINDS:
        raise ExtractionError(
            f"a {office.upper()} file cannot be read any faster: look for a shorter document or another source"
        )
    if office == "csv":
        return extract(body, content_type=content_type, charset=charset, url=url)
    kind = detect_kind(content_type, url, body)
    if kind == "pdf":
        raise ExtractionError(
            "a PDF cannot be read any faster: look for an HTML version or a shorter document"
        )
    if kind != "html":
        return extract(body, content_type=content_type, charset=charset, url=url)
    text, _encoding = decode(body, charset, html=True)
    # Line breaks before block tags, so paragraphs do not run together in the text.
    text = _BLOCK_START.sub(r"\n\g<0>", text)
    tree = _parse_html(text)
    if tree is None:
        raise ExtractionError("the page has no readable text; try another source")
    title = _html_title(tree)
    lxml.etree.strip_elements(tree, *_DROP_TAGS, with_tail=False)
    lines = (" ".join(line.split()) for line in tree.text_content().splitlines())
    plain = "\n\n".join(line for line in lines if line)
    if not plain:
        raise ExtractionError(
            "the page has no readable text (its content may be drawn by JavaScript); try another source"
        )
    return Extracted(title, plain, "html", "plain text")


def _json_title(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    if isinstance(data, dict):
        for key in ("title", "name", "headline"):
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()[:300]
    return ""
