"""`unsupported` only on evidence: the page states otherwise, or never states the claim's name or
figure at all. A name or figure the page gives elsewhere than the passage — a summary gathers them
from all over a page — leaves the claim `weak` (not confirmed), never marked †. Figures are read as
people write them: units, table columns, rounding, worked out of two of the page's figures."""

from __future__ import annotations

import pytest

from agent_runtime import check_citation
from agent_runtime.domain.citecheck import CitationCheck

FERRY = """# MV Kestrel Star

**MV *Kestrel Star*** is a roll-on/roll-off ferry operated by Orcadia Ferries between Scarra and Mainport.

Builder: Bayport Marine, Dundee
Launched: 22 May 1997
Length: 112.4 m
Capacity: 600 passengers, 160 cars

## History

She entered service on 3 March 1998, replacing the MV *St Brendan*, which had operated the route since 1974.
The crossing takes about 95 minutes. In 2019 the company carried 214,000 passengers on the route.

## Incidents

On 11 January 2005 she lost power in a storm and drifted for six hours before a tug reached her.
"""

BUDGET = """# Bransford councillors approve £412m budget

Bransford City Council has approved a £412 million budget for 2024–25 that will raise council tax by 4.99%.

Spending by service:

- Adult social care: £148m (up from £131m)
- Libraries, leisure and culture: £14m (down from £17m)

Council leader Sarah Okonedo said rising demand for adult care was "swallowing everything else". The authority plans to close two of its 14 libraries.
"""

MINER = """# Karrendale Mining posts record copper output but profit slips

| Measure | FY2023 | FY2024 |
|---|---|---|
| Revenue (A$m) | 2,410 | 2,655 |
| Net profit after tax (A$m) | 512 | 436 |

Chief executive Tom Hadley said higher diesel and labour costs had weighed on margins.
"""


def _assert_marked(result: CitationCheck, verdict: str) -> None:
    """† (`unsupported`) exactly where the label says so; any other label ("not unsupported") only
    asks that the claim is not marked."""
    assert (result.verdict == "unsupported") == (verdict == "unsupported"), result.explain()


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # a name and a figure the page gives in its infobox, while the passage is elsewhere
        ("The Kestrel Star, a 112-metre ferry in service since March 1998, can carry 600 passengers and 160 cars.", FERRY),
        # figures from a list item and a later paragraph, in one sentence
        ("Bransford's budget cuts spending on libraries, leisure and culture from £17m to £14m, and the council plans to close two of its 14 libraries.", BUDGET),
        # a table whose rows say their unit, A$m
        ("Karrendale's net profit after tax fell from A$512 million in FY2023 to A$436 million in FY2024.", MINER),
    ],
)
def test_a_report_sentence_gathering_what_the_page_says_in_several_places_is_never_flagged(claim: str, source: str) -> None:
    result = check_citation(claim, source, title=source.splitlines()[0].lstrip("# "))
    assert result.verdict != "unsupported", result.explain()


def test_a_name_the_page_gives_elsewhere_is_unconfirmed_and_one_it_never_gives_is_unsupported() -> None:
    elsewhere = check_citation("The St Brendan was replaced by the Kestrel Star after a storm in 2005.", FERRY, title="MV Kestrel Star")
    assert elsewhere.verdict != "supported"
    invented = check_citation("The Kestrel Star was built by Ferguson Marine of Port Glasgow.", FERRY, title="MV Kestrel Star")
    assert invented.verdict == "unsupported"
    assert "Ferguson" in invented.explain()


def test_a_figure_the_page_never_gives_is_unsupported_and_one_worked_out_of_two_is_not() -> None:
    invented = check_citation("In 2019 the company carried 260,000 passengers on the route.", FERRY, title="MV Kestrel Star")
    assert invented.verdict == "unsupported" and "214,000" in invented.explain()
    worked_out = check_citation("The St Brendan served the route for 24 years before the Kestrel Star replaced it.", FERRY, title="MV Kestrel Star")
    assert worked_out.verdict != "unsupported", worked_out.explain()  # 1974 to 1998
    wrong_span = check_citation("The St Brendan served the route for 37 years before the Kestrel Star replaced it.", FERRY, title="MV Kestrel Star")
    assert wrong_span.verdict != "supported"


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        ("Its maximum depth is about 1.6 km.", "Its maximum depth is 1,642 metres.", "supported"),
        ("Its maximum depth is about 2.6 km.", "Its maximum depth is 1,642 metres.", "unsupported"),
        ("The creamery beside the river employs around 650 staff.", "The creamery beside the river employs about 650 people.", "supported"),
        ("线路全长24.6公里。", "线路全长24.6千米，设车站19座。", "supported"),
        ("线路全长26.4公里。", "线路全长24.6千米，设车站19座。", "unsupported"),
        ("2024年教育支出预算为21.6亿元。", "项目 教育; 2024年预算（亿元） 21.6; 比上年增长 7.0%", "supported"),
        ("行程由约2小时缩短至约20分钟。", "通车前行程约需2小时；通车后缩短至约20分钟。", "supported"),
        ("The tram routes were converted to buses over five years.", "Over the next five years the routes were converted to buses.", "supported"),
        ("In the 2021–22 season they had 78 points.", "season 2021–22; position 4th; points 78", "supported"),
    ],
)
def test_figures_are_read_as_people_write_them(claim: str, source: str, verdict: str) -> None:
    assert check_citation(claim, source).verdict == verdict, check_citation(claim, source).explain()


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        # the source's "not" denies what the claim does not say
        ("Its first product, the TR-1 arm, was aimed at small electronics assemblers.",
         "Its first product, the TR-1 arm, was aimed at small electronics assemblers that could not afford industrial robots.", "supported"),
        ("The TR-1 arm did not go on sale in 2012.", "The TR-1 arm went on sale in 2012.", "unsupported"),
        ("The bridge opened in 2007.", "The bridge did not open in 2007; it opened in 2009.", "unsupported"),
        ("罚款最高不超过200元。", "拒不改正的，处50元以上200元以下罚款。", "supported"),
    ],
)  # fmt: skip
def test_a_negation_counts_for_what_its_next_words_deny(claim: str, source: str, verdict: str) -> None:
    assert check_citation(claim, source).verdict == verdict, check_citation(claim, source).explain()


