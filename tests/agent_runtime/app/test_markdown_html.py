"""The one Markdown renderer of the view and the exports: safe with untrusted text, citations
linked to the References, each reference linked to its source, the cited passage on hover."""

from __future__ import annotations

import html

import pytest

from agent_runtime.app.markdown_html import find_urls, parse_markdown, reference_addresses, render_markdown

REPORT = """# Cells

LFP cells last long [1]. Solid cells are safer [2]. LFP is cheap [1, 2].

`[3]` stays code.

## References

1. Cells [2023 edition]. https://example.org/lfp (accessed 2026-01-02)
2. Safety. https://en.wikipedia.org/wiki/Battery_(electricity) (accessed 2026-01-02)
"""


def test_raw_html_and_scripts_are_shown_as_text() -> None:
    out = render_markdown('<script>alert("x")</script>\n\nA <img src=x onerror=alert(1)> tag.\n')
    assert "<script" not in out and "<img" not in out
    assert "<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p>" in out
    assert "A &lt;img src=x onerror=alert(1)&gt; tag." in out


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<b>x</b>", "vbscript:x"])
def test_only_safe_links_are_links(url: str) -> None:
    out = render_markdown(f"[click]({url})")
    assert "href" not in out


def test_links_to_other_sites_send_no_referrer() -> None:
    out = render_markdown("[a](https://example.org/) and [b](#part)")
    assert '<a href="https://example.org/" rel="noopener noreferrer">a</a>' in out
    assert '<a href="#part">b</a>' in out


def test_images_are_links_never_loaded() -> None:
    out = render_markdown("![a chart](https://tracker.example/pixel.png)")
    assert "<img" not in out
    assert (
        '<a class="image" href="https://tracker.example/pixel.png" rel="noopener noreferrer">a chart</a>'
        in out
    )


def test_citations_link_to_their_references_and_the_urls_are_links() -> None:
    out = render_markdown(REPORT, citations="numbered")
    assert out.count('href="#ref-1"') == 2 and out.count('href="#ref-2"') == 2
    assert "<code>[3]</code>" in out
    assert '<li id="ref-1">Cells [2023 edition]. <a href="https://example.org/lfp"' in out  # no citation mark
    # A ")" the URL opened is the URL's; the sentence's "." and ")" are not.
    assert '<a href="https://en.wikipedia.org/wiki/Battery_(electricity)" rel="noopener noreferrer">' in out
    assert "</a> (accessed 2026-01-02)</li>" in out


def test_chinese_references_end_the_url_at_the_full_width_parenthesis() -> None:
    text = (
        "# 电池\n\n成本下降 [1]。\n\n## 参考文献\n\n1. 固态电池. https://example.cn/a（访问于 2026-01-02）\n"
    )
    out = render_markdown(text, citations="numbered")
    assert (
        '<li id="ref-1">固态电池. <a href="https://example.cn/a" rel="noopener noreferrer">https://example.cn/a</a>（访问于'
        in out
    )


def test_each_citation_shows_the_passage_it_was_cited_for() -> None:
    passages = {1: ["They last 6000 cycles.", "LFP costs 95 USD."], 2: ["Solid cells do not burn.", ""]}
    out = render_markdown(REPORT, citations="numbered", passages=passages)
    assert 'data-cite="1" title="They last 6000 cycles."' in out
    assert 'data-cite="1" title="LFP costs 95 USD."' in out
    assert 'data-cite="2" title="Solid cells do not burn."' in out
    assert out.count("title=") == 3  # the second [2] was cited with no passage: no title


def test_when_the_passages_do_not_match_the_marks_every_mark_shows_the_first() -> None:
    passages = {1: ['A "quoted" <passage> ' + "word " * 100]}
    out = render_markdown("A [1]. B [1]. C [1].\n", citations="numbered", passages=passages)
    assert out.count('title="A &quot;quoted&quot; &lt;passage&gt; word') == 3
    title = html.unescape(out.split('title="')[1].split('"')[0])
    assert len(title) <= 300 and title.endswith("…")


def test_source_ids_in_notes_are_marked() -> None:
    out = render_markdown("Cells are cheap [S3, S7]; 成本【S9】.", citations="sources")
    assert 'data-source="S3"' in out and 'data-source="S7"' in out and 'data-source="S9"' in out


def test_a_wrapped_chinese_line_gains_no_space() -> None:
    out = render_markdown("固态电池的成本\n正在下降。\n\nCells are\ncheap.\n")
    assert "固态电池的成本正在下降。" in out
    assert "Cells are\ncheap." in out


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        ("see https://a.org/x.", ["https://a.org/x"]),
        ("(https://a.org/x)", ["https://a.org/x"]),
        ("https://a.org/wiki/A_(b), next", ["https://a.org/wiki/A_(b)"]),
        ("https://a.cn/x（访问于）", ["https://a.cn/x"]),
        ("http:// nothing", []),
    ],
)
def test_urls_in_text(text: str, urls: list[str]) -> None:
    assert [text[a:b] for a, b in find_urls(text)] == urls


def test_table_alignment_is_a_class_not_an_inline_style() -> None:
    """The live view's Content-Security-Policy refuses style attributes: an alignment written as
    one is lost there, a class is not. The token stream (what the DOCX reads) carries it too."""
    text = "| Name | Year | Cost |\n|:--|:-:|--:|\n| LFP | 2025 | 95 |\n"
    out = render_markdown(text)
    assert "style=" not in out
    assert '<th class="align-left">Name</th>' in out
    assert '<th class="align-center">Year</th>' in out
    assert '<td class="align-right">95</td>' in out
    cells = [t.attrGet("class") for t in parse_markdown(text) if t.type in ("th_open", "td_open")]
    assert cells == ["align-left", "align-center", "align-right"] * 2
    assert "<th>A</th>" in render_markdown("| A |\n|---|\n| 1 |\n")  # no alignment: no class


def test_the_addresses_of_the_references_entries() -> None:
    """What the view shows for a citation the audit did not cover: each entry's number and source
    address, read from the References the finalizer wrote (a local-corpus document included)."""
    text = (
        REPORT
        + "3. Notes. corpus:notes/a.md (accessed 2026-01-02)\n4. A title without an address\n"
        + "\n## Appendix\n\n1. Not a reference. https://example.org/other\n"
    )
    assert reference_addresses(text) == {
        1: "https://example.org/lfp",
        2: "https://en.wikipedia.org/wiki/Battery_(electricity)",
        3: "corpus:notes/a.md",
    }
    chinese = "# 电池\n\n## 参考文献\n\n5. 固态电池. https://example.cn/a（访问于 2026-01-02）\n"
    assert reference_addresses(chinese) == {5: "https://example.cn/a"}
    assert reference_addresses("# No references\n\n1. https://example.org/\n") == {}
