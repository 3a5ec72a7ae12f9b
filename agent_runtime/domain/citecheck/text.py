"""Words, for the lexical pass: content tokens, names, negations and opposite words, in English and
Chinese.

- English: words are lower-cased and stemmed with the Snowball stemmer (plural, possessive, -ing,
  -ed: ``stations`` = ``station``), a few common synonyms share one token, and a demonym is its
  country (``Norwegian`` = ``Norway``).
- Chinese: words come from jieba's segmentation (its dictionary ships inside the package; nothing is
  downloaded), and a claim's names from jieba's part-of-speech tags (person, place, organisation).

jieba and the stemmer are imported on first use: the CLI's start does not pay for them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any

from agent_runtime.domain.citecheck.claims import is_han

_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ][A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ'’&-]*")  # Díaz, Skłodowska
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")

STOP = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "most", "my", "myself", "nor", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "said", "says", "say", "according", "per", "cent", "percent", "year", "years", "one", "however", "since", "amid", "among", "around", "within", "across", "toward", "towards", "upon", "yet", "still", "even", "may", "might", "shall", "via", "like", "thousand", "million", "billion", "trillion", "hundred", "bn", "mn", "mln", "tn", "overall", "meanwhile", "later", "earlier", "today", "yesterday", "also", "total", "number", "amount", "including", "included", "over", "under", "above", "below", "nearly", "almost", "least", "fewer", "less", "more", "than", "roughly", "approximately", "excess", "upwards", "exceed", "exceeded", "exceeding", "exceeds"]
)
# Sentence openers that are ordinary words, never names, though capitalised ("Officials said …").
OPENERS = frozenset(
    ["officials", "experts", "researchers", "scientists", "analysts", "critics", "residents", "authorities", "police", "investors", "doctors", "teachers", "students", "parents", "patients", "workers", "voters", "lawmakers", "regulators", "prosecutors", "engineers", "economists", "historians", "archaeologists", "astronomers", "farmers", "fans", "shares", "sales", "prices", "revenue", "profits", "exports", "imports", "production", "demand", "inflation", "unemployment", "data", "figures", "results", "studies", "reports", "records", "documents", "sources", "observers", "supporters", "opponents", "members", "leaders", "executives", "employees", "staff", "customers", "consumers", "users", "visitors", "tourists", "citizens", "people", "children", "adults", "women", "men", "families", "companies", "firms", "banks", "governments", "ministers", "judges", "courts", "juries", "witnesses", "survivors", "victims", "fighters", "troops", "soldiers", "officers", "engineers", "developers", "designers", "organisers", "organizers", "campaigners", "activists", "protesters", "drivers", "passengers", "pilots", "crews", "players", "coaches", "teams", "clubs", "managers", "owners", "tenants", "landlords", "buyers", "sellers", "traders", "growers", "builders", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "several", "many", "most", "some", "few", "both", "all", "each", "every", "no", "last", "next", "first", "second", "third", "this", "that", "these", "those", "such", "its", "their", "his", "her", "our", "after", "before", "during", "since", "until", "while", "when", "once", "although", "though", "despite", "because", "as", "by", "in", "on", "at", "for", "from", "with", "without", "under", "over", "about", "around", "nearly", "almost", "roughly", "approximately", "more", "less", "only", "just", "still", "even", "then", "thus", "hence", "therefore", "instead", "together", "altogether", "overall", "meanwhile", "later", "earlier", "today", "yesterday", "tomorrow", "currently", "recently", "previously", "initially", "eventually", "finally", "ultimately", "additionally", "moreover", "furthermore", "however", "nevertheless", "nonetheless", "notably", "indeed", "similarly", "likewise", "consequently", "accordingly", "specifically", "generally", "typically", "altogether", "according", "based", "given", "following", "within", "across", "between", "among"]
)
ZH_STOP = frozenset(
    ["的", "了", "和", "与", "及", "在", "是", "也", "而", "并", "就", "都", "这", "那", "其", "之", "于", "对", "从", "把", "被", "将", "为", "以", "等", "个", "该", "此", "其中", "已", "已经", "有", "由", "向", "到", "共", "约", "达", "为此", "此后", "随后", "同时", "与此同时", "总体", "总体而言", "总体来看", "总的来看", "据", "据悉", "据介绍", "据报道", "报道", "介绍", "表示", "称", "指出", "认为", "方面", "目前", "当前", "其间", "期间", "之后", "之前", "以来", "此外", "另外", "还", "又", "再", "并且", "而且", "但", "但是", "不过", "然而", "因此", "所以", "因为", "由于", "如果", "虽然", "尽管", "即", "即便", "今年", "去年", "明年", "上年", "当年", "记者", "消息", "一些", "一个", "这一", "这个", "那个", "各", "每", "多", "更", "最", "较", "很", "非常", "相关", "进行", "开展", "实现", "作为", "通过", "根据", "按照", "对于", "关于", "年", "月", "日", "号", "超过", "逾", "不到", "不足", "近", "将近", "接近", "约", "大约", "左右", "以上", "以下", "截至", "截止", "以前", "之前", "以后", "之后", "多达", "高达", "至少", "不少于", "不低于", "最多", "至多", "多", "余"]
)
SYNONYMS = {
    "hand": "deliv", "plane": "aircraft", "goal": "target", "climb": "rise", "grow": "rise", "grew": "rise",
    "rose": "rise", "increas": "rise", "jump": "rise", "gain": "rise", "fell": "fall", "drop": "fall",
    "declin": "fall", "decreas": "fall", "firm": "compani", "project": "expect", "forecast": "expect",
    "lift": "rise", "hit": "reach", "biggest": "largest", "purchas": "buy", "bought": "buy", "stay": "remain",
    "kept": "hold", "keep": "hold", "held": "hold", "lower": "cut", "reduc": "cut", "begin": "start",
    "began": "start", "aim": "target", "intend": "plan", "centr": "center", "programm": "program",
    "labour": "labor", "kill": "die", "death": "die", "dead": "die", "built": "build", "construct": "build",
    "complet": "finish", "doubl": "twice", "sought": "seek", "won": "win", "victori": "win", "defeat": "beat",
    "lost": "lose", "loss": "lose", "approv": "approv", "passag": "pass", "enact": "pass", "launch": "start",
    "introduc": "start", "rule": "decid", "ruling": "decid", "decis": "decid", "said": "say", "told": "say",
    "announc": "say", "state": "say", "show": "find", "found": "find", "reveal": "find", "indic": "find",
    "larg": "big", "huge": "big", "major": "big", "small": "littl", "tini": "littl", "citi": "town",
    "rais": "rise", "expans": "expand", "growth": "rise", "particip": "take", "receiv": "get", "obtain": "get",
    "earn": "get", "made": "make", "produc": "make", "manufactur": "make", "employ": "hire", "recruit": "hire",
    "job": "work", "occur": "happen", "took": "take", "nation": "countri", "state-own": "state",
    "depth": "deep", "deepest": "deep", "length": "long", "longest": "long", "width": "wide", "widest": "wide",
    "height": "high", "highest": "high", "tallest": "tall", "breadth": "broad",
}  # fmt: skip
# Countries and their demonyms, where one is not the other plus -n/-an/-ian/-ese/-i.
_DEMONYMS = {
    "france": "french", "netherlands": "dutch", "holland": "dutch", "britain": "british", "uk": "british",
    "england": "english", "wales": "welsh", "scotland": "scottish", "ireland": "irish", "denmark": "danish",
    "finland": "finnish", "sweden": "swedish", "norway": "norwegian", "poland": "polish", "spain": "spanish",
    "switzerland": "swiss", "turkey": "turkish", "greece": "greek", "iceland": "icelandic", "china": "chinese",
    "thailand": "thai", "vietnam": "vietnamese", "philippines": "filipino", "peru": "peruvian",
    "portugal": "portuguese", "germany": "german", "us": "american", "usa": "american", "america": "american",
    "new zealand": "new zealander", "iraq": "iraqi", "pakistan": "pakistani", "bangladesh": "bangladeshi",
    "afghanistan": "afghan", "czechia": "czech", "slovakia": "slovak", "croatia": "croatian", "serbia": "serbian",
    "cyprus": "cypriot", "madagascar": "malagasy", "monaco": "monegasque", "yemen": "yemeni", "israel": "israeli",
    "kuwait": "kuwaiti", "qatar": "qatari", "oman": "omani", "somalia": "somali", "argentina": "argentine",
    "lebanon": "lebanese", "sudan": "sudanese", "nepal": "nepalese", "taiwan": "taiwanese", "japan": "japanese",
}  # fmt: skip
_ZH_ALIASES = {
    "我国": "中国", "中方": "中国", "国内": "中国", "美方": "美国", "日方": "日本", "俄方": "俄罗斯", "英方": "英国",
    "欧方": "欧盟", "沪": "上海", "京": "北京", "粤": "广东", "央行": "人民银行",
}  # fmt: skip

NEGATIONS_EN = frozenset(
    ["not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot", "unable", "fail", "failed", "fails", "failing", "lack", "lacks", "lacked", "lacking"]
)
NEGATIONS_ZH = frozenset(
    ["不", "没", "没有", "未", "无", "并非", "并未", "尚未", "从未", "未能", "未曾", "无法", "不能", "不会", "不再", "不是", "从不", "绝不", "毫无", "无需", "不得", "不可", "不予", "未获", "未被", "未经", "没能", "不愿", "不肯", "别", "否认", "并不", "并没有", "不必", "未予", "不曾", "无意", "拒不"]
)
# Pairs of opposite words: a claim with one side whose passage has only the other is contradicted.
# English entries are Snowball stems.
ANTONYMS_EN: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        ("win won victori", "lose lost loss defeat"),
        ("rise rose risen increas grow grew grown climb jump gain surg soar higher",
         "fall fell fallen decreas declin drop shrink shrank slump plung sank sink lower cut reduc"),
        ("approv accept grant pass allow permit endors", "reject refus deni veto ban oppos overturn"),
        ("expand widen extend", "shrink contract narrow shorten"),
        ("open reopen", "close shut"),
        ("profit surplus", "loss deficit"),
        ("hire", "fire layoff"),
        ("acquit", "convict"),
        ("success succeed", "fail failur"),
        ("support favor favour", "oppos against"),
        ("strengthen", "weaken"),
        ("appreci", "depreci"),
        ("ahead", "behind"),
        ("includ", "exclud"),
        ("exceed surpass", "short miss"),
        ("arriv", "depart"),
        ("maximum", "minimum"),
        ("accelerat", "slow"),
        ("legal", "illeg"),
        ("guilti", "innoc"),
    )
)
ANTONYMS_ZH: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("增长", "增加", "上升", "上涨", "提高", "提升", "扩大", "升高", "攀升", "回升", "增", "涨", "升", "上调", "增持"),
     ("减少", "下降", "下跌", "降低", "缩小", "下滑", "回落", "萎缩", "减", "跌", "降", "下调", "减持")),
    # a comparison is no change: "收入低于支出" says nothing against "收入增长5%"
    (("多于", "高于", "超过"), ("少于", "低于", "不及")),
    (("赢", "胜", "获胜", "战胜", "赢得", "夺冠"), ("输", "负", "败", "失利", "输给", "败给", "落败")),
    (("批准", "通过", "同意", "接受", "核准", "支持", "允许"), ("否决", "驳回", "拒绝", "反对", "禁止", "否定")),
    (("盈利", "盈余", "顺差", "利润"), ("亏损", "赤字", "逆差")),
    (("开放", "开通", "开业", "开启"), ("关闭", "停运", "停业", "关停")),
    (("加快", "加速"), ("放缓", "减速", "放慢")),
    (("延长",), ("缩短",)),
    (("走强", "升值", "走高"), ("走软", "走弱", "贬值", "走低")),
    (("扩张",), ("收缩",)),
    (("偏高",), ("偏低",)),
    (("继续", "持续"), ("暂停", "停止", "中止")),
    (("有罪",), ("无罪",)),
    (("上任", "就任"), ("辞职", "卸任", "离任")),
)  # fmt: skip


def is_chinese(text: str) -> bool:
    han = sum(1 for c in text if is_han(c))
    latin = len(_LATIN_WORD.findall(text))
    return han > 2 * latin and han >= 4


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict…" on the user's terminal
    return jieba


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """One English word's token: lower-cased, stemmed, a country for its demonym, a synonym's head."""
    w = re.sub(r"['’]s?$", "", word.lower())
    country = demonym_country(w)
    if country:
        w = country
    s: str = _stemmer().stemWord(w)
    return SYNONYMS.get(s, s)


def demonym_country(word: str) -> str:
    """``norwegian`` → ``norway``; a word that is no demonym → ``""``."""
    for country, demonym in _DEMONYMS.items():
        if word in (demonym, demonym + "s"):
            return country
    for suffix in ("ians", "ian", "ans", "an", "ese", "is", "i", "ns", "n"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            for candidate in (base, base + "a", base + "ia", base + "y", base + "e", base + "o"):
                if candidate in _COUNTRIES:
                    return candidate
    return ""


_COUNTRIES = frozenset(
    ["kenya", "italy", "canada", "brazil", "russia", "austria", "australia", "korea", "india", "indonesia", "malaysia", "nigeria", "ghana", "egypt", "morocco", "algeria", "tunisia", "libya", "ethiopia", "uganda", "tanzania", "rwanda", "zambia", "zimbabwe", "angola", "chile", "colombia", "mexico", "venezuela", "bolivia", "ecuador", "cuba", "jamaica", "haiti", "iran", "syria", "jordan", "armenia", "georgia", "ukraine", "belarus", "romania", "bulgaria", "hungary", "albania", "slovenia", "estonia", "latvia", "lithuania", "belgium", "europe", "africa", "asia", "america", "bavaria", "california", "texas", "paris", "rome", "berlin"]
)


@lru_cache(maxsize=4096)
def segment(text: str) -> tuple[str, ...]:
    """Chinese text as jieba's words (Latin words and numbers come out whole)."""
    return tuple(w for w in _jieba().cut(text) if w.strip())


