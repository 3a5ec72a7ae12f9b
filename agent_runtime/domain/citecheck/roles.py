"""Who did what, and what caused what: sentences whose words are all in the source but in another
relation to each other.

- `check_roles`: who did what to whom the other way round (A sued B / B sued A) — a contradiction;
- `check_actor`: the claim gives the source's action to another actor the source names elsewhere
  (the union announced what the company announced) — at most weak;
- `check_cause`: the claim turns the source's cause into its effect (the delayed harvest caused
  the rain) — at most weak;
- `check_slot`: a Chinese claim puts a name where the anchor puts another, the words around both
  the same (草原牧歌 where the page says 北方乳业) — a contradiction, read by where the names stand
  since Chinese writes no capitals;
- `check_acts`: a Chinese act between two parties the other way round (X起诉Y / Y起诉X) — a
  contradiction;
- `check_compared`: a comparison the other way round (与A相比，B… where the page says 与B相比，A…) — a
  contradiction;

`check_actor` and `check_cause` find summary-level errors: a weak verdict asks a reader (or the judge) to look, and
never marks a sentence † on its own, so a true summary sentence read clumsily costs little.
"""

from __future__ import annotations

import re
from functools import lru_cache

import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.page import HONORIFICS, Sentence
from agent_runtime.domain.citecheck.verdict import Reason

_PASSIVE = re.compile(r"\b(?:was|were|been|being|is|are)\s+\w+(?:ed|en)\s+by\b|被|由|遭", re.I)


def check_roles(claim: str, anchor: Sentence) -> list[Reason]:
    """Who did what to whom the other way round: three content words of the claim in a row (A sued
    B) whose reverse is in the anchor (B sued A) while the claim's order is not, neither passive."""
    if bool(_PASSIVE.search(claim)) != bool(_PASSIVE.search(anchor.text)):
        return []
    mine, theirs = tx.token_sequence(claim), anchor.sequence
    ours = set(zip(theirs, theirs[1:], theirs[2:], strict=False))
    capitals = {tx.stem(w) for w in re.findall(r"\b[A-Z][A-Za-z]+", claim)}
    for a, verb, b in zip(mine, mine[1:], mine[2:], strict=False):
        english = a.isascii() or b.isascii()
        if english and not (a in capitals and b in capitals):
            continue  # in English, who did what to whom is told by names
        if a != b and (b, verb, a) in ours and (a, verb, b) not in ours:
            return [Reason("roles", said=a, found=b)]
    return []


_GENERIC = frozenset(
    ["compani", "firm", "group", "bank", "agenc", "ministri", "govern", "citi", "countri", "team", "club", "council", "court", "parti", "organis", "organiz", "univers", "institut", "fund", "board", "author", "offici", "spokesman", "spokeswoman", "spokesperson", "it", "they", "he", "she", "公司", "该公司", "集团", "政府", "部门", "该行", "其", "他", "她"]
)  # who stands for a name already given: not another actor


def _names_of(text: str) -> set[str]:
    """Who a text names, as its tokens: capitalised words (not titles such as Dr), Chinese names."""
    out = {tx.stem(w) for w in re.findall(r"\b[A-Z][A-Za-z'’-]+", text) if w.lower() not in HONORIFICS and w.lower() not in tx.STOP}
    return out | set(tx.zh_names(text)) if tx.is_chinese(text) else out


def check_actor(claim: str, clauses: list[str], page_tokens: frozenset[str]) -> list[Reason]:
    """The claim's actor is not the source's: the clause of the passage that has the claim's verb
    and what follows it ("announced 300 job cuts") gives it another named subject, while the
    claim's named actor is on the page elsewhere ("Portline announced…" next to "the Dockers' Union
    said…"). Only names count as actors: "the company" for "Tovar Motors" is the same actor."""
    if _PASSIVE.search(claim):
        return []
    mine = tx.token_sequence(claim)
    named = _names_of(claim)
    for k in range(1, min(len(mine) - 1, 4)):
        actor, verb, after = mine[k - 1], mine[k], mine[k + 1]
        if actor not in named or actor not in page_tokens:
            continue
        for clause in clauses:
            if _PASSIVE.search(clause):
                continue
            theirs = tx.token_sequence(clause)
            if verb not in theirs or after not in theirs or actor in theirs:
                continue
            where = theirs.index(verb)
            subject = theirs[where - 1] if where else ""
            if subject and subject not in mine and subject not in _GENERIC and subject in _names_of(clause):
                return [Reason("actor", said=actor, found=subject)]
    return []


