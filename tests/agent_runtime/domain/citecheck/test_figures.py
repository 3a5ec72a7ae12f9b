"""The FACT figures of a report, computed on a known report through the real audit."""

from __future__ import annotations

from pathlib import Path

from agent_runtime.domain.citation_audit import audit, summary
from agent_runtime.domain.citecheck.figures import describe, fact_figures
from agent_runtime.domain.sources.ledger import Ledger

SOURCE_A = "The plant opened in 2019 and employs 1,200 people."
SOURCE_B = "The museum welcomed 4,000 visitors in May."

REPORT = """# Report

The plant opened in 2019 [S1]. The plant employs 1,200 people [S1].
The plant employs 1,200 people [S1].
The museum welcomed 9,000 visitors in May [S2].
The museum welcomed 4,000 visitors in May [S1][S2].
"""


def test_the_figures_of_a_known_report(tmp_path: Path) -> None:
    ledger = Ledger.load(tmp_path / "sources")
    a = ledger.register("https://a.example/plant", title="Plant", snippet=SOURCE_A)
    b = ledger.register("https://b.example/museum", title="Museum", snippet=SOURCE_B)
    assert (a.id, b.id) == ("S1", "S2")
    pairs = audit(REPORT, ledger, tmp_path / "sources")
    # six (statement, source) pairs: four supported (one a repeat), the changed count, and S1 cited
    # for the museum, which it says nothing of
    assert [(p.source_id, p.check.verdict) for p in pairs] == [
        ("S1", "supported"), ("S1", "supported"), ("S1", "supported"),
        ("S2", "unsupported"), ("S1", "unsupported"), ("S2", "supported"),
    ]  # fmt: skip
    figures = summary(pairs, {"S1": 1, "S2": 2}, None)
    assert figures["checked"] == 6 and figures["supported"] == 4 and figures["unsupported"] == 2
    assert figures["citation_accuracy"] == round(4 / 6, 4)
    assert figures["effective_citations"] == 3  # the repeated statement-source pair counts once
    assert figures["unverified"] == 2 and figures["checked_by"] == "lexical" and figures["judge"] is None
    assert describe(figures) == (
        "citations: 6 checked (lexical): 4 supported, 0 weak, 2 unsupported; citation accuracy 67%, "
        "effective citations 3; 2 could not be verified"
    )


def test_nothing_checked_has_no_accuracy() -> None:
    figures = fact_figures([])
    assert figures == {
        "checked": 0, "supported": 0, "weak": 0, "unsupported": 0, "citation_accuracy": None, "effective_citations": 0,
    }  # fmt: skip
    assert "citation accuracy n/a" in describe(figures)


def test_whitespace_does_not_make_a_statement_new() -> None:
    figures = fact_figures([("A  fact.", "S1", "supported"), ("A fact.", "S1", "supported"), ("A fact.", "S2", "supported")])
    assert figures["effective_citations"] == 2