def zh_alias(word: str) -> str:
    return _ZH_ALIASES.get(word, word)


def is_latin(word: str) -> bool:
    """Whether a word is written in Latin letters (Díaz, Skłodowska as well as Curie), not Chinese."""
    return word.isascii() or not _HAN_RUN.search(word)


def content_tokens(text: str) -> set[str]:
    """The words that carry meaning: English stems without stop words; Chinese words without
    function words, numbers and punctuation."""
    out: set[str] = set()
    for m in _LATIN_WORD.finditer(text):
        for part in re.split(r"[-&]", m.group(0)):
            low = part.lower().strip("'’")
            if len(low) > 1 and low not in STOP and not low.isdigit():
                out.add(stem(low))
    for run in _HAN_RUN.findall(text):
        for word in segment(run):
            if word not in ZH_STOP and not _is_zh_number(word):
                out.add(zh_alias(word))
    return out


def token_sequence(text: str) -> tuple[str, ...]:
    """The content words of `text` in order, as written (English stems, Chinese words)."""
    out: list[str] = []
    for m in re.finditer(r"[A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ][A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ'’&-]*|[\u3400-\u4dbf\u4e00-\u9fff]+", text):
        if is_latin(m.group(0)[0]):
            low = m.group(0).lower().strip("'’")
            if len(low) > 1 and low not in STOP:
                out.append(stem(low))
        else:
            out += [zh_alias(w) for w in segment(m.group(0)) if w not in ZH_STOP and not _is_zh_number(w)]
    return tuple(out)


