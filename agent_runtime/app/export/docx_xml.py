"""The few WordprocessingML details python-docx has no API for: hyperlinks (to a URL, or to a
bookmark in the document), bookmarks, a numbered list that restarts at its own first number,
East-Asian fonts, shading, borders and repeated table headers. Each is a small, documented
element of ECMA-376 part 1 (§17.16.22 hyperlink, §17.13.6 bookmarks, §17.9 numbering, §17.3.2.26
rFonts)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent_runtime.engine.replies import repair_surrogates

if TYPE_CHECKING:  # python-docx is imported when a DOCX is written: the CLI's start stays light
    from docx.document import Document
    from docx.styles.style import BaseStyle
    from docx.table import _Row
    from docx.text.paragraph import Paragraph


# XML 1.0 allows tab, newline, carriage return and the characters from U+0020 on, except the
# surrogates and U+FFFE/U+FFFF; lxml refuses a document with any other ("All strings must be XML
# compatible"). Text pulled from PDFs carries form feeds (a page break) and vertical tabs (a line
# break): those, and the other separators of C0, stand between words, so they become a space.
_SEPARATORS = re.compile(r"[\x0b\x0c\x1c-\x1f]")
_NOT_XML = re.compile(r"[\x00-\x08\x0e-\x1b\ufffe\uffff]")


def xml_text(text: str) -> str:
    """`text` as a WordprocessingML document can hold it: each character XML forbids removed, a
    separator (form feed, vertical tab) made a space, a lone surrogate made U+FFFD."""
    return _NOT_XML.sub("", _SEPARATORS.sub(" ", repair_surrogates(text)))


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
    "w:pBdr": ("w:shd", *_PPR_AFTER_SHD),
    "w:shd": _PPR_AFTER_SHD,
    "w:lang": ("w:eastAsianLayout", "w:specVanish", "w:oMath"),
    "w:tblHeader": ("w:tblCellSpacing", "w:jc", "w:hidden", "w:ins", "w:del", "w:trPrChange"),
}


def _insert(parent: Any, element: Any, tag: str) -> None:
    parent.insert_element_before(element, *_SUCCESSORS[tag])


def add_hyperlink(paragraph: Paragraph, *, url: str | None = None, anchor: str | None = None) -> Any:
    """An empty `<w:hyperlink>` at the end of the paragraph, to `url` (an external relationship of
    the document part) or to the bookmark `anchor`; the caller moves the link's runs into it."""
    from docx.opc.constants import RELATIONSHIP_TYPE

    if url is not None:
        r_id = paragraph.part.relate_to(xml_text(url), RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
        link = _element("w:hyperlink", r_id=r_id)
    else:
        link = _element("w:hyperlink", w_anchor=xml_text(anchor or ""), w_history="1")
    paragraph._p.append(link)
    return link


def add_bookmark(paragraph: Paragraph, name: str, number: int) -> None:
    """A bookmark around the whole paragraph: the target of the citations' internal links."""
    start = _element("w:bookmarkStart", w_id=str(number), w_name=name)
    p_pr = paragraph._p.pPr
    if p_pr is not None:
        p_pr.addnext(start)
    else:
        paragraph._p.insert(0, start)
    paragraph._p.append(_element("w:bookmarkEnd", w_id=str(number)))


def restart_numbering(document: Document, style_name: str, start: int) -> int:
    """A new list instance of the numbering `style_name` uses, counting from `start`; returns its
    numId. (Every paragraph of a style shares one instance, so without this each numbered list
    would go on counting from where the previous one stopped.)"""
    numbering = document.part.numbering_part.element
    style_num_id = document.styles[style_name].element.pPr.numPr.numId.val
    abstract_id = numbering.num_having_numId(style_num_id).abstractNumId.val
    num = numbering.add_num(abstract_id)
    num.add_lvlOverride(ilvl=0)._add_startOverride(val=start)
    return int(num.numId)


def use_numbering(paragraph: Paragraph, num_id: int) -> None:
    num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
    num_pr.get_or_add_ilvl().val = 0
    num_pr.get_or_add_numId().val = num_id


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


def rule_below(paragraph: Paragraph) -> None:
    """A horizontal rule: an empty paragraph with a bottom border (Markdown's `---`)."""
    borders = _element("w:pBdr")
    borders.append(_element("w:bottom", w_val="single", w_sz="6", w_space="1", w_color="A0A0A0"))
    _insert(paragraph._p.get_or_add_pPr(), borders, "w:pBdr")


def repeat_as_header(row: _Row) -> None:
    """The row is repeated at the top of each page the table runs onto."""
    _insert(row._tr.get_or_add_trPr(), _element("w:tblHeader", w_val="true"), "w:tblHeader")
