"""The lexical pass through the one public check: one test per rule, in English and Chinese."""

from __future__ import annotations

from collections import Counter

import pytest

from agent_runtime import check_citation
from tests.support.labelled import load

PAIRS = load("earlier")

SRC = """Microsoft said on Tuesday that revenue rose 14 percent to $61.9 billion in the quarter ended March 31.
Cloud revenue at the Redmond company grew faster, by 23 percent, as businesses moved more work to Azure.
Chief executive Satya Nadella said demand for artificial intelligence services remained strong.
The company hired 1,200 engineers and plans to spend about $80 billion in fiscal 2026."""


def test_supported_with_passage_lines_and_no_reasons() -> None:
    result = check_citation("Microsoft's revenue rose 14% to $61.9 billion [S1].", SRC)
    assert result.verdict == "supported"
    assert result.lines == (1, 1)
    assert result.passage.startswith("Microsoft said on Tuesday")
    assert result.judged_by == "lexical" and result.reasons == []
    assert result.claim == "Microsoft's revenue rose 14% to $61.9 billion."


@pytest.mark.parametrize(
    "statement",
    [
        "Microsoft's revenue rose 17% to $61.9 billion.",  # changed number
        "Microsoft's revenue rose 14% to $69.1 billion.",  # changed number
        "Google's revenue rose 14 percent to $61.9 billion.",  # swapped name
        "Sundar Pichai said demand for artificial intelligence services remained strong.",  # swapped name
        "Microsoft's revenue fell 14 percent to $61.9 billion.",  # opposite word
        "Microsoft said revenue rose 14 percent in the quarter ended April 30.",  # date
        "The European Central Bank cut its deposit rate to 2.25 percent.",  # another source's fact
    ],
)
def test_mutations_are_unsupported(statement: str) -> None:
    assert check_citation(statement, SRC).verdict == "unsupported", statement


@pytest.mark.parametrize(
    "statement",
    [
        "Microsoft's revenue rose 14 per cent to $61.9 billion.",
        "Microsoft's revenue rose fourteen percent to $61.9bn.",
        "Microsoft hired 1200 engineers.",
        "Microsoft hired 1.2 thousand engineers.",
        "Microsoft plans to spend roughly $80bn in fiscal 2026.",
        "Microsoft's revenue rose 14 percent in the quarter ended 31 March.",
        "Cloud revenue grew 23% as businesses moved more work to Azure.",
    ],
)
def test_number_forms_are_supported(statement: str) -> None:
    assert check_citation(statement, SRC).verdict == "supported", statement


ZH_SRC = """华为公司发布2025年年报，全年实现销售收入8621亿元，同比增长14%。
研发投入1797亿元，占全年收入的20.8%。
华为轮值董事长孟晚舟称，公司将持续投入基础研究，2026年3月5日将发布新品。"""


@pytest.mark.parametrize(
    "statement",
    [
        "华为2025年销售收入8621亿元，同比增长百分之十四。",
        "华为2025年销售收入8,621亿元，同比增长14 %。",
        "华为研发投入1797亿元，占收入的百分之二十点八。",
        "孟晚舟称，华为将于2026年3月5日发布新品。",
        "华为2025年销售收入超过8000亿元。",
    ],
)
def test_chinese_forms_are_supported(statement: str) -> None:
    assert check_citation(statement, ZH_SRC).verdict == "supported", statement


@pytest.mark.parametrize(
    "statement",
    [
        "华为2025年销售收入8621亿元，同比增长百分之十七。",
        "华为轮值董事长徐直军称，公司将持续投入基础研究。",
        "孟晚舟称，华为将于2026年4月5日发布新品。",
        "华为2025年销售收入8621亿元，同比下降14%。",
    ],
)
def test_chinese_mutations_are_unsupported(statement: str) -> None:
    assert check_citation(statement, ZH_SRC).verdict == "unsupported", statement