def zh_found(word: str, text: str) -> float:
    """How well a Chinese word of the claim is found in a passage: 1 whole (or by its alias), 0.5 when
    one of its two-character pieces is, else 0."""
    if word in text or any(alias in text for alias, head in _ZH_ALIASES.items() if head == word):
        return 1.0
    if len(word) >= 3 and any(word[k : k + 2] in text for k in range(len(word) - 1)):
        return 0.5
    if len(word) == 2 and (word[0] in text and word[1] in text):
        return 0.25
    return 0.0


_ZH_NUMERAL = re.compile(r"^[\d.,%零〇一二两三四五六七八九十百千万亿]+[个名家人次倍成%]?$")


def _is_zh_number(word: str) -> bool:
    return bool(_ZH_NUMERAL.match(word))


def negation_count(text: str, about: AbstractSet[str] | None = None, other: str = "") -> int:
    """The negation words of a clause: not, never, without, failed to…; 不, 没有, 未, 无, 非…
    ("no fewer than", "not only", "不到", "不少于" are bounds or connectives, not negations).
    With `about` (the other text's words), a negation whose next words speak of none of them is
    left out: it denies something the other text does not say ("…aimed at small assemblers that
    could not afford robots" denies nothing of a claim that it was aimed at small assemblers;
    "trials showing it could treat diarrhoea without intravenous drips" nothing of one that trials
    were run). With `other` (the other text), a word that denies by its prefix ("inconsistent")
    counts where the other text denies its root with a word ("not consistent")."""
    low = text.lower().replace("’", "'")
    low = re.sub(r"\bno (?:fewer|more|less|later|earlier|longer than)\b|\bnot only\b|\bnot least\b", " ", low)
    count = 0
    for m in re.finditer(r"n't\b|[a-z]+", low):
        if m.group(0) != "n't" and m.group(0) not in NEGATIONS_EN:
            continue
        if re.match(r"(?:\s+\S+){0,7}?\s+(?:until|till)\b", low[m.end() :]):
            continue  # "did not breed there until 1998": first bred in 1998, no denial
        scope = " ".join(re.findall(r"[a-z'-]+|\d[\d,.]*", low[m.end() :])[:4])  # what it denies: the next words
        if about is None or {w for w in content_tokens(scope) if not w[0].isdigit()} & about:
            count += 1
    if other:  # "inconsistent" where the other text says "not consistent"
        denied = {stem(w) for w in re.findall(r"\b(?:not|never|no)\s+([a-z]{5,})", other.lower())}
        count += sum(1 for w in re.findall(r"\b(?:in|un|im|il|ir|non|dis)-?([a-z]{5,})", low) if stem(w) in denied)
    for run in _HAN_RUN.findall(text):
        at = 0
        for w in segment(run):
            at += len(w)
            if w == "不" and _ZH_BOUND.match(run, at):
                continue  # 不超过200元: a bound (at most), not a negation
            if _zh_negation(w) and (about is None or _zh_in_scope(w, run[at : at + 4], about)):  # (未经处理的废水: 处理)
                count += 1
    return count


