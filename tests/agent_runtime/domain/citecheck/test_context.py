"""A passage read in its page's context, through the public check: the title, the headings above
it and the sentences before it name what "she", "it" and a bare surname stand for; a section about
someone else does not lend its name; relations between two of the page's figures must agree with
both; bad pages get a verdict and a plain reason."""

from __future__ import annotations

import pytest

from agent_runtime import check_citation
from agent_runtime.domain.citecheck.text import zh_people

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


ALDER = """# Alderley Vale

**Alderley Vale** is a parish in the Wendle valley.

## Demographics

### 2011 census

At the 2011 census the parish had a population of 4,120 living in 1,800 households.

### 2021 census

The population had reached 4,410, in 1,960 households.
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        # two censuses under their headings: the change is worked out from the population, not from
        # the households written beside it
        ("Alderley Vale's population grew by 290 between the 2011 and 2021 censuses.", "supported"),
        ("Alderley Vale's population grew by 160 between the 2011 and 2021 censuses.", "unsupported"),
        ("Alderley Vale's population fell between the 2011 and 2021 censuses.", "unsupported"),
    ],
)
def test_a_change_between_two_dated_sections_is_worked_out_from_the_figures_the_claim_names(claim: str, verdict: str) -> None:
    assert check_citation(claim, ALDER, title="Alderley Vale").verdict == verdict


AIRLINE = """# Harrier Air

**Harrier Air** is a British regional airline headquartered at Newquay Airport in Cornwall.

## History

Founded in 2001 by former RAF engineer Mark Dell with three leased jets, it now operates scheduled services to 27 destinations in the United Kingdom, Ireland and Spain.
"""

CHIP = """# Vantor unveils Helix 7 processor, promising longer battery life

Vantor unveiled its Helix 7 processor on Tuesday, saying it would extend laptop battery life by up to a quarter.

The chip is built on a 4-nanometre process by the Korean foundry Samsung. Vantor said laptops using it would go on sale from May, with Dell and Acer among the first manufacturers to sign up.
"""


def test_the_subject_is_read_after_an_opening_participle_phrase_and_in_the_sentence_that_states_the_claim() -> None:
    # "Founded … by Mark Dell, it now operates…": "it" is the airline, Dell is no rival subject
    claim = "Harrier Air flies scheduled services to 27 destinations in the UK, Ireland and Spain."
    assert check_citation(claim, AIRLINE, title="Harrier Air").verdict == "supported"
    assert check_citation(claim.replace("27", "72"), AIRLINE, title="Harrier Air").verdict == "unsupported"
    # a neighbour joined for a word ("Vantor said…") does not make its subject the passage's
    title = "Vantor unveils Helix 7 processor, promising longer battery life"
    assert check_citation("The Helix 7 is manufactured by Samsung on a 4-nanometre process.", CHIP, title=title).verdict == "supported"
    assert check_citation("The Helix 7 is manufactured by Samsung on a 3-nanometre process.", CHIP, title=title).verdict == "unsupported"


def test_a_demonym_is_its_place_and_a_year_naming_an_event_is_no_bound() -> None:
    festival = "# Feria de Luz\n\nIn 2016 the regional government of Andalusia declared it a Festival of Tourist Interest."
    assert check_citation("The Andalusian regional government declared the Feria de Luz a Festival of Tourist Interest in 2016.", festival, title="Feria de Luz").verdict == "supported"
    election = "# 2024 Ostby election\n\nAfter weeks of talks, Labour formed a coalition with the Greens, which holds 26 of the 49 seats."
    assert check_citation("The coalition formed after the 2024 election holds 26 of the 49 seats in Ostby.", election, title="2024 Ostby election").verdict != "unsupported"
    assert check_citation("The coalition formed after the 2024 election holds 29 of the 49 seats in Ostby.", election, title="2024 Ostby election").verdict == "unsupported"


def test_a_without_that_speaks_of_something_else_negates_nothing() -> None:
    trials = "# Jan Visser\n\nOver nine years he ran trials in rural clinics showing that a salt solution could treat cholera without intravenous drips."
    assert check_citation("Jan Visser ran trials of a salt solution in rural clinics.", trials, title="Jan Visser").verdict != "unsupported"
    # a "without" about what the source does say is still a negation
    drips = "# Jan Visser\n\nHis trials showed that cholera could be treated with intravenous drips."
    assert check_citation("Jan Visser showed that cholera could be treated without intravenous drips.", drips, title="Jan Visser").verdict == "unsupported"


STORM = """# Storm Fia forces closure of Harl Bridge

The Harl Bridge, the only road link between the mainland and the island of Tory Beg, reopened on Friday after being closed while Storm Fia brought gusts of up to 130 km/h to the coast.

Engineers from the county council inspected the bridge's cables and joints before allowing traffic back. Council engineer Tom Breck said no structural damage had been found. Breck added that a speed limit would remain in place until Sunday.
"""


def test_a_summary_sentence_joining_two_paragraphs_of_the_page_stands_when_each_part_does() -> None:
    summary = "The Harl Bridge reopened after its closure during Storm Fia, with engineers finding no structural damage."
    assert check_citation(summary, STORM).verdict == "supported"
    # each part is still checked: a fact wrong in one of them is caught
    for wrong in (
        "The Harl Bridge reopened after its closure during Storm Fia, with engineers finding structural damage.",
        "The Harl Bridge reopened after its closure during Storm Gale, with engineers finding no structural damage.",
    ):
        assert check_citation(wrong, STORM).verdict == "unsupported"


def test_chinese_this_match_refers_to_the_page_topic_and_two_common_words_are_no_person() -> None:
    title = "中超第30轮：北江队主场3比1逆转东港队"
    match = f"# {title}\n\n本报讯 北江队坐镇主场，以3比1逆转战胜东港队。\n\n北江队主教练李国栋则称赞队员“展现了韧劲”。本场比赛现场观众为2.6万人。"
    assert check_citation("北江队与东港队的这场比赛共有2.6万名观众到场。", match, title=title).verdict == "supported"
    assert check_citation("北江队与东港队的这场比赛共有3.6万名观众到场。", match, title=title).verdict == "unsupported"
    assert "农村居民" not in zh_people("2023年全镇农村居民人均可支配收入为28650元。")
    assert "黄秀兰" in zh_people("酱园如今由第五代传人黄秀兰经营。")


FERRY = """# MV Kell Dawn

