"""The WordprocessingML the DOCX writer puts in itself: the few details python-docx has no API for
(hyperlinks to a URL or to a bookmark in the document, bookmarks, a numbered list that restarts at
its own first number, East-Asian fonts, shading, borders, repeated table headers), and the body's
paragraphs and runs, written with lxml as python-docx would write them: its helpers look a style
up among all of the document's styles at each paragraph and run, which made a 1 MB report take
most of a minute. Each element is a small, documented one of ECMA-376 part 1 (§17.3.1 paragraphs,
§17.3.2 runs, §17.16.22 hyperlink, §17.13.6 bookmarks, §17.9 numbering, §17.3.2.26 rFonts)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lxml import etree

from agent_runtime.engine.replies import repair_surrogates

if TYPE_CHECKING:  # python-docx is imported when a DOCX is written: the CLI's start stays light
    from docx.document import Document
    from docx.styles.style import BaseStyle


# The tags and attributes written directly with lxml, in Clark notation ("{namespace}name"), made
# once: python-docx's qn() builds the name again at each of the hundreds of thousands of calls.
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_W = "{" + W_NS + "}"
W_P, W_PPR, W_PSTYLE, W_JC, W_NUMPR, W_ILVL, W_NUMID = (
    _W + tag for tag in ("p", "pPr", "pStyle", "jc", "numPr", "ilvl", "numId")
)
W_R, W_RPR, W_RSTYLE, W_B, W_I, W_STRIKE, W_T, W_TAB, W_BR = (
    _W + tag for tag in ("r", "rPr", "rStyle", "b", "i", "strike", "t", "tab", "br")
)
W_NS_DRAWING = _W + "drawing"  # a picture's run (the figures of agent_runtime/domain/charts)
W_HYPERLINK, W_BOOKMARK_START, W_BOOKMARK_END, W_PBDR, W_BOTTOM = (
    _W + tag for tag in ("hyperlink", "bookmarkStart", "bookmarkEnd", "pBdr", "bottom")
)
W_TR, W_TC, W_TRPR, W_TBL_HEADER, W_SECTPR = (_W + tag for tag in ("tr", "tc", "trPr", "tblHeader", "sectPr"))
W_VAL, W_ANCHOR, W_HISTORY, W_ID, W_NAME, W_SZ, W_SPACE, W_COLOR = (
    _W + name for name in ("val", "anchor", "history", "id", "name", "sz", "space", "color")
)
R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


# XML 1.0 allows tab, newline, carriage return and the characters from U+0020 on, except the
# surrogates and U+FFFE/U+FFFF; lxml refuses a document with any other ("All strings must be XML
# compatible"). Text pulled from PDFs carries form feeds (a page break) and vertical tabs (a line
# break): those, and the other separators of C0, stand between words, so they become a space.
_SEPARATORS = re.compile(r"[\x0b\x0c\x1c-\x1f]")
_NOT_XML = re.compile(r"[\x00-\x08\x0e-\x1b\ufffe\uffff]")


# Any character `xml_text` changes: almost no text has one, and one search costs less than the
# three passes that change them (a 1 MB report has some 40,000 runs).
_CHANGED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """`text` as a WordprocessingML document can hold it: each character XML forbids removed, a
    separator (form feed, vertical tab) made a space, a lone surrogate made U+FFFD."""
    if _CHANGED.search(text) is None:
        return text
    return _NOT_XML.sub("", _SEPARATORS.sub(" ", repair_surrogates(text)))


# A run's text as python-docx writes it (`Run.text`): a tab is a <w:tab/>, a line end a <w:br/>, the
# rest <w:t> elements, kept as they are (xml:space="preserve") when they start or end with a space.
_RUN_BREAKS = re.compile(r"([\t\r\n])")


def add_run(
    parent: Any,
    text: str,
    *,
    style_id: str | None = None,
    bold: bool = False,
    italic: bool = False,
    strike: bool = False,
    properties: bool = True,
) -> Any:
    """A `<w:r>` at the end of `parent` (a paragraph or a hyperlink) holding `text` (already made
    XML-safe by `xml_text`), in the character style `style_id`. Its properties are written as
    python-docx writes them, an empty `<w:rPr/>` included (`properties=False`: none at all), in
    the schema's order (rStyle, b, i, strike); setting them through python-docx instead looks the
    style up among all the document's styles at every run."""
    run = etree.SubElement(parent, W_R)
    if properties:
        run_properties = etree.SubElement(run, W_RPR)
        if style_id is not None:
            etree.SubElement(run_properties, W_RSTYLE, {W_VAL: style_id})
        if bold:
            etree.SubElement(run_properties, W_B)
        if italic:
            etree.SubElement(run_properties, W_I)
        if strike:
            etree.SubElement(run_properties, W_STRIKE)
    pieces = _RUN_BREAKS.split(text) if ("\t" in text or "\n" in text or "\r" in text) else (text,)
    for piece in pieces:
        if piece == "\t":
            etree.SubElement(run, W_TAB)
        elif piece in ("\n", "\r"):
            etree.SubElement(run, W_BR)
        elif piece:
            element = etree.SubElement(run, W_T)
            element.text = piece
            if len(piece.strip()) < len(piece):
                element.set(XML_SPACE, "preserve")
    return run