_ZH_BOUND = re.compile(r"超过|超出|高于|低于|少于|多于|小于|大于|足|到|满")


def _zh_in_scope(word: str, after: str, about: AbstractSet[str]) -> bool:
    """Whether a Chinese negation speaks of one of `about`'s words: in the negation word itself
    (未获批准) or in the characters after it (没有出现死亡病例)."""
    said = word[1:] + after
    return any(a in said for a in about if a and not is_latin(a)) or bool(content_tokens(said) & about)


# Words that begin with a negating character but negate nothing (不断 = constantly, 未来 = future).
_ZH_NOT_NEGATIONS = frozenset(
    ["不断", "不少", "不过", "不仅", "不到", "不足", "不少于", "不同", "不久", "不管", "不论", "不但", "不良", "不妨", "不外", "不免", "不禁", "不料", "不时", "不止", "不满", "不安", "不利", "不适", "不幸", "未来", "未知", "未成年", "未成年人", "无论", "无人机", "无线", "无疑", "无比", "无数", "无限", "无锡", "非常", "非洲", "非法", "非遗", "没收", "无息", "无偿", "不动产", "不锈钢", "不超过", "不高于", "不低于", "不多于", "不超", "不小于", "不大于"]
)


def _zh_negation(word: str) -> bool:
    """A Chinese word that negates: one of NEGATIONS_ZH, or a short word beginning with 不, 未, 没,
    无 or 非 (未造成, 不支持, 没出现) that is not one of the words that only look so."""
    if word in NEGATIONS_ZH:
        return True
    return 2 <= len(word) <= 3 and word[0] in "不未没无非" and word not in _ZH_NOT_NEGATIONS