# Acts between two parties, in Chinese: who sued, bought, beat, hired or led whom.
_ZH_ACTS = re.compile(
    r"(?:起诉|控告|收购|并购|兼并|击败|战胜|打败|租借|领投|投资|超过|超越|取代|接替|资助|委托|聘请|任命|签下|引进|买下|出售给)"
    r"(?![方人者额案金费])"  # (the verb, not 投资方, 收购案)
)
_ZH_CLAUSE_MARK = re.compile(r"[，。；：,;]")
_ZH_PASSIVE = re.compile(r"[被遭]")  # (not 由: 由A投资 names the doer where it stands)


def check_acts(claim: str, anchor: str) -> list[Reason]:
    """A Chinese act between two parties the other way round: "数澜云图起诉北京一家测绘软件公司" where
    the page says "北京一家测绘软件公司起诉数澜云图" — a contradiction, unless the page also says it the
    claim's way. (Who stands before a verb is read by the names of either side, jieba's and those
    read by their shape; neither side passive, 被 or 遭.)"""
    if not tx.is_chinese(claim) or not tx.is_chinese(anchor):
        return []
    for mine in _ZH_ACTS.finditer(claim):
        left, right = _sides_of(claim, mine.start(), mine.end())
        doers, done_to = _parties(left), _parties(right)
        if not doers or _ZH_PASSIVE.search(left[-6:]):
            continue
        reversed_by: tuple[str, str] | None = None  # (the claim's doer, the page's) where the page has them the other way round
        for theirs in re.finditer(re.escape(mine.group(0)), anchor):
            their_left, their_right = _sides_of(anchor, theirs.start(), theirs.end())
            if _ZH_PASSIVE.search(their_left[-6:]):
                continue
            if any(n in their_left and n not in their_right for n in doers) and any(
                n in their_right and n not in their_left for n in done_to
            ):
                return []  # the page says it the claim's way too
            swapped = [n for n in doers if n in their_right and n not in their_left]
            back = [n for n in done_to if n in their_left and n not in their_right]
            if swapped and back and reversed_by is None:
                reversed_by = swapped[0], back[0]
        if reversed_by:
            return [Reason("roles", said=reversed_by[0], found=reversed_by[1])]
    return []


def _sides_of(text: str, start: int, stop: int) -> tuple[str, str]:
    """The words of a verb's clause before and after it."""
    before = [m.end() for m in _ZH_CLAUSE_MARK.finditer(text, 0, start)]
    after = _ZH_CLAUSE_MARK.search(text, stop)
    return text[before[-1] if before else 0 : start], text[stop : after.start() if after else len(text)]


def _parties(text: str) -> list[str]:
    """The names of a stretch of Chinese text that can be a party to an act: people, places,
    bodies and companies (jieba's, and those read by their shape)."""
    return list(dict.fromkeys(n for n in [*tx.zh_names(text), *zh_bodies(text)] if len(n) >= 2))


# A comparison's yardstick and its subject ("与澜州银行相比，澜州农商行…", "Compared with Ashby, Brill…").
_COMPARED = re.compile(
    r"与([^，。；]{2,20}?)相比[，,]?\s*([^，。；]{2,30})|\b(?:[Cc]ompared (?:with|to)|[Uu]nlike|[Rr]elative to)\s+([^,]{2,40}),\s*([^,.;]{2,60})"
)