def _element(tag: str, **attributes: str) -> Any:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    element = OxmlElement(tag)
    for name, value in attributes.items():
        element.set(qn(name.replace("_", ":", 1)), value)
    return element


# The elements the schema puts after each one added here: Word refuses a file whose properties
# come in another order, so each goes before the first of these its parent has.
_PPR_AFTER_SHD = (
    "w:tabs", "w:suppressAutoHyphens", "w:kinsoku", "w:wordWrap", "w:overflowPunct", "w:topLinePunct",
    "w:autoSpaceDE", "w:autoSpaceDN", "w:bidi", "w:adjustRightInd", "w:snapToGrid", "w:spacing", "w:ind",
    "w:contextualSpacing", "w:mirrorIndents", "w:suppressOverlap", "w:jc", "w:textDirection",
    "w:textAlignment", "w:textboxTightWrap", "w:outlineLvl", "w:divId", "w:cnfStyle", "w:rPr", "w:sectPr",
    "w:pPrChange",
)  # fmt: skip
_SUCCESSORS = {
    "w:shd": _PPR_AFTER_SHD,
    "w:lang": ("w:eastAsianLayout", "w:specVanish", "w:oMath"),
}


def _insert(parent: Any, element: Any, tag: str) -> None:
    parent.insert_element_before(element, *_SUCCESSORS[tag])


def add_hyperlink(paragraph: Any, *, r_id: str | None = None, anchor: str | None = None) -> Any:
    """An empty `<w:hyperlink>` at the end of the paragraph (a `<w:p>`), to the external
    relationship `r_id` of the document part or to the bookmark `anchor`; the caller writes the
    link's runs into it."""
    if r_id is not None:
        return etree.SubElement(paragraph, W_HYPERLINK, {R_ID: r_id})
    return etree.SubElement(paragraph, W_HYPERLINK, {W_ANCHOR: xml_text(anchor or ""), W_HISTORY: "1"})


def add_bookmark(paragraph: Any, name: str, number: int) -> None:
    """A bookmark from the start of the paragraph (a `<w:p>`) to its end so far: the target of
    the citations' internal links."""
    # Made in the paragraph, then moved: an element made outside the document would declare the
    # namespace again under a prefix of its own.
    start = etree.SubElement(paragraph, W_BOOKMARK_START, {W_ID: str(number), W_NAME: name})
    properties = paragraph.find(W_PPR)
    if properties is not None:
        properties.addnext(start)
    else:
        paragraph.insert(0, start)
    etree.SubElement(paragraph, W_BOOKMARK_END, {W_ID: str(number)})


