from pathlib import Path

import pytest

from agent_runtime.domain.finalize import finalize, find_problems
from agent_runtime.domain.sources.ledger import Ledger


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    ledger = Ledger.load(tmp_path / "sources")
    for n in range(1, 11):
        record = ledger.register(f"https://example.org/page{n}", f"Page {n}", via="search")
        if n in (3, 7):
            ledger.mark_fetched(
                record.id, final_url=f"https://example.org/page{n}", title=f"Page {n}", content_type="text/html",
                sha256="0" * 64, snapshot=f"sources/{record.id}.md", fetched_at="2026-11-20T10:00:00+00:00",
            )  # fmt: skip
    return ledger


REPORT = """# Solid-state batteries

## Costs
Cells cost less each year [S3]. Two studies agree [S3][S7]. Others differ [S7, S9].

## Safety
No thermal runaway was seen [S9].

## References
1. Something the model made up. https://invented.example/x
"""


def test_citations_are_renumbered_in_order_of_first_use(ledger: Ledger) -> None:
    assert find_problems(REPORT, ledger) == []
    final = finalize(REPORT, ledger)
    assert "Cells cost less each year [1]. Two studies agree [1][2]. Others differ [2, 3]." in final.text
    assert "No thermal runaway was seen [3]." in final.text
    assert [r.id for r in final.cited] == ["S3", "S7", "S9"]


def test_references_are_built_from_the_ledger_with_exactly_the_cited_sources(ledger: Ledger) -> None:
    text = finalize(REPORT, ledger).text
    references = text.split("## References", 1)[1].strip().splitlines()
    assert references == [
        "1. Page 3. https://example.org/page3 (accessed 2026-11-20)",
        "2. Page 7. https://example.org/page7 (accessed 2026-11-20)",
        f"3. Page 9. https://example.org/page9 (seen in search results {ledger.get('S9').first_seen[:10]})",  # type: ignore[union-attr]
    ]
    assert "invented.example" not in text and text.count("## References") == 1


@pytest.mark.parametrize(
    ("draft", "kind", "needle"),
    [
        ("# T\n\n## A\nFact [S99].\n", "unknown_source", "[S99]"),
        ("# T\n\n## A\nFact [S1] from https://nowhere.example/p.\n", "unverified_url", "nowhere.example"),
        ("# T\n\n## A\nFact [S1]. [NEEDS RESEARCH: price in 2025]\n", "marker", "NEEDS RESEARCH"),
        ("# T\n\n## A\nFact [S1] [SOURCE NEEDED].\n", "marker", "SOURCE NEEDED"),
        ("# T\n\n## A\nFact [S1].\n\n## B\n\n## C\nMore [S2].\n", "empty_chapter", "'B'"),
        ("# T\n\n## A\nNo citations at all.\n", "no_citations", "cites no source"),
        ("", "empty_report", "empty"),
    ],
)
def test_each_problem_is_found_and_named(ledger: Ledger, draft: str, kind: str, needle: str) -> None:
    problems = find_problems(draft, ledger)
    assert [p.kind for p in problems] == [kind]
    assert needle in str(problems[0])


def test_known_urls_and_parent_headings_are_fine(ledger: Ledger) -> None:
    draft = (
        "# T\n\n## Part\n### A\nSee https://example.org/page3 and [page](https://example.org/page7/) [S3].\n"
    )
    assert find_problems(draft, ledger) == []


def test_forced_finalization_removes_what_cannot_stand_and_lists_it(ledger: Ledger) -> None:
    draft = (
        "# T\n\n## A\nTrue fact [S3]. Invented [S99]. Mixed [S3, S42]. [NEEDS RESEARCH: cost]\n"
        "Link [here](https://nowhere.example/x) and https://nowhere.example/y too.\n"
    )
    final = finalize(draft, ledger, force=True)
    assert final.forced and {p.kind for p in final.problems} == {"unknown_source", "marker", "unverified_url"}
    body = final.text.split("## References")[0]
    assert "True fact [1]. Invented. Mixed [1]." in body
    assert "NEEDS RESEARCH" not in body and "nowhere.example" not in body and "Link here and" in body
    appendix = final.text.split("## Appendix: problems found at finalization")[1]
    assert (
        "Code removed from the text: citations of sources no search or visit returned; unresolved markers; "
        "links no search or visit showed." in appendix
    )
    for needle in ("NEEDS RESEARCH: cost", "https://nowhere.example/x", "https://nowhere.example/y"):
        assert needle in appendix
    assert appendix.count("a citation of a source that no search or visit returned was removed") == 2
    assert "S99" not in appendix and "S42" not in appendix  # the reader never saw those ids
    assert [r.id for r in final.cited] == ["S3"]


def test_a_title_ending_in_punctuation_gets_no_second_period(tmp_path: Path) -> None:
    ledger = Ledger.load(tmp_path / "sources")
    ledger.register("https://example.org/fen", "What is a fen?", via="search")
    ledger.register("https://example.org/bogs", "Fens and bogs.", via="search")
    text = finalize("# T\n\n## A\nFens [S1] and bogs [S2].\n", ledger).text
    assert "1. What is a fen? https://example.org/fen" in text
    assert "2. Fens and bogs. https://example.org/bogs" in text