def check_compared(claim: str, anchor: Sentence) -> list[Reason]:
    """A comparison the other way round: the claim measures the page's subject against the page's
    yardstick, saying of it what the page says of its subject ("与澜州农商行相比，澜州银行的网点更多地
    深入乡镇" where the page says "与同城的澜州银行相比，澜州农商行网点更多深入乡镇") — a contradiction."""
    mine = _COMPARED.search(claim)
    if not mine:
        return []
    yardstick, subject = (g for g in mine.groups() if g is not None)
    said = tx.content_tokens(subject)
    for theirs in _COMPARED.finditer(anchor.text):
        their_yardstick, their_subject = (g for g in theirs.groups() if g is not None)
        # (同城的澜州银行, the nearby Ashby Bank: the name, not the words before it)
        their_yardstick = re.sub(r"^(?:[a-z][\w-]*\s+)+", "", their_yardstick.split("的")[-1].strip())
        if len(their_yardstick) < 2 or _same_name(yardstick, their_yardstick):
            continue
        if yardstick.lower() not in their_subject.lower() or their_yardstick.lower() not in subject.lower():
            continue
        words = said - tx.content_tokens(their_yardstick) - tx.content_tokens(yardstick)
        if words and 2 * len(words & tx.content_tokens(their_subject)) >= len(words):
            return [Reason("roles", said=yardstick, found=their_yardstick)]
    return []


def _same_name(a: str, b: str) -> bool:
    return a.lower() in b.lower() or b.lower() in a.lower()


# Causal links: (pattern, whether the cause comes before it). "X because Y": the cause is after.
_CAUSE_AFTER = r"\bbecause(?:\s+of)?\b|\bdue to\b|\bowing to\b|\bas a result of\b|\bthanks to\b|\bcaused by\b|\bdriven by\b|是因为|源于|归因于|由于"
_CAUSE_BEFORE = r"\b(?:delayed|forced|pushed|drove|boosted|damaged|disrupted|halted|triggered|sparked|fuelled|fueled)\b|\bled to\b|\blead(?:s|ing)? to\b|\bresult(?:ed|s|ing)? in\b|\bcaus(?:ed|es|ing)\b(?!\s+by)|\btrigger(?:ed|s)?\b|\bprompt(?:ed|s)?\b|\bso that\b|\btherefore\b|\bwhich meant\b|导致|造成|引发|致使|使得|因此|所以|从而|以致"
_LINK = re.compile(rf"(?P<after>{_CAUSE_AFTER})|(?P<before>{_CAUSE_BEFORE})", re.I)
# Ways a page says why that the claim's link words do not cover: "blaming", "amid", 受…影响, 为了.
_LOOSE_CAUSE = re.compile(
    r"\b(?:blam(?:e|ed|es|ing)|amid|attribut(?:e|ed|es|ing)|linked|because|reason|after|following|since|so|"
    r"in response|as|thanks|behind|cost|costs|meant|means|helped|help)\b|受[^，。]{1,12}影响|因|为了|以便|得益于|随着|由于|导致|所以|因此",
    re.I,
)
_OPENING_CAUSE = re.compile(r"^\W*(?:because(?:\s+of)?|due to|owing to|as a result of|thanks to|由于|因为|受)\s*", re.I)


def _sides(text: str) -> tuple[set[str], set[str]] | None:
    """(the cause's words, the effect's words) of a sentence with one causal link, else None."""
    opening = _OPENING_CAUSE.match(text)
    if opening:  # "Because of the rain, the harvest was late" / "由于降雨，收割推迟"
        rest = text[opening.end() :]
        parts = re.split(r"[,，;；]", rest, maxsplit=1)
        if len(parts) == 2:
            return tx.content_tokens(parts[0]), tx.content_tokens(parts[1])
        return None
    links = list(_LINK.finditer(text))
    if len(links) != 1:
        return None
    link = links[0]
    before, after = tx.content_tokens(text[: link.start()]), tx.content_tokens(text[link.end() :])
    return (after, before) if link.group("after") else (before, after)