SHIPWRECK = """# SS Marguerite Vale

The SS *Marguerite Vale* sailed from Liverpool with 31 crew and four passengers. Her master was Captain James Pendry, 52; his son Thomas Pendry, 19, was serving as third mate.

## Final voyage

On the night of 9 January, in a blizzard, the ship struck the Gannet Ledges. Captain Pendry ordered the boats to be lowered, but heavy seas smashed two of them.
"""

SCHOOL = """# 柳塘县第二中学督导评估报告

学校现有在校学生2,316人。校长郑婉清自2019年起任职，分管教学的副校长为郑志刚。

## 主要成绩

督导组认为，郑校长推动的“小班分层走班”改革成效明显。
"""


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        ("Captain James Pendry ordered the boats to be lowered after the ship struck the Gannet Ledges.", SHIPWRECK, "supported"),
        ("Thomas Pendry ordered the boats to be lowered after the ship struck the Gannet Ledges.", SHIPWRECK, "unsupported"),
        ("督导组认为，郑婉清推动的“小班分层走班”改革成效明显。", SCHOOL, "supported"),
        ("督导组认为，郑志刚推动的“小班分层走班”改革成效明显。", SCHOOL, "unsupported"),
        ("Ciudad Real's only goal came from a penalty by Marco Díaz.", "Ciudad Real's only goal came from a penalty by Marco Díaz in the 80th minute.", "supported"),
    ],
)
def test_a_person_called_by_title_and_surname_is_whom_the_page_called_so_in_full(claim: str, source: str, verdict: str) -> None:
    result = check_citation(claim, source, title=source.splitlines()[0].lstrip("# "))
    assert result.verdict == verdict, result.explain()


SINGER = """# Nadia Castellane

**Nadia Castellane** (born 3 May 1984) is a Canadian singer. Her older brother, Luc Castellane, is a record producer.

## Career

### Move to English

She signed with the London label Halyard Records in 2013.
"""

QUAKE = """# 石门县5.8级地震已造成9人遇难

7月21日，石门县发生5.8级地震。

## 灾情

### 白水镇

白水镇倒塌房屋83间。全县累计紧急转移安置群众1.2万人，共有37所学校停课。
"""


def test_a_heading_that_mentions_a_name_does_not_take_the_passage_from_the_pages_subject() -> None:
    assert check_citation("Nadia Castellane signed with the London label Halyard Records in 2013.", SINGER, title="Nadia Castellane").verdict == "supported"
    assert check_citation("Luc Castellane signed with the London label Halyard Records in 2013.", SINGER, title="Nadia Castellane").verdict == "unsupported"


def test_the_whole_county_is_the_pages_county_whatever_section_it_stands_in() -> None:
    result = check_citation("石门县累计紧急转移安置群众1.2万人，全县有37所学校停课。", QUAKE, title="石门县5.8级地震已造成9人遇难")
    assert result.verdict == "supported", result.explain()


NEWS_ZH = """# 强降雨致永川县12.4万人受灾

新华社长沙7月9日电 7月7日至8日，永川县遭遇强降雨。湖南省应急管理厅8日已派出工作组赶赴永川。截至9日中午，通信已全部恢复。
"""


@pytest.mark.parametrize("claim", ["湖南省应急管理厅于7月8日派出工作组赶赴永川。", "截至9日中午，永川县通信已全部恢复。"])
def test_a_day_alone_in_the_news_is_a_day_of_its_month(claim: str) -> None:
    assert check_citation(claim, NEWS_ZH).verdict == "supported", check_citation(claim, NEWS_ZH).explain()


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        # a share, not an ordinal, on both sides
        ("Roughly a third of the new trees were planted along streets.",
         "The council planted 4,800 trees this winter. Around a third were planted along streets, with the rest in parks.", "supported"),
        ("She won a third term in 2019.", "She won a third term in 2019, with 54% of the vote.", "supported"),
        # percentage points are a difference of two shares, not a level
        ("Council funding fell from 85% of the garden's income in 1998 to 22% by 2020, a drop of more than 60 percentage points.",
         "In 1998 the garden became a charity. Council funding, then 85% of income, had fallen to 22% by 2020.", "supported"),
        # a capitalised name is no direction word
        ("The Harrow Falls cycle runs to four novels published between 1993 and 2011.",
         "The Harrow Falls cycle, four novels published between 1993 and 2011, made her name.", "supported"),
        # a comparison (低于) is no change (增长); 走强 and 走软 are opposites
        ("2024年全市一般公共预算收入预期约342.7亿元，低于412.0亿元的支出安排。",
         "2024年全市一般公共预算收入预期增长5%左右，达到342.7亿元。一般公共预算支出安排412.0亿元。", "supported"),
        ("消息公布后，塔兰元对美元汇率走强0.4%。", "消息公布后，塔兰元对美元汇率小幅走软0.4%。", "unsupported"),
        # 五年, 5年 are spans of time
        ("交易完成后的五年里，合并实体须公平供货。", "监管部门要求，交易完成后五年内，合并实体须公平供货。", "supported"),
    ],
)  # fmt: skip
def test_shares_differences_and_directions_are_read_for_what_they_are(claim: str, source: str, verdict: str) -> None:
    result = check_citation(claim, source)
    assert result.verdict == verdict, result.explain()


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("A 3% rise in Norlex's share price prompted the company to announce 420 job cuts.",
         "Norlex Steel said it would cut 420 jobs at its Tarrow works. Its shares rose 3% on the news."),
        ("由于土地出让收入仅完成年初预算的62%，江临市城乡社区支出削减了8.4%。",
         "江临市土地出让收入仅完成年初预算的62%。江临市城乡社区支出比上年削减8.4%。"),
        # the passage has a link of its own, and tells of one side only: the other is another paragraph's
        ("Tallis Robotics' 2020 loss of €12 million was caused by its recall of TR-7 arms.",
         "# Tallis Robotics\n\nThe company reported its only annual loss in 2020, of €12 million, which it attributed to "
         "factory closures during the pandemic.\n\n## Recall\n\nIn 2021 Tallis recalled about 2,300 TR-7 arms after a "
         "software fault caused unexpected movements."),
    ],
)  # fmt: skip
def test_a_causal_link_the_page_never_makes_leaves_the_sentence_unconfirmed_not_flagged(claim: str, source: str) -> None:
    result = check_citation(claim, source)
    assert result.verdict == "weak", result.explain()
    assert any(r.kind == "cause_unstated" for r in result.reasons)
    said = check_citation("Norlex Steel will cut 420 jobs at its Tarrow works.", source if "Norlex" in source else "")
    assert said.verdict in ("supported", "weak")


