"""Markdown to safe HTML, for the live view and the exports: one renderer, one set of rules.

CommonMark with tables and strikethrough, raw HTML off: a `<script>` in a snapshot or in model
output is shown as text, never run. Links keep only http(s), mailto and in-page targets; links
to other sites carry `rel="noopener noreferrer"`, so the page's address (the view's carries its
access token) is never sent to them. Images are shown as links to the image, never loaded: a
page that loads nothing from elsewhere works offline and tells no tracker it was read. The one
exception is a figure the chart action drew, which a caller's `images` resolver
(`agent_runtime.app.figure_images`) gives as a `data:` URI of the workspace's own file.

Citations: the report's numbered citations `[1]`, `[2, 5]` become links to the References entries
(`#ref-1`), each number carrying `data-cite="1"` for the view's passage pop-up, and, when the
caller gives the cited passages, a `title` with the passage for a reader hovering over it; the
notes' source ids `[S3]` become `data-source="S3"` marks. Code spans and blocks are left alone.
In the References the finalizer wrote, each entry gets the id `ref-<n>` and its URL becomes a link;
`reference_addresses` reads the entries' sources for the others (the view's citation pop-up).

A table column's alignment is a class (`align-left|center|right`), never a `style` attribute: the
live view's Content-Security-Policy refuses inline styles, so an alignment written as one is lost.

`parse_markdown` gives the token stream itself, with the same rules, for the other writers (DOCX).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import agent_runtime.language as lang

if TYPE_CHECKING:  # markdown-it is imported on first use: the CLI's start stays light
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# A report's numbered citation: [3], [2, 5] (and the full-width comma of a Chinese text).
NUMBERED_CITATION = re.compile(r"\[(\d{1,4}(?:\s*[,，]\s*\d{1,4})*)\]")
_SOURCE_IDS = re.compile(r"[\[【]\s*(S\d+(?:\s*[,，;；、]\s*S\d+)*)\s*[\]】]")
_SAFE_LINK = re.compile(r"^(https?:|mailto:|#)", re.IGNORECASE)
# A figure the chart action drew, as a chapter or the report points at it (no scheme: nothing else).
_FIGURE_PATH = re.compile(r"^(?:\./|\.\./)*(?:Notebook/)?figures/[^:/\\]+\.(?:svg|png)$")
_EXTERNAL = re.compile(r"^https?:", re.IGNORECASE)
# CJK characters and punctuation: a line break between two of them is no space (Chinese and
# Japanese are written without spaces; a wrapped line must not gain one).
_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# A URL in a References entry: it ends at a space or at CJK punctuation (the Chinese entry puts
# "（访问于 …）" right after it); see `find_urls` for the punctuation that ends a sentence.
_URL_RUN = re.compile(r"https?://[^\s<>\"\u3000-\u303f\uff00-\uffef]+")
# A References entry's source: a URL, or the address of a local-corpus document (`corpus:notes/a.md`).
_ADDRESS_RUN = re.compile(r"(?:https?://|corpus:)[^\s<>\"\u3000-\u303f\uff00-\uffef]+")
_TRAILING = ".,;:!?'\"]*"
# The heading the finalizer writes above the References, in every language it writes.
REFERENCE_TITLES = frozenset(table["references"] for table in lang.STRINGS.values())
TITLE_CHARS = 300  # of a passage in a citation's hover title: a tooltip, not a page

_renderer: MarkdownIt | None = None


def _markdown() -> MarkdownIt:
    global _renderer
    if _renderer is None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.core.ruler.push("align_classes", _align_classes)  # after every other rule: tables exist
        md.validateLink = lambda url: bool(_SAFE_LINK.match(url.strip()) or _FIGURE_PATH.match(url.strip()))  # type: ignore[method-assign]
        md.add_render_rule("image", _image_as_link)
        _renderer = md
    return _renderer


def _image_as_link(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env) or src
    images = env.get("images") if isinstance(env, dict) else None
    inline = images(src) if images is not None else None
    if inline:  # a figure of the workspace, as its own bytes: nothing is fetched
        return f'<img class="figure" src="{html.escape(inline)}" alt="{html.escape(alt)}">'
    return (
        f'<a class="image" href="{html.escape(src)}" rel="noopener noreferrer">'
        f"{html.escape(alt, quote=False)}</a>"
    )


def _align_classes(state: Any) -> None:
    """A table cell's `style="text-align:X"` (markdown-it's) becomes the class `align-X`."""
    for token in state.tokens:
        if token.type in ("th_open", "td_open") and token.attrs:
            style = str(token.attrs.pop("style", ""))
            if style.startswith("text-align:"):
                token.attrSet("class", "align-" + style.removeprefix("text-align:"))


def parse_markdown(text: str) -> list[Token]:
    """The token stream of `text` under the renderer's rules (raw HTML off, safe links only)."""
    return _markdown().parse(text)