def check_cause(claim: str, passage: list[Sentence], subject: frozenset[str] = frozenset()) -> list[Reason]:
    """Cause and effect the other way round: the claim's cause shares more words with the
    source's effect than with its cause, and its effect more with the source's cause; or a link
    the passage does not make at all: no words of cause or effect there ("A prompted B" where the
    page says A, then B), or words of one side only, besides the page's `subject` ("Tallis' 2020
    loss was caused by its recall" where the passage tells of the recall and another paragraph of
    the loss)."""
    mine = _sides(claim)
    if mine is None:
        return []
    cause, effect = mine
    words = frozenset().union(*(s.tokens for s in passage)) - subject if passage else frozenset()
    one_side = bool(cause - subject) and bool(effect - subject) and not (cause & words and effect & words)
    linked = any(_LINK.search(s.text) or _OPENING_CAUSE.match(s.text) or _LOOSE_CAUSE.search(s.text) for s in passage)
    if one_side or not linked:
        link = _OPENING_CAUSE.match(claim) or _LINK.search(claim)
        return [Reason("cause_unstated", said=link.group(0).strip() if link else "")]
    for sentence in passage:
        theirs = _sides(sentence.text)
        if theirs is None:
            continue
        their_cause, their_effect = theirs
        crossed = len(cause & their_effect) + len(effect & their_cause)
        straight = len(cause & their_cause) + len(effect & their_effect)
        if crossed >= 2 and crossed > straight and cause & their_effect and effect & their_cause:
            said = sorted(cause & their_effect)[0]
            found = sorted(effect & their_cause)[0]
            return [Reason("cause", said=said, found=found)]
    return []


# What a Chinese name of a body or place ends with (惠邻超市, 县果业发展中心, 宁川市儿童医院).
ZH_BODY = re.compile(
    r"(?:公司|集团|控股|银行|大学|学院|医院|中心|研究院|研究所|委员会|管委会|卫健委|局|厅|署|博物馆|纪念馆|图书馆|美术馆|展览馆|馆|站|厂|协会|学会|基金会|互助会|联合会|商会|促进会|联社|合作社|"
    r"俱乐部|超市|街道|区|乡|镇|村|县|湖|岛|港|桥|寺|庙|祠|宫|殿|塔|园|遗址|作业区|码头|车站|矿|中学|小学|实验室)$"
)
ZH_BODY_NEXT = re.compile(ZH_BODY.pattern.removesuffix("$"))
_ZH_FIRM_KINDS = frozenset({"公司", "集团", "控股"})  # one company, however it is called
# A description of a name already given, in the slot where a page puts its subject: not a rival.
_ZH_REFERENCE = re.compile(
    r"^(?:该|其|本|全|此|这|那|它|他|她|上述|当地|同期|同年|目前|后来|此前|随后|今年|去年)"
)
_ZH_SPEECH = re.compile(r"(?:表示|介绍|指出|认为|透露|称|说)$")
_HAN_ONLY = re.compile(r"^[\u4e00-\u9fff][\u4e00-\u9fff·]{1,14}$")  # (扬·德弗里斯)
_NOT_IN_NAMES = ("v", "p", "c", "d", "m", "r", "u", "q", "a")  # a verb, a preposition… is no part of a name
_BEFORE_NAMES = ("v", "p", "c", "d", "r", "u", "q", "x")  # what ends the words of a name, read backwards


def _after_preposition(text: str) -> str:
    """A stretch without the preposition or conjunction it opens with (据县果业发展中心: 县果业发展中心),
    as jieba reads it: 和平区 and 经济开发区 keep their first character."""
    pieces = tx.zh_pieces(text)
    return text[1:] if pieces and len(pieces[0][0]) == 1 and pieces[0][1] in ("p", "c") and len(text) >= 3 else text