def test_a_sentence_opening_with_a_common_noun_names_no_rival_subject() -> None:
    page = (
        "# Mount Teravai\n\nMount Teravai is a stratovolcano.\n\n## Eruptive history\n\n### 2019 eruption\n\n"
        "Seismometers recorded a swarm of more than 600 small earthquakes in the week before the first explosion."
    )
    claim = "Mount Teravai's 2019 eruption was preceded by a swarm of more than 600 small earthquakes."
    assert check_citation(claim, page, title="Mount Teravai").verdict != "unsupported"
    assert check_citation("Paris hosted the event in 2019.", "Paris hosted the event in 2019. Lyon hosted it in 2021.").verdict == "supported"
    assert check_citation("Lyon hosted the event in 2019.", "Paris hosted the event in 2019. Lyon hosted it in 2021.").verdict == "unsupported"


def test_a_span_against_a_page_giving_a_year_alone_and_a_month_of_it_is_read() -> None:
    page = "The ferry entered service in 1974. In March 1998 she was replaced, and in 1998 she was sold."
    result = check_citation("The ferry served the route for 24 years before she was replaced.", page)
    assert result.verdict in ("supported", "weak"), result.explain()
    later = check_citation("Thirty-five years after her launch she was replaced.", "She was launched in 1962. In May 1997 she was replaced; in 1997 she was sold.")
    assert later.verdict in ("supported", "weak", "unsupported")  # a verdict, not a crash


DAIRY = """# 草原牧歌乳业

**草原牧歌**成立于2009年，总部位于呼和浩特，主营巴氏杀菌奶和低温酸奶。

## 经营

2023年，草原牧歌营业收入18.6亿元，净利润1.4亿元，在华北低温奶市场的份额约为9%。

## 收购

2024年3月，北方乳业宣布以32亿元收购草原牧歌70%的股权。北方乳业2023年营业收入为215亿元，但低温产品占比不足10%。为缓解运力紧张，北方乳业在包头另建北河冷链中心，该中心日处理鲜奶1,200吨。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("草原牧歌2023年营业收入为215亿元。", "unsupported"),  # 北方乳业's revenue, given to 草原牧歌
        ("草原牧歌2023年营业收入为18.6亿元。", "supported"),
        ("北方乳业2023年营业收入为215亿元。", "supported"),
        ("草原牧歌日处理鲜奶1,200吨。", "unsupported"),  # 该中心 is the 北河冷链中心 北方乳业 built
        ("北河冷链中心日处理鲜奶1,200吨。", "supported"),
    ],
)
def test_a_chinese_name_put_where_the_page_puts_another_is_a_swap(claim: str, verdict: str) -> None:
    assert check_citation(claim, DAIRY, title="草原牧歌乳业").verdict == verdict


AIRPORT = """# 巴音塔拉机场

巴音塔拉机场于2010年通航。通航初期，机场仅开通至呼和浩特的一条航线，由天骄航空执飞。2019年，华夏航空开通经停二连浩特至北京大兴的航线。2023年，机场对俄罗斯的货运量增长两成；对蒙古国的客运量下降一成。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("2019年，天骄航空开通了经停二连浩特至北京大兴的航线。", "unsupported"),  # 华夏航空 did: a trading name and its trade
        ("2019年，华夏航空开通了经停二连浩特至北京大兴的航线。", "supported"),
        ("2023年，机场对俄罗斯的客运量下降一成。", "unsupported"),  # 蒙古国's: names every reader knows are names too
    ],
)
def test_a_chinese_company_or_country_put_where_the_page_puts_another_is_a_swap(claim: str, verdict: str) -> None:
    _assert_marked(check_citation(claim, AIRPORT, title="巴音塔拉机场"), verdict)


CLOSED_SEASON = """# 今年伏季休渔启动

农业农村部公告，今年南海伏季休渔自5月1日12时起至8月16日12时止，休渔期间除钓具外的所有作业类型均须停止作业。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        (
            "今年南海伏季休渔自6月1日12时起开始。",
            "unsupported",
        ),  # a start the page does not give; 8月16日 is its end
        ("今年南海伏季休渔自5月1日12时起开始。", "supported"),
        ("The South China Sea fishing ban runs from 1 June.", "unsupported"),
    ],
)
def test_a_start_date_is_stated_only_by_that_start(claim: str, verdict: str) -> None:
    source = CLOSED_SEASON + "\nThe South China Sea fishing ban runs from 1 May to 16 August.\n"
    assert check_citation(claim, source).verdict == verdict


SEEDS = """# Brackwell seed library doubles lending