**MV Kell Dawn** is a ro-ro ferry built in 2014. She is 98.6 metres long and carries up to 600 passengers.

## Sister ship

Her sister, MV Kell Morning, was delivered in 2017. She is slightly longer, at 101.2 metres, and carries up to 700 passengers.
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        # the other length is in another section: found by what the claim measures (metres)
        ("MV Kell Morning is about 2.6 metres longer than MV Kell Dawn.", "supported"),
        ("MV Kell Morning is about 4 metres longer than MV Kell Dawn.", "unsupported"),
    ],
)
def test_a_difference_in_a_comparison_is_worked_out_from_figures_anywhere_on_the_page(claim: str, verdict: str) -> None:
    assert check_citation(claim, FERRY, title="MV Kell Dawn").verdict == verdict


VIADUCT = """# Tarnby Viaduct

The **Tarnby Viaduct** is a disused railway viaduct near the village of Tarnby. Built in 1861, it has 14 arches.

## Nearby

Three kilometres downstream stood the smaller Helm Viaduct, with six arches. It was demolished in 1979.
"""


def test_it_after_a_sentence_naming_another_of_the_kind_speaks_of_that_one() -> None:
    # "…stood the smaller Helm Viaduct. It was demolished": the Helm Viaduct, not the page's
    assert check_citation("The Tarnby Viaduct was demolished in 1979.", VIADUCT, title="Tarnby Viaduct").verdict == "unsupported"
    assert check_citation("The Helm Viaduct was demolished in 1979.", VIADUCT, title="Tarnby Viaduct").verdict == "supported"
    assert check_citation("The Tarnby Viaduct has 14 arches.", VIADUCT, title="Tarnby Viaduct").verdict == "supported"


QINGSHI = """# 青石镇

**青石镇**，隶属浙江省，地处县境东北部。

## 人口

### 第六次全国人口普查

2010年第六次全国人口普查时，全镇常住人口为3.12万人。

### 第七次全国人口普查

常住人口为2.75万人，其中65岁及以上人口占21.6%。同期，相邻的竹溪乡常住人口为8815人。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        # the two figures are filed under the two census headings; the neighbour's is not one of them
        ("与第六次人口普查相比，青石镇常住人口在第七次普查时减少了约3700人。", "supported"),
        ("与第六次人口普查相比，青石镇常住人口在第七次普查时减少了约5000人。", "unsupported"),
        ("从第六次到第七次全国人口普查，青石镇常住人口有所增长。", "unsupported"),
    ],
)
def test_a_change_between_two_sections_filed_under_ordinals_is_worked_out_from_their_figures(claim: str, verdict: str) -> None:
    assert check_citation(claim, QINGSHI, title="青石镇").verdict == verdict


def test_a_place_in_the_claims_setting_is_lent_by_the_title() -> None:
    title = "Frost cuts tea harvest in Valle Verde, pushing up prices"
    page = (
        f"# {title}\n\nA late frost destroyed about a third of the spring tea crop, growers said on Monday.\n\n"
        "Tea futures in London rose 6% over the past month, and local buyers are paying around 920 pesos per kilo, "
        "compared with 700 pesos a year ago."
    )
    assert check_citation("Local buyers in Valle Verde are paying about 220 pesos more per kilo of tea than a year ago.", page, title=title).verdict == "supported"
    assert check_citation("Local buyers in Valle Verde are paying about 320 pesos more per kilo of tea than a year ago.", page, title=title).verdict == "unsupported"


def test_a_chinese_passage_without_a_subject_carries_on_with_the_thing_the_sentence_before_named() -> None:
    page = (
        "# 云居寺（临川）\n\n**云居寺**位于临川县城北，始建于唐代。\n\n## 塔\n\n"
        "寺西北角有一座六角五层砖塔，名为文峰塔，高27米，建于南宋。1966年地震中，塔顶震落，1985年修复。"
    )
    assert check_citation("1966年地震中，云居寺文峰塔的塔顶被震落，1985年得以修复。", page, title="云居寺（临川）").verdict == "supported"
    assert check_citation("1966年地震中，云居寺文峰塔的塔顶被震落，1995年得以修复。", page, title="云居寺（临川）").verdict == "unsupported"


def test_a_figure_that_only_gives_its_year_carries_on_with_the_words_before_it() -> None:
    page = (
        "# 岭下村\n\n## 旅游发展\n\n2016年全村旅游收入约250万元；2023年为2100万元，接待游客36万人次。"
        "村民人均可支配收入2016年为1.5万元，2023年为3.6万元。"
    )
    assert check_citation("岭下村2023年的旅游收入是2016年的八倍多。", page, title="岭下村").verdict == "supported"
    assert check_citation("岭下村2023年的旅游收入是2016年的十二倍多。", page, title="岭下村").verdict == "unsupported"