def short_passage(text: str, limit: int = TITLE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class _Titles:
    """The hover title of each citation mark. A number cited in several statements has one passage
    per statement, in the order the audit met them (document order); when the number is cited
    exactly that many times, the k-th mark gets the k-th passage, else (a number cited twice in
    one statement, or in a heading the audit skips) every mark gets the first."""

    def __init__(self, passages: Mapping[int, Sequence[str]], marks: Counter[int]) -> None:
        self._passages = passages
        self._marks = marks
        self._seen: Counter[int] = Counter()

    def next(self, number: int) -> str | None:
        found = [p for p in self._passages.get(number, ()) if p.strip()]
        index = self._seen[number]
        self._seen[number] += 1
        if not found:
            return None
        if len(self._passages[number]) == self._marks[number]:
            chosen = self._passages[number][index]  # "" for a statement with no passage: no title
            return short_passage(chosen) if chosen.strip() else None
        return short_passage(found[0])


def _numbers(match: re.Match[str]) -> list[str]:
    return [n.strip() for n in re.split(r"[,，]", match.group(1))]


def _numbered_citation(match: re.Match[str], titles: _Titles | None) -> str:
    links = []
    for n in _numbers(match):
        title = titles.next(int(n)) if titles is not None else None
        hover = f' title="{html.escape(title)}"' if title else ""
        links.append(f'<a class="cite" href="#ref-{n}" data-cite="{n}"{hover}>{n}</a>')
    return f'<span class="citation">[{", ".join(links)}]</span>'


def _source_citation(match: re.Match[str]) -> str:
    ids = re.split(r"\s*[,，;；、]\s*", match.group(1).strip())
    marks = ", ".join(f'<span class="source-id" data-source="{i}">{i}</span>' for i in ids)
    return f'<span class="citation">[{marks}]</span>'


def _cite_text(text: str, numbered: bool, titles: _Titles | None) -> str:
    """Escape one run of plain text and turn the citations in it into marks."""
    out, last = [], 0
    pattern = NUMBERED_CITATION if numbered else _SOURCE_IDS
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()], quote=False))
        out.append(_numbered_citation(match, titles) if numbered else _source_citation(match))
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def _text_runs(tokens: list[Token], skip: range) -> list[Token]:
    """The plain-text tokens that may hold citations, in document order (not in `skip`)."""
    runs: list[Token] = []
    for i, token in enumerate(tokens):
        if token.type == "inline" and token.children and i not in skip:
            runs.extend(
                c for c in token.children if c.type == "text" and ("[" in c.content or "【" in c.content)
            )
    return runs


def _mark_citations(
    tokens: list[Token], numbered: bool, skip: range, passages: Mapping[int, Sequence[str]] | None
) -> None:
    from markdown_it.token import Token

    found = _text_runs(tokens, skip)
    runs = {id(run) for run in found}
    titles = None
    if numbered and passages:
        marks: Counter[int] = Counter()
        for run in found:
            for match in NUMBERED_CITATION.finditer(run.content):
                marks.update(int(n) for n in _numbers(match))
        titles = _Titles(passages, marks)
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        children: list[Token] = []
        for child in token.children:
            if id(child) in runs:
                marked = Token("html_inline", "", 0)
                marked.content = _cite_text(child.content, numbered, titles)
                children.append(marked)
            else:
                children.append(child)
        token.children = children


def references_span(tokens: list[Token]) -> range:
    """The tokens of the numbered list under the References heading the finalizer wrote (the last
    such heading: a chapter may quote the word), or an empty range."""
    heading_at = None
    for i, token in enumerate(tokens[:-1]):
        if (
            token.type == "heading_open"
            and token.tag == "h2"
            and tokens[i + 1].content.strip() in REFERENCE_TITLES
        ):
            heading_at = i
    if heading_at is None:
        return range(0)
    start = None
    for i in range(heading_at + 3, len(tokens)):
        token = tokens[i]
        if start is None and token.type == "ordered_list_open":
            start = i
        elif start is None and token.type == "heading_open":
            return range(0)
        elif start is not None and token.type == "ordered_list_close" and token.level == tokens[start].level:
            return range(start, i + 1)
    return range(0)


def reference_items(tokens: list[Token], span: range) -> list[tuple[int, int]]:
    """(number, index of its `list_item_open`) of each References entry in `span`, in order: the
    numbers as the report shows them (the list counts from its own first number)."""
    if not span:
        return []
    number = int(tokens[span.start].attrGet("start") or 1) - 1
    level = tokens[span.start].level + 1
    items = []
    for i in span:
        if tokens[i].type == "list_item_open" and tokens[i].level == level:
            number += 1
            items.append((number, i))
    return items


