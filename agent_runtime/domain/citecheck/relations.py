"""Two figures and their relation: a sentence that says how two of the source's figures relate.

A report often says what a page only implies: "the number of stations had risen to 412" where the
page gives 380 on 1 March and 412 on 8 March. The relation is checked against the page's own
figures:

- a direction (rose, fell, increased, dropped, 增长, 下降, more/fewer than): the later figure must
  be higher (lower) than the earlier one;
- a size (doubled, halved, three times as many, up 12%, by 300, 翻了一番): the ratio or the
  difference of the two figures, at the claim's precision;
- a span of time (six days later, two years after): the distance between the two dates;
- an order (the largest, the lowest, 最多): the figure against the others of its kind.

A relation the figures agree with explains the claim's change figure (12%, six days), which the
page need not state; one they contradict is a hard reason. Which figure is earlier: the one whose
sentence or clause is dated earlier, the one marked "from", "a year earlier", "previous",
"上年", "此前", else the one written first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.page import Sentence, scoped_dates, scoped_ordinal
from agent_runtime.domain.citecheck.verdict import Reason

# Words that say which way a figure went; comparatives (more, fewer, higher) are left out: in a
# report they are mostly bounds ("more than 120"), which facts.py reads.
_UP = re.compile(
    r"\b(?:r[io]s(?:e|en|es|ing)|increas(?:e|ed|es|ing)|gr[oe]w(?:n|s|ing)?|climb(?:ed|s|ing)?|jump(?:ed|s)?|"
    r"surg(?:ed|es|ing)|soar(?:ed|s|ing)?|doubl(?:ed|es|ing)|tripl(?:ed|es|ing)|quadrupl(?:ed|es|ing)|up from)\b"
    r"|增长|增加|上升|上涨|提高|提升|增至|升至|涨至|翻了?一番|翻番|翻倍|翻了?两番|增多|攀升|多出|高出|超出",
    re.I,
)
_DOWN = re.compile(
    r"\b(?:f[ae]ll(?:en|s|ing)?|dropp?(?:ed|s|ing)?|declin(?:e|ed|es|ing)|decreas(?:e|ed|es|ing)|shr[aiu]nk(?:s|ing)?|"
    r"slump(?:ed|s)?|plung(?:ed|es|ing)|halv(?:ed|es|ing)|down from)\b"
    r"|下降|减少|下跌|降低|降至|减至|跌至|减半|回落|下滑|萎缩",
    re.I,
)
# "50% more vehicles than in 2022", "350 reais more … than a year ago", "多了300人": a change and
# its direction written after the figure.
_MORE_AFTER = re.compile(
    r"^\s*(?:[A-Za-z]+\s+){0,1}(more|higher|larger|greater|bigger|longer|taller|heavier|wider|deeper|older|faster)\b(?=.*\bthan\b)"
    r"|^\s*(?:的)?(?:增幅|涨幅)",
    re.I,
)
_LESS_AFTER = re.compile(
    r"^\s*(?:[A-Za-z]+\s+){0,1}(fewer|less|lower|smaller|shorter|lighter|narrower|shallower|younger|slower|cheaper)\b(?=.*\bthan\b)"
    r"|^\s*(?:的)?(?:降幅|跌幅)",
    re.I,
)
_MULTIPLE = [
    (re.compile(r"\bdoubl(?:ed|es|ing|e)\b|翻了?一番|翻番|翻倍|增长了?一倍", re.I), 2.0),
    (re.compile(r"\btripl(?:ed|es|ing|e)\b|增长了?两倍", re.I), 3.0),
    (re.compile(r"\bquadrupl(?:ed|es|ing|e)\b|翻了?两番", re.I), 4.0),
    (re.compile(r"\bhalv(?:ed|es|ing)\b|\bhalf\s+(?:as\s+(?:many|much|large|high|long)|of\s+what)|减半|少了?一半|的一半", re.I), 0.5),
]
# "three times as many", "eight times as long as", "4倍", "八倍多", "近四倍"
_TIMES = re.compile(
    r"\b(\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten)\s*(?:times|fold)\b"
    r"|(\d+(?:\.\d+)?|[两三四五六七八九十])\s*倍(多|以上)?",
    re.I,
)
_WORD_NUMBER = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
}  # fmt: skip
_SPAN = re.compile(
    r"(?<![\d.,])\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a)\s+(day|week|month|year)s?\s+(?:later|after|afterwards|on)\b(?!\s+than)"
    r"|(?<![\d.,一二两三四五六七八九十])(\d+|[一二两三四五六七八九十])\s*(天|周|个月|年)(?:后|之后|以后)",  # (not 8.9 days on, 二十天后)
    re.I,
)
RELATIVE_TIME = re.compile(
    r"\b(?:the\s+)?(?:following|next|same|previous)\s+(?:day|week|month|year)\b|\blater\s+that\s+(?:day|week|month|year)\b"
    r"|次年|翌年|同年|当年|次月|同月|当月|次日|翌日|当天|此后\S{0,3}(?:年|月|天)",
    re.I,
)
_SPAN_WORDS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
YEAR_DAYS = 365.25
_SPAN_DAYS = {"day": 1, "week": 7, "month": 30.44, "year": YEAR_DAYS, "天": 1, "周": 7, "个月": 30.44, "年": YEAR_DAYS}
_MOST = re.compile(r"\bthe\s+(?:largest|biggest|highest|greatest|longest|tallest|deepest)\b|(?<!不)最(?:多|高|大|长)的", re.I)
_LEAST = re.compile(r"\bthe\s+(?:smallest|lowest|fewest|shortest)\b|(?<!不)最(?:少|低|小|短)的", re.I)
_EARLIER = re.compile(
    r"\b(?:from|previous|previously|earlier|before|prior|last year|a year ago|ago|compared with|compared to|down from|up from|"
    r"the year before|preceding)\b|上年|去年|此前|同期|原来|原先|由|从|前一年|上一年|上月|上季度",
    re.I,
)
_PLANNED = re.compile(r"\b(?:will|would|plans? to|aims? to|target|expected to|forecast|projected)\b|将|计划|目标|预计|力争|到20\d\d年", re.I)
_CHANGE_CUE = re.compile(
    r"(?:\b(?:by|up|down|r[io]se|increased|grew|fell|dropped|declined|decreased|climbed|jumped|gained|slipped|"
    r"slid|surged|soared|plunged|tumbled)|增长了?|增加了?|下降了?|减少了?|上涨了?|下跌了?|提高了?|降低了?|上升了?|上调了?|下调了?|扩大了?|缩小了?|回落了?|多出了?|高出了?|超出了?)\s*$",
    re.I,
)


@dataclass(frozen=True)
class Relations:
    """What the claim's relation words say about the source's figures: `hard` reasons (the figures
    disagree); `explained`, the claim's quantities (by position) the relation accounts for; and
    `words`, the claim's relation words (rose, a week later, the largest) the figures bear out,
    which the source need not write."""

    hard: tuple[Reason, ...] = ()
    explained: frozenset[int] = frozenset()
    words: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Figure:
    quantity: fx.Quantity
    sentence: int  # its sentence's position among the figures' sentences
    at: int  # its character position in that sentence
    date: int | None  # the ordinal day of the date nearest to it, if its sentence gives one
    earlier: bool  # marked as the earlier figure ("from", "a year earlier", 上年)
    planned: bool = False  # a target or forecast ("will reach 43% by 2025", 将达到): later than what is
    change: bool = False  # written as a change ("fell by 2,300", 增长12%)
    rank: float | None = None  # the ordinal it is filed under (第七次普查, the 3rd season), if any


def check_relations(claim: str, facts: fx.Facts, sentences: list[Sentence]) -> Relations:
    """The relation of the claim's figures checked against the figures of `sentences` (the passage
    and the sentences around it, in the source's order)."""
    # a name is no direction ("the Harrow Falls cycle", "Rose Bay"): capitalised words inside the
    # sentence are left out
    plain = re.sub(r"(?<=[^\W\d_] )[A-Z][a-z]+\b", lambda m: " " * len(m.group(0)), claim)
    up, down = _UP.search(plain), _DOWN.search(plain)
    worded = bool(up or down)  # a change in time (rose, fell), not only a comparison (longer than)
    for q in facts.amounts:  # "50% more … than": the direction follows the figure
        at = claim.find(q.text)
        tail = claim[at + len(q.text) :] if at >= 0 else ""
        up = up or _MORE_AFTER.search(tail)
        down = down or _LESS_AFTER.search(tail)
    factor = _factor(claim)
    if factor and re.search(r"占(?!地|领|用|据)[^，。；]{0,20}$", claim[: factor[1].start()]):
        factor = None  # "占全市病例的一半以上": a share of a whole, not half of another figure
    if factor and any(_same_multiple(factor[1].group(0), s.text) for s in sentences):
        factor = None  # "a planet 2.4 times the size of Earth": the source states the multiple itself
    if factor and not (up or down):  # "eight times as long", "约为2019年的一半"
        up, down = (factor[1], None) if factor[0] > 1 else (None, factor[1])
    most, least = _MOST.search(claim), _LEAST.search(claim)
    span = _SPAN.search(claim)
    lasting = _lasting(claim, facts, sentences)
    if not (up or down or most or least or span):
        return Relations(explained=lasting)
    figures = _figures(sentences)
    hard: list[Reason] = []
    explained: set[int] = set()
    borne: list[str] = []  # the relation phrases the figures bear out
    # A change (up 8%, by 300) is worked out from two of the source's figures; one the source also
    # states as written (up 14%) is read as any figure when the two disagree.
    changes = {k for k, q in enumerate(facts.amounts) if is_change(claim, q)}
    # a change the source states as a change ("climbed 28%") is read as written, not worked out:
    # its direction is the word the source puts before it
    written = {k for k in changes if any(f.change and fx.satisfies(facts.amounts[k], f.quantity) for f in figures)}
    changes -= written
    if bool(up) != bool(down) and written:
        hard += _check_written(up or down, bool(up), [facts.amounts[k] for k in written], figures, sentences)
    if factor:  # the number of a multiple ("eight" of "roughly eight times", 八 of 八倍多) is no level
        changes |= _within(claim, facts, factor[1])
    stated = {k for k, q in enumerate(facts.amounts) if any(fx.satisfies(q, f.quantity) for f in figures)}
    targets = [q for k, q in enumerate(facts.amounts) if k not in changes and k in stated]
    if span:
        result = _check_span(span, sentences)
        if result is not None:
            hard += result
            borne += [] if result else [span.group(0)]
            explained |= {k for k, q in enumerate(facts.amounts) if q.text and q.text in span.group(0)}
    # a level the claim gives, as the source gives it (not a change of the source's: "fell by 17%")
    to = next((f for f in figures if fx.satisfies(targets[-1], f.quantity) and not f.change), None) if targets else None
    start: _Figure | None = None
    given = [q for k, q in enumerate(facts.amounts) if k not in changes]  # the levels the claim gives itself
    if to is None and (changes or factor) and len(given) < 2:  # "rose by 8%", "4倍" alone: between two figures of one kind
        own = changes - (_within(claim, facts, factor[1]) if factor else set())  # "eight" of "eight times" is no change
        pair = _pair_for(facts.amounts[min(own)] if own else None, claim, facts, figures, sentences)
        if pair:
            start, to = pair
    elif to is None and bool(up) != bool(down):  # "the population fell between the 2011 and 2021 censuses"
        pair = _pair_for(None, claim, facts, figures, sentences)
        if pair and _dated_as(pair, facts):  # only figures the claim's own two dates point at
            start, to = pair
    order = most or least
    source_text = " ".join(sentence.text for sentence in sentences)
    if to is not None and order and not (up or down):
        if not (_MOST if most else _LEAST).search(source_text):  # a superlative the source says is read as words
            hard += _check_order(order.group(0), bool(most), to, figures)
            borne += [] if hard else [order.group(0)]
    elif to is not None and bool(up) != bool(down):
        start = start or _start(claim, facts, targets, to, figures, sum(q.kind == to.quantity.kind for q in given))
        if start is not None:
            said = up or down
            told = " ".join(sentences[k].text for k in {start.sentence, to.sentence})
            if _UP.search(told) or _DOWN.search(told):
                # the figures' own sentences say which way it went (an opposite word is caught as words)
                low, high = sorted((start, to), key=lambda f: f.quantity.value)
                first, last = (low, high) if _UP.search(told) else (high, low)
            else:
                first, last = (start, to) if start.earlier or _before(start, to) else (to, start)
                if factor:  # "A is four times B": the larger is A, whatever the order of writing
                    low, high = sorted((start, to), key=lambda f: f.quantity.value)
                    first, last = (low, high) if factor[0] > 1 else (high, low)
            path = _path(first, last)
            # "A is 2.6 metres longer than B": which figure is A's the page does not say by its order
            # of writing, so only the size is checked unless a date or "from"/"a year earlier" orders them
            ordered = worded or factor is not None or _told_apart(start, to)
            if not ordered:
                first, last = sorted((start, to), key=lambda f: f.quantity.value) if up else sorted((start, to), key=lambda f: -f.quantity.value)
            if last.quantity.value == first.quantity.value or (last.quantity.value > first.quantity.value) != bool(up):
                hard.append(Reason("direction", said=said.group(0) if said else "", found=path))
            else:
                sized = _check_size(claim, facts, changes, factor, first.quantity.value, last.quantity.value, path)
                # a change the source also states as written is left to the figures' check
                hard += [r for r in sized.hard if not any(facts.amounts[k].text == r.said for k in changes & stated)]
                explained |= sized.explained
                borne += [said.group(0)] if said and not sized.hard else []
    words = frozenset(w for phrase in borne for w in tx.content_tokens(phrase))
    return Relations(tuple(hard), frozenset(explained) | lasting, words)


