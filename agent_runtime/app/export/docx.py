"""The report as a Word document (python-docx), built from the same Markdown token stream the HTML
is rendered from (`parse_markdown`), so both read the report alike.

What a Word user expects: headings in the Heading 1-6 styles (the navigation pane and a table of
contents work), lists in the List Bullet / List Number styles (each numbered list counting from
its own first number), real tables with a header row repeated across pages, code in a monospace
style, bold, italic, strikethrough and links as such. Citations stay "[n]" as in the report, each
number linked to its entry in the References, which are numbered as the report numbers them
(the number is written out, so it can never drift from the citations) with each URL a link.

Every string goes into the document through `xml_text`: a report holds what the web held (form
feeds and escapes from PDF text), and one character XML forbids would lose the whole export.

Chinese: Word picks the font of CJK characters from the East-Asian font of the style (w:eastAsia),
not from the Latin one; without it Chinese falls back to whatever the machine's Word decides.
The Normal and heading styles name one (Microsoft YaHei for Chinese: Windows has it, and Word
elsewhere substitutes its own Chinese sans-serif),
and Chinese lines joined by a soft break are joined without the space Latin text would get.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lxml import etree

import agent_runtime.app.export.docx_xml as xml
from agent_runtime.app.export.report import Report
from agent_runtime.app.figure_images import FigureImages
from agent_runtime.app.markdown_html import (
    NUMBERED_CITATION,
    find_urls,
    joins_cjk,
    parse_markdown,
    reference_items,
    references_span,
)

if TYPE_CHECKING:
    from docx.document import Document
    from markdown_it.token import Token

_EAST_ASIAN_FONT = {"zh": "Microsoft YaHei", "ja": "Yu Gothic", "ko": "Malgun Gothic"}
_PROOFING = {"zh": "zh-CN", "ja": "ja-JP", "ko": "ko-KR", "en": "en-US"}
_CODE_FONT = "Consolas"
_LINK_COLOUR = "0563C1"
_CODE_STYLE, _INLINE_CODE_STYLE, _LINK_STYLE = "Code Block", "Inline Code", "Hyperlink"


def render_docx(report: Report) -> bytes:
    from docx import Document

    document = Document()
    _setup(document, report)
    tokens = parse_markdown(report.text)
    images = FigureImages(report.workspace)
    _Writer(document, tokens, references_span(tokens), images).write()
    report.broken_figures.extend(images.broken)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _setup(document: Document, report: Report) -> None:
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Mm, Pt, RGBColor

    east_asian = _EAST_ASIAN_FONT.get(report.language, _EAST_ASIAN_FONT["zh"])
    proofing = _PROOFING.get(report.language, report.language)
    styles = document.styles
    xml.set_fonts(styles["Normal"], east_asian=east_asian, language=proofing)
    for name in ("Title", *(f"Heading {level}" for level in range(1, 7))):
        xml.set_fonts(styles[name], east_asian=east_asian)
    code = styles.add_style(_CODE_STYLE, WD_STYLE_TYPE.PARAGRAPH)
    code.base_style = styles["Normal"]
    code.font.size = Pt(9)
    code.paragraph_format.line_spacing = 1.0
    xml.set_fonts(code, east_asian=east_asian, latin=_CODE_FONT)
    xml.shade_style(code, "F3F4F6")
    inline_code = styles.add_style(_INLINE_CODE_STYLE, WD_STYLE_TYPE.CHARACTER)
    xml.set_fonts(inline_code, east_asian=east_asian, latin=_CODE_FONT)
    link = styles.add_style(_LINK_STYLE, WD_STYLE_TYPE.CHARACTER)
    link.font.color.rgb = RGBColor.from_string(_LINK_COLOUR)
    link.font.underline = True
    for section in document.sections:  # A4, as the PDF
        section.page_width, section.page_height = Mm(210), Mm(297)
        section.left_margin = section.right_margin = Mm(20)
    properties = document.core_properties
    properties.title = xml.xml_text(report.title)
    properties.language = proofing
    properties.author = properties.last_modified_by = "Deep Researcher"
    properties.comments = ""
    properties.created = properties.modified = datetime.now(UTC)  # not the template's 2013


@dataclass
class _List:
    ordered: bool
    references: bool = False  # the References list: numbers written out, entries bookmarked
    num_id: int | None = None  # the numbering instance of an ordered list (restarted at its start)
    number: int = 0  # of the current item
    fresh: bool = False  # the current item has had no paragraph yet


@dataclass
class _Format:
    bold: bool = False
    italic: bool = False
    strike: bool = False


class _Writer:
    """Writes the body's XML with lxml. python-docx's `add_paragraph(style=…)`, `run.style = …`
    and `table.style = …` look the style up among all of the document's styles (an XPath query,
    and a scan of every style for the default one) at every call, and `add_table` finds the last
    section with an XPath query over the whole body: a 1 MB report took most of a minute. Here
    each style's id is looked up once, and blocks are appended to the body with its section
    properties taken off until the end. The XML is the one python-docx's helpers wrote (the
    tests pin how the document reads back)."""

    def __init__(
        self, document: Document, tokens: list[Token], references: range, images: FigureImages | None = None
    ) -> None:
        self.document = document
        self.images = images
        self.tokens = tokens
        self.references = references
        self.reference_numbers = {number for number, _ in reference_items(tokens, references)}
        self.lists: list[_List] = []
        self.quotes = 0
        self.bookmarks = 0
        self.body: Any = document.element.body
        self.table_width = document._block_width  # of the last section, as add_table takes it
        self.style_ids: dict[str, str] = {}
        self.numberings: dict[str, int] = {}  # list style → its abstract numbering
        self.url_ids: dict[str, str] = {}  # URL → its relationship id: one per URL, as python-docx makes
        self.next_r_id = 1
        self.link_style = self._style_id(_LINK_STYLE)
        self.inline_code_style = self._style_id(_INLINE_CODE_STYLE)

    def write(self) -> None:
        # The section properties end the body: taken off, every block is appended after the last
        # one, then put back (python-docx looks for them before each block it adds).
        section = self.body.find(xml.W_SECTPR)
        if section is not None:
            self.body.remove(section)
        try:
            tokens, i = self.tokens, 0
            while i < len(tokens):
                i = self._block(i)
        finally:
            if section is not None:
                self.body.append(section)

    def _style_id(self, name: str) -> str:
        """The id of the style named `name` (python-docx's lookup, once per style)."""
        if name not in self.style_ids:
            self.style_ids[name] = self.document.styles[name].style_id
        return self.style_ids[name]

    def _add_paragraph(self, style: str | None = None) -> Any:
        """A new `<w:p>` at the end of the body, in the paragraph style named `style`."""
        paragraph = etree.SubElement(self.body, xml.W_P)
        if style is not None:
            xml.paragraph_properties(paragraph, self._style_id(style))
        return paragraph

    def _block(self, i: int) -> int:
        """Write the block starting at token i; returns the index of the next token to write."""
        token = self.tokens[i]
        kind = token.type
        if kind == "heading_open":
            level = min(int(token.tag[1:]), 6)
            self._inline(self._add_paragraph(f"Heading {level}"), self.tokens[i + 1])
            return i + 3
        if kind == "paragraph_open":
            self._inline(self._paragraph(), self.tokens[i + 1])
            return i + 3
        if kind in ("bullet_list_open", "ordered_list_open"):
            self._open_list(i)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "list_item_open":
            self.lists[-1].number += 1
            self.lists[-1].fresh = True
        elif kind == "blockquote_open":
            self.quotes += 1
        elif kind == "blockquote_close":
            self.quotes -= 1
        elif kind in ("fence", "code_block"):
            paragraph = self._add_paragraph(_CODE_STYLE)
            self._run(paragraph, token.content.rstrip("\n"), _Format())  # each "\n" becomes a <w:br/>
        elif kind == "table_open":
            return self._table(i)
        elif kind == "hr":
            xml.rule_below(self._add_paragraph())
        elif kind == "html_block":  # raw HTML is off: shown as the text it is, as in the HTML export
            self._run(self._add_paragraph(), token.content.rstrip("\n"), _Format())
        return i + 1

    def _open_list(self, i: int) -> None:
        token = self.tokens[i]
        if token.type == "bullet_list_open":
            self.lists.append(_List(ordered=False))
            return
        start = int(token.attrGet("start") or 1)
        if i == self.references.start:
            self.lists.append(_List(ordered=True, references=True, number=start - 1))
            return
        style = _list_style(True, len(self.lists) + 1)
        if style not in self.numberings:
            self.numberings[style] = xml.style_numbering(self.document, style)
        num_id = xml.restart_numbering(self.document, self.numberings[style], start)
        self.lists.append(_List(ordered=True, num_id=num_id, number=start - 1))

    def _paragraph(self) -> Any:
        """A new paragraph in the style of where it stands: a list item, a quote, or the body."""
        if not self.lists:
            return self._add_paragraph("Quote" if self.quotes else None)
        current, depth = self.lists[-1], len(self.lists)
        fresh, current.fresh = current.fresh, False
        if current.references and fresh:
            paragraph = self._add_paragraph("List")
            # digits only: nothing for xml_text to do; a run with no properties, as add_run makes
            xml.add_run(paragraph, f"{current.number}. ", properties=False)
            self.bookmarks += 1
            xml.add_bookmark(paragraph, f"ref_{current.number}", self.bookmarks)
            return paragraph
        if not fresh:  # the item's second paragraph: indented under it, with no bullet or number
            return self._add_paragraph("List Continue" + ("" if depth == 1 else f" {min(depth, 3)}"))
        paragraph = self._add_paragraph(_list_style(current.ordered, depth))
        if current.num_id is not None:
            xml.use_numbering(paragraph[0], current.num_id)  # into its properties, after the style
        return paragraph

    def _table(self, i: int) -> int:
        from docx.oxml.table import CT_Tbl

        rows: list[list[tuple[Token, str, bool]]] = []
        while self.tokens[i].type != "table_close":
            token = self.tokens[i]
            if token.type == "tr_open":
                rows.append([])
            elif token.type in ("th_open", "td_open"):
                align = str(token.attrGet("class") or "").removeprefix("align-")  # see markdown_html
                rows[-1].append((self.tokens[i + 1], align, token.type == "th_open"))
            i += 1
        columns = max((len(row) for row in rows), default=0)
        if not rows or not columns:
            return i + 1
        table = CT_Tbl.new_tbl(len(rows), columns, self.table_width)  # the table add_table makes
        table.tblStyle_val = self._style_id("Table Grid")
        self.body.append(table)
        # Row by row, each row's cells walked once: python-docx's table.cell(r, c), table.rows[r]
        # and row.cells build the whole grid again at every call.
        for row, table_row in zip(rows, table.iterchildren(xml.W_TR), strict=True):
            for (inline, align, header), cell in zip(row, table_row.iterchildren(xml.W_TC), strict=False):
                paragraph = cell.find(xml.W_P)
                if align in ("right", "center"):  # jc: its properties' only child
                    etree.SubElement(xml.paragraph_properties(paragraph), xml.W_JC, {xml.W_VAL: align})
                self._inline(paragraph, inline, bold=header)
            if row and row[0][2]:
                xml.repeat_as_header(table_row)
        self._add_paragraph()  # Word joins two tables that touch; a gap keeps them apart
        return i + 1

    # -- inline content ------------------------------------------------------------------------
    def _inline(self, paragraph: Any, inline: Token, *, bold: bool = False) -> None:
        children = inline.children or []
        in_references = bool(self.lists) and self.lists[0].references
        fmt = _Format(bold=bold)
        link: Any = None  # the <w:hyperlink> the runs go into, between link_open and link_close
        for j, child in enumerate(children):
            kind = child.type
            if kind == "text":
                if link is not None:
                    self._run(paragraph, child.content, fmt, link)
                elif in_references:
                    self._text_with_urls(paragraph, child.content, fmt)
                else:
                    self._text_with_citations(paragraph, child.content, fmt)
            elif kind in ("strong_open", "strong_close"):
                fmt.bold = bold or kind == "strong_open"
            elif kind in ("em_open", "em_close"):
                fmt.italic = kind == "em_open"
            elif kind in ("s_open", "s_close"):
                fmt.strike = kind == "s_open"
            elif kind == "code_inline":  # in the code style, even inside a link
                self._run(paragraph, child.content, fmt, link, style_id=self.inline_code_style)
            elif kind == "softbreak":
                self._run(paragraph, "" if joins_cjk(children, j) else " ", fmt, link)
            elif kind == "hardbreak":
                etree.SubElement(self._run(paragraph, "", fmt, link), xml.W_BR)
            elif kind == "link_open":
                link = self._link(paragraph, str(child.attrGet("href") or ""))
            elif kind == "link_close":
                link = None
            elif kind == "image" and self._picture(paragraph, str(child.attrGet("src") or "")):
                pass  # a figure of the workspace, embedded; its caption is the next paragraph
            elif kind == "image":  # as in the HTML: a link to the image, never the image itself
                target = self._url_link(paragraph, str(child.attrGet("src") or ""))
                self._run(paragraph, child.content or str(child.attrGet("src") or ""), fmt, target)
            elif kind == "html_inline":
                self._run(paragraph, child.content, fmt, link)

    def _picture(self, paragraph: Any, src: str) -> bool:
        """Embed the PNG of a figure the chart action drew, as wide as the text; False for any
        other image (or a figure file that cannot be read: named in the resolver's `broken`)."""
        png = self.images.png_of(src) if self.images is not None else None
        if png is None:
            return False
        inline = self.document.part.new_pic_inline(io.BytesIO(png), self.table_width, None)
        run = etree.SubElement(paragraph, xml.W_R)
        etree.SubElement(run, xml.W_NS_DRAWING).append(inline)
        return True

    def _link(self, paragraph: Any, href: str) -> Any:
        if href.startswith("#ref-") and href[5:].isdigit():
            return xml.add_hyperlink(paragraph, anchor=f"ref_{href[5:]}")
        if href.startswith("#"):  # an anchor of the HTML page (a heading) has no bookmark here
            return None
        return self._url_link(paragraph, href)

    def _url_link(self, paragraph: Any, url: str) -> Any:
        """A link to `url`: an external relationship of the document part, one per URL, with the
        id python-docx's relate_to would give it (the first free "rIdN"); relate_to itself goes
        through every relationship twice for each new one, a 1 MB report has hundreds."""
        from docx.opc.constants import RELATIONSHIP_TYPE

        target = xml.xml_text(url)
        r_id = self.url_ids.get(target)
        if r_id is None:
            relationships = self.document.part.rels
            # Relationships are only ever added, so no id below the last one given is free.
            while f"rId{self.next_r_id}" in relationships:
                self.next_r_id += 1
            r_id = self.url_ids[target] = f"rId{self.next_r_id}"
            relationships.add_relationship(RELATIONSHIP_TYPE.HYPERLINK, target, r_id, is_external=True)
        return xml.add_hyperlink(paragraph, r_id=r_id)

    def _run(
        self, paragraph: Any, text: str, fmt: _Format, link: Any = None, *, style_id: str | None = None
    ) -> Any:
        """A run of `text` at the end of the paragraph, or of `link` (then in the link style,
        unless `style_id` names another)."""
        if link is not None and style_id is None:
            style_id = self.link_style
        return xml.add_run(
            paragraph if link is None else link,
            xml.xml_text(text),
            style_id=style_id,
            bold=fmt.bold,
            italic=fmt.italic,
            strike=fmt.strike,
        )

    def _text_with_citations(self, paragraph: Any, text: str, fmt: _Format) -> None:
        """Text whose citations [n] link to the References entry n (when the report has it)."""
        last = 0
        for match in NUMBERED_CITATION.finditer(text):
            numbers = [n.strip() for n in re.split(r"[,，]", match.group(1))]
            if not all(int(n) in self.reference_numbers for n in numbers):
                continue  # a bracketed number that is no citation of this report: left as it is
            self._run(paragraph, text[last : match.start()] + "[", fmt)
            for k, number in enumerate(numbers):
                if k:
                    self._run(paragraph, ", ", fmt)
                self._run(paragraph, number, fmt, xml.add_hyperlink(paragraph, anchor=f"ref_{number}"))
            self._run(paragraph, "]", fmt)
            last = match.end()
        if last < len(text):
            self._run(paragraph, text[last:], fmt)

    def _text_with_urls(self, paragraph: Any, text: str, fmt: _Format) -> None:
        """A References entry's text, its URL a link to the source."""
        last = 0
        for start, end in find_urls(text):
            if start > last:
                self._run(paragraph, text[last:start], fmt)
            self._run(paragraph, text[start:end], fmt, self._url_link(paragraph, text[start:end]))
            last = end
        if last < len(text):
            self._run(paragraph, text[last:], fmt)


def _list_style(ordered: bool, depth: int) -> str:
    name = "List Number" if ordered else "List Bullet"
    return name if depth == 1 else f"{name} {min(depth, 3)}"