@lru_cache(maxsize=8192)
def _zh_name(segment: str) -> str:
    """The name a stretch of Chinese text is, or "": its words after a last 的 (相邻的桐岭乡 is
    桐岭乡), without a verb of saying after it (市卫健委表示), when it is one of the page's kind of
    names — ending like a body or a place, or holding a word jieba takes for a name that few texts
    use (北方乳业, 江城雄狮, 乔蔚然), or one jieba has never seen — and holds no verb, preposition or
    particle (基地位于, 在此, 涉及的产品: a phrase, not a name)."""
    name = _ZH_SPEECH.sub("", re.split(r"[的，、：；]", segment.rstrip("的"))[-1])
    name = _after_preposition(name)
    if not _HAN_ONLY.match(name) or _ZH_REFERENCE.match(name):
        return ""
    if "·" in name:  # 扬·德弗里斯: a name written from another tongue
        return name
    pieces = tx.zh_pieces(name)
    if ZH_BODY.search(name) and len(name) >= 3:  # a body or a place, with no verb before its kind's word
        # (惠邻超市, whose 超市 jieba tags a verb; not 市政府决定在湖滨新区建设新馆, 是一所公办完全中学)
        return "" if any(flag.startswith(("v", "p", "c", "u", "r")) and flag != "vn" for _, flag in pieces[:-1]) else name
    if len(name) <= 3 and tx.zh_surname(name) in tx.ZH_SURNAMES and pieces[0][1].startswith("nr"):
        return name  # a person (蒋卓然: jieba reads 卓然 as a word)
    if len(pieces) == 1 and pieces[0][1] in ("ns", "nt", "j") and name[0] not in tx.ZH_THING_ENDINGS:
        return name  # a place or a body every reader knows (东盟, 欧盟, 上海; not 湖泊, a kind)
    firm = next(iter(tx.zh_firms(name)), "")
    if firm and name.startswith(firm) and name[len(firm) :] in tx.ZH_TRADES:
        return name  # a company by its trading name and trade (华夏航空)
    if any(flag.startswith(_NOT_IN_NAMES) and flag != "ad" for _, flag in pieces):
        return ""
    rare_name = any(flag in ("nr", "ns", "nt", "nz", "nrt", "nrfg") and tx.zh_frequency(word) < tx.ZH_COMMON for word, flag in pieces)
    unknown = any(len(word) >= 2 and tx.zh_frequency(word) == 0 for word, _ in pieces)
    # or a word few texts use, with another (草原 + 牧歌, 北方 + 乳业): a coined name, not a thing's word
    coined = len(pieces) >= 2 and any(len(word) >= 2 and flag.startswith("n") and tx.zh_frequency(word) < 100 for word, flag in pieces)
    return name if rare_name or unknown or coined else ""


def zh_bodies(text: str) -> list[str]:
    """The bodies a Chinese text names by their kind (省农信联社, 南澳渔船互助会, 农业农村局 of
    河阳县农业农村局: a county's bureau is named by its kind, whichever way the page writes the county)."""
    out: list[str] = []
    segments = [part for chunk in re.split(r"[，。、；：“”（）()\s]", text) for part in _parts(chunk, cut=("p", "c"))]
    for segment in segments:
        ends, at = set(), 0  # where jieba's words end: a kind ends one (not 院 of 院区, 乡 of 回乡)
        for word, _ in tx.zh_pieces(segment):
            at += len(word)
            ends.add(at)
        for m in ZH_BODY_NEXT.finditer(segment):
            if m.end() not in ends or (len(m.group(0)) == 1 and m.group(0) not in "局厅署站厂馆"):
                continue
            name = _zh_name(segment[: m.end()])
            core = re.sub(r"^[\u4e00-\u9fff]{1,3}?[省市县区]", "", name) if name else ""  # (not 黄山风景区's)
            body = core if len(core) >= 4 else name
            if body and len(body) >= 4 and body not in out:
                out.append(body)
    return out