def reference_addresses(text: str) -> dict[int, str]:
    """Each References entry's number → the address of its source, as the finalizer wrote it (an
    http(s) URL, or `corpus:<path>` for a local-corpus document); an entry with none is left out."""
    tokens = parse_markdown(text)
    found: dict[int, str] = {}
    for number, at in reference_items(tokens, references_span(tokens)):
        level = tokens[at].level
        for token in tokens[at + 1 :]:
            if token.type == "list_item_close" and token.level == level:
                break  # an entry with no address: the next entry's is not its own
            spans = _trimmed_spans(_ADDRESS_RUN, token.content) if token.type == "inline" else []
            if spans:
                found[number] = token.content[spans[0][0] : spans[0][1]]
                break
    return found


def _anchor_references(tokens: list[Token], span: range) -> None:
    """Each entry of the References gets the id `ref-<n>`, the target of the citation links."""
    for number, at in reference_items(tokens, span):
        tokens[at].attrSet("id", f"ref-{number}")


def find_urls(text: str) -> list[tuple[int, int]]:
    """(start, end) of each http(s) URL in plain text. Trailing punctuation is the sentence's, and
    so is a ")" the URL did not open (as GitHub's autolinks decide): "(see https://x.org/a_(b))."
    gives "https://x.org/a_(b)"."""
    return _trimmed_spans(_URL_RUN, text)


def _trimmed_spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """The matches of `pattern` (an address run) less the punctuation that is the sentence's."""
    spans = []
    for match in pattern.finditer(text):
        url = match.group(0)
        while url and (url[-1] in _TRAILING or (url[-1] == ")" and url.count(")") > url.count("("))):
            url = url[:-1]
        scheme = url.find(":") + 1
        if len(url) > scheme + (2 if url.startswith("//", scheme) else 0):  # more than "https://"
            spans.append((match.start(), match.start() + len(url)))
    return spans


def link_urls(children: list[Token]) -> list[Token]:
    """Inline tokens with each http(s) URL of their plain text turned into a link to itself."""
    from markdown_it.token import Token

    out: list[Token] = []
    for child in children:
        if child.type != "text" or "://" not in child.content:
            out.append(child)
            continue
        last = 0
        for start, end in find_urls(child.content):
            if start > last:
                out.append(_text(child.content[last:start]))
            url = child.content[start:end]
            opening = Token("link_open", "a", 1)
            opening.attrSet("href", url)
            out += [opening, _text(url), Token("link_close", "a", -1)]
            last = end
        if last < len(child.content):
            out.append(_text(child.content[last:]))
    return out


def _text(content: str) -> Token:
    from markdown_it.token import Token

    token = Token("text", "", 0)
    token.content = content
    return token


def _link_reference_urls(tokens: list[Token], span: range) -> None:
    for i in span:
        if tokens[i].type == "inline" and tokens[i].children:
            tokens[i].children = link_urls(tokens[i].children or [])


def joins_cjk(children: list[Token], j: int) -> bool:
    """True when the soft break children[j] stands between two CJK characters."""
    before = children[j - 1].content if j > 0 else ""
    after = children[j + 1].content if j + 1 < len(children) else ""
    return bool(before and after and _CJK.match(before[-1]) and _CJK.match(after[0]))


def _join_cjk_lines(tokens: list[Token]) -> None:
    for token in tokens:
        children = token.children or []
        for j, child in enumerate(children):
            if child.type == "softbreak" and joins_cjk(children, j):
                children[j] = _text("")


def _no_referrer(tokens: list[Token]) -> None:
    for token in tokens:
        for child in token.children or []:
            if child.type == "link_open" and _EXTERNAL.match(str(child.attrGet("href") or "")):
                child.attrSet("rel", "noopener noreferrer")


def render_markdown(
    text: str,
    *,
    citations: str | None = None,
    passages: Mapping[int, Sequence[str]] | None = None,
    images: Callable[[str], str | None] | None = None,
) -> str:
    """HTML for `text`. `citations="numbered"` for a finished report (links to its References),
    `"sources"` for notes and dashboards ([S<n>] marks), None to leave brackets as they are.
    `passages`: citation number → the passages cited with it, in document order (what
    report.citations.json holds), shown as each citation's hover title. `images`: an image's source
    → the URI to show it from (None: a link, as every other image)."""
    md = _markdown()
    tokens = md.parse(text)
    _join_cjk_lines(tokens)
    span = references_span(tokens) if citations == "numbered" else range(0)
    if citations is not None:
        _mark_citations(tokens, numbered=citations == "numbered", skip=span, passages=passages)
    if citations == "numbered":
        _anchor_references(tokens, span)
        _link_reference_urls(tokens, span)
    _no_referrer(tokens)
    return str(md.renderer.render(tokens, md.options, {"images": images}))
