"""The cited statements of a report: sentences, list items and table rows with [S<n>] markers."""

from __future__ import annotations

from agent_runtime.domain.citecheck.claims import Claim, claims

REPORT_EN = """# Cloud results

Microsoft's revenue rose 14% [S1]. This sentence cites nothing. Margins widened.[S2]
Alphabet paid its first dividend [S2][S7], while Nvidia beat forecasts [S7, S9]!

## Details

- Azure grew 23% [S1]
- Gemini is a model family
  that continues here [S3].
1. Numbered items count too [S4].

| Company | Revenue |
|---|---|
| Microsoft | $61.9 billion [S1] |
| Alphabet | $80.5 billion |

```
print("a code line [S5].")
```
"""


def test_claims_english_sentences_items_rows() -> None:
    got = claims(REPORT_EN)
    assert got == [
        Claim("Microsoft's revenue rose 14%.", ["S1"], 3),
        Claim("Margins widened.", ["S2"], 3),
        Claim("Alphabet paid its first dividend, while Nvidia beat forecasts!", ["S2", "S7", "S9"], 4),
        Claim("Azure grew 23%", ["S1"], 8),
        Claim("Gemini is a model family that continues here.", ["S3"], 9),
        Claim("Numbered items count too.", ["S4"], 11),
        Claim("Microsoft; $61.9 billion", ["S1"], 15),
    ]


def test_claims_marker_forms_and_order() -> None:
    (c,) = claims("Both sources agree [S7, S9][S3][S7].")
    assert c.ids == ["S7", "S9", "S3"]
    assert c.statement == "Both sources agree."


def test_claims_headings_and_code_ignored() -> None:
    report = "# Title [S1]\n\n## Part [S2]\n\n~~~\nx = 1 [S3].\n~~~\n\nHeading two\n-----------\n\n    indented code [S4]\n"
    assert claims(report) == []


def test_claims_chinese() -> None:
    report = "# 标题\n\n营收增长了百分之十四[S3]。没有引用的句子。利润下降【S5】；成本上升[S6, S7]！\n\n- 列表项[S8]\n"
    got = claims(report)
    assert [(c.statement, c.ids, c.line) for c in got] == [
        ("营收增长了百分之十四。", ["S3"], 3),
        ("利润下降；", ["S5"], 3),
        ("成本上升！", ["S6", "S7"], 3),
        ("列表项", ["S8"], 5),
    ]


def test_claims_marker_after_full_stop_and_abbreviations() -> None:
    got = claims("The U.S. economy grew 2%. [S1] Mr. Powell spoke. [S2]")
    assert [(c.statement, c.ids) for c in got] == [
        ("The U.S. economy grew 2%.", ["S1"]),
        ("Mr. Powell spoke.", ["S2"]),
    ]