def opposite(claim: str, passage: str) -> tuple[str, str] | None:
    """(the claim's word, the passage's opposite word) when the claim goes one way and the passage
    only the other (rose / fell, won / lost, 增长 / 下降, 批准 / 否决), else None."""
    claim_stems = {stem(w) for w in _LATIN_WORD.findall(claim)} | set(_raw_words(claim))
    passage_stems = {stem(w) for w in _LATIN_WORD.findall(passage)} | set(_raw_words(passage))
    for a, b in ANTONYMS_EN:
        for side, other in ((a, b), (b, a)):
            mine, theirs = claim_stems & side, passage_stems & other
            if mine and theirs and not (passage_stems & side) and not (claim_stems & other):
                return sorted(mine)[0], sorted(theirs)[0]
    # the way a rate goes (增速降至2.1%, 涨幅回落) is not the way the level goes (经济增长2.1%): a rate the
    # passage does not speak of leaves the claim's word for it out
    if not _RATE.search(passage):
        claim = _RATE.sub("，", claim)
    # "被…超过" (overtaken by) is 低于 (below), as "was overtaken by" is below
    claim, passage = (_PASSIVE_PASS.sub(r"低于\1", t) for t in (claim, passage))
    for up, down in ANTONYMS_ZH:
        for way, back in ((up, down), (down, up)):
            said, found = _zh_has(claim, way), _zh_has(passage, back)
            if said and found and not _zh_has(passage, way) and not _zh_has(claim, back):
                return said[0], found[0]
    return None


