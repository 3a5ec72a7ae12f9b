"""Who said what in a Chinese page: a statement's speaker (市统计局副局长胡蓉介绍，…), "他表示" read as
whom the page last named, and people called by surname and title (许指导, 梁研究员) read as whom the
page named so in full. `check_speaker` finds the page's speaker of a claim's statement and says
whether the claim gives it to another.

Chinese writes no capitals and jieba knows few invented names, so speakers are read by where they
stand: after a post (总经理殷涛), before a verb of saying. (Read so for what a person did, not
said, the opening person of a claim is too often missed by jieba to be worth it: tried, dropped.)
"""

from __future__ import annotations

import re

import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.page import Sentence
from agent_runtime.domain.citecheck.roles import ZH_BODY, ZH_BODY_NEXT
from agent_runtime.domain.citecheck.verdict import Reason

# Who said what: a Chinese statement's speaker and its verb of saying (市统计局副局长胡蓉在发布会上介绍，…).
# (说 and 称 alone, not inside 一般来说, 据说, 名称, 简称)
_ZH_SAYS = r"表示|介绍|指出|认为|透露|宣布|坦言|强调|提醒|(?<![来话据听小传学])说|(?<![名简统号职昵俗通宣声])称"
_ZH_CLAIM_SAYS = re.compile(rf"^(?P<speaker>[^，。；：“”]{{2,40}}?)(?P<verb>{_ZH_SAYS})[：，]?(?P<said>[^，。；].*)$")
_ZH_SAYS_AT_END = re.compile(rf"(?:{_ZH_SAYS})[：:“\s]*$")
_ZH_PAGE_SAYS = re.compile(rf"(?P<speaker>[^，。；：“”]{{1,40}}?)(?:{_ZH_SAYS})$")
_ZH_ADJUNCT = re.compile(r"(?:在[^，。；]{1,15}?(?:上|中|时|期间|后)|赛后|会后|随后|同时|还|也|则|曾|此前|当天|会上|对此|并)+$")
_ZH_PRONOUN = re.compile(r"(?<!其)[他她](?!们)")
# what a person is called by in the news, after the body they work for (首席执行官, 副局长, 主教练, 九段)
_ZH_POSTS = "|".join(sorted({
    *tx.ZH_TITLES, "执行官", "医学官", "创始人", "秘书", "秘书长", "理事长", "副局长", "副主任", "副院长", "副校长", "区长",
    "镇长", "乡长", "村支书", "分析师", "工程师", "设计师", "总工程师", "医师", "护士", "主帅", "主教练", "副教授", "讲师",
    "发言人", "负责人", "代表", "专家", "馆长", "站长", "总监", "选手", "运动员", "九段", "八段", "七段", "领队", "主编",
    "指导", "警官", "民警", "刑警",
} - {"总", "工", "某", "老"}, key=len, reverse=True))
_ZH_POST = re.compile(rf"副?(?:{_ZH_POSTS})")
_ZH_SURNAME = f"[{''.join(sorted(tx.ZH_SURNAMES))}]"
# a person in running text: a post and a name (副局长马丽华透露), or a surname and a post (邹局长)
_ZH_PERSON = re.compile(
    rf"(?:{_ZH_POSTS})(?P<name>{_ZH_SURNAME}[\u4e00-\u9fff]{{1,2}}?)(?={_ZH_SAYS}|[在，。、；：的和与等也则还曾将已对向为是于自从）)]|担任|出任)"
    rf"|(?<![\u4e00-\u9fff])(?P<short>{_ZH_SURNAME}(?:{_ZH_POSTS}))"
)


