"""Who said what in a Chinese page (agent_runtime/domain/citecheck/speakers.py): a statement is
given to the speaker the page gives it to, "他表示" is whom the page last named, and 许指导 the 许
the page named so in full."""

from __future__ import annotations

import pytest

from agent_runtime import check_citation


def _marked(claim: str, page: str, title: str) -> bool:
    """Whether the claim is marked † (unsupported) against the page."""
    return check_citation(claim, page, title=title).verdict == "unsupported"


PRESS = (
    "# 鸣川电池发布新一代储能电芯\n\n"
    "本报讯 鸣川电池10日在合肥发布新一代储能电芯，能量密度达到每公斤195瓦时。\n\n"
    "公司总裁钱立峰表示，新电芯已获得四家海外储能集成商的订单，预计明年一季度量产。"
    "行业研究机构远见咨询分析师邵敏则认为，储能电芯价格今年以来下降近三成，行业竞争仍将加剧。\n\n"
    "## 扩产计划\n\n"
    "公司副总裁龙海涛介绍，合肥基地二期将新增产能20吉瓦时。他表示，二期工程计划于2026年6月投产。"
    "同城的凯源动力今年也宣布扩产，但规模尚未公布。"
)


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("鸣川电池总裁钱立峰表示，新电芯已获得四家海外储能集成商的订单。", "supported"),
        ("远见咨询分析师邵敏表示，新电芯已获得四家海外储能集成商的订单。", "unsupported"),  # 钱立峰 said it
        ("钱立峰认为，储能电芯价格今年以来下降近三成。", "unsupported"),  # 邵敏 did
        ("鸣川电池副总裁龙海涛表示，二期工程计划于2026年6月投产。", "supported"),  # "他表示" after 龙海涛介绍
        ("总裁钱立峰在发布会上表示，二期工程计划于2026年6月投产。", "unsupported"),  # "他" is 龙海涛
        ("钱总表示，新电芯已获得四家海外储能集成商的订单。", "supported"),  # 钱总 is 钱立峰
    ],
)
def test_a_chinese_statement_is_given_to_the_speaker_the_page_gives_it_to(claim: str, verdict: str) -> None:
    assert _marked(claim, PRESS, "鸣川电池发布新一代储能电芯") == (verdict == "unsupported")


VOLLEYBALL = """# 江城女排签下许嘉宁

江城女排主教练许文斌表示，球队上赛季主攻位置得分能力不足。许指导同时透露，球队还在与一名外援接触，有望在7月底前完成签约。
俱乐部总经理许丽华介绍，新赛季主场将迁往奥体中心。
"""


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        # 许指导 is 许文斌, the coach named before; another 许 is another person, though one of a
        # surname is only unconfirmed (jieba's cut of a name may be what differs)
        ("许嘉宁透露，江城女排还在与一名外援接触。", "weak"),
        ("许丽华透露，江城女排还在与一名外援接触。", "weak"),
        ("许文斌透露，江城女排还在与一名外援接触。", "supported"),
    ],
)
def test_a_speaker_called_by_surname_and_title_is_the_one_the_page_named_so(claim: str, verdict: str) -> None:
    assert check_citation(claim, VOLLEYBALL, title="江城女排签下许嘉宁").verdict == verdict


@pytest.mark.parametrize(
    ("claim", "source", "verdict"),
    [
        ("与澜州农商行相比，澜州银行的网点更多地深入乡镇。", "与同城的澜州银行相比，澜州农商行网点更多深入乡镇，但单笔贷款规模较小。", "unsupported"),
        ("与澜州银行相比，澜州农商行的网点更多地深入乡镇。", "与同城的澜州银行相比，澜州农商行网点更多深入乡镇，但单笔贷款规模较小。", "supported"),
        ("Compared with Ashby, Brill has more branches in villages.", "Compared with nearby Brill, Ashby has more branches in villages.", "unsupported"),
        ("Compared with Brill, Ashby has more branches in villages.", "Compared with nearby Brill, Ashby has more branches in villages.", "supported"),
    ],
)
def test_a_comparison_the_other_way_round_is_a_contradiction(claim: str, source: str, verdict: str) -> None:
    assert check_citation(claim, source).verdict == verdict


def test_a_numbered_line_is_a_name_not_a_count() -> None:
    """2号线 where the passage speaks of 7号线 (and 2号线 is named elsewhere): not confirmed."""
    page = (
        "# 临江地铁\n\n临江地铁共有5条线路。\n\n## 过江隧道\n\n7号线过江隧道全长3.26公里，是临江市首条采用泥水平衡盾构施工的地铁隧道。"
        "\n\n## 线路\n\n2号线于2015年开通，全长28公里。"
    )
    wrong = check_citation("临江地铁2号线过江隧道是临江市首条采用泥水平衡盾构施工的地铁隧道。", page, title="临江地铁")
    assert wrong.verdict != "supported", wrong.explain()
    right = check_citation("临江地铁7号线过江隧道是临江市首条采用泥水平衡盾构施工的地铁隧道。", page, title="临江地铁")
    assert right.verdict == "supported", right.explain()


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        # 说 and 称 inside other words (一般来说, 名称) are no verbs of saying
        ("疾控专家张华指出，一般来说，流感病毒在冬季更为活跃。", "疾控专家张华指出，一般来说，流感病毒在冬季更为活跃。"),
        ("该项目名称为城市更新示范工程，总投资十亿元。", "住建局局长张伟介绍，该项目名称为城市更新示范工程，总投资十亿元。"),
        # 李警官 is 李建国, named so before
        ("李建国表示，此案的嫌疑人已全部到案。", "李建国是一名老刑警。谈到此案时，李警官表示，此案的嫌疑人已全部到案。"),
        # 老李 is 李建国
        ("李建国表示，此案的嫌疑人已全部到案。", "刑警李建国从警三十年。老李表示，此案的嫌疑人已全部到案。"),
    ],
)
def test_a_statement_copied_from_the_page_keeps_its_speaker(claim: str, page: str) -> None:
    result = check_citation(claim, page)
    assert result.verdict != "unsupported", result.explain()
    assert not any(r.kind == "actor" for r in result.reasons), result.explain()
