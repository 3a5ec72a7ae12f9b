"""Markdown to safe HTML, for the live view and the exports: one renderer, one set of rules.

CommonMark with tables and strikethrough, raw HTML off: a `<script>` in a snapshot or in model
output is shown as text, never run. Links keep only http(s), mailto and in-page targets.

Citations: the report's numbered citations `[1]`, `[2, 5]` become links to the References entries
(`#ref-1`), each number carrying `data-cite="1"` for the view's passage pop-up; the notes' source
ids `[S3]` become `data-source="S3"` marks. Code spans and blocks are left alone.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from agent_runtime import language as lang

if TYPE_CHECKING:  # markdown-it is imported on first use: the CLI's start stays light
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_NUMBERED = re.compile(r"\[(\d{1,4}(?:\s*[,，]\s*\d{1,4})*)\]")
_SOURCE_IDS = re.compile(r"[\[【]\s*(S\d+(?:\s*[,，;；、]\s*S\d+)*)\s*[\]】]")
_SAFE_LINK = re.compile(r"^(https?:|mailto:|#)", re.IGNORECASE)

_renderer: MarkdownIt | None = None


def _markdown() -> MarkdownIt:
    global _renderer
    if _renderer is None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.validateLink = lambda url: bool(_SAFE_LINK.match(url.strip()))  # type: ignore[method-assign]
        _renderer = md
    return _renderer


def _numbered_citation(match: re.Match[str]) -> str:
    numbers = [n.strip() for n in re.split(r"[,，]", match.group(1))]
    links = ", ".join(f'<a class="cite" href="#ref-{n}" data-cite="{n}">{n}</a>' for n in numbers)
    return f'<span class="citation">[{links}]</span>'


def _source_citation(match: re.Match[str]) -> str:
    ids = re.split(r"\s*[,，;；、]\s*", match.group(1).strip())
    marks = ", ".join(f'<span class="source-id" data-source="{i}">{i}</span>' for i in ids)
    return f'<span class="citation">[{marks}]</span>'


def _cite_text(text: str, numbered: bool) -> str:
    """Escape one run of plain text and turn the citations in it into marks."""
    out, last = [], 0
    pattern = _NUMBERED if numbered else _SOURCE_IDS
    convert = _numbered_citation if numbered else _source_citation
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()], quote=False))
        out.append(convert(match))
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def _mark_citations(tokens: list[Token], numbered: bool) -> None:
    from markdown_it.token import Token

    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        children: list[Token] = []
        for child in token.children:
            if child.type == "text" and ("[" in child.content or "【" in child.content):
                marked = Token("html_inline", "", 0)
                marked.content = _cite_text(child.content, numbered)
                children.append(marked)
            else:
                children.append(child)
        token.children = children


def _anchor_references(tokens: list[Token]) -> None:
    """The numbered list under the References heading the finalizer wrote (in any of the report
    languages) gets ids `ref-<n>`, the targets of the report's citation links."""
    titles = {table["references"] for table in lang.STRINGS.values()}
    heading_at = None
    for i, token in enumerate(tokens[:-1]):
        if token.type == "heading_open" and token.tag == "h2" and tokens[i + 1].content.strip() in titles:
            heading_at = i
    if heading_at is None:
        return
    number = 0
    for token in tokens[heading_at:]:
        if token.type == "ordered_list_open" and number == 0:
            number = int(token.attrGet("start") or 1) - 1
        elif token.type == "list_item_open" and number >= 0:
            number += 1
            token.attrSet("id", f"ref-{number}")
        elif token.type == "ordered_list_close":
            return


def render_markdown(text: str, *, citations: str | None = None) -> str:
    """HTML for `text`. `citations="numbered"` for a finished report (links to its References),
    `"sources"` for notes and dashboards ([S<n>] marks), None to leave brackets as they are."""
    md = _markdown()
    tokens = md.parse(text)
    if citations is not None:
        _mark_citations(tokens, numbered=citations == "numbered")
    if citations == "numbered":
        _anchor_references(tokens)
    return str(md.renderer.render(tokens, md.options, {}))