def style_numbering(document: Document, style_name: str) -> int:
    """The abstract numbering definition the paragraph style `style_name` numbers with."""
    numbering = document.part.numbering_part.element
    style_num_id = document.styles[style_name].element.pPr.numPr.numId.val
    return int(numbering.num_having_numId(style_num_id).abstractNumId.val)


def restart_numbering(document: Document, abstract_id: int, start: int) -> int:
    """A new list instance of the abstract numbering `abstract_id` (`style_numbering`), counting
    from `start`; returns its numId. (Every paragraph of a style shares one instance, so without
    this each numbered list would go on counting from where the previous one stopped.)"""
    num = document.part.numbering_part.element.add_num(abstract_id)
    num.add_lvlOverride(ilvl=0)._add_startOverride(val=start)
    return int(num.numId)


def paragraph_properties(paragraph: Any, style_id: str | None = None) -> Any:
    """The paragraph's new `<w:pPr>` (it has none yet), with its style first if given."""
    properties = etree.SubElement(paragraph, W_PPR)
    if style_id is not None:
        etree.SubElement(properties, W_PSTYLE, {W_VAL: style_id})
    return properties


def use_numbering(properties: Any, num_id: int) -> None:
    """The list instance `num_id` for a paragraph whose `<w:pPr>` holds only its style (numPr
    comes right after pStyle in the schema)."""
    numbering = etree.SubElement(properties, W_NUMPR)
    etree.SubElement(numbering, W_ILVL, {W_VAL: "0"})
    etree.SubElement(numbering, W_NUMID, {W_VAL: str(num_id)})


def set_fonts(
    style: BaseStyle, *, east_asian: str, latin: str | None = None, language: str | None = None
) -> None:
    """Fonts of a style: `east_asian` for CJK characters (Word picks it by w:eastAsia, and a theme
    font attribute would override it, so those are removed), `latin` for the rest if given, and the
    proofing language (`language` as "zh-CN", for the East-Asian text)."""
    from docx.oxml.ns import qn

    r_pr = style.element.get_or_add_rPr()
    fonts = r_pr.get_or_add_rFonts()
    for theme in ("w:asciiTheme", "w:hAnsiTheme", "w:eastAsiaTheme"):
        if latin is not None or theme == "w:eastAsiaTheme":
            fonts.attrib.pop(qn(theme), None)
    fonts.set(qn("w:eastAsia"), east_asian)
    if latin is not None:
        fonts.set(qn("w:ascii"), latin)
        fonts.set(qn("w:hAnsi"), latin)
    if language is not None:
        tag = r_pr.find(qn("w:lang"))
        if tag is None:
            tag = _element("w:lang")
            _insert(r_pr, tag, "w:lang")
        tag.set(qn("w:eastAsia"), language)


def shade_style(style: BaseStyle, fill: str) -> None:
    """A background colour (hex RRGGBB) behind every paragraph of a style."""
    _insert(
        style.element.get_or_add_pPr(), _element("w:shd", w_val="clear", w_color="auto", w_fill=fill), "w:shd"
    )


def rule_below(paragraph: Any) -> None:
    """A horizontal rule: an empty paragraph (a `<w:p>` with no properties yet) with a bottom
    border (Markdown's `---`)."""
    borders = etree.SubElement(paragraph_properties(paragraph), W_PBDR)
    etree.SubElement(borders, W_BOTTOM, {W_VAL: "single", W_SZ: "6", W_SPACE: "1", W_COLOR: "A0A0A0"})


def repeat_as_header(row: Any) -> None:
    """The row (a `<w:tr>` with no properties yet) is repeated at the top of each page the table
    runs onto."""
    properties = etree.SubElement(row, W_TRPR)  # made in the row (see add_bookmark), then moved
    etree.SubElement(properties, W_TBL_HEADER, {W_VAL: "true"})
    row.insert(0, properties)  # trPr comes before the cells