_LASTING = re.compile(r"(\d{1,3})\s*(?:years?\b(?!\s+(?:later|after|earlier|ago|old|before))|年(?![前后底末初代级]))", re.I)


def _lasting(claim: str, facts: fx.Facts, sentences: list[Sentence]) -> frozenset[int]:
    """How long something lasted ("for 18 years", 长达18年), borne out by two years the passage
    gives (1974 … 1992): the claim's quantity, by position, when it fits one of their distances
    (counted both ways: 1974–1992 is 18 years, or 19 counting both ends)."""
    years = sorted({d.y for s in sentences for d in s.facts.dates if d.y is not None})
    out = set()
    for match in _LASTING.finditer(claim):
        count = int(match.group(1))
        if any(abs((b - a) - count) <= 1 for a in years for b in years if b > a):
            out |= _within(claim, facts, match)
    return frozenset(out)


def _within(claim: str, facts: fx.Facts, match: re.Match[str]) -> set[int]:
    """The claim's quantities (by position) written inside a match ("roughly eight" of "roughly
    eight times")."""
    out = set()
    for k, q in enumerate(facts.amounts):
        at = claim.find(q.text)
        if at >= 0 and at < match.end() and at + len(q.text) > match.start():
            out.add(k)
    return out


def _same_multiple(said: str, text: str) -> bool:
    """Whether a source sentence states the claim's multiple as written ("2.4 times", "4倍")."""
    number = re.match(r"[\d.]+|\w+", said)
    return bool(number) and bool(re.search(rf"(?<![\d.]){re.escape(number.group(0))}\s*(?:times|fold|倍)", text, re.I))  # type: ignore[union-attr]