BRACKWELL — A scheme that lets residents borrow seeds from the town library, and return seeds from their own
harvest, lent out 6,840 packets in its second season, more than twice the 3,100 of its first, the library said.

Borrowers may take up to five packets at a time. Last year around 1,200 packets came back, up from 410 in the
first season. Passenger traffic on the library's ferry reached 1.48 million last year, up 6 percent.
"""


@pytest.mark.parametrize(
    "claim",
    [
        # a change the passage's own two figures give, though the claim names its seasons
        "Seed packets lent by Brackwell library rose by about 120 percent between the first and second seasons.",
        # two figures stated together in another sentence than the one the claim's words lead to
        "Seed returns to the Brackwell scheme nearly tripled in its second season, from 410 packets to about 1,200.",
        # "1.48 million last year" is a count said in a year, not 1.48 million years
        "Passenger traffic on the ferry rose 6 percent last year to nearly 1.5 million.",
    ],
)
def test_a_report_sentence_working_with_the_pages_figures_is_not_flagged(claim: str) -> None:
    result = check_citation(claim, SEEDS)
    assert result.verdict != "unsupported", result.explain()


PORT = """# 北礁港

## 后湾作业区

后湾作业区于2016年投入使用，2024年处理商品车37.6万辆，其中出口车辆占62%。

## 报销改革

2023年，学校上线科研经费“一站式”报销平台，平均报销周期由原来的21个工作日缩短至6个工作日。

## 发掘

出土瓷片中，龙泉窑青瓷约占45%，景德镇青白瓷占30%。

## 财政

专项债务余额为715亿元，占岚江市政府债务余额的63.5%。
"""


@pytest.mark.parametrize(
    "claim",
    [
        "2024年北礁港后湾作业区处理的出口商品车约为23万辆。",  # 37.6万 × 62%, given as about so much
        "上线报销平台后，科研经费平均报销周期缩短了15个工作日，降幅超过七成。",  # 21 − 6, and 71% shorter
        "出土瓷片中，龙泉窑青瓷和景德镇青白瓷合计约占四分之三。",  # 45% and 30% of one whole
        "截至2024年末，专项债务占岚江市政府债务余额的六成以上。",  # 占岚江 is jieba's cut across two words, no name
        "Nearly three-fifths of the trust's income came from the county health board.",
    ],
)
def test_a_report_sentence_working_out_shares_and_differences_is_not_flagged(claim: str) -> None:
    source = PORT + "\nThe county health board gave the trust £11.6 million of its £19.8 million income.\n"
    result = check_citation(claim, source)
    assert result.verdict != "unsupported", result.explain()


def test_a_figure_the_page_never_works_out_is_still_flagged() -> None:
    result = check_citation("2024年北礁港后湾作业区处理的出口商品车约为31万辆。", PORT)
    assert result.verdict == "unsupported", result.explain()


SHIPPING = """# Nordvik Line

In 2022 Nordvik ordered four vessels able to run on methanol, at a reported cost of USD 38 million each.
Overtime for plough drivers reached $2.9 million, against $1.7 million for the whole of the previous winter.
Since 2015 the gauge has dropped below 80 centimetres on 41 days a year, against 13 a year in the 1990s.
A review found virtual ward stays averaged 6.2 days, against 8.9 days on wards.
"""


@pytest.mark.parametrize(
    ("claim", "wrong"),
    [
        ("The four methanol ships Nordvik ordered were reported to cost about USD 150 million in total.",  # 4 × 38
         "The four methanol ships Nordvik ordered were reported to cost about USD 190 million in total."),
        ("Overtime this winter has already exceeded the whole of the previous winter's total by $1.2 million.",  # 2.9 − 1.7
         "Overtime this winter has already exceeded the whole of the previous winter's total by $1.6 million."),
        ("Since 2015 the gauge has dropped below 80 centimetres on roughly three times as many days a year as in the 1990s.",
         "Since 2015 the gauge has dropped below 80 centimetres on roughly ten times as many days a year as in the 1990s."),
        ("Virtual ward stays averaged 6.2 days against 8.9 days on wards.",  # no span "9 days on" in 8.9
         "Virtual ward stays averaged 6.2 days against 9.8 days on wards."),
    ],
)  # fmt: skip
def test_counts_times_amounts_small_multiples_and_decimals_are_read(claim: str, wrong: str) -> None:
    result = check_citation(claim, SHIPPING)
    assert result.verdict != "unsupported", result.explain()
    assert check_citation(wrong, SHIPPING).verdict != "supported"


LIBRARY = """# 青槐社区“深夜书房”

“深夜书房”由社区车棚改造而成，每天22时至次日8时无人值守，读者刷卡进入。

## 志愿者

青槐社区自今年3月起招募了26名志愿者，在晚间19时至22时轮流值守。

## 开放

宁川市儿童医院门诊部主任何静介绍，冬季门诊量较11月增加约六成。何主任说，目前就诊患儿中约七成为3岁以上儿童。
"""


def test_each_clause_of_a_summary_is_negated_as_the_page_clause_it_comes_from() -> None:
    true = "“深夜书房”每天22时至次日8时无人值守，青槐社区自今年3月起还招募了26名志愿者在晚间19时至22时轮流值守。"
    assert check_citation(true, LIBRARY).verdict != "unsupported", check_citation(true, LIBRARY).explain()
    wrong = "“深夜书房”每天22时至次日8时无人值守，青槐社区自今年3月起没有招募志愿者在晚间19时至22时值守。"
    assert check_citation(wrong, LIBRARY).verdict == "unsupported"


def test_a_title_before_a_name_that_runs_on_is_read_as_that_person() -> None:
    result = check_citation("何静表示，目前就诊的患儿中约七成是3岁以上儿童。", LIBRARY)
    assert result.verdict != "unsupported", result.explain()


VIADUCT = """# Pellham Viaduct

