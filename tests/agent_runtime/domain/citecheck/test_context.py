"""A passage read in its page's context, through the public check: the title, the headings above
it and the sentences before it name what "she", "it" and a bare surname stand for; a section about
someone else does not lend its name; relations between two of the page's figures must agree with
both; bad pages get a verdict and a plain reason."""

from __future__ import annotations

import pytest

from agent_runtime import check_citation

CURIE = """# Marie Curie

Marie Skłodowska Curie was a Polish-born physicist and chemist who worked in France.

## Nobel Prizes

In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel. She won her second Nobel Prize, in Chemistry, in 1911.

## Family

### Pierre Curie

Pierre was a French physicist and her husband. He was killed in 1906 in a street accident in Paris.

## Later life

During the First World War Curie developed mobile radiography units. Dr. Curie died in 1934 at a sanatorium in Passy.
"""

BAIKAL = """Lake Baikal is a rift lake in southern Siberia.

## Geography

Its maximum depth is 1,642 metres, and it holds about a fifth of the world's unfrozen fresh surface water.
"""

TOWN = """# Tamworth Mill

Tamworth Mill is a market town on the river Anker.

## 2011 census

The population was 2,904, of whom 18% were over 65.

## 2021 census

The population was 3,207. The town's first secondary school opened that year.
"""

STATIONS = """The charging network had 380 stations on 1 March 2024. On 8 March 2024 the operator counted 412 stations."""


@pytest.mark.parametrize(
    ("claim", "source", "title"),
    [
        ("Marie Curie won her second Nobel Prize in 1911.", CURIE, "Marie Curie - Encyclopedia"),
        ("Marie Curie died in 1934 at a sanatorium in Passy.", CURIE, "Marie Curie"),  # "Dr. Curie"
        ("Marie Curie developed mobile radiography units during the First World War.", CURIE, ""),
        ("Pierre Curie was killed in 1906 in a street accident in Paris.", CURIE, "Marie Curie"),
        ("Lake Baikal is 1,642 metres deep at its deepest.", BAIKAL, "Lake Baikal | Britannica"),
        ("In the 2021 census Tamworth Mill had 3,207 inhabitants.", TOWN, "Tamworth Mill"),
        ("A week later the number of stations had risen to 412.", STATIONS, ""),
        ("The number of stations rose from 380 to 412.", STATIONS, ""),
    ],
)
def test_a_true_sentence_that_names_the_pages_subject_is_supported(claim: str, source: str, title: str) -> None:
    result = check_citation(claim, source, title=title)
    assert result.verdict == "supported", (claim, result.explain())


@pytest.mark.parametrize(
    ("claim", "source", "said"),
    [
        ("Marie Curie was killed in 1906 in a street accident in Paris.", CURIE, "Marie"),  # Pierre's section
        ("Pierre Curie won his second Nobel Prize in 1911.", CURIE, "Pierre"),  # "she" is Marie
        ("In the 2011 census Tamworth Mill had 3,207 inhabitants.", TOWN, "2011"),  # the 2021 section
        ("A week later the number of stations had fallen to 412.", STATIONS, "fallen"),
        ("Ten days later the number of stations had risen to 412.", STATIONS, "Ten days later"),
        ("The number of stations doubled to 412.", STATIONS, "doubled"),
    ],
)
def test_a_sentence_the_page_does_not_bear_out_is_unsupported_naming_why(claim: str, source: str, said: str) -> None:
    result = check_citation(claim, source, title="Marie Curie" if source is CURIE else "")
    assert result.verdict == "unsupported", claim
    assert said in result.explain(), result.explain()


def test_the_context_is_reported_as_a_readers_path() -> None:
    result = check_citation("Marie Curie won her second Nobel Prize in 1911.", CURIE, title="Marie Curie - Encyclopedia")
    assert result.context == "Marie Curie › Nobel Prizes"
    assert result.passage.startswith("She won her second Nobel Prize")
    assert result.lines == (7, 7)


def test_a_change_worked_out_from_two_figures_holds_only_at_its_size() -> None:
    assert check_citation("The number of stations rose by about 8% in a week.", STATIONS).verdict != "unsupported"
    wrong = check_citation("The number of stations rose by about 20% in a week.", STATIONS)
    assert wrong.verdict == "unsupported" and "380 → 412" in wrong.explain()


ZH_PAGE = """# 张三

张三是中国科学院院士、材料学家，1962年生于江苏南通。

## 研究经历

2005年，张教授带领团队研制出新型高温合金。该合金于2012年获得国家技术发明一等奖。

## 李四

李四是张三的学生。他于2019年创办了一家电池公司。
"""

ZH_FIGURES = """据市交通局统计，2023年全市公交日均客运量为86万人次。2024年，全市公交日均客运量为103万人次。"""