# -- bounds -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        ("The network has more than 120 stations.", "The network now has 134 stations.", "supported"),
        ("The network has more than 150 stations.", "The network now has 134 stations.", "unsupported"),
        ("The county recorded under 3,000 cases.", "The county recorded 2,871 cases.", "supported"),
        ("The county recorded fewer than 2,000 cases.", "The county recorded 2,871 cases.", "unsupported"),
        ("Nearly half of voters backed the plan.", "Some 48% of voters backed the plan.", "supported"),
        ("The tunnel is about 40 km long.", "The tunnel is 41.5 km long.", "supported"),
        ("The line opened before May 2021.", "The line opened in April 2021.", "supported"),
        ("The line opened before March 2021.", "The line opened in April 2021.", "unsupported"),
        ("The dam was finished by the end of 2019.", "The dam was finished in October 2019.", "supported"),
    ],
)
def test_bounds_are_inequalities(claim: str, source: str, verdict: str) -> None:
    assert check_citation(claim, source).verdict == verdict, claim


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        ("该市共有充电桩超过三千个。", "截至2023年底，该市共有充电桩3215个。", "supported"),
        ("该市共有充电桩逾四千个。", "截至2023年底，该市共有充电桩3215个。", "unsupported"),
        ("该县登记病例不到3000例。", "该县共登记病例2871例。", "supported"),
        ("该县登记病例不到两千例。", "该县共登记病例2871例。", "unsupported"),
        ("该项目投资约1.2万元。", "该项目投资12000元。", "supported"),
        ("近三成居民支持该方案。", "调查显示，28%的居民支持该方案。", "supported"),
    ],
)
def test_chinese_bounds(claim: str, source: str, verdict: str) -> None:
    assert check_citation(claim, source).verdict == verdict, claim


def test_a_failed_bound_says_both_values() -> None:
    result = check_citation("The network has more than 150 stations.", "The network now has 134 stations.")
    assert result.explain() == "the source gives 134; the sentence says more than 150"


# -- where a fact must be found ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("The bridge opened in 1968.", "The bridge opened in 1932. It was widened in 1968."),
        ("The museum welcomed 4,000 visitors.", "The museum welcomed 3,100 visitors. The park had 4,000."),
        ("该桥于1968年建成。", "该桥于1932年建成。1968年进行了拓宽。"),
        ("该馆接待游客4000人次。", "该馆接待游客3100人次。公园则接待了4000人次。"),
    ],
)
def test_a_fact_from_the_neighbouring_sentence_is_not_support(claim: str, source: str) -> None:
    assert check_citation(claim, source).verdict == "unsupported", claim


def test_a_claim_summing_up_two_sentences_is_supported() -> None:
    source = "Airbus delivered 766 aircraft in 2025.\nIts target was about 820 deliveries.\nBoeing delivered 348."
    result = check_citation("Airbus delivered 766 aircraft in 2025, short of a target of about 820 deliveries.", source)
    assert result.verdict == "supported" and result.lines == (1, 2)


# -- polarity -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Applicants must prove they have paid the fee.", "Applicants must prove they have not paid the fee."),
        ("The drug reduced mortality in the trial.", "The drug did not reduce mortality in the trial."),
        ("The council never approved the tower.", "The council approved the tower in March."),
        ("该法案获得批准。", "该法案未获批准。"),
        ("该药物降低了死亡率。", "该药物没有降低死亡率。"),
    ],
)
def test_a_negation_in_one_text_only_is_never_supported(claim: str, source: str) -> None:
    assert check_citation(claim, source).verdict != "supported", claim


def test_a_negation_in_another_clause_does_not_count() -> None:
    source = "The council approved the plan on Monday, although it did not set a date for the works."
    assert check_citation("The council approved the plan.", source).verdict == "supported"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("The team lost the final.", "The team won the final on penalties."),
        ("Exports rose sharply in March.", "Exports fell sharply in March."),
        ("该市人口比上年增长。", "该市人口比上年下降。"),
        ("议会批准了该预算。", "议会否决了该预算。"),
    ],
)
def test_an_opposite_word_is_never_supported(claim: str, source: str) -> None:
    assert check_citation(claim, source).verdict != "supported", claim


# -- ordinals, names, roles ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("She won her third championship in 2019.", "In 2019 she won her first championship."),
        ("张伟第一次获得冠军。", "张伟第三次获得冠军。"),
    ],
)
def test_another_ordinal_is_unsupported(claim: str, source: str) -> None:
    assert check_citation(claim, source).verdict == "unsupported", claim


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        ("Lyon hosted the event in 2019.", "Paris hosted the event in 2019. Lyon hosted it in 2021.", "unsupported"),
        ("Tokyo hosted the summit.", "Osaka hosted the summit.", "weak"),  # maybe an opener: not proof
        ("The summit was hosted by Tokyo.", "The summit was hosted by Osaka.", "unsupported"),
        ("**Safety**: the reactor passed its tests.", "The reactor passed its tests in May.", "supported"),
        ("Norwegians voted against the plan.", "Norway voted against the plan.", "supported"),
        ("Officials said the road will reopen in June.", "The road will reopen in June, the ministry said.", "supported"),
        ("该会议在上海举行。", "该会议在北京举行。", "unsupported"),
    ],
)
def test_names(claim: str, source: str, verdict: str) -> None:
    assert check_citation(claim, source).verdict == verdict, claim