The **Pellham Viaduct** is a disused railway viaduct near Pellham, which people visit each year from across Cumbria.

It now attracts around 60,000 visitors a year. The council said it had so far recovered £430,000 and now requires two
signatures for any payment above £5,000. An audit found that the clerk, Pryce, had diverted more than £1.2 million.
"""


@pytest.mark.parametrize(
    "claim",
    [
        "Around 60,000 people visit the Pellham Viaduct each year.",  # visitors are people
        "The £430,000 recovered so far is roughly a third of the more than £1.2 million that Pryce diverted.",
    ],
)
def test_a_figure_the_page_gives_in_other_words_or_another_clause_is_not_flagged(claim: str) -> None:
    result = check_citation(claim, VIADUCT)
    assert result.verdict != "unsupported", result.explain()
    assert check_citation(claim.replace("60,000", "90,000").replace("1.2 million", "2.4 million"), VIADUCT).verdict == "unsupported"


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        # a bare number ending a change takes the unit of its start
        ("When open, the road shortens the journey from about 140 kilometres to 23.",
         "When open, it shortens the journey from about 140 kilometres by the shoreline road to 23 kilometres.", "supported"),
        ("When open, the road shortens the journey from about 140 kilometres to 31.",
         "When open, it shortens the journey from about 140 kilometres by the shoreline road to 23 kilometres.", "unsupported"),
        # the way a growth rate goes is not the way the economy goes
        ("一季度塔兰经济增速降至近三年最低的2.1%。", "塔兰一季度经济同比增长2.1%，为近三年最低。", "supported"),
        ("一季度塔兰经济下降2.1%。", "塔兰一季度经济同比增长2.1%，为近三年最低。", "unsupported"),
    ],
)  # fmt: skip
def test_ranges_and_rates_are_read_as_written(claim: str, source: str, verdict: str) -> None:
    result = check_citation(claim, source)
    assert result.verdict == verdict, result.explain()


HOSPITALS = """# 柏川县医共体

医共体成立后，县人民医院先后向乡镇卫生院下派中级职称以上医师97人次。县中医院负责中医药适宜技术推广。
城东污水处理厂位于桐州市东港区，2008年投运，现日处理能力为20万吨。
她的学生、现任资源与环境学院院长蒋卓然评价她“田野比办公室待得多”。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("医共体成立后，县中医院先后向乡镇卫生院下派中级职称以上医师97人次。", "unsupported"),  # two hospitals of one kind
        ("医共体成立后，县人民医院先后向乡镇卫生院下派中级职称以上医师97人次。", "supported"),
        ("城东污水处理厂位于桐州市西湖区，2008年投运。", "unsupported"),
        ("资源与环境学院院长扬·德弗里斯评价她“田野比办公室待得多”。", "unsupported"),  # a person, and a name from another tongue
        ("资源与环境学院院长蒋卓然评价她“田野比办公室待得多”。", "supported"),
    ],
)
def test_two_names_of_a_kind_or_of_people_are_told_apart(claim: str, verdict: str) -> None:
    result = check_citation(claim, HOSPITALS)
    assert result.verdict == verdict, result.explain()


FESTIVAL = """# 海屿国际电影节

第九届电影节共售出电影票4.2万张，票房收入约357万元。

## 航线

丽江—宁蒗航线的全价票为680元，当地户籍居民凭身份证可享受五折优惠。五年来，海翼通航在东极航线执行医疗转运147次，其中夜间转运21次。
"""


@pytest.mark.parametrize(
    ("claim", "wrong"),
    [
        ("按售票数和票房计算，第九届电影节的平均票价约为85元。", "按售票数和票房计算，第九届电影节的平均票价约为120元。"),  # 357万 / 4.2万
        ("当地户籍的居民乘坐丽江—宁蒗航线，享受优惠后的票价为340元。", "当地户籍的居民乘坐丽江—宁蒗航线，享受优惠后的票价为420元。"),  # 680 at 五折
        ("海翼通航在东极航线执行的147次医疗转运中，非夜间转运有126次。", "海翼通航在东极航线执行的147次医疗转运中，非夜间转运有131次。"),
    ],
)  # fmt: skip
def test_averages_discounts_and_the_rest_of_a_count_are_worked_out(claim: str, wrong: str) -> None:
    result = check_citation(claim, FESTIVAL)
    assert result.verdict != "unsupported", result.explain()
    assert check_citation(wrong, FESTIVAL).verdict == "unsupported"


GLASSWORKS = """# Castle Street glassworks

Site director Owen Castellano said the works appeared to have been founded around 1640 and abandoned by about 1710.
In the pilot schools the share of pupils arriving late at least once a week fell from 11 percent to 7 percent.
Teacher vacancies at the start of the school year fell from 23 in 2019 to 9 in 2024.
"""