# A growth rate and the word after it (增速降至, 涨幅回落).
_RATE = re.compile(r"(?:增速|增幅|涨幅|增长率|增长速度|降幅|跌幅)[\u4e00-\u9fff]{0,2}")
# (the verb ending its clause, and no verb of its own between: not 被检出镉含量超过国家标准)
_PASSIVE_PASS = re.compile(r"被([^，。；检认评查测判发]{1,12}?)(?:超过|超越|反超|赶超)(?=[，。；]|$)")


def _zh_has(text: str, words: tuple[str, ...]) -> list[str]:
    """The words of a set in a Chinese text: a word of two or more characters anywhere (jieba may
    join 成本上升), a single character only as a word of its own."""
    tokens = set(_zh_words(text))
    return [w for w in words if (w in text if len(w) > 1 else w in tokens)]


def _raw_words(text: str) -> list[str]:
    return [w.lower() for w in _LATIN_WORD.findall(text)]


def _zh_words(text: str) -> list[str]:
    return [w for run in _HAN_RUN.findall(text) for w in segment(run)]


@lru_cache(maxsize=8192)
def zh_pieces(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words of a Chinese text with their parts of speech (流行|v, 湘中|ns…), read once."""
    import jieba.posseg

    _jieba()
    return tuple((pair.word, pair.flag) for pair in jieba.posseg.cut(text))


@lru_cache(maxsize=4096)
def zh_names(text: str) -> tuple[str, ...]:
    """The names of a Chinese claim: jieba's person, place and organisation words."""
    out: list[str] = []
    previous, previous_flag = "", ""
    for word, flag in zh_pieces(text):
        if flag in ("ns", "nt") and len(word) >= 3 and word[0] in "于和与及在的":
            word = word[1:]  # 流行于湘中 → 湘中, 绿茶和白茶: jieba keeps the function word
        if flag in ("nr", "nrt", "nrfg", "ns", "nt") and len(word) >= 2:
            # jieba cuts an unknown person's name after a lone surname (刘|德昌): put it back
            # (not after a function word that is also a surname: 流行于|湘中, 绿茶和|白茶)
            lone = len(previous) == 1 and previous in ZH_SURNAMES and previous_flag not in ("c", "p", "u") and (
                flag.startswith("nr") or previous not in "于和与及向从为以由将"
            )
            if len(word) == 2 and lone:
                out = [o for o in out if o != previous]
                word = previous + word
            if word not in out:
                out.append(word)
        previous, previous_flag = word, flag
    out += [firm for firm in zh_firms(text) if firm not in out and not any(firm in known for known in out)]
    for pattern in (_ZH_ORG, _ZH_SPEAKER):
        for m in pattern.finditer(text):
            name = m.group(1).lstrip("的了和与及在是也而并就都这那其之于对从把被将为以等据称由向")
            if len(name) >= 2 and name not in out and not any(name in known for known in out):
                out.append(name)
    # a line, a building or a unit by its number (2号线, 3号楼, 1号机组): a name, not a count
    out += [m.group(0) for m in ZH_NUMBERED.finditer(text) if m.group(0) not in out]
    return tuple(out)


ZH_NUMBERED = re.compile(r"(?<![\d.])(\d{1,3})号(?:线|楼|院|机组|馆|门|店|航站楼|泊位|码头)")


def _zh_numeral(n: int) -> str:
    """A number under a hundred in Chinese numerals (1 → 一, 12 → 十二, 30 → 三十)."""
    digits = "零一二三四五六七八九"
    if n < 10:
        return digits[n]
    tens, ones = divmod(n, 10)
    return (digits[tens] if tens > 1 else "") + "十" + (digits[ones] if ones else "") if n < 100 else str(n)


# A company's trade after its name (朔方航空, 乐源食品, 澜图科技): jieba knows few such names.
ZH_TRADES = frozenset(
    ["公司", "集团", "银行", "航空", "科技", "食品", "乳业", "矿业", "电子", "汽车", "能源", "医药", "药业", "物流", "传媒", "地产", "置业", "证券", "保险", "电气", "机械", "化工", "钢铁", "建工", "控股", "实业", "电力", "水务", "燃气", "通信", "软件", "生物", "农业", "牧业", "酒业", "纺织", "影视", "航运", "港务", "重工", "光伏",
     "智能", "资本", "创投", "动力", "新材", "财险", "农险", "寿险", "信托"]
)
# the parts of speech of a trading name's pieces: nouns, names, abbreviations, and the lone
# characters jieba leaves of a name it does not know (澳|驰|智|行)
_ZH_BRAND = frozenset({"n", "nr", "nrt", "nrfg", "ns", "nt", "nz", "j", "ng", "vg", "f", "s"})


def zh_firms(text: str) -> list[str]:
    """The trading names before a trade in a Chinese text (朔方 of 朔方航空; not 该 of 该公司,
    随后 of 随后禾丰乳业 or 影视 of 影视公司)."""
    pieces = zh_pieces(text)
    out = []
    for k, (word, _) in enumerate(pieces):
        if word not in ZH_TRADES or (k and pieces[k - 1][0] in ZH_TRADES):
            continue
        brand = ""
        j = k - 1
        while j >= 0:
            piece, flag = pieces[j]
            # (a word jieba guesses, 安伴 of 安伴科技, right before the trade)
            coined = j == k - 1 and len(piece) >= 2 and zh_frequency(piece) == 0
            if (flag not in _ZH_BRAND and not coined) or len(brand) + len(piece) > 4 or not _HAN_RUN.fullmatch(piece):
                break
            if len(piece) > 1 and flag not in ("nr", "nrt", "nrfg", "ns", "nt", "nz") and zh_frequency(piece) >= ZH_COMMON:
                break
            brand = piece + brand
            j -= 1
        if len(brand) >= 2:
            out.append(brand)
    return out


_ZH_ORG = re.compile(r"(?:^|[，。、；：“\s的在与和])([\u4e00-\u9fff]{2,4}?)(?:公司|集团|银行|大学)")
_ZH_SPEAKER = re.compile(
    r"(?:发言人|行长|董事长|创始人|主席|总裁|首席执行官|局长|部长|总经理|院长|教授|主任|总理|总统|市长|省长|CEO)"
    r"([\u4e00-\u9fff]{2,3}?)(?:表示|称|宣布|指出|认为|透露|介绍|说)"
)
# English acronyms a source may spell out.
ACRONYMS = {
    "gdp": ("gross domestic product", "国内生产总值"), "ai": ("artificial intelligence", "人工智能"),
    "fed": ("federal reserve",), "us": ("united states", "america"), "uk": ("united kingdom", "britain"),
    "eu": ("european union",), "cpi": ("consumer price",), "un": ("united nations",), "who": ("world health",),
    "ecb": ("european central bank",), "imf": ("international monetary fund",), "nasa": ("space agency",),
}  # fmt: skip


def zh_name_found(name: str, text: str) -> bool:
    """A Chinese name in a passage: itself, its alias, its core without 市/省/公司/政府…, or its
    characters in order within a short span (交管局 for 交通管理局, 药监局 for 药品监督管理局)."""
    if name in text or zh_alias(name) in text or any(a in text for a, head in _ZH_ALIASES.items() if head == name):
        return True
    numbered = ZH_NUMBERED.fullmatch(name)
    if numbered:  # 1号机组 written 一号机组 or １号机组
        number, rest = numbered.group(1), name[len(numbered.group(1)) :]
        wide = number.translate({ord(d): ord(d) + 0xFEE0 for d in "0123456789"})
        return any(f"{form}{rest}" in text for form in (wide, _zh_numeral(int(number))))
    if len(name) >= 3 and re.search(".{0,4}".join(map(re.escape, name)), text):
        return True
    core = re.sub(r"(市政府|省政府|政府|特别行政区|自治区|市|省|县|区|镇|村|公司|集团|有限公司|股份)$", "", name)
    return len(core) >= 2 and core in text


# What follows a Chinese surname when a page calls a person by surname and title (张教授, 王某, 李总).
ZH_TITLES = (
    "教授", "院士", "博士", "先生", "女士", "小姐", "老师", "医生", "大夫", "主任", "部长", "局长", "处长", "书记",
    "市长", "省长", "县长", "董事长", "总经理", "经理", "总裁", "总", "工", "队长", "教练", "律师", "法官", "检察官",
    "记者", "研究员", "委员", "主席", "校长", "院长", "所长", "厂长", "行长", "会长", "将军", "同学", "师傅", "某", "老",
)  # fmt: skip
_ZH_COMPOUND_SURNAMES = ("欧阳", "司马", "诸葛", "上官", "东方", "皇甫", "尉迟", "公孙", "令狐", "慕容", "夏侯", "长孙", "宇文", "司徒")


# The commonest Chinese surnames: a person's name begins with one (a word jieba calls a person's
# name that does not is taken for a place or a common word it mistook).
ZH_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢"
    "姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文"
    "牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲"
    "翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫"
    "米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
)