@pytest.mark.parametrize(
    "claim",
    [
        "2005年，张三带领团队研制出新型高温合金。",  # 张教授 is 张三 on his own page
        "张三团队研制的新型高温合金于2012年获得国家技术发明一等奖。",
        "全市公交日均客运量从2023年的86万人次增长到2024年的103万人次。",
    ],
)
def test_chinese_context_supports_what_the_page_says(claim: str) -> None:
    source = ZH_PAGE if "张" in claim else ZH_FIGURES
    result = check_citation(claim, source, title="张三 - 百科" if "张" in claim else "")
    assert result.verdict == "supported", (claim, result.explain())


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("张四于2005年带领团队研制出新型高温合金。", "张四"),  # the same surname, another person
        ("张三于2019年创办了一家电池公司。", "张三"),  # 他 in 李四's section is 李四
        ("全市公交日均客运量从2023年的86万人次下降到2024年的103万人次。", "下降"),
    ],
)
def test_chinese_context_does_not_lend_a_name_or_a_direction(claim: str, said: str) -> None:
    source = ZH_FIGURES if "公交" in claim else ZH_PAGE
    result = check_citation(claim, source, title="" if "公交" in claim else "张三")
    assert result.verdict == "unsupported", claim
    assert said in result.explain(language="zh"), result.explain(language="zh")


@pytest.mark.parametrize(
    ("claim", "source", "title"),
    [
        ("She won it in 1911.", CURIE, "Marie Curie"),  # a claim that is only a pronoun
        ("Marie Curie won her second Nobel Prize in 1911.", "She won her second Nobel Prize in 1911.", ""),  # no title, no headings
        ("Marie Curie won her second Nobel Prize in 1911.", CURIE, "居里夫人"),  # a title in another language
        ("Tamworth Mill had 3,207 inhabitants in 2021.", "| Year | Population |\n|---|---|\n| 2011 | 2,904 |\n| 2021 | 3,207 |", "Tamworth Mill"),
        ("Tamworth Mill had 3,207 inhabitants in 2021.", "- 2011: 2,904 people\n- 2021: 3,207 people", "Tamworth Mill"),
        ("Tamworth Mill had 3,207 inhabitants in 2021.", "".join(f"{'#' * k} Level {k}\n\nText {k}.\n\n" for k in range(1, 41)), "Tamworth Mill"),
        ("Tamworth Mill had 3,207 inhabitants in 2021.", "# \n\n## \n\n#\n\n", ""),
    ],
)
def test_bad_pages_get_a_verdict_and_a_plain_reason(claim: str, source: str, title: str) -> None:
    result = check_citation(claim, source, title=title)
    assert result.verdict in ("supported", "weak", "unsupported")
    if result.verdict != "supported":
        assert result.reasons and all(reason.text() for reason in result.reasons)


def test_a_page_of_many_headings_reads_each_section_under_its_own() -> None:
    page = "".join(f"{'#' * (1 + k % 6)} Section {k}\n\nThe population was {k + 5000}.\n\n" for k in range(1000))
    result = check_citation("The population was 5999.", page, title="A town")
    assert result.verdict == "supported" and result.context.endswith("Section 999")


NEWS = """# Dock strike called off

Portline announced 300 job cuts on Monday. The Dockers' Union said its members would strike in protest.

Heavy rain delayed the harvest by two weeks, and grain prices rose as a result.
"""


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ("The Dockers' Union announced 300 job cuts on Monday.", "actor"),  # Portline's act, given to the union
        ("The late harvest caused the heavy rain.", "cause"),  # cause and effect turned round
    ],
)
def test_a_summary_sentence_that_turns_the_source_round_is_not_supported(claim: str, kind: str) -> None:
    result = check_citation(claim, NEWS)
    assert result.verdict != "supported", result.explain()
    assert kind in {reason.kind for reason in result.reasons} or result.verdict == "unsupported", result.reasons


def test_a_faithful_summary_sentence_is_supported() -> None:
    assert check_citation("Heavy rain delayed the harvest by two weeks.", NEWS).verdict == "supported"


def test_the_judge_reads_a_long_source_under_its_headings() -> None:
    from agent_runtime.domain.citecheck.judge import EXCERPT_CHARS, excerpt

    filler = "\n\n".join(f"Paragraph {k} says nothing about the claim at all." for k in range(EXCERPT_CHARS // 40))
    page = f"# Marie Curie\n\n{filler}\n\n## Nobel Prizes\n\n{filler}\n\nShe won her second Nobel Prize in 1911.\n"
    check = check_citation("Marie Curie won her second Nobel Prize in 1911.", page, title="Marie Curie")
    shown = excerpt(page, [check])
    assert len(shown) < len(page)
    assert "# Marie Curie" in shown and "## Nobel Prizes" in shown  # where the passage stands
    assert shown.index("## Nobel Prizes") < shown.index("She won her second Nobel Prize in 1911.")