@pytest.mark.parametrize(
    ("claim", "wrong"),
    [
        ("The Castle Street glassworks appears to have operated for roughly 70 years, from about 1640 until about 1710.",
         "The Castle Street glassworks appears to have operated for roughly 120 years."),
        ("The share of pupils in the pilot schools arriving late at least once a week fell by more than a third.",
         "The share of pupils in the pilot schools arriving late at least once a week fell by more than two-thirds."),
        ("Teacher vacancies at the start of the school year fell by 14 between 2019 and 2024.",
         "Teacher vacancies at the start of the school year fell by 17 between 2019 and 2024."),
    ],
)  # fmt: skip
def test_spans_between_years_rates_and_small_differences_are_worked_out(claim: str, wrong: str) -> None:
    result = check_citation(claim, GLASSWORKS)
    assert result.verdict != "unsupported", result.explain()
    assert check_citation(wrong, GLASSWORKS).verdict != "supported"


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        # a time of day in the evening is the 24-hour hour the page writes
        ("“深夜书房”晚上7点以后的借阅量占到总借阅量的四成以上。", "“深夜书房”19时以后的借阅量占总借阅量的43%。", "supported"),
        ("“深夜书房”晚上8点以后的借阅量占到总借阅量的四成以上。", "“深夜书房”19时以后的借阅量占总借阅量的43%。", "unsupported"),
        ("The reading room stays open until 10 p.m. on weekdays.", "The reading room stays open until 22:00 on weekdays.", "supported"),
        # a sum of money is not stated by the counts of a sentence
        ("第12届东海杯世界围棋公开赛的冠军奖金为450万元。",
         "# 东海杯世界围棋公开赛\n\n东海杯每两年举办一届，已举办十一届。第12届比赛共有五个国家和地区的九名棋手参赛。冠军奖金450万元，为历届最高。", "supported"),
        # half a year after a count of years
        ("从2019年4月被发现到2022年9月正式发掘，沉船等待了约三年半。", "沉船于2019年4月被渔民发现，2022年9月开始正式发掘。", "supported"),
    ],
)  # fmt: skip
def test_times_of_day_money_and_half_years_are_read_as_written(claim: str, source: str, verdict: str) -> None:
    result = check_citation(claim, source)
    _assert_marked(result, verdict)


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("2023年，旅游相关收入占青崖影视产业园总收入的46%，首次被场景和摄影棚租赁收入超过。", "not unsupported"),  # 被…超过 is 低于
        ("2023年，旅游相关收入占青崖影视产业园总收入的46%，首次超过场景和摄影棚租赁收入。", "unsupported"),
    ],
)
def test_overtaken_by_is_below(claim: str, verdict: str) -> None:
    source = "# 青崖影视产业园\n\n## 经营数据\n\n2023年，旅游相关收入占总收入的46%，首次低于场景和摄影棚租赁收入。"
    result = check_citation(claim, source)
    _assert_marked(result, verdict)


def test_a_title_is_a_name_and_a_quoted_phrase_is_not() -> None:
    source = "1977年，她出版了第一部小说《沙洲记》。1983年又出版长篇小说《望海楼》，被评论界称为重大进展。"
    assert check_citation("《望海楼》于1977年出版。", source).verdict != "supported"
    assert check_citation("《沙洲记》于1977年出版。", source).verdict == "supported"
    assert check_citation("《望海楼》被评论界称为“重大突破”。", source).verdict != "unsupported"


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        # a small Chinese count the page does not write but lists (三个奖项): unconfirmed, not never given
        ("雪莲奖中设有奖金的三个奖项，奖金合计18万元。",
         "电影节设“雪莲奖”竞赛单元，主要奖项包括：\n\n- 雪莲大奖（最佳影片），奖金10万元\n- 评审团特别奖，奖金5万元\n- 最佳导演奖，奖金3万元", "not unsupported"),
        ("雪莲奖中设有奖金的三个奖项，奖金合计25万元。",
         "电影节设“雪莲奖”竞赛单元，主要奖项包括：\n\n- 雪莲大奖（最佳影片），奖金10万元\n- 评审团特别奖，奖金5万元\n- 最佳导演奖，奖金3万元", "unsupported"),
        # half the full fare
        ("东极群岛当地户籍居民乘坐该航线的单程票价为240元。", "东极群岛航线单程票价为每人480元，当地户籍居民享受半价优惠。", "not unsupported"),
        ("东极群岛当地户籍居民乘坐该航线的单程票价为300元。", "东极群岛航线单程票价为每人480元，当地户籍居民享受半价优惠。", "unsupported"),
    ],
)  # fmt: skip
def test_small_chinese_counts_totals_and_half_fares_are_read(claim: str, source: str, verdict: str) -> None:
    result = check_citation(claim, source)
    _assert_marked(result, verdict)


def test_a_chinese_swap_in_a_sentence_joined_to_the_anchor_is_read_for_a_one_fact_claim() -> None:
    source = ("# 东湖集团重整\n\n东湖集团由何志坚于1996年创办，鼎盛时期员工超过3万人。"
              "2022年2月，债权人浙海银行向法院申请对东湖集团进行重整。法院于同年4月裁定受理。")
    assert check_citation("2022年2月，浙海银行向法院申请对东湖集团进行重整。", source).verdict == "supported"
    swapped = check_citation("2022年2月，何志坚向法院申请对东湖集团进行重整。", source)
    assert swapped.verdict != "supported", swapped.explain()


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        # a person's name is no cut of jieba's across two words, whatever the page writes after it
        ("张伟表示，明年将扩建二期。", "李伟表示，明年将扩建二期。", "unsupported"),
        # 被…超过 is 低于 only where the verb ends the clause: 被检出…超过 is no passive of 超过
        ("镉含量超过国家标准。", "抽检中被检出镉含量超过国家标准。", "supported"),
        # a total (共) is no difference of the passage's two figures
        ("事故共造成3人死亡。", "事故造成5人死亡、2人受伤。", "unsupported"),
        # a share is no average (per cent is not per)
        ("Turnout was about 30 per cent.", "The 4,100 residents live in 137 streets. Turnout was 62 per cent.", "unsupported"),
        # an idiom is no discount; a late-night hour is no afternoon
        ("谈判一波三折，最终票价为480元。", "谈判一波三折，最终票价为480元。", "supported"),
        ("事故发生在夜里2点。", "事故发生在凌晨2点。", "supported"),
        ("事故发生在夜里2点。", "事故发生在下午2点。", "unsupported"),
        # a place whose name opens with a preposition's character keeps it
        ("和平区常住人口为12万人。", "和平区常住人口为12万人，河西区为18万人。", "supported"),
    ],
)  # fmt: skip
def test_what_review_found_misread(claim: str, source: str, verdict: str) -> None:
    result = check_citation(claim, source)
    assert result.verdict == verdict, result.explain()


