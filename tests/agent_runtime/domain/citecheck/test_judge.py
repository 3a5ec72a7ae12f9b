"""The model as judge: its reply read leniently, believed only with a quote that is in the source."""

from __future__ import annotations

import pytest

from agent_runtime import check_citation
from agent_runtime.domain.citecheck.judge import EXCERPT_CHARS, Judgement, excerpt, parse_reply, quote_found

SOURCE = """# Cell costs

Analysts said sodium-ion cell costs **fell 14%** in 2026.
Demand   grew
in Europe."""


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ("Analysts said sodium-ion cell costs fell 14% in 2026.", True),  # emphasis ignored
        ("Demand grew in Europe.", True),  # whitespace and line breaks normalised
        ("“Analysts said sodium-ion cell costs fell 14% in 2026.”", True),  # quotation marks
        ("Analysts said … in 2026.", True),  # an elided quote: each part, in order
        ("in 2026 … Analysts said", False),  # parts out of order
        ("Analysts said sodium-ion cell costs fell 41% in 2026.", False),  # invented
        ("…", False),
        ("fell", False),  # too short to prove anything
        ("", False),
    ],
)
def test_a_quote_must_be_in_the_source(quote: str, found: bool) -> None:
    assert quote_found(quote, SOURCE) is found


def test_a_judged_verdict_with_a_real_quote_replaces_the_lexical_one() -> None:
    claim = "In 2026 the price of sodium batteries dropped by 14%."
    assert check_citation(claim, SOURCE).verdict != "supported"  # too few shared words for the lexical pass
    judged = check_citation(
        claim, SOURCE, judge=Judgement("supported", "Analysts said sodium-ion cell costs fell 14% in 2026.", model="m1")
    )
    assert (judged.verdict, judged.judged_by, judged.lines) == ("supported", "model:m1", (3, 3))
    assert judged.passage == "Analysts said sodium-ion cell costs fell 14% in 2026."


def test_an_invented_quote_is_not_believed() -> None:
    claim = "Sodium-ion cell costs fell 41% in 2026."
    judged = check_citation(claim, SOURCE, judge=Judgement("supported", "Sodium-ion cell costs fell 41% in 2026.", model="m1"))
    assert judged.verdict == "unsupported" and judged.judged_by == "lexical"
    assert "m1 quoted a sentence that is not in the source" in judged.explain()


def test_contradicted_and_not_stated() -> None:
    claim = "Sodium-ion cell costs rose in 2026."
    contradicted = check_citation(claim, SOURCE, judge=Judgement("contradicted", "costs fell 14% in 2026", model="m1"))
    assert contradicted.verdict == "unsupported" and "m1 judged that the source contradicts it" in contradicted.explain()
    not_stated = check_citation("Cells last 6,000 cycles.", SOURCE, judge=Judgement("not stated", model="m1"))
    assert not_stated.verdict == "unsupported" and not_stated.judged_by == "model:m1"
    assert not_stated.explain("zh") == "m1 判断来源并未陈述这一点"


@pytest.mark.parametrize(
    "reply",
    ["not json at all", "", '{"verdicts": "supported"}', "[1, 2]", '{"verdicts": [{"claim": 9, "verdict": "supported"}]}'],
)
def test_a_reply_without_usable_verdicts_gives_none(reply: str) -> None:
    assert parse_reply(reply, 2, "m") == [None, None]


def test_a_reply_is_read_by_claim_number_with_verdict_synonyms() -> None:
    reply = (
        'Here you go: ```json\n{"verdicts": [{"claim": 2, "verdict": "Not_Stated"}, '
        '{"claim": 1, "verdict": "SUPPORTED", "quote": "q1", "reason": "r"}, {"claim": 3, "verdict": "maybe"}]}\n```'
    )
    first, second, third = parse_reply(reply, 3, "m")
    assert first == Judgement("supported", "q1", "r", "m")
    assert second == Judgement("not stated", "", "", "m")
    assert third is None


def test_a_long_source_is_shown_by_the_passages_around_each_claim() -> None:
    filler = [f"Filler line {n} about the weather." for n in range(3000)]
    lines = [*filler[:1500], "The company hired 1,200 engineers in 2025.", *filler[1500:]]
    source = "\n".join(lines)
    assert len(source) > EXCERPT_CHARS
    check = check_citation("The company hired 1,200 engineers in 2025.", source)
    shown = excerpt(source, [check])
    assert "The company hired 1,200 engineers in 2025." in shown and "[…]" in shown
    assert len(shown) < 1000
    assert excerpt(SOURCE, [check]) == SOURCE.strip()  # a short source is shown whole


@pytest.mark.parametrize(
    ("claim", "quote"),
    [
        ("Sodium-ion cell costs fell 41% in 2026.", "Analysts said sodium-ion cell costs fell 14% in 2026."),
        ("Sodium-ion cell costs rose 14% in 2026.", "Analysts said sodium-ion cell costs fell 14% in 2026."),
    ],
)
def test_a_supported_verdict_whose_own_quote_says_otherwise_is_overruled(claim: str, quote: str) -> None:
    judged = check_citation(claim, SOURCE, judge=Judgement("supported", quote, model="m1"))
    assert judged.verdict == "unsupported" and judged.judged_by == "lexical"
    assert judged.explain().startswith("m1 judged it supported, but the sentence it quoted says otherwise; ")


def test_a_chinese_quote_is_found_across_the_sentence_joins() -> None:
    source = "申花队在第18分钟首开纪录。这是泰山队本赛季第三次主场逆转取胜。"
    assert quote_found("申花队在第18分钟首开纪录。 这是泰山队本赛季第三次主场逆转取胜。", source)


@pytest.mark.slow
def test_every_claim_of_a_long_source_is_shown_to_the_judge() -> None:
    facts = [f"Plant {n} employs {100 + n} people." for n in range(10)]
    lines: list[str] = []
    for fact in facts:
        lines += [f"Filler line about the weather, number {k}." for k in range(1200)] + [fact]
    source = "\n".join(lines)
    checks = [check_citation(fact, source) for fact in facts]
    shown = excerpt(source, checks)
    assert all(fact in shown for fact in facts)
    assert len(shown) <= EXCERPT_CHARS + 10 * 2_000


CHANNEL = """# Kessler Bay port expansion

The main approach channel is 13.5 metres deep. The project will deepen it to 16 metres by 2027.
"""


def test_a_judge_quoting_the_figures_a_claim_works_out_is_not_overruled() -> None:
    quote = "The project will deepen it to 16 metres by 2027."
    worked_out = check_citation(
        "The project will add 2.5 metres to the depth of the approach channel.", CHANNEL, judge=Judgement("supported", quote, model="m1")
    )
    assert worked_out.verdict == "supported", worked_out.explain()  # 16 − 13.5: the page's check left it unconfirmed
    never_given = check_citation(
        "The project will add 4.5 metres to the depth of the approach channel.", CHANNEL, judge=Judgement("supported", quote, model="m1")
    )
    assert never_given.verdict == "unsupported", never_given.explain()  # a yes-judge on a figure the page never gives