@lru_cache(maxsize=4096)
def zh_people(text: str) -> tuple[str, ...]:
    """The people a Chinese text names: jieba's person names that begin with a surname, and a
    surname with a title (张教授, 刘老, 王某)."""
    out: list[str] = []
    for word, flag in zh_pieces(text):
        if (
            flag.startswith("nr") and 2 <= len(word) <= 4 and word[0] in ZH_SURNAMES and word not in out
            and not _two_common_words(word) and word[-1] not in ZH_THING_ENDINGS
        ):
            out.append(word)
    titles = "|".join(sorted(ZH_TITLES, key=len, reverse=True))
    for m in re.finditer(rf"(?<![\u4e00-\u9fff])([{''.join(ZH_SURNAMES)}])(?:{titles})|(?<=[，。；：“\s])([{''.join(ZH_SURNAMES)}])(?:{titles})", text):
        name = m.group(0)
        if name not in out and not any(name in o for o in out):
            out.append(name)
    return tuple(out)


# The last characters of a place or a building, never of a person's name: jieba tags 文峰塔 as one
ZH_THING_ENDINGS = frozenset("塔寺庙桥湖山河江街路村镇乡县市省港岛楼阁殿园馆宫墓洞泉")


ZH_COMMON = 1000  # jieba's count of a word every reader knows (农村: 11,478; 居民: 6,948)