def test_a_chinese_company_named_by_its_trade_is_a_name_the_passage_must_give() -> None:
    """乐源食品: a trading name and its trade, which jieba takes for two common nouns; the passage
    speaks of 禾泽乳业 ("该公司"), and 乐源食品 is named in another paragraph: not confirmed."""
    page = (
        "# 禾泽乳业召回两批次酸奶\n\n禾泽乳业质量总监许卫东表示，该公司已暂停临江工厂的涉事生产线，并聘请第三方机构排查。召回涉及酸奶两个批次，共计1.2万箱。\n\n"
        "## 同行\n\n同在临江设厂的乐源食品当天发布声明，称其产品未受影响。"
    )
    result = check_citation("乐源食品临江工厂的涉事生产线已被暂停。", page, title="禾泽乳业召回两批次酸奶")
    assert result.verdict != "supported", result.explain()
    assert "乐源" in result.explain()
    assert check_citation("禾泽乳业临江工厂的涉事生产线已被暂停。", page, title="禾泽乳业召回两批次酸奶").verdict == "supported"


FAMILY_FIRM = (
    "# 东湖集团\n\n东湖集团由何志坚于1996年创办，主营纺织和化纤，鼎盛时期员工超过3万人。"
    "何志坚之子何立群自2019年起担任集团总裁。何教授曾在集团研究院任职。\n"
)


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("何立群于1996年创办了东湖集团。", "unsupported"),  # his father did
        ("何志坚于1996年创办了东湖集团。", "supported"),
        ("何立群自2019年起担任东湖集团总裁。", "supported"),
    ],
)
def test_two_people_of_one_surname_are_two_people(claim: str, verdict: str) -> None:
    _assert_marked(check_citation(claim, FAMILY_FIRM, title="东湖集团"), verdict)


WATERWORKS = """# 临溪市城市供水

## 主要水厂

| 水厂 | 投产年份 | 日供水能力（万立方米） | 处理工艺 |
|---|---|---|---|
| 东郊水厂 | 1958 | 20 | 常规处理 |
| 北岭水厂 | 1996 | 30 | 臭氧活性炭 |
| 青岚水厂 | 2021 | 10 | 超滤膜 |
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("临溪市北岭水厂于2021年投产，采用超滤膜处理工艺。", "weak"),  # 青岚水厂's row; 北岭水厂's is above it
        ("临溪市青岚水厂于2021年投产，采用超滤膜处理工艺。", "supported"),
    ],
)
def test_a_tables_row_says_its_own_subject_and_the_rows_above_it_are_of_others(claim: str, verdict: str) -> None:
    assert check_citation(claim, WATERWORKS, title="临溪市城市供水").verdict == verdict


MUSEUMS = """# 鹭门海关博物馆

鹭门海关博物馆位于老城区海关旧址，2015年开馆，馆藏文物约6,000件。
与该馆隔街相望的鹭门邮政博物馆同日推出联票，两馆联票价格为30元。据了解，邮政博物馆建于2009年，去年接待观众约22万人次。
目前国内同类产品中，安伴科技去年推出的陪护机器人售价为12999元。星衍智能则计划明年推出同类产品。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("鹭门海关博物馆去年接待观众约22万人次。", "unsupported"),  # 邮政博物馆's visitors: two museums
        ("鹭门邮政博物馆去年接待观众约22万人次。", "supported"),
        ("星衍智能去年推出的陪护机器人售价为12999元。", "unsupported"),  # 安伴科技's, a name jieba reads as a verb
    ],
)
def test_two_bodies_of_one_kind_are_told_apart_by_the_words_before_their_kind(claim: str, verdict: str) -> None:
    _assert_marked(check_citation(claim, MUSEUMS, title="鹭门海关博物馆"), verdict)


METRO = """# 西京地铁

去年11月，西京市交通运输局委托第三方对各线路服务质量进行测评，2号线得分最高。
西京市轨道交通集团负责全网运营，去年客运量12.4亿人次。

## 球队

俱乐部总经理杜宏伟表示，引进卡瓦略的谈判历时两个月。主教练马蒂亚斯·克劳森则称球队缺少中锋。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("去年11月，西京市轨道交通集团委托第三方对各线路服务质量进行了测评。", "unsupported"),  # the bureau did
        ("去年11月，西京市交通运输局委托第三方对各线路服务质量进行了测评。", "supported"),
        ("主教练马蒂亚斯·克劳森表示，引进卡瓦略的谈判历时两个月。", "unsupported"),  # 杜宏伟 said it
    ],
)
def test_a_company_is_not_a_bureau_and_a_coach_is_not_the_manager(claim: str, verdict: str) -> None:
    _assert_marked(check_citation(claim, METRO, title="西京地铁"), verdict)


HAIL = """# 河阳县冰雹灾害

6月8日晚，河阳县遭遇冰雹袭击，全县约1.2万亩果园受灾。县农业农村局次日组织技术人员下乡指导。

## 理赔

