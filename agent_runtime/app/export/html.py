"""The report as one self-contained HTML file: the styles inline, nothing loaded from anywhere, so
it opens the same offline, mailed as an attachment, or years later.

The body is the shared renderer's (`agent_runtime.app.markdown_html`: raw HTML off, citations linked
to the References, each reference linked to its URL, the cited passage as each citation's hover
title). A Content-Security-Policy forbids every script and every request besides the inline
styles: should anything executable ever slip through the renderer, the browser still refuses it.
The same page, printed by Chromium, is the PDF (`agent_runtime.app.export.pdf`).
"""

from __future__ import annotations

import html

from agent_runtime.app.export.report import Report
from agent_runtime.app.figure_images import FigureImages
from agent_runtime.app.markdown_html import render_markdown

# Latin text first in the fonts each system has; then the CJK fonts of Linux (Noto / Source Han,
# one family under two names), macOS (PingFang, Hiragino) and Windows (Microsoft YaHei), so
# Chinese has glyphs everywhere. A Chinese report puts the CJK fonts first: their Latin letters
# match their Han characters, and the Chinese quotation marks take the CJK shapes.
_LATIN = '-apple-system, "Segoe UI", "Helvetica Neue", Arial, "Liberation Sans"'
_CJK = {
    "zh": '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", '
    '"Microsoft YaHei", "WenQuanYi Micro Hei"',
    "ja": '"Noto Sans CJK JP", "Source Han Sans JP", "Hiragino Sans", "Yu Gothic", Meiryo',
    "ko": '"Noto Sans CJK KR", "Source Han Sans KR", "Apple SD Gothic Neo", "Malgun Gothic"',
}
_MONO = (
    'ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace'
)

_STYLE = """
:root { color-scheme: light; }
html { font-family: %(body_fonts)s, sans-serif; font-size: 16px; color: #1f2328; background: #fff; }
body { max-width: 46rem; margin: 2.5rem auto; padding: 0 1.25rem; line-height: 1.7; }
h1, h2, h3, h4, h5, h6 { line-height: 1.3; margin: 1.8em 0 0.6em; font-weight: 600; }
h1 { font-size: 2em; margin-top: 0; padding-bottom: 0.3em; border-bottom: 1px solid #d8dee4; }
h2 { font-size: 1.5em; padding-bottom: 0.25em; border-bottom: 1px solid #d8dee4; }
h3 { font-size: 1.25em; }
h4 { font-size: 1.05em; }
p, ul, ol, table, pre, blockquote { margin: 0 0 1em; }
ul, ol { padding-left: 1.8em; }
li + li { margin-top: 0.25em; }
a { color: #0969da; text-decoration: none; overflow-wrap: anywhere; }
a:hover { text-decoration: underline; }
code { font-family: %(mono_fonts)s; font-size: 0.88em; background: #f3f4f6; padding: 0.1em 0.3em;
  border-radius: 4px; }
pre { font-family: %(mono_fonts)s; background: #f6f8fa; border: 1px solid #e5e7eb; border-radius: 6px;
  padding: 0.8em 1em; overflow-x: auto; line-height: 1.45; }
pre code { background: none; padding: 0; font-size: 0.86em; }
blockquote { border-left: 0.25em solid #d0d7de; color: #57606a; padding: 0 1em; margin-left: 0; }
table { border-collapse: collapse; display: block; max-width: 100%%; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: 0.4em 0.75em; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
.align-left { text-align: left; } .align-center { text-align: center; } .align-right { text-align: right; }
tr:nth-child(even) td { background: #fafbfc; }
hr { border: 0; border-top: 1px solid #d8dee4; margin: 2em 0; }
.citation { font-size: 0.85em; color: #57606a; white-space: nowrap; }
.citation a.cite { font-weight: 600; }
img.figure { display: block; max-width: 100%%; height: auto; margin: 1.2em auto 0.4em; }
li[id^="ref-"] { scroll-margin-top: 1em; }
li[id^="ref-"]:target { background: #fff8c5; outline: 4px solid #fff8c5; }
@page { size: A4; margin: 18mm 16mm 20mm;
  @bottom-center { content: counter(page) " / " counter(pages); font-size: 9pt; color: #57606a; } }
@media print {
  html { font-size: 10.5pt; }
  body { max-width: none; margin: 0; padding: 0; }
  a { color: #0550ae; }
  table { display: table; overflow: visible; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }
  h1, h2, h3, h4 { break-after: avoid; page-break-after: avoid; }
  pre, blockquote, tr, img { break-inside: avoid; page-break-inside: avoid; }
  li[id^="ref-"]:target { background: none; outline: none; }
}
"""

# No script, no request: only the inline <style> and the figures inside the page (data: URIs) may
# apply (the page's own links still work).
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def stylesheet(language: str) -> str:
    cjk = _CJK.get(language, _CJK["zh"])
    fonts = f"{cjk}, {_LATIN}" if language in _CJK else f"{_LATIN}, {cjk}"
    return _STYLE % {"body_fonts": fonts, "mono_fonts": _MONO}


def render_html(report: Report) -> str:
    """The page, each figure of the report inline (a broken one is named in `report.broken_figures`)."""
    images = FigureImages(report.workspace)
    body = render_markdown(report.text, citations="numbered", passages=report.passages, images=images)
    report.broken_figures.extend(images.broken)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html.escape(report.language)}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="Deep Researcher">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{html.escape(report.title, quote=False)}</title>\n"
        f"<style>{stylesheet(report.language)}</style>\n</head>\n"
        f'<body>\n<main class="report">\n{body}</main>\n</body>\n</html>\n'
    )