def test_a_time_span_opening_the_sentence_is_no_fact() -> None:
    source = "On 10 May the council met. On 20 May the council approved the budget."
    assert check_citation("Ten days later, the council approved the budget.", source).verdict == "supported"


@pytest.mark.parametrize(
    ("claim", "source"),
    [("Google acquired Fitbit.", "Fitbit acquired Google."), ("华为起诉了小米。", "小米起诉了华为，要求赔偿。")],
)
def test_roles_the_other_way_round(claim: str, source: str) -> None:
    assert check_citation(claim, source).verdict == "unsupported", claim


def test_the_passive_keeps_roles() -> None:
    assert check_citation("Google acquired Fitbit.", "Fitbit was acquired by Google.").verdict != "unsupported"


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "source", "kind"),
    [
        ("Penguins live in Antarctica.", "", "empty_source"),
        ("Penguins live in Antarctica.", "   \n", "empty_source"),
        ("123 456.", "The text has 123 words.", "no_words"),
        ("[S1]", "Anything.", "no_words"),
    ],
)
def test_bad_input_gets_a_clear_verdict(claim: str, source: str, kind: str) -> None:
    result = check_citation(claim, source)
    assert result.verdict == "weak" and [r.kind for r in result.reasons] == [kind]
    assert result.explain()


@pytest.mark.slow
def test_a_huge_source() -> None:
    filler = "Unrelated filler sentence number one about weather. " * 20_000
    source = filler + "The company hired 1,200 engineers in 2025. " + filler
    result = check_citation("The company hired 1,200 engineers in 2025.", source)
    assert result.verdict == "supported" and result.lines == (1, 1)


def test_unrelated_text_is_unsupported() -> None:
    result = check_citation("Penguins live in Antarctica.", "The bank raised rates in May.")
    assert result.verdict == "unsupported" and result.reasons


# -- the old labelled set -------------------------------------------------------------------------


def test_earlier_labelled_set_targets() -> None:
    counts: Counter[tuple[str, str]] = Counter()
    for pair in PAIRS:
        counts[(pair["kind"], check_citation(pair["claim"], pair["source"]).verdict)] += 1

    def share(kinds: tuple[str, ...], verdict: str) -> float:
        total = sum(n for (k, _), n in counts.items() if k in kinds)
        return sum(n for (k, v), n in counts.items() if k in kinds and v == verdict) / total

    for kind in ("changed_number", "swapped_name", "wrong_source"):
        assert 1 - share((kind,), "supported") >= 0.90, kind
    assert share(("verbatim", "paraphrase", "reformatted"), "unsupported") <= 0.10


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("约两成受访者表示支持。", "调查显示，20%的受访者表示支持。"),
        ("该市绿地覆盖率达到百分之三十。", "该市绿地覆盖率达到30%。"),
        ("该馆于二〇一九年对外开放。", "该馆于2019年对外开放。"),
        ("全市共有充电桩三千个。", "全市共有充电桩3000个。"),
        ("中国是东盟第一大贸易伙伴。", "我国是东盟第一大贸易伙伴。"),
    ],
)
def test_chinese_number_and_word_forms(claim: str, source: str) -> None:
    assert check_citation(claim, source).verdict == "supported", claim


def test_chinese_words_are_segmented_not_matched_by_characters() -> None:
    # 成本上升 is one jieba word: its opposite is still found, and a Chinese name is a whole word.
    assert check_citation("2026年电池成本上升了14%。", "分析师表示，2026年电池成本下降了百分之十四。").verdict == "unsupported"


def test_absurd_numbers_do_not_crash() -> None:
    assert check_citation("1" * 5000 + "th place went to the team.", "The team came first.").verdict in ("weak", "unsupported")
    assert check_citation("第" + "9" * 5000 + "名", "第一名").verdict in ("weak", "unsupported")