截至6月15日，安禾农业保险股份有限公司已向全县1536户果农支付赔款2870万元。安禾农险河阳支公司经理段明哲介绍，灾害发生后，公司当晚即启动重大灾害应急预案，抽调83名查勘人员。
"""


def test_a_chinese_body_named_by_its_kind_that_the_passage_lacks_leaves_the_claim_unconfirmed() -> None:
    """河阳县农业农村局: a bureau jieba names no part of; the passage's actor is the insurer."""
    result = check_citation("灾害发生当晚，河阳县农业农村局启动了重大灾害应急预案并抽调83名查勘人员。", HAIL, title="河阳县冰雹灾害")
    assert result.verdict == "weak", result.explain()
    assert "农业农村局" in result.explain()
    own = check_citation("灾害发生当晚，安禾农险启动了重大灾害应急预案并抽调83名查勘人员。", HAIL, title="河阳县冰雹灾害")
    assert own.verdict != "unsupported", own.explain()


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("青禾县疾控中心研究员钱文博表示，诺如病毒每年10月至次年3月为高发季节。", "unsupported"),  # the province's centre
        ("省疾控中心研究员钱文博表示，诺如病毒每年10月至次年3月为高发季节。", "supported"),
    ],
)
def test_one_body_of_two_places_is_two_bodies(claim: str, verdict: str) -> None:
    page = "省疾控中心传染病防制所研究员钱文博表示，诺如病毒每年10月至次年3月为高发季节，感染者通常1至3天可自愈。青禾县疾控中心当天发布了提示。"
    _assert_marked(check_citation(claim, page), verdict)


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("数澜云图于2022年起诉北京一家测绘软件公司侵犯其软件著作权。", "unsupported"),  # the other way round
        ("北京一家测绘软件公司于2022年起诉数澜云图侵犯其软件著作权。", "supported"),
        ("数澜云图于2022年被北京一家测绘软件公司起诉。", "not unsupported"),  # passive: the same parties
    ],
)
def test_a_chinese_act_between_two_parties_the_other_way_round_is_a_contradiction(claim: str, verdict: str) -> None:
    page = "# 数澜云图\n\n2022年，北京一家测绘软件公司起诉数澜云图侵犯其软件著作权，索赔2000万元。"
    _assert_marked(check_citation(claim, page, title="数澜云图"), verdict)


def test_a_chinese_summarys_word_jieba_takes_for_a_name_is_no_name_the_page_never_gives() -> None:
    """加盟 (jieba: a name) in a true summary sentence: unconfirmed, never †; one naming another club
    is still not confirmed."""
    page = (
        "# 江城雄狮签下贺一凡\n\n本报讯 1月9日，中超俱乐部江城雄狮官方宣布，从海州远洋队引进22岁前锋贺一凡，"
        "双方签约四年。据知情人士透露，转会费约为1.2亿元人民币，创下国内球员转会费纪录。"
    )
    true = check_citation("贺一凡以约1.2亿元转会费从海州远洋加盟江城雄狮，签约四年。", page, title="江城雄狮签下贺一凡")
    assert true.verdict != "unsupported", true.explain()
    wrong = check_citation("贺一凡以约1.2亿元转会费从海州远洋加盟北川铁军，签约四年。", page, title="江城雄狮签下贺一凡")
    assert wrong.verdict != "supported", wrong.explain()


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        # the act the claim gives is the page's second, in the claim's order
        ("2022年利达公司起诉华丰集团违约。", "2021年华丰集团起诉利达公司侵犯专利，2022年利达公司起诉华丰集团违约。"),
        # a comparison's later clause, read the other way round by the page's own words
        ("与澜州农商行相比，澜州银行的贷款规模更大。", "与同城的澜州银行相比，澜州农商行的网点更多，而澜州银行的贷款规模更大。"),
        ("Compared with Brill, Ashby lends far more.", "Compared with the nearby Ashby, Brill has more branches, but Ashby lends far more."),
        # a numbered unit the page writes in Chinese numerals or full-width digits
        ("核电站1号机组于2020年投入商运。", "核电站一号机组于2020年投入商运。"),
        ("核电站1号机组于2020年投入商运。", "核电站１号机组于2020年投入商运。"),
        ("地铁2号线于2015年开通。", "地铁二号线于2015年开通。"),
    ],
)
def test_a_true_claim_is_not_read_as_a_swap(claim: str, page: str) -> None:
    result = check_citation(claim, page)
    assert result.verdict == "supported", result.explain()


def test_a_comparison_of_two_names_of_several_words_the_other_way_round_is_a_contradiction() -> None:
    page = "Compared with Ashby Bank, Brill Bank has more branches in villages."
    assert check_citation("Compared with Brill Bank, Ashby Bank has more branches in villages.", page).verdict == "unsupported"


def test_a_chinese_body_is_read_whole_where_a_preposition_character_stands_inside_it() -> None:
    from agent_runtime.domain.citecheck.roles import zh_bodies

    assert "和平区教育局" in "".join(zh_bodies("天津市和平区教育局发布通知"))
    assert not any(b.startswith("平区") for b in zh_bodies("天津市和平区教育局发布通知"))
    assert not any(b.startswith("外经济") for b in zh_bodies("对外经济贸易大学发布通知"))
    assert "管理委员会" not in zh_bodies("黄山风景区管理委员会发布通知")


def test_a_body_closing_the_claim_is_read_with_its_kind() -> None:
    from agent_runtime.domain.citecheck.roles import check_slot

    hard, _ = check_slot("2023年承担该项目的是县中医院", "2023年承担该项目的是县人民医院。")
    assert hard, "县中医院 for 县人民医院 at the claim's end"


@pytest.mark.parametrize(
    ("claim", "page", "title"),
    [
        (
            "截至2023年底，岭下油茶合作社管护的油茶林面积达到2.6万亩。",
            "# 青山油茶合作社\n\n青山油茶合作社成立于2012年。2018年，其被评为国家农民合作社示范社。"
            "截至2023年底，社员发展至412户，管护油茶林2.6万亩。同乡的岭下油茶合作社成立更早，但管护面积仅约8000亩。",
            "青山油茶合作社",
        ),
        (
            "By 2023 the Harlow Mill cooperative managed 26,000 hectares of forest.",
            "# Beckton Cooperative\n\nThe Beckton cooperative was founded in 2012. By 2023 it had 412 members and "
            "managed 26,000 hectares of forest. The Harlow Mill cooperative nearby is older but manages only 8,000 hectares.",
            "Beckton Cooperative",
        ),
    ],
)
def test_a_name_only_the_sentence_after_the_anchor_gives_is_not_what_the_anchor_speaks_of(claim: str, page: str, title: str) -> None:
    result = check_citation(claim, page, title=title)
    assert result.verdict != "supported", result.explain()