def check_slot(claim: str, anchor: str, previous: str = "") -> tuple[list[Reason], list[Reason]]:
    """A Chinese claim that puts a name where the anchor puts another, the words before or after
    both the same: "草原牧歌2023年营业收入为215亿元" where the page says "北方乳业2023年营业收入为215亿元",
    "县中医院先后…" where it says "县人民医院先后…" — a contradiction; and where the anchor's other
    name is a speaker ("市卫健委表示，已协调…"), who may speak of the claim's, only unconfirmed. "该桥",
    "该公司" in the anchor are the bridge or company it (or the sentence before it, `previous`) last
    named. (English names are read by their capitals; Chinese writes none, and jieba misses most
    names people invent, so both are read by where they stand.) Returns (hard, soft) reasons."""
    if not tx.is_chinese(claim) or not tx.is_chinese(anchor):
        return [], []
    import difflib

    anchor = anchor[:600]  # (a table read as one sentence: its first rows are enough to line up with)
    ops = difflib.SequenceMatcher(None, claim, anchor, autojunk=False).get_opcodes()
    # stretches that differ, each with the length of what both texts share before and after it
    runs: list[list[int]] = []  # claim from, to; anchor from, to; shared before, after
    shared_before = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 >= 2:
            if runs and runs[-1][5] == 0:
                runs[-1][5] = i2 - i1
            shared_before = i2 - i1
            continue
        if runs and runs[-1][5] == 0:
            runs[-1][1], runs[-1][3] = i2, j2
        else:
            runs.append([i1, i2, j1, j2, shared_before, 0])
    for i1, i2, j1, j2, before, after in runs:
        if max(before, after) < 2:
            continue
        # the whole of two names that differ in the middle (县中医院, 县人民医院): their shared ending and place
        # (or a kind's word ending what both share after it: 海关|博物馆 and 邮政|博物馆)
        ending = ZH_BODY_NEXT.match(claim, i2) or ZH_BODY.search(claim, i2, i2 + min(after, 4))
        kind = claim[i2 : ending.end()] if ending else ""
        if kind and anchor.startswith(kind, j2) and claim[i2 + len(kind) : i2 + len(kind) + 1] not in ("长", "主", "副"):  # (局长: a title)
            i2, j2 = i2 + len(kind), j2 + len(kind)
            if i1 and j1 and claim[i1 - 1] == anchor[j1 - 1] and claim[i1 - 1] in "省市县区镇乡":
                i1, j1 = i1 - 1, j1 - 1
        quoted = _quoted(claim, i1, i2), _quoted(anchor, j1, j2)  # “乾元重宝” and “开元通宝”: the names in quotes
        # two people of one surname (何立群 where the page says 何志坚): what differs begins after it
        people = _person_in(claim, i1, i2), _person_in(anchor, j1, j2)
        if all(people) and people[0] != people[1] and people[0][0] == people[1][0]:
            said, found = people
            if not tx.zh_name_found(said, anchor):
                return [Reason("actor", said=said, found=found)], []
            continue
        if all(quoted):
            said, found = quoted
            said_text, found_text = said, found
        else:
            said_text, found_text = claim[i1:i2].strip("，、 "), anchor[j1:j2].strip("，、 ")
            said, found = (
                _first_name(said_text, anchor),
                _zh_name(found_text) or _referent(found_text, previous + anchor[: j2 - 2]),
            )
        if (not said or not found) and ZH_BODY.search(claim[i1:i2]) and ZH_BODY.search(anchor[j1:j2]) and min(before, after) >= 2:
            # two bodies whose names end where the texts agree again (西京市轨道交通|集团 and
            # 西京市交通|运输局): the whole of each name, read back from its kind
            said, found = _zh_name(claim[max(0, i2 - 14) : i2]), _zh_name(anchor[max(0, j2 - 14) : j2])
        if (
            not said or not found or said in found or found in said
            or (said[0] == found[0] and len(said) <= 4 and len(found) <= 4 and not ZH_BODY.search(said))
            or tx.zh_same_person(found, said) or tx.zh_same_person(said, found)
        ):
            continue  # (王慧敏 and 王教授, 李建国 and 老李: one person; another of one surname is the surname rule's)
        # the same name written otherwise (雄狮队 for 江城雄狮), the claim's words in another order, or the
        # claim's name in the very clause (but 县中医院 for 县人民医院: two of a kind are two)
        clause = next((c for c in re.split(r"[，；。：]", anchor) if found in c), anchor)
        own_said, own_found = ZH_BODY.sub("", said), ZH_BODY.sub("", found)  # (their kind's word is shared)
        # (but not a company for a bureau: 轨道交通集团 and 交通运输局 are two, whatever words they share)
        kinds = {k.group(0) if k else "" for k in (ZH_BODY.search(said), ZH_BODY.search(found))}
        other_kind = len(kinds) == 2 and "" not in kinds and not kinds <= _ZH_FIRM_KINDS
        if other_kind or _other_level(said, found):
            if found in claim or tx.zh_name_found(said, clause):
                continue
        elif _shares_two(own_said, own_found) or _shares_two(own_found, claim) or tx.zh_name_found(said, clause):
            continue
        speaker = bool(_ZH_SPEECH.search(found_text)) and not _ZH_SPEECH.search(said_text)
        reason = Reason("actor", said=said, found=found)
        return ([], [reason]) if speaker else ([reason], [])
    return [], []