def _factor(claim: str) -> tuple[float, re.Match[str]] | None:
    """The multiple a claim states: doubled (2), halved (0.5), three times as many (3), 4倍 (4)."""
    for pattern, value in _MULTIPLE:
        word = pattern.search(claim)
        if word:
            return value, word
    times = _TIMES.search(claim)
    if times:
        raw = times.group(1) or times.group(2)
        value = float(_WORD_NUMBER.get(raw.lower(), 0) or (float(raw) if re.fullmatch(r"[\d.]+", raw) else 0))
        if value:
            return value, times
    return None


def _pair_for(
    change: fx.Quantity | None, claim: str, facts: fx.Facts, figures: list[_Figure], sentences: list[Sentence]
) -> tuple[_Figure, _Figure] | None:
    """The two figures a change or a multiple relates, when the source makes it plain: of figures
    alike (one measure the claim may speak of; the change's, if it names one), the one pair that
    is best dated with the claim's two dates, then written among the claim's words, then in one
    sentence ("1,450 reais, compared with 1,100"). None when two pairs tie."""
    words = tx.content_tokens(claim)

    def foreign(measure: str) -> bool:  # 3,118 households, for a claim about the population
        return bool(measure) and measure not in words and measure not in fx.CURRENCIES | fx.UNIT_MEASURES and measure.isascii()

    pairs = _pairs(figures)
    candidates = [
        (a, b) for a, b in pairs
        if a.quantity.measure and a.quantity.measure == b.quantity.measure and not foreign(a.quantity.measure)
        and (change is None or change.kind == "percent" or not change.measure or a.quantity.measure == change.measure)
    ]  # fmt: skip
    if not candidates:  # figures that do not say what they count: of one kind, a change's if it has one
        candidates = [
            (a, b) for a, b in pairs
            if (change is None or change.kind == "percent" or (change.compatible(a.quantity) and change.compatible(b.quantity)))
            and not (a.quantity.measure and b.quantity.measure and a.quantity.measure != b.quantity.measure)
        ]  # fmt: skip
    if not candidates:
        return None
    # (a Chinese character says more than a Latin letter: its reach is shorter)
    reaches = (8, 16) if tx.is_chinese(claim) else (20, 40)

    def near(f: _Figure, reach: int) -> set[str]:  # the words written around a figure: "population of 6,482"
        text = sentences[f.sentence].text
        around = tx.content_tokens(text[max(0, f.at - reach) : f.at + len(f.quantity.text) + reach // 2])
        *earlier, clause = re.split(r"[,;:，；：]", text[: f.at])
        if not tx.content_tokens(re.sub(r"\d+\s*年|\d{4}", "", clause)):
            # "2016年旅游收入约320万元；2023年为2650万元": a figure that only gives its date carries on
            # with the words of the clause before it
            before = " ".join(earlier) or (sentences[f.sentence - 1].text if f.sentence else "")
            around |= tx.content_tokens(before[-reach:])
        return around

    def about_another(f: _Figure) -> bool:
        """Whether the figure's clause names someone or somewhere the claim does not ("同期，相邻的
        桐岭乡常住人口为6412人", "In neighbouring Elverton, …92%"): that figure is theirs."""
        text = sentences[f.sentence].text
        clause = re.split(r"[,;:，；：。]", text[: f.at])[-1]
        if re.search(r"[\u4e00-\u9fff]", clause):
            return any(m.group(0) not in claim for m in tx.zh_places(clause))
        return any(tx.stem(w.lower()) not in words for w in re.findall(r"(?<=\s)[A-Z][a-z]{2,}", clause))

    def rank(pair: tuple[_Figure, _Figure]) -> tuple[bool, int, int, int, bool]:
        shared = words & (sentences[pair[0].sentence].tokens | sentences[pair[1].sentence].tokens)
        # the claim's words right by a figure count twice: "a population of 6,482 living in 2,790
        # households" gives 6,482 for a claim about the population
        close = sum(len(words & near(f, reach)) for f in pair for reach in reaches)
        strange = sum(1 for f in pair if foreign(f.quantity.measure) or about_another(f))
        return _dated_as(pair, facts), -strange, close, len(shared), pair[0].sentence == pair[1].sentence

    ranked = sorted(candidates, key=rank, reverse=True)
    if len(ranked) > 1 and rank(ranked[0]) == rank(ranked[1]):
        return None
    return ranked[0]


def _check_written(
    said: re.Match[str] | None, up: bool, changes: list[fx.Quantity], figures: list[_Figure], sentences: list[Sentence]
) -> list[Reason]:
    """A change the claim gives as the source writes it (28%), with the opposite direction word
    before it in the source ("fell by 28%" where the source says "climbed 28%")."""
    for q in changes:
        ways = []
        for f in figures:
            if f.change and fx.satisfies(q, f.quantity):
                before = sentences[f.sentence].text[max(0, f.at - 30) : f.at]
                words = [(m.end(), True, m.group(0)) for m in _UP.finditer(before)] + [(m.end(), False, m.group(0)) for m in _DOWN.finditer(before)]
                if words:
                    ways.append(max(words))
        if ways and all(way != up for _, way, _ in ways):
            return [Reason("direction", said=said.group(0) if said else "", found=f"{ways[0][2]} {q.text}")]
    return []


def _check_order(word: str, most: bool, to: _Figure, figures: list[_Figure]) -> list[Reason]:
    """"The largest" / "the lowest": the figure against the others of its kind and measure."""
    peers = [f for f in figures if f.quantity.kind == to.quantity.kind and f.quantity.measure == to.quantity.measure]
    if len(peers) < 2 or not to.quantity.measure:  # only figures of one measure compare (28 points, not 100)
        return []
    top = (max if most else min)(peers, key=lambda f: f.quantity.value)
    if abs(top.quantity.value - to.quantity.value) <= 1e-9 * max(1.0, abs(top.quantity.value)):
        return []
    return [Reason("order", said=word, found=f"{top.quantity.text} {'>' if most else '<'} {to.quantity.text}")]


def _check_size(
    claim: str, facts: fx.Facts, changes: set[int], factor: tuple[float, re.Match[str]] | None,
    first: float, last: float, path: str,
) -> Relations:
    """The size of a change against the two figures: a percentage or a difference the claim gives,
    or a multiple (doubled, three times, 4倍; "more than doubled", 八倍多 as a lower bound)."""
    hard: list[Reason] = []
    explained: set[int] = set()
    in_factor = _within(claim, facts, factor[1]) & changes if factor else set()
    for k in changes - in_factor:
        q = facts.amounts[k]
        agrees = _size_agrees(q, first, last)
        if agrees:
            explained.add(k)
        elif agrees is not None:
            hard.append(Reason("relation", said=q.text, found=path))
    if factor:
        value, word = factor
        before = claim[: word.start()]
        at_least = bool(re.search(r"(?:more than|over|at least)\s+$|超过\s*$", before, re.I)) or word.group(0).endswith(("多", "以上"))
        at_most = bool(re.search(r"(?:less than|fewer than|under|below|at most)\s+$|不到[^，。]{0,12}$|不足[^，。]{0,12}$", before, re.I))
        nearly = bool(re.search(r"(?:nearly|almost|近|将近|接近)\s*$", claim[: word.start()], re.I))
        # 增长了两倍 is three times as many to a pedant and twice as many to most writers: both hold
        pedantic = value + 1 if "增长" in word.group(0) or re.search(r"增长了?\s*$|增加了?\s*$", claim[: word.start()]) else value
        fits = any(_ratio_agrees(v, first, last, at_least=at_least, at_most=at_most, nearly=nearly) for v in {value, pedantic})
        if fits:
            explained |= in_factor
        else:
            hard.append(Reason("relation", said=word.group(0), found=path))
    return Relations(tuple(hard), frozenset(explained))


def _dated_as(pair: tuple[_Figure, _Figure], facts: fx.Facts) -> bool:
    """Whether the two figures are dated with two different dates of the claim, or filed under two
    different ordinals of it (从第六次到第七次普查)."""
    years = [fx.day_range(d) for d in facts.dates if d.y is not None]
    a, b = pair
    ranks = {q.value for q in facts.ordinals}
    if len(ranks) >= 2 and a.rank in ranks and b.rank in ranks and a.rank != b.rank:
        return True
    if len(years) < 2 or a.date is None or b.date is None or a.date == b.date:
        return False
    return all(any(lo <= day <= hi for lo, hi in years) for day in (a.date, b.date))


def _pairs(figures: list[_Figure]) -> list[tuple[_Figure, _Figure]]:
    """Pairs of figures of one kind and measure (two levels a change could be between)."""
    return [
        (a, b) for k, a in enumerate(figures) for b in figures[k + 1 :]
        if a.quantity.kind == b.quantity.kind and a.quantity.compatible(b.quantity) and a.quantity.value != b.quantity.value
    ]  # fmt: skip


def _figures(sentences: list[Sentence]) -> list[_Figure]:
    """The levels the sentences give, each with its date (its own, the nearest in its sentence,
    or its section's) and whether it is marked as the earlier one."""
    out = []
    for position, sentence in enumerate(sentences):
        days = [fx.day_range(d)[0] for d in scoped_dates(sentence) if d.y is not None or d.m is not None]
        for q in sentence.facts.amounts:
            at = sentence.text.find(q.text)
            near = sentence.text[max(0, at - 40) : at + len(q.text) + 30] if at >= 0 else ""
            date = _nearest_date(sentence, at) if len(days) > 1 and sentence.facts.dates else (days[0] if days else None)
            earlier = bool(_EARLIER.search(near)) and _marks(near, q.text)
            planned = bool(_PLANNED.search(sentence.text[max(0, at - 30) : at]))
            rank = scoped_ordinal(sentence)
            out.append(_Figure(q, position, max(at, 0), date, earlier, planned, is_change(sentence.text, q), rank))
    return out


def _marks(near: str, text: str) -> bool:
    """Whether the earlier-marker near a figure belongs to it: "from 380", "18 days a year
    earlier", "上年为73.5万" — the marker right before the figure, or a time phrase right after it."""
    at = near.find(text)
    before, after = near[:at], near[at + len(text) :]
    return bool(re.search(r"(?:from|compared with|compared to|up from|down from|由|从|上年为?|去年为?|此前|原来)\s*\S{0,6}$", before, re.I)) or bool(
        re.match(r"\W*(?:\w+\s+){0,3}(?:a year earlier|earlier|before|the year before|previously|a year ago|last year)\b", after, re.I)
    )


def _nearest_date(sentence: Sentence, at: int) -> int | None:
    best: tuple[int, int] | None = None
    for d in sentence.facts.dates:
        where = sentence.text.find(d.text)
        if where >= 0 and (best is None or abs(where - at) < best[0]):
            best = (abs(where - at), fx.day_range(d)[0])
    return best[1] if best else None


def _before(a: _Figure, b: _Figure) -> bool:
    """Whether figure `a` is the earlier: by date, else by an earlier-marker, else by position."""
    if a.date is not None and b.date is not None and a.date != b.date:
        return a.date < b.date
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        return a.rank < b.rank
    if a.earlier != b.earlier:
        return a.earlier
    if a.planned != b.planned:
        return b.planned
    return (a.sentence, a.at) < (b.sentence, b.at)


def _told_apart(a: _Figure, b: _Figure) -> bool:
    """Whether the page says which of two figures is the earlier: by their dates or a marker."""
    return (
        (a.date is not None and b.date is not None and a.date != b.date)
        or (a.rank is not None and b.rank is not None and a.rank != b.rank)
        or a.earlier != b.earlier
        or a.planned != b.planned
    )


def _path(first: _Figure, last: _Figure) -> str:
    return f"{first.quantity.text} → {last.quantity.text}"


def _start(
    claim: str, facts: fx.Facts, targets: list[fx.Quantity], to: _Figure, figures: list[_Figure], levels: int = 1
) -> _Figure | None:
    """The other figure of the relation, of the same kind and measure as `to`: one the claim gives
    too ("from 380 to 412"; the one after "from" is the earlier), else the nearest in the source —
    unless the claim gives two `levels` itself, one of which the passage lacks (nothing to guess)."""
    def alike(f: _Figure) -> bool:
        return f is not to and f.quantity.kind == to.quantity.kind and f.quantity.measure == to.quantity.measure

    for other in targets:
        if fx.satisfies(other, to.quantity):
            continue
        found = [f for f in figures if alike(f) and fx.satisfies(other, f.quantity)]
        if found:
            at = claim.find(other.text)
            marked = at >= 0 and bool(re.search(r"(?:\bfrom|由|从)\s*$", claim[:at], re.I))
            f = found[0]
            return replace(f, earlier=f.earlier or marked)
    if len(targets) >= 2 or levels >= 2:
        return None  # the claim names both figures and the source lacks one: nothing to guess
    peers = [f for f in figures if alike(f) and f.quantity.value != to.quantity.value]
    if not peers:
        return None
    return min(peers, key=lambda f: (abs(f.sentence - to.sentence), abs(f.at - to.at)))


def is_change(claim: str, q: fx.Quantity) -> bool:
    """Whether a quantity of the claim is a change (up 12%, by 300, 增长12%, 50% more … than)
    rather than a level."""
    at = claim.find(q.text)
    if at < 0:
        return False
    tail = claim[at + len(q.text) :]
    points = re.search(r"percentage\s+points?|\bpp\b|个百分点", q.text + tail[:20], re.I)  # a difference of two shares
    return bool(points or _CHANGE_CUE.search(claim[:at]) or _MORE_AFTER.search(tail) or _LESS_AFTER.search(tail))


def _size_agrees(change: fx.Quantity, first: float, last: float) -> bool | None:
    """Whether a change figure fits the two figures: a percentage as the relative change, a number
    as the difference, at the claim's precision (a tenth of it, for rounding). None: cannot tell."""
    if first == 0:
        return None
    if change.kind == "percent":
        actual = abs(last - first) / abs(first) * 100
    elif change.kind == "number":
        actual = abs(last - first)
    else:
        return None
    slack = max(change.unit / 2, 0.05 * abs(change.value)) if change.bound in ("approx", "nearly") else max(change.unit / 2, 0.02 * abs(change.value))
    if change.bound in ("gt", "ge"):
        return actual >= change.value - slack
    if change.bound in ("lt", "le"):
        return actual <= change.value + slack
    return abs(actual - change.value) <= slack + 1e-9


def _ratio_agrees(
    factor: float, first: float, last: float, *, at_least: bool = False, at_most: bool = False, nearly: bool = False
) -> bool:
    if first == 0:
        return False
    ratio = last / first
    if at_least:
        return ratio >= factor * 0.98
    if at_most:
        return ratio <= factor * 1.02
    if nearly:
        return factor * 0.85 <= ratio <= factor * 1.02
    return abs(ratio - factor) <= 0.1 * factor


def span_days(text: str) -> tuple[float, float] | None:
    """The span of time a phrase says ("35 years after", 两年后), in days, and its unit in days."""
    span = _SPAN.search(text)
    if not span:
        return None
    raw = span.group(1) or span.group(3)
    unit = (span.group(2) or span.group(4) or "").lower()
    count = _SPAN_WORDS.get(raw.lower(), 0) or (int(raw) if raw.isdigit() else int(fx.zh_int(raw) or 0))
    return (count * _SPAN_DAYS[unit], _SPAN_DAYS[unit]) if count else None


def _check_span(span: re.Match[str], sentences: list[Sentence]) -> list[Reason] | None:
    """A span of time between two of the source's dates (six days later): None when the source
    gives fewer than two dates with days, months or years to compare."""
    said = span_days(span.group(0))
    days = sorted({fx.day_range(d)[0] for s in sentences for d in s.facts.dates if d.y is not None or d.d is not None})
    if said is None or len(days) < 2:
        return None
    if any(RELATIVE_TIME.search(s.text) for s in sentences):
        return None  # "次年即加印", "the following year": a date the page gives only from another
    want, unit = said
    gaps = {b - a for a in days for b in days if b > a}
    slack = 0.5 if unit == 1 else 1 if unit == 7 else unit / 2  # a day's span to the day, a week's to a day
    if any(abs(gap - want) <= slack for gap in gaps):
        return []
    closest = min(gaps, key=lambda gap: abs(gap - want))
    return [Reason("relation", said=span.group(0), found=f"{closest} days")]