def zh_frequency(word: str) -> int:
    """How often jieba's dictionary has met a Chinese word (0: never, as with most invented names)."""
    return int(_jieba().dt.FREQ.get(word, 0))


def _two_common_words(word: str) -> bool:
    """Whether a four-character "name" is two common words (农村居民 = 农村 + 居民), which jieba
    sometimes tags as a person because 农 is a surname."""
    return len(word) == 4 and not word.startswith(_ZH_COMPOUND_SURNAMES) and all(
        zh_frequency(half) >= ZH_COMMON for half in (word[:2], word[2:])
    )


def zh_surname(name: str) -> str:
    """The surname of a Chinese person's name (欧阳修 → 欧阳, 张三 → 张)."""
    return name[:2] if name.startswith(_ZH_COMPOUND_SURNAMES) else name[:1]


def zh_same_person(short: str, full: str) -> bool:
    """Whether `short` is how a page calls the person `full` by surname: 张教授, 王某, 老李, 小刘 for
    张三, 王五, 李四, 刘六 (a full name of two to four characters)."""
    if not 2 <= len(full) <= 4 or short == full:
        return False
    core = short.removeprefix("老").removeprefix("小") if len(short) >= 2 and short[0] in "老小" else short
    for title in sorted(ZH_TITLES, key=len, reverse=True):
        if core.endswith(title) and len(core) > len(title):
            core = core[: -len(title)]
            break
    return core == zh_surname(full) and core != short


# A Chinese proper name by its ending: a lake, a village, a ship, a bridge, a company…
ZH_PLACE_RE = re.compile(
    r"[\u4e00-\u9fff]{2,6}?(?:湖|乡|镇|村|县|号|桥|港|寺|岛|公司|集团|大学|学院|医院|银行|校区)(?![\u4e00-\u9fff]{0,1}[的])"
)


def zh_places(text: str) -> list[re.Match[str]]:
    """Chinese names of places and bodies (白沙湖, 桐岭乡, 海雁号), not 全镇, 本市, 该村 or 2023年全镇."""
    return [m for m in ZH_PLACE_RE.finditer(text) if m.group(0)[-2] not in "全本该各此每其" and m.group(0)[0] not in "年月日号"]