def check_speaker(claim: str, sentences: tuple[Sentence, ...]) -> tuple[list[Reason], list[Reason]]:
    """A Chinese statement given to another speaker than the page's: "华策咨询分析师郑晓宣布，天枢-3已获得…"
    where the page says "公司首席执行官陆明远表示，天枢-3已获得…" — a contradiction when both speakers are
    people told apart by name (郑晓, 陆明远), unconfirmed when they share a surname (何建章, 何思琪);
    "他表示" is whom the sentences before last named, "许指导" whom the page named so in full.
    Returns (hard, soft) reasons."""
    m = _ZH_CLAIM_SAYS.match(claim)
    if not m or not tx.is_chinese(claim):
        return [], []
    claimed, said = _speaker(m.group("speaker")), m.group("said")
    # (or a party named by its part, 房东 or 租户: told apart from another only as unconfirmed)
    party = "" if claimed else _party(m.group("speaker"))
    words = tx.content_tokens(said)
    if not (claimed or party) or len(words) < 3:
        return [], []
    # the page's sentence saying what the claim's speaker says, and where in it that begins
    best, where, score = -1, 0, 0
    need = max(2, len(words) // 2)
    for k, sentence in enumerate(sentences):
        if sum(1 for w in words if w in sentence.tokens or w in sentence.text) < max(need, score + 1):
            continue  # (a clause holds no more of the words than its sentence)
        for clause in re.finditer(r"[^，。；]+", sentence.text):
            if _ZH_SAYS_AT_END.search(clause.group(0)):
                continue  # who speaks ("江城女排主教练许文斌表示"), not what is said
            hits = sum(1 for w in words if w in clause.group(0))  # (Chinese words, read as written)
            if hits > score:
                best, where, score = k, clause.start(), hits
    if best < 0 or score < need:
        return [], []
    text = sentences[best].text
    says = _ZH_PAGE_SAYS.search(text[:where].rstrip("，：“ "))
    if not says:
        return [], []
    who, at = says.group("speaker"), says.start("speaker")
    if party:
        theirs = _party(who)
        if theirs and not _ZH_PRONOUN.search(who) and not set(theirs) & set(party):
            return [], [Reason("actor", said=party, found=theirs)]
        return [], []
    found = _speaker(who)
    if _ZH_PRONOUN.search(who):  # 他表示: the person named last before
        earlier = " ".join(s.text for s in sentences[max(0, best - 2) : best] if s.section == sentences[best].section)
        named = [*_ZH_PERSON.finditer(earlier + " " + text[:at])]
        found = (named[-1].group("name") or named[-1].group("short")) if named else ""
    if found and _title_form(found):  # 许指导: the one the page named in full with that surname (and title)
        before = " ".join(s.text for s in sentences[:best]) + " " + text[:where]
        # (jieba's people of the passage's section only: the whole page's, afresh each claim, cost too much)
        section = " ".join(s.text for s in sentences[:best] if s.section == sentences[best].section) + " " + text[:where]
        surname = _surname(found)
        full = [p for p in tx.zh_people(section) if not _title_form(p) and tx.zh_surname(p) == surname]
        title = found[len(surname) :] if found.startswith(surname) else ""
        # (the name the title followed: 梁志远研究员, not 梁嘉怡, whether or not jieba knows it)
        titled = {t.group(1) for t in re.finditer(rf"({surname}[\u4e00-\u9fff]{{1,2}}){title}", before)} - {found}
        titled |= {p for p in full if title + p in before}
        found = (titled or set(full)).pop() if len(titled or set(full)) == 1 else found
    if not found or _same_person(claimed, found):
        return [], []
    reason = [Reason("actor", said=claimed, found=found)]
    # (two of one surname are two people, but jieba's cut of a name may be the one that differs)
    return ([], reason) if _surname(claimed) == _surname(found) else (reason, [])


def _speaker(phrase: str) -> str:
    """The person who speaks in the words before a verb of saying, or "" for a body, a pronoun or
    a phrase: 草原牧歌创始人郭建军 → 郭建军, 韩立新教授 → 韩立新, 张研究员 → 张研究员, 市卫健委 → "",
    警方 → ""."""
    phrase = _bare(phrase)
    if not phrase or _ZH_PRONOUN.search(phrase) or ZH_BODY.search(phrase):
        return ""
    posts = list(_ZH_POST.finditer(phrase))
    if not posts:  # a name alone (胡蓉, 老李, 扬·德弗里斯), not a body's or a phrase's words (警方, 该项目名)
        person = phrase in tx.zh_people(phrase) or _title_form(phrase) or "·" in phrase
        return phrase if 2 <= len(phrase) <= 16 and person and not ZH_BODY_NEXT.search(phrase) else ""
    last = posts[-1]
    if last.end() < len(phrase):  # a post, then the name (马蒂亚斯·克劳森: a name from another tongue)
        name = phrase[last.end() :]
        return name if 2 <= len(name) <= 4 or ("·" in name and len(name) <= 16) else ""
    before = phrase[posts[-2].end() if len(posts) > 1 else 0 : last.start()]
    if len(before) == 1 and before in tx.ZH_SURNAMES:
        return phrase[last.start() - 1 :]  # 张研究员
    name = before[-3:] if len(before) >= 3 and before[-3] in tx.ZH_SURNAMES else before[-2:]
    return name if len(name) >= 2 and name[0] in tx.ZH_SURNAMES else ""


def _bare(phrase: str) -> str:
    """The words before a verb of saying without what sets the scene (在发布会上, 赛后, 同时) and
    without what comes before a last 的 (…的韩立新教授)."""
    return _ZH_ADJUNCT.sub("", phrase.split("的")[-1]).strip()


def _party(phrase: str) -> str:
    """A speaker named by a common word of two or three characters (房东, 租户, 警方), or ""."""
    phrase = _bare(phrase)
    return phrase if re.fullmatch(r"[\u4e00-\u9fff]{2,3}", phrase) and not _ZH_PRONOUN.search(phrase) else ""


def _same_person(a: str, b: str) -> bool:
    """Whether two speakers may be one person: the same name, or one surname with a title (冯建明
    and 冯总工, 罗副局长, 老李); two full names of one surname are two people (何建章, 何思琪)."""
    if a in b or b in a:
        return True
    return _surname(a) == _surname(b) and (_title_form(a) or _title_form(b))


def _surname(name: str) -> str:
    """A Chinese name's surname, also of 老李 and 小刘 (李, 刘)."""
    return name[1] if len(name) == 2 and name[0] in "老小" else tx.zh_surname(name)


def _title_form(name: str) -> bool:
    """Whether a Chinese name is a surname with a title (许指导, 冯总工, 王教授, 沈氏, 老李), not a full name."""
    if len(name) == 2 and name[0] in "老小" and name[1] in tx.ZH_SURNAMES:
        return True
    rest = name[len(tx.zh_surname(name)) :]
    return name[:1] in tx.ZH_SURNAMES and (rest in ("氏", "总", "工", "某", "总工", "老") or bool(_ZH_POST.fullmatch(rest)))