def _person_in(text: str, start: int, stop: int) -> str:
    """The person a Chinese text names in full where text[start:stop] differs from the other text
    (何立群 of "何|立群|于1996年"; not 王教授, 沈氏), or ""."""
    for name in tx.zh_people(text):
        if len(name) > 4 or name[len(tx.zh_surname(name)) :] in (*tx.ZH_TITLES, "氏"):
            continue
        for m in re.finditer(re.escape(name), text):
            if m.start() < stop and m.end() > start:
                return name
    return ""


def _other_level(a: str, b: str) -> bool:
    """Whether two names of one body belong to places of another level (青禾县疾控中心, 省疾控中心), not
    only say more or less of one place (市人民医院, 临江市人民医院). (Two places of one level, 白石县 and
    云溪县, are not told apart here: tried, it flagged a true summary sentence and caught nothing more.)"""
    k = 0
    while k < min(len(a), len(b)) and a[-1 - k] == b[-1 - k]:
        k += 1
    first, second = a[: len(a) - k], b[: len(b) - k]
    levels = "省市县区镇乡村"
    return bool(first and second) and first[-1] in levels and second[-1] in levels


def _quoted(text: str, start: int, stop: int) -> str:
    """The name in quotes or title marks (“乾元重宝”, 《铁衣》) that text[start:stop] lies in, or ""."""
    for opening, closing in (("“", "”"), ("《", "》"), ("「", "」")):
        left, right = text.rfind(opening, 0, start + 1), text.find(closing, max(start, stop - 1))
        if left >= 0 and right >= 0 and text.find(closing, left, start) < 0 and 2 <= right - left - 1 <= 12:
            return text[left + 1 : right]
    return ""


def _first_name(segment: str, anchor: str) -> str:
    """The first name in a stretch of the claim that the anchor does not give, its parts cut where
    a preposition stands ("天骄航空在巴音塔拉机场": 天骄航空, the actor; "年代由湖南省文物考古研究院":
    the institute)."""
    names = [_zh_name(part) for part in _parts(segment) if part]
    return next((n for n in names if n and not tx.zh_name_found(n, anchor)), names[-1] if names else "")


@lru_cache(maxsize=8192)
def _parts(segment: str, cut: tuple[str, ...] = ("p",)) -> tuple[str, ...]:
    """A stretch of Chinese text cut where jieba reads a preposition (天骄航空|在|巴音塔拉机场), or
    another part of speech of `cut` (和, 与: conjunctions; not 和 of 和平区)."""
    parts, current = [], ""
    for word, flag in tx.zh_pieces(segment):
        if flag in cut and current:
            parts.append(current)
            current = ""
        elif flag not in cut:
            current += word
    return (*parts, current)


def _referent(found: str, before: str) -> str:
    """The name "该桥", "该公司" or "该校" (at the end of `found`) stands for: the last one the text
    before it gives that ends like it (江汉二桥 for 该桥; a company's, a school's name for 该公司, 该校);
    else ""."""
    kind = re.search(r"该([\u4e00-\u9fff]{1,3})$", found)
    if not kind:
        return ""
    ending = {
        "公司": "(?:公司|集团|控股|超市|乳业|食品|科技|银行|航空)",
        "校": "(?:大学|学院|中学|小学|学校)",
    }.get(kind.group(1), re.escape(kind.group(1)))
    found_before = list(re.finditer(ending, before))
    if not found_before:
        return ""
    last = found_before[-1]
    pieces = list(tx.zh_pieces(before[: last.start()]))
    name = last.group(0)
    # the words before it that can be part of a name (江汉 and 二 of 江汉二桥; not 另建)
    while pieces and (not pieces[-1][1].startswith(_BEFORE_NAMES) or (pieces[-1][1] == "m" and not pieces[-1][0].isdigit())):
        name = pieces.pop()[0] + name
        if len(name) > 8:
            return ""
    return _zh_name(name)


def _shares_two(name: str, text: str) -> bool:
    """Whether two characters in a row of `name` are in `text`."""
    return any(name[k : k + 2] in text for k in range(len(name) - 1))
