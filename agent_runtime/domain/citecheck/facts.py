"""Facts of a sentence: quantities, dates and ordinals, each with the bound it is stated with.

A quantity is a count, an amount or a share: ``134``, ``1,200`` = ``1.2 thousand`` = ``1200``,
``3.5亿`` = ``350 million``, ``三千`` = ``3000``, ``1.2万`` = ``12000``, ``14%`` = ``14 percent`` =
``百分之十四``, ``两成`` = ``20%``, ``three quarters`` = ``75%``; number words from two to ninety-nine.
A date is a year, a month or a day (``2026-03-04`` = ``March 4, 2026`` = ``2026年3月4日``;
``二〇一九年`` = ``2019``). An ordinal is first, 3rd, 第三, 首次.

A bound is how the claim states it: ``more than 120`` (> 120), ``at least``, ``under 3,000``
(< 3000), ``up to``, ``about 40`` (within 10%), ``nearly half`` (85–100% of it), ``before May 2021``,
``by the end of 2019``, ``as of 1 May``, ``since 2015``; in Chinese 超过, 逾, 不到, 不足, 近, 约,
左右, 以上, 以下, 截至, 以前, 以后. `satisfies(claimed, stated)` tests the source's value against it.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Bound = Literal["eq", "gt", "ge", "lt", "le", "approx", "nearly"]
Kind = Literal["number", "percent", "ordinal", "duration"]

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2,
    "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11,
    "dec": 12,
}  # fmt: skip
_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12, "hundred": 100,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "twentieth": 20, "hundredth": 100,
}  # fmt: skip
_FRACTIONS = {
    "half": 50.0, "a third": 100 / 3, "one third": 100 / 3, "one-third": 100 / 3, "a quarter": 25.0,
    "one quarter": 25.0, "one-quarter": 25.0, "two thirds": 200 / 3, "two-thirds": 200 / 3,
    "three quarters": 75.0, "three-quarters": 75.0, "one in five": 20.0, "one in four": 25.0,
    "one in three": 100 / 3, "one in ten": 10.0, "a fifth": 20.0, "one fifth": 20.0, "a tenth": 10.0,
}  # fmt: skip
# two-fifths, three fifths, seven-tenths, five-eighths… (and "three in five")
_FRACTIONS |= {
    f"{numerator}{joint}{name}s": 100 * n / d
    for d, name in ((5, "fifth"), (6, "sixth"), (8, "eighth"), (10, "tenth"))
    for n, numerator in enumerate(("two", "three", "four", "five", "six", "seven", "eight", "nine"), start=2)
    if n < d
    for joint in ("-", " ")
} | {f"{numerator} in {whole}": 100 * n / d for n, numerator in ((2, "two"), (3, "three"), (4, "four")) for d, whole in ((3, "three"), (4, "four"), (5, "five"), (10, "ten")) if n < d}
_SCALE = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "mln": 1e6, "billion": 1e9,
    "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12, "万": 1e4, "亿": 1e8, "千": 1e3, "百万": 1e6,
    "万亿": 1e12, "千万": 1e7, "百": 1e2,
}  # fmt: skip
_ZH_DIGIT = {"零": 0, "〇": 0, "○": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000}
_ZH_NUM = "零〇○一二两三四五六七八九十百千万亿"
_ZH_MEASURE = "个家名年月日号倍次人项种位条所座台辆只成岁天周%％亿万千百元美股批轮期届架艘公米吨头户间处例"

# Bound cues, read at the end of the text before a number (or a date), and after it.
_BEFORE = [
    ("gt", r"more than|over|above|in excess of|upwards of|exceed(?:ed|ing|s)?|topp(?:ed|ing)|greater than|higher than|larger than|beyond|超过|超出|逾|多于|高于|大于|突破"),
    ("ge", r"at least|no fewer than|no less than|a minimum of|minimum of|至少|不少于|不低于|最少"),
    ("nearly", r"nearly|almost|just under|just shy of|not quite|close to|将近|接近|近|差不多|几乎"),
    ("lt", r"less than|fewer than|under|below|lower than|short of|不到|不足|少于|低于|小于|未满|未达"),
    ("le", r"up to|as many as|as much as|at most|no more than|a maximum of|maximum of|as high as|不超过|最多|至多|不高于"),
    ("approx", r"about|around|roughly|approximately|some|circa|an estimated|estimated|or so|约为|约合|约达|约有|约|大约|大概|估计|预计"),
]  # fmt: skip
_AFTER = [
    ("gt", r"^\s*(?:多|余|有余|以上|多万|多亿)"),
    ("le", r"^\s*(?:以下|以内)"),
    ("approx", r"^\s*(?:左右|上下|or so)"),
    ("ge", r"^\s*or more"),
]
# a currency written before its amount, by its code (case as written: "an amateur 3 times" is no EUR)
_CODE = r"(?<![A-Za-z])(US\$|A\$|C\$|NZ\$|HK\$|USD|EUR|GBP|CNY|RMB|AUD|CAD|NZD|HKD|JPY|CHF)"
# (a dollar is a dollar: a page's "(A$m)" column and a claim's "A$76 million" must read alike, and
# the check does not tell one country's dollar from another's)
_CODES = {"US$": "usd", "A$": "usd", "C$": "usd", "NZ$": "usd", "HK$": "usd", "AUD": "usd", "CAD": "usd", "NZD": "usd", "HKD": "usd", "RMB": "cny"}
_BEFORE_RE = [(bound, re.compile(rf"(?<![A-Za-z])(?:{cue})\s*(?:[$€£¥]|{_CODE})?\s*$", re.I)) for bound, cue in _BEFORE]
_AFTER_RE = [(bound, re.compile(cue, re.I)) for bound, cue in _AFTER]
_DATE_BEFORE = [
    ("lt", r"before|prior to|earlier than|以前|之前"),
    ("le", r"by|as of|as at|up to|no later than|by the end of|by late|截至|截止|截止到"),
    ("gt", r"after|later than"),
    ("ge", r"since|from|starting|beginning|as from|自|从|自从"),
]
_DATE_AFTER = [
    ("lt", r"^\s*(?:以前|之前|前(?![一二三四五六七八九十\d]))"),
    ("ge", r"^\s*(?:以来|起|开始)"),
    ("gt", r"^\s*(?:以后|之后|后)"),
    ("le", r"^\s*(?:底|末|年底|年末)"),
]
_DATE_BEFORE_RE = [(b, re.compile(rf"(?<![A-Za-z])(?:{c})\s*(?:the\s+)?(?:end\s+of\s+|early\s+|late\s+|mid-?)?$", re.I)) for b, c in _DATE_BEFORE]
_DATE_AFTER_RE = [(b, re.compile(c)) for b, c in _DATE_AFTER]


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: float  # the precision it is written with: a rounded claim covers half a unit either side
    kind: Kind
    text: str
    bound: Bound = "eq"
    exact: bool = False  # a whole number written out in full ("1,213"): no rounding
    measure: str = ""  # what it counts: a currency sign, the word after it (stations), 人, 元…

    def compatible(self, other: Quantity) -> bool:
        """Whether two quantities could state the same fact: the same kind, and the same measure
        where both say one (134 stations and 150 stations; not £25,000 and five titles)."""
        if self.kind != other.kind:
            return False
        a, b = self.measure, other.measure
        return not a or not b or a == b or (len(a) > 3 and len(b) > 3 and a[:4] == b[:4])


@dataclass(frozen=True)
class Date:
    y: int | None
    m: int | None
    d: int | None
    text: str
    bound: Bound = "eq"


@dataclass(frozen=True)
class Facts:
    quantities: tuple[Quantity, ...]
    dates: tuple[Date, ...]

    @property
    def ordinals(self) -> tuple[Quantity, ...]:
        return tuple(q for q in self.quantities if q.kind == "ordinal")

    @property
    def amounts(self) -> tuple[Quantity, ...]:
        return tuple(q for q in self.quantities if q.kind != "ordinal")


_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ZH_YEAR = r"[零〇○一二三四五六七八九]{4}"
_DATE_PATTERNS = [
    (re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"), "ymd"),
    (re.compile(r"(?<!\d)(\d{4}|" + _ZH_YEAR + r")\s*年\s*(\d{1,2}|[一二三四五六七八九十]{1,2})\s*月(?:\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号])?"), "ymd"),
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), "mdy"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I), "dmy"),
    (re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.I), "my"),
    (re.compile(r"(?<!\d)(\d{1,2}|[一二三四五六七八九十]{1,2})\s*月\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号]"), "md"),
    # a day alone, in the month of the news it is in ("8日已派出工作组"; not "15日内", "30日以上")
    (re.compile(r"(?<![\d月.])([1-9]|[12]\d|3[01])日(?![内以之起本元])"), "d"),
    (re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?:%|percent|per cent))", re.I), "md_en"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b", re.I), "dm_en"),
    (re.compile(r"(?<!\d)(\d{4}|" + _ZH_YEAR + r")\s*年(?!\s*(?:\d{1,2}|[一二三四五六七八九十]{1,2})\s*月)(?!代)"), "y"),
    # a year after "in", "since", "by"…: a year whatever follows ("a plan adopted in 2019 closes…")
    (re.compile(
        r"(?:(?<=\bin )|(?<=\bby )|(?<=\bsince )|(?<=\buntil )|(?<=\bafter )|(?<=\bbefore )|(?<=\bduring ))"
        r"(1[89][0-9]{2}|20[0-9]{2})(?![\d%％])(?![,.]\d)(?!\s*(?:per\s*cent|percent))", re.I), "y"),
    # the second of two years joined ("the 2011 and 2021 censuses"): a year whatever noun follows
    (re.compile(r"(?:(?<=\d{4} and )|(?<=\d{4} or )|(?<=\d{4} to )|(?<=\d{4}-)|(?<=\d{4}–)|(?<=\d{4}和)|(?<=\d{4}、)|(?<=\d{4}与))(1[89][0-9]{2}|20[0-9]{2})(?![\d%％])(?![,.]\d)"), "y"),
    (re.compile(r"(?<![\d,.$€£¥])(1[89][0-9]{2}|20[0-9]{2})(?!\d|[,.]\d|\s*%)(?!\s*(?:年|[%％]|[A-Za-z]*\s*(?:per\s*cent|percent)))(?!\s+(?!years\b|seasons\b)[a-z]{2,}[a-hj-rtv-z]s\b)(?!\s*[个名人家台辆件份亿万千百元美])"), "y"),
    (re.compile(rf"\b({_MONTH_RE})\b(?!\s*\d)", re.I), "m"),
    (re.compile(r"(?<!\d)(\d{1,2}|[一二三四五六七八九十]{1,2})\s*月(?!\s*(?:\d|[一二三四五六七八九十])+\s*[日号])(?!份额)"), "m"),
]  # fmt: skip
NUMBER_RE = re.compile(r"\d+(?:[,.]\d+)*")  # where a figure written in digits stands in a text
_NUM_RE = re.compile(
    r"(?<![A-Za-z\d.])(?<![A-Za-z\u4e00-\u9fff]-)(?<!\d{4}[–/-])(\d{1,3}(?:[,，]\d{3})+|\d+)(?:\.(\d+))?"
    r"(\s*(?:%|％|percent\b|per\s+cent\b|percentage\s+points?\b|pp\b|个多?百分点))?"
    r"(?:\s*(trillion|billion|million|thousand|bn|mn|mln|tn|k|m|b|万亿|千万|百万|亿|万|千(?![米克瓦]))(?![A-Za-z]))?",
    re.I,
)
# (成: 两成 = 20%; 折 only after one digit and before what a price is: 五折优惠 = 50%, not 一波三折, 三折叠屏)
_ZH_NUM_RE = re.compile(rf"(百分之)?([{_ZH_NUM}]+)(?:点([零〇一二三四五六七八九]+))?(成|(?<![{_ZH_NUM}][{_ZH_NUM}])折(?=优惠|票|价|出售|销售|[，。、；]|$))?")
_ZH_FRACTION = re.compile(r"([一二三四五六七八九十\d]+)分之([一二三四五六七八九十\d]+)")
_WORD_NUM_RE = re.compile(
    r"\b(" + "|".join(_WORDS) + r")(?:[-\s](one|two|three|four|five|six|seven|eight|nine))?"
    r"(?:\s+(percent|per cent|hundred|thousand|million|billion|trillion))?\b",
    re.I,
)
_ORDINAL_RE = re.compile(
    r"\b(" + "|".join(_ORDINALS) + r")\b|\b(\d{1,6})(?:st|nd|rd|th)\b|第\s*(\d{1,6}|[一二两三四五六七八九十百]+)|(首)(?=[次个家位座届批场轮度例任])",
    re.I,
)
_FRACTION_RE = re.compile(r"\b(" + "|".join(sorted(_FRACTIONS, key=len, reverse=True)) + r")\b", re.I)


def zh_int(s: str) -> float | None:
    """A Chinese numeral (十四, 一千二百, 三万五千, 两亿, 二〇一九) as a number."""
    if not s:
        return None
    if len(s) >= 2 and all(c in _ZH_DIGIT for c in s):  # read digit by digit: 二〇一九
        return float("".join(str(_ZH_DIGIT[c]) for c in s))
    total = 0.0
    for big, mult in (("亿", 1e8), ("万", 1e4)):
        if big in s:
            head, s = s.split(big, 1)
            v = zh_int(head) if head else 1.0
            if v is None:
                return None
            total += v * mult
    section = 0
    digit = -1
    for ch in s:
        if ch in _ZH_DIGIT:
            digit = _ZH_DIGIT[ch]
        elif ch in _ZH_UNIT:
            section += (digit if digit >= 0 else 1) * _ZH_UNIT[ch]
            digit = -1
        else:
            return None
    if digit > 0:
        section += digit
    return total + section


def _small_int(s: str) -> int:
    if s.isdigit():
        return int(s) if len(s) <= 9 else 0  # a day, a month, an ordinal: never thousands of digits
    return int(zh_int(s) or 0)


def _bound(text: str, start: int, end: int, *, date: bool = False) -> tuple[Bound, str]:
    """The bound a fact is stated with, and the fact as written with its bound ("more than 120")."""
    before = text[max(0, start - 24) : start]
    after = text[end : end + 6]
    for bound, pattern in _DATE_AFTER_RE if date else _AFTER_RE:
        m = pattern.search(after)
        if m:
            return bound, text[start:end] + m.group(0).rstrip()  # type: ignore[return-value]
    found = [(m.group(0), bound) for bound, pattern in (_DATE_BEFORE_RE if date else _BEFORE_RE) if (m := pattern.search(before))]
    if found:  # the longest cue: 不超过 (at most), not 超过 (more than)
        cue, bound = max(found, key=lambda item: len(item[0].strip()))
        if re.search(r"\bover\s*$", cue, re.I) and re.match(r"[\s-]*(?:years?|months?|weeks?|days?|decades?|hours?)\b", text[end:], re.I):
            return "eq", text[start:end]  # "over five years": during five years, not more than five
        if date and re.search(r"\bthe\s*$", cue, re.I) and re.match(r"\s+[a-z]{3,}", text[end:]):
            return "eq", text[start:end]  # "after the 2024 election": the year names the event, the bound is on it
        return bound, cue + text[start:end]  # type: ignore[return-value]
    return "eq", text[start:end]


@lru_cache(maxsize=16384)  # (a claim's clauses and a page's sentences are read again for each claim)
def extract(text: str, *, strict: bool) -> Facts:
    """The quantities, dates and ordinals of `text`. With `strict` (a claim), Chinese numerals and
    English number words count only where they are clearly numbers (a lone 一 or "one" never does)."""
    taken = [False] * len(text)

    def take(a: int, b: int) -> bool:
        if any(taken[a:b]):
            return False
        for k in range(a, b):
            taken[k] = True
        return True

    dates = _dates(text, take)
    quantities: list[Quantity] = []
    for m in _ORDINAL_RE.finditer(text):
        word, digits, zh, _first = m.groups()
        if word and word.lower() == "first" and re.match(r"\s*,", text[m.end() :]) and not text[: m.start()].strip():
            continue  # "First, …": a connective
        if word and word.lower() == "second" and re.match(r"s?\b", text[m.end() :]) and re.search(r"\d\s*$", text[: m.start()]):
            continue  # "30 seconds"
        if word and re.search(r"\b(?:a|one|two|three)\s+$", text[: m.start()], re.I) and (
            re.match(r"s?(?:\s+(?:of|were|was|are|is|have|had|went|came)\b|\s*[,.;:])", text[m.end() :])
            or re.search(r"\b(?:about|around|roughly|nearly|almost|over|under|just|than|some)\s+(?:a|one|two|three)\s+$", text[: m.start()], re.I)
        ):
            continue  # "a third of", "around a third were": a share, read below
        rank = _ORDINALS[word.lower()] if word else int(digits) if digits else _small_int(zh) if zh else 1
        if rank and take(m.start(), m.end()):
            quantities.append(Quantity(float(rank), 1.0, "ordinal", m.group(0), "eq", True))
    for m in _FRACTION_RE.finditer(text):
        if take(m.start(), m.end()):
            bound, said = _bound(text, m.start(), m.end())
            quantities.append(Quantity(_FRACTIONS[m.group(1).lower()], 5.0, "percent", said, bound))
    for m in _ZH_FRACTION.finditer(text):
        den, num = _small_int(m.group(1)), _small_int(m.group(2))
        if den and take(m.start(), m.end()):
            quantities.append(Quantity(100 * num / den, 2.0, "percent", *_bound(text, m.start(), m.end())[::-1]))
    for half in ("一半", "半价"):  # 半价: half the full price
        if half in text:
            k = text.index(half)
            if take(k, k + 2):
                quantities.append(Quantity(50.0, 5.0, "percent", *_bound(text, k, k + 2)[::-1]))
    for m in _NUM_RE.finditer(text):
        if any(taken[m.start() : m.end()]):
            continue
        if re.search(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+[ -]$", text[max(0, m.start() - 20) : m.start()]) and not (
            m.group(2) or m.group(3) or m.group(4)
        ) and not re.search(r"\b(?:In|By|On|At|Since|From|Until|Before|After|About|Over|Under|Nearly|Some|Around)[ -]$", text[max(0, m.start() - 8) : m.start()]) and not re.search(r"[,，]", m.group(1)):
            continue  # Apollo 11, Windows 11, Boeing 737: part of a name (never "Eastby 15,300")
        if re.match(r"号(?:线|楼|院|机组|馆|门|店|航站楼)", text[m.end() :]):
            continue  # 3号线, 2号楼: a name, not a count
        whole, frac, pct, scale = m.group(1), m.group(2), m.group(3), m.group(4)
        end = m.end()
        if scale and scale.lower() in ("m", "b", "k") and re.match(r"\s", text[m.end(1) + len(frac or "") + (1 if frac else 0) :]):
            scale, end = None, m.start(4)  # "5 m" is metres, not millions: the unit is read after the number
        value = float(re.sub(r"[,，]", "", whole) + ("." + frac if frac else ""))
        unit = 10.0 ** -(len(frac) if frac else 0)
        if scale:
            mult = _SCALE.get(scale.lower(), _SCALE.get(scale, 1.0))
            value, unit = value * mult, unit * mult
        take(m.start(), end)
        if not pct and re.match(r"\s*(?:to|-|–|—|and|至|到|~)\s*[\d.]+\s*(?:%|％|percent|per cent)", text[end:]):
            pct = "%"  # "4.25 to 4.50 percent": both ends are shares
        if not pct and text[max(0, m.start() - 3) : m.start()] == "百分之":
            pct = "%"  # 百分之10: a share written with digits
        exact = not (frac or scale or pct)
        bound, said = _bound(text, m.start(), end)
        if pct and "多" in pct:
            bound = "gt"  # 14个多百分点: more than 14 points
        quantities.append(Quantity(value, unit, "percent" if pct else "number", said.strip(), bound, exact))
    for m in _WORD_NUM_RE.finditer(text):
        if any(taken[m.start() : m.end()]):
            continue
        value = float(_WORDS[m.group(1).lower()])
        if m.group(2):
            value += {"one": 1}.get(m.group(2).lower(), _WORDS.get(m.group(2).lower(), 0))
        unit, kind = 1.0, "number"
        if m.group(3):
            scale_word = m.group(3).lower()
            if scale_word in ("percent", "per cent"):
                kind = "percent"
            else:
                value, unit = value * _SCALE[scale_word], _SCALE[scale_word]
        if strict and re.match(r"\s+(?:days?|weeks?|months?|years?|decades?|hours?|minutes?)\s+(?:later|after|earlier|before|ago)\b", text[m.end() :], re.I):
            continue  # "Ten days later": a span of time counted from another fact
        take(m.start(), m.end())
        bound, said = _bound(text, m.start(), m.end())
        quantities.append(Quantity(value, unit, kind, said, bound, True))  # type: ignore[arg-type]
    for m in _ZH_NUM_RE.finditer(text):
        if any(taken[m.start() : m.end()]):
            continue
        digits = m.group(2)
        if not m.group(1) and re.fullmatch(r"[万亿千百十]+", digits):
            continue  # 万, 百 alone are no number; 百分之十, 百分之百 are
        parsed = zh_int(digits)
        if parsed is None:
            continue
        value = parsed
        unit = 1.0
        if m.group(3):
            tail = "".join(str(_ZH_DIGIT[c]) for c in m.group(3))
            value += float("0." + tail)
            unit = 10.0 ** -len(tail)
        after = text[m.end() : m.end() + 1]
        if strict and not (m.group(1) or m.group(4)) and len(digits) == 1 and (value < 2 or not after or after not in _ZH_MEASURE):
            continue
        if not strict and value < 1:
            continue
        if not m.group(1) and not m.group(4) and len(digits) == 1 and value < 2:
            continue  # 一 in 一些, 统一, 一直: not a number
        take(m.start(), m.end())
        if m.group(4) == "折" and text[max(0, m.start() - 1) : m.start()] == "波":
            continue  # 一波三折: an idiom
        if m.group(4):  # 两成 = 20%, 五折 = 50% (of the full price), 三成五 is rare
            quantities.append(Quantity(value * 10, 5.0, "percent", *_bound(text, m.start(), m.end())[::-1]))
            continue
        kind = "percent" if m.group(1) else "number"
        bound, said = _bound(text, m.start(), m.end())
        quantities.append(Quantity(value, unit, kind, said, bound, not m.group(1)))  # type: ignore[arg-type]
    used: set[int] = set()
    return Facts(tuple(_measured(text, q, _locate(text, q.text, used)) for q in quantities), tuple(dates))


def _locate(text: str, said: str, used: set[int]) -> int:
    """Where a quantity as written stands in the text: the first place not yet given to another
    where it is a whole token (the 14 of "its 14 libraries", not the 14 of "£14m")."""
    places: list[int] = []
    at = text.find(said) if said else -1
    while at >= 0:
        places.append(at)
        at = text.find(said, at + 1)
    whole = [
        at for at in places
        if at not in used and not re.match(r"[A-Za-z\d%％]|[.,]\d", text[at + len(said) : at + len(said) + 2])
        and not re.search(r"\d[.,]?$", text[:at])
    ]  # fmt: skip
    at = (whole or [p for p in places if p not in used] or [-1])[0]
    used.add(at)
    return at


_TIME_UNITS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 30.4, "year": 365.25, "decade": 3652.5}
_ADJECTIVES = frozenset(
    """other new additional extra further more fewer full total different separate such wild young old
    small large big local foreign domestic public private linked confirmed reported registered active
    first last previous""".split()  # noqa: SIM905
)
# words that describe rather than count: 1,108 affordable homes, 11 genetically linked cases
_ADJECTIVE_ENDING = re.compile(r"(?:ly|able|ible|ical|ive|ous|ful|less)$")
_NOT_MEASURES = frozenset(
    """of in to and or the a an at on for from by than as per cent percent more less over under up
    between since after before during with within into across among against about around until till
    while when where which that who this these those was were is are be been had has have will would
    can could may might it its their his her our each every living they we he she you i came went rose fell
    grew got made took gave paid cost left remained stood reached""".split()  # noqa: SIM905
    # (a word that cannot say what a figure counts: "grew by 553 between…", "6,482 living in…")
)
_CURRENCY = {"$": "usd", "£": "gbp", "€": "eur", "¥": "cny", "元": "cny", "美元": "usd", "欧元": "eur", "英镑": "gbp", "usd": "usd", "dollar": "usd", "pound": "gbp", "euro": "eur", "yuan": "cny"}

CURRENCIES = frozenset(_CURRENCY.values()) | {"jpy", "chf"}  # the measures that are money

# Units written in several ways, read in one measure and scale (1.6 km = 1,600 m = 1.6千米 = 1.6公里;
# 650 staff = about 650 people): the group's name is the key of _UNITS.
_UNIT = re.compile(
    r"[\s-]*(?:"
    r"(?P<km2>square\s+kilomet(?:re|er)s?\b|sq\.?\s*km\b|km²|km2\b|平方千米|平方公里)"
    r"|(?P<ha>hectares?\b|ha\b|公顷)"
    r"|(?P<m2>square\s+met(?:re|er)s?\b|sq\.?\s*m\b|m²|m2\b|平方米)"
    r"|(?P<km>kilomet(?:re|er)s?\b|kms?\b|千米|公里)"
    r"|(?P<mm>millimet(?:re|er)s?\b|mm\b|毫米)|(?P<cm>centimet(?:re|er)s?\b|cm\b|厘米)"
    r"|(?P<m>met(?:re|er)s?\b|m\b(?![²2])|米)"
    r"|(?P<kg>kilo(?:gram(?:me)?)?s?\b|kg\b|千克|公斤)"
    r"|(?P<t>tonnes?\b|tons?\b|吨)"
    r"|(?P<people>(?:people|persons|staff|employees|workers|residents|inhabitants|visitors|tourists|passengers|"
    r"students|pupils|members|volunteers|spectators|adults|children)\b)"
    r")",
    re.I,
)
_UNITS = {
    "km2": ("km2", 1.0), "ha": ("km2", 0.01), "m2": ("m2", 1.0), "km": ("m", 1000.0), "m": ("m", 1.0), "mm": ("m", 0.001), "cm": ("m", 0.01),
    "kg": ("kg", 1.0), "t": ("kg", 1000.0), "people": ("peopl", 1.0),
}  # fmt: skip
# A table's column that names its cells' unit and scale: "2024年预算（亿元） 21.6", "Revenue ($m) 412".
_COLUMN_UNIT = re.compile(
    r"[（(]\s*(?:[A-Z]{1,3}(?=[$£€¥]))?([$£€¥])?\s*((?i:万亿|千万|百万|亿|万|千|million|billion|bn|thousand|m))?\s*([\u4e00-\u9fff]{1,3}|[a-z²/%]{1,4})?\s*[)）][^（()）\d]{0,2}$"
)
# A table row whose label names the unit of all its cells: "二手住房成交套数（万套）; 2021年 8.7; 2023年 9.6".
_ROW_UNIT = re.compile(
    r"[^;；]*?[（(]\s*(?:[A-Z]{1,3}(?=[$£€¥]))?([$£€¥])?\s*((?i:万亿|千万|百万|亿|万|千|million|billion|bn|thousand|m))?\s*([\u4e00-\u9fff]{1,3}|[a-z²/%]{1,4})?\s*[)）][^;；\d]*[;；]"
)
_ZH_SPAN = re.compile(r"\s*多?\s*(小时|分钟|天|个多?月|周|星期|年间|年来|年内|年中|年(?![代底末初级前后度]))")
# Chinese words of time, as a chart's unit names them (read_unit) and as a span follows a number (五年间)
_ZH_TIME = {"年": "year", "个月": "month", "月": "month", "天": "day", "日": "day", "周": "week", "小时": "hour", "分钟": "minute"}
_ZH_TIME_UNITS = {
    **{k: v for k, v in _ZH_TIME.items() if k not in ("月", "日")},
    "个多月": "month", "星期": "week", "年间": "year", "年来": "year", "年内": "year", "年中": "year",
}  # fmt: skip
UNIT_MEASURES = frozenset({"km2", "m2", "m", "kg"})  # measures that are units (a claim may write them otherwise)


def counts_things(q: Quantity) -> bool:
    """Whether a quantity counts things a word names (staff, homes, 辆), not a unit, money or a share."""
    return q.kind == "number" and q.measure not in UNIT_MEASURES | CURRENCIES


def _measured(text: str, q: Quantity, at: int) -> Quantity:
    """The quantity with what it counts; one of time (ten days, two weeks) as a duration in days.
    `at`: where it stands in the text."""
    if q.kind == "ordinal" or at < 0:
        return q
    start, end = at, at + len(q.text)
    before = text[max(0, start - 2) : start].strip()
    measure = ""
    code = re.search(rf"{_CODE}\s*$", text[max(0, start - 6) : start]) or re.search(rf"{_CODE}\s*\d", q.text)
    if code:  # "USD 38 million", "A$38 million", "EUR 2.1bn"
        measure = _CODES.get(code.group(1), code.group(1).lower())
    for sign in ("$", "£", "€", "¥"):
        if not measure and (before.endswith(sign) or re.search(rf"{re.escape(sign)}\s*\d", q.text)):  # "roughly €41 million"
            measure = _CURRENCY[sign]
    after = text[end : end + 40]
    column = None if measure or q.kind != "number" else _COLUMN_UNIT.search(text[max(0, start - 24) : start])
    if column is None and not measure and q.kind == "number":  # a table row whose first cell names the unit
        row = _ROW_UNIT.match(text)
        column = row if row and row.end() <= start else None
    if column and re.fullmatch(r"[\d,.]+", q.text):  # a table's cell under "2024年预算（亿元）": 21.6 is 21.6亿元
        sign, scale_word, unit_word = column.groups()
        if (scale_word or "").lower() == "m" and not sign:  # "Length (m)": metres; "($m)": millions
            scale_word, unit_word = None, "m"
        scale = _SCALE.get((scale_word or "").lower(), _SCALE.get(scale_word or "", 1.0))
        q = Quantity(q.value * scale, q.unit * scale, q.kind, q.text, q.bound, q.exact and scale == 1.0)
        measure = _CURRENCY.get(sign or "", "")
        after = (unit_word or "") + after
    unit = None if measure or q.kind != "number" else _UNIT.match(after)
    if unit is None and not measure and q.kind == "number" and not re.match(r"\s*[A-Za-z\u4e00-\u9fff%]", after):
        # a bare number ending a range or a change: "from about 140 kilometres to 23" (23 km)
        span = re.search(r"\d[\d,.]*\s*([A-Za-z²]+)\s+(?:[a-z]+\s+){0,4}?(?:to|and|or)\s+$", text[max(0, start - 80) : start])
        unit = _UNIT.match(" " + span.group(1)) if span else None
    if unit:  # a unit of length, area or weight, or a word for people: in one measure, one scale
        name, factor = next((_UNITS[k] for k, v in unit.groupdict().items() if v), ("", 1.0))
        return Quantity(q.value * factor, q.unit * factor, q.kind, q.text, q.bound, q.exact, name)
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", after[:30])]
    if words[:1] in (["last"], ["previous"]) and len(words) > 1 and words[1].rstrip("s") in _TIME_UNITS:
        words = []  # "1.48 million last year": when, not how long
    words = [w for w in words if w not in _ADJECTIVES and not _ADJECTIVE_ENDING.search(w)][:1]
    han = re.match(r"\s*(美元|欧元|英镑|[\u4e00-\u9fff])", after)
    # (下午3点 is 15时; 晚上 from 5 on, 夜里 from 6 on: 夜里2点 is 2时)
    part = re.search(r"(下午|傍晚|晚上|晚|夜里|夜间)\s*$", text[max(0, start - 3) : start])
    evening = re.match(r"\s*[点时](?!间|期|代|候)", after) and part and q.value >= {"下午": 1, "傍晚": 1, "晚上": 5, "晚": 5}.get(part.group(1), 6)
    if q.kind == "number" and q.value < 12 and (evening or re.match(r"\s*p\.?m\.?(?!\w)", after, re.I)):
        return dataclasses.replace(q, value=q.value + 12)  # 晚上7点, 7 p.m.: 19时, 19:00
    if measure or q.kind != "number":
        pass
    elif words and words[0] not in _NOT_MEASURES and re.match(r"[\s-]*[A-Za-z]", after):  # 11 weeks, an 11-week siege
        from agent_runtime.domain.citecheck.text import stem

        measure = _CURRENCY.get(words[0], _CURRENCY.get(stem(words[0]), stem(words[0])))  # dollars: usd
    elif zh_half := re.match(r"\s*个半(小时|月)", after):  # 一个半小时, 两个半月
        measure = "hour" if zh_half.group(1) == "小时" else "month"
        q = dataclasses.replace(q, value=q.value + 0.5)
    elif zh_time := _ZH_SPAN.match(after):  # 约2小时, 20分钟, 三个多月: a span of time
        measure = _ZH_TIME_UNITS[zh_time.group(1)]
        if re.match(r"半(?=[，。、；）)]|后|前|内|的|$)", after[zh_time.end() :]):  # 约三年半 (not 10年半导体)
            q = dataclasses.replace(q, value=q.value + 0.5)
    elif han and (han.group(1) in _ZH_MEASURE or han.group(1) in _CURRENCY):
        measure = _CURRENCY.get(han.group(1), han.group(1))
    measure = {"decad": "decade", "minut": "minute", "名": "人", "位": "人"}.get(measure, measure)  # 60余名 = 60余人
    if measure in _TIME_UNITS and q.kind == "number":
        factor = _TIME_UNITS[measure]
        return Quantity(q.value * factor, q.unit * factor, "duration", q.text, q.bound, q.exact, "day")
    return Quantity(q.value, q.unit, q.kind, q.text, q.bound, q.exact, measure)


def _dates(text: str, take: object) -> list[Date]:
    out: list[Date] = []
    for pattern, kind in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            g = m.groups()
            try:
                y: int | None
                mo: int | None
                d: int | None = None
                if kind == "ymd":
                    y, mo = _small_int(g[0]), _small_int(g[1])
                    d = _small_int(g[2]) if g[2] else None
                elif kind == "mdy":
                    y, mo, d = int(g[2]), _MONTHS[g[0].lower()], int(g[1])
                elif kind == "dmy":
                    y, mo, d = int(g[2]), _MONTHS[g[1].lower()], int(g[0])
                elif kind == "my":
                    y, mo = int(g[1]), _MONTHS[g[0].lower()]
                elif kind == "md":
                    y, mo, d = None, _small_int(g[0]), _small_int(g[1])
                elif kind == "dm_en":
                    if g[1].lower() in ("may", "mar") and not g[1][0].isupper():
                        continue
                    y, mo, d = None, _MONTHS[g[1].lower()], int(g[0])
                elif kind == "md_en":
                    if g[0].lower() in ("may", "mar") and not g[0][0].isupper():
                        continue
                    y, mo, d = None, _MONTHS[g[0].lower()], int(g[1])
                elif kind == "y":
                    y, mo = _small_int(g[0]), None
                elif kind == "d":
                    y, mo, d = None, None, int(g[0])
                else:  # a month alone
                    ambiguous = g[0].lower() in ("may", "mar", "march") and not re.search(
                        r"\b(?:in|since|by|until|from|of|early|late|mid|last|next|this|before|after)\s+$", text[max(0, m.start() - 8) : m.start()], re.I
                    )
                    if g[0].isalpha() and g[0].isascii() and (ambiguous or not g[0][0].isupper() or len(g[0]) <= 3):
                        continue
                    y, mo = None, _MONTHS[g[0].lower()] if g[0].isascii() and g[0].isalpha() else _small_int(g[0])
            except (KeyError, ValueError):
                continue
            if (mo is not None and not 1 <= mo <= 12) or (d is not None and not 1 <= d <= 31):
                continue
            if y is not None and not 1000 <= y <= 2200:
                continue
            if take(m.start(), m.end()):  # type: ignore[operator]
                bound, said = _bound(text, m.start(), m.end(), date=True)
                out.append(Date(y, mo, d, said.strip(), bound))
    return out


# ---------------------------------------------------------------------------------------------
# Comparing a claimed fact with a stated one


def candidates(claimed: Quantity, stated: tuple[Quantity, ...]) -> list[Quantity]:
    """The quantities of a sentence that could state the claimed one: compatible; of those, the ones
    with the claim's own measure when some have it (2,871 cases, not 1,940 the season before), else
    the ones of its order of magnitude when some are (8.26亿 for a claim's 8亿, not 8天)."""
    found = [p for p in stated if claimed.compatible(p)]
    same = [p for p in found if claimed.measure and p.measure and claimed.compatible(p) and p.measure[:4] == claimed.measure[:4]]
    if same:
        return same
    if claimed.value > 0:
        near = [p for p in found if claimed.value / 20 <= abs(p.value) <= claimed.value * 20]
        if near:
            return near
    # (none of the claim's measure nor of its order of magnitude: a sum of money is not stated by 五 or 九)
    return [] if claimed.measure in CURRENCIES | UNIT_MEASURES else found


def satisfies(claimed: Quantity, stated: Quantity) -> bool:
    """Whether the source's value makes the claim true: equal at the claim's precision, or within
    its bound."""
    if not claimed.compatible(stated):
        return False
    v, s = claimed.value, stated.value
    eps = 1e-9 * max(1.0, abs(v))
    half = 0.0 if claimed.exact else claimed.unit / 2
    if claimed.bound == stated.bound and abs(s - v) <= eps:
        return True
    if claimed.bound == "eq":
        if claimed.exact and stated.unit < claimed.unit and claimed.kind == stated.kind:  # a 112-metre ferry: 112.4 m rounded
            return abs(s - v) < claimed.unit / 2 - eps
        return abs(s - v) < max(half - eps, eps) or (stated.bound != "eq" and not stated.exact and abs(s - v) <= stated.unit / 2)
    if claimed.bound == "approx":
        return abs(s - v) <= 0.075 * abs(v) + half + eps
    if claimed.bound == "nearly":
        return 0.85 * v - eps <= s <= v + half + eps
    if claimed.bound == "gt":
        return s > v + eps or (s >= v - eps and stated.bound in ("gt",))
    if claimed.bound == "ge":
        return s >= v - eps
    if claimed.bound == "lt":
        return s < v - eps or (s <= v + eps and stated.bound in ("lt",))
    return s <= v + eps  # "le"


def _range(date: Date, year: int | None) -> tuple[int, int]:
    y = date.y or year or 2000
    if date.m is None:
        return datetime.date(y, 1, 1).toordinal(), datetime.date(y, 12, 31).toordinal()
    if date.d is None:
        last = (datetime.date(y + (date.m == 12), date.m % 12 + 1, 1) - datetime.timedelta(days=1)).day
        return datetime.date(y, date.m, 1).toordinal(), datetime.date(y, date.m, last).toordinal()
    try:
        day = datetime.date(y, date.m, date.d).toordinal()
    except ValueError:
        day = datetime.date(y, date.m, 28).toordinal()
    return day, day


def day_range(date: Date) -> tuple[int, int]:
    """The first and last day a date covers, as ordinal days (a date without a year is read in one
    common year, so two such dates of one page compare)."""
    return _range(date, None)


def date_satisfies(claimed: Date, stated: Date) -> bool:
    """Whether the source's date makes the claim true: the same day, month or year at the claim's
    precision (a claim's "March 2021" holds for "4 March 2021"), or within its bound."""
    if (stated.y is None and stated.m is None and stated.d is not None) or (claimed.y is None and claimed.m is None and claimed.d is not None):
        return claimed.d == stated.d and claimed.bound in ("eq", stated.bound)  # "8日": a day of a month the page sets
    if claimed.y is None and claimed.m is None:
        return False
    if claimed.y is not None and stated.y is None and (stated.m is None or claimed.m is None):
        return False  # a year is not stated by a date without one
    if claimed.m is not None and stated.m is None and claimed.bound == "eq":
        return False
    if claimed.y is None and stated.y is None and claimed.m is None:
        return False
    c_lo, c_hi = _range(claimed, stated.y)
    s_lo, s_hi = _range(stated, claimed.y)
    if claimed.bound == stated.bound and claimed.bound in ("ge", "gt"):
        return c_lo == s_lo  # both "since": the same start (since July 2024 = since 1 July 2024)
    if claimed.bound == stated.bound and claimed.bound != "eq":
        return c_hi == s_hi  # both "by 2026": the same deadline (by 2026 = by 31 December 2026), not an earlier one
    if claimed.bound in ("eq", "approx", "nearly"):
        return c_lo <= s_lo and s_hi <= c_hi
    if claimed.bound == "lt":
        return s_hi < c_lo
    if claimed.bound == "le":
        return s_hi <= c_hi
    if claimed.bound == "gt":
        return s_lo > c_hi
    # "ge": since, from, 自…起 — when something began, which a later date the page gives does not
    # state (自6月1日起 is not "from 1 May to 16 August")
    return stated.bound in ("eq", "approx") and c_lo <= s_lo and s_hi <= c_hi


# ---------------------------------------------------------------------------------------------
# A unit as a chart names it


@dataclass(frozen=True)
class UnitReading:
    """What a chart's unit does to its values: `scale` multiplies them into the plain number a
    source's text gives (``million`` 1e6, ``亿元`` 1e8, ``years`` 365.25 days), and `kind` is the
    kind of quantity the source states them as."""

    scale: float = 1.0
    kind: Kind = "number"


_PERCENT_UNIT = re.compile(r"^\s*(?:%|％|percent|per\s*cent|百分比|百分之|pct|percentage(?:\s+points?)?|pp|个百分点)\s*$", re.I)


def read_unit(unit: str | None) -> UnitReading:
    """How a chart's `unit` ("%", "million USD", "亿元", "万辆", "years", "stations") turns its
    values into what a source states: a share, a scaled amount, a duration, or the number as it is."""
    text = (unit or "").strip()
    if not text:
        return UnitReading()
    if _PERCENT_UNIT.match(text) or re.match(r"\s*(?:%|％|percent|per\s*cent)\s+of\b", text, re.I):
        return UnitReading(1.0, "percent")  # %, and "% of GDP"
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", text)]
    for word in words:
        single = word.rstrip("s") if len(word) > 3 else word  # millions, thousands, billions of dollars
        if single in _SCALE and (len(single) > 2 or single in ("bn", "mn", "tn")):
            return UnitReading(_SCALE[single])
        if single in _TIME_UNITS and len(words) == 1:
            return UnitReading(_TIME_UNITS[single], "duration")
    money = re.search(r"[$£€¥]|\b(?:usd|eur|gbp|cny|rmb|dollars?|euros?|pounds?)\b", text, re.I)
    if re.fullmatch(r"\s*k\s*", text) or (money and re.search(r"(?:^|[\s$£€¥(（])(?:m|k)\b", text)):
        return UnitReading(1e3 if re.search(r"k\b", text) else 1e6)  # k; USD m, £m (a bare m is metres)
    han = re.search(r"(万亿|千万|百万|亿|万|千)(?![米克瓦])", text)  # 亿元, （亿元）, 单位：万辆; not 千米, 千克
    if han:
        return UnitReading(_SCALE[han.group(1)])
    for word, name in _ZH_TIME.items():
        if text == word:
            return UnitReading(_TIME_UNITS[name], "duration")
    return UnitReading()
