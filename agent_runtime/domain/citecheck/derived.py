"""Figures a report works out from the page: a claim's number the page never writes, but which two
of the page's figures give — their difference ("27.6 km more": 170.6 − 143), their change in
percent ("about 30% fewer": 2,310 against 3,300), their ratio ("nearly four times": 16,000 against
4,200), their sum, a share of one in the other, or the years between two of its dates ("for 24
years": 1974 to 1998).

The lexical pass cannot tell whether the claim puts the worked-out figure in the right relation
(`relations.py` checks the relations it can read), but a figure that two of the page's figures
give is not one the writer made up: such a claim is left unconfirmed (weak), not contradicted.
A small whole number (under 20) is derived from almost any page by chance, and is never taken as
derived.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import combinations

import agent_runtime.domain.citecheck.facts as fx

_MULTIPLES = frozenset({"倍", "time"})  # the measures of a multiple: 2.6倍, three times
# figures read from a page for a claim, at most (the pairs grow with the square)
MAX_FIGURES = 60
_SMALL = 20.0


def derivable(
    claimed: fx.Quantity, figures: Iterable[fx.Quantity], dates: Iterable[fx.Date], *, products: bool = False, small: bool = False
) -> bool:
    """Whether `claimed` is what two of `figures` (the page's quantities), or two of its `dates`,
    give; with `products` (the claim gives a share itself: "约三成转会费、即约3,600万元") also a share
    of a whole. With `small`, a whole number under 20 too (the figures are the claim's own: "by 4,
    from 26 to 22")."""
    written = re.match(r"\D*(\d[\d,]*(?:\.\d+)?)", claimed.text)  # the number as written (76 of 76毫米)
    tiny = not written or (float(written.group(1).replace(",", "")) < _SMALL and "." not in written.group(1))
    if claimed.kind == "ordinal" or (claimed.kind == "number" and tiny and not small and claimed.measure not in _MULTIPLES):
        return False
    if claimed.bound not in ("eq", "approx", "nearly") and claimed.kind != "percent":
        return False  # "more than 150": a range some pair falls in by chance (a share's is narrower: "more than a third")
    figures = list(figures)
    if claimed.kind == "duration":  # "for 24 years", "约四个月后": the span between two dates
        # (a year alone and a month of the same year both stand: sorted with the year alone first;
        # a year read as a number, "founded around 1640 and abandoned by about 1710", is a year too)
        years = {(int(f.value), None) for f in figures if f.kind == "number" and not f.measure and 1000 <= f.value <= 2100 and f.value.is_integer()}
        known = {(d.y, d.m) for d in dates if d.y is not None} | years
        months = sorted(known, key=lambda ym: (ym[0], ym[1] or 0))[:MAX_FIGURES]
        for (y1, m1), (y2, m2) in combinations(months, 2):
            if m1 is not None and m2 is not None:
                span, slack = abs((y2 - y1) * 12 + m2 - m1) * 30.44, 30.44
            else:
                span, slack = abs(y2 - y1) * 365.25, 365.25
            if _close(claimed, span, slack):
                return True
        # or the difference of two spans the page gives ("open 81 days a year … 52 days": 29 days shorter)
    peers = [
        f for f in figures[:MAX_FIGURES]
        if f.kind != "ordinal" and ((f.kind == "duration") == (claimed.kind == "duration") or claimed.kind == "percent")
    ]  # fmt: skip
    for a, b in combinations(peers, 2):
        for value in _worked_out(claimed, a, b, products):
            if _close(claimed, value):
                return True
    return False


# Words of a claim that adds several of the page's figures, or divides one by a count.
TOTALS = re.compile(r"\b(?:total|combined|together|altogether|in all|cumulative)\b|合计|累计|总计|共计|一共|总共|共有|加起来", re.I)
AVERAGES = re.compile(r"\b(?:average|mean|each|a head|apiece)\b|\bper\b(?!\s*cent)|平均|人均|每(?:人|位|个|张|次|架次|辆|户|名|家|所)", re.I)
_MAX_ADDED = 14  # figures read for a total of three or four of them (1,365 sums at most)


def totalled(claimed: fx.Quantity, figures: Iterable[fx.Quantity]) -> bool:
    """Whether `claimed` is the total of three or four of `figures` counted alike ("four water works
    with a combined capacity of 950,000 m³ a day", 三次发掘累计揭露约5,250平方米)."""
    alike = [f for f in figures if f.kind == claimed.kind and f.kind != "ordinal" and _alike(claimed, f)][:_MAX_ADDED]
    return any(_close(claimed, sum(f.value for f in group)) for k in (3, 4) for group in combinations(alike, k))


def averaged(claimed: fx.Quantity, figures: Iterable[fx.Quantity]) -> bool:
    """Whether `claimed` is one of `figures` counted alike divided by another that counts things
    (an average ticket of about 85 yuan: box office over tickets sold; about 7 passengers a flight)."""
    if claimed.kind != "number":  # (an average is a count or an amount, not a share or a span)
        return False
    pool = [f for f in figures if f.kind == "number"][:MAX_FIGURES]
    counts = [y for y in pool if fx.counts_things(y) and y.value > 1]
    wholes = [x for x in pool if _alike(claimed, x) or not claimed.measure]
    # (within 7.5% of the claim's value whatever its rounding: a quotient of two of many figures
    # lands near a round "about 1万" by chance)
    slack = 0.075 * abs(claimed.value) if claimed.bound in ("approx", "nearly") else claimed.unit / 2
    return any(x is not y and abs(x.value / y.value - claimed.value) <= slack for x in wholes for y in counts)


def multiplied(claimed: fx.Quantity, counts: Iterable[fx.Quantity], amounts: Iterable[fx.Quantity]) -> bool:
    """Whether `claimed` is one of the claim's `counts` times one of `amounts` counted alike ("two
    doses at about 6 dollars each would cost around 12 dollars"; four ships at 38 million: "about
    150 million in total")."""
    return any(_alike(claimed, a) and c.value > 1 and _close(claimed, c.value * a.value) for c in counts for a in amounts)


def _worked_out(claimed: fx.Quantity, a: fx.Quantity, b: fx.Quantity, products: bool = False) -> list[float]:
    """What a claim could work out of two figures, in the claim's kind."""
    x, y = a.value, b.value
    if claimed.kind == "number" and {a.kind, b.kind} == {"number", "percent"}:
        # 三成 of 1.2亿: 3,600万; 120元 less an 80% subsidy: 24元; 75元, a third of the diesel bus's: 225元
        share, whole = (a, b) if a.kind == "percent" else (b, a)
        if not (products and _alike(claimed, whole) and 0 < share.value < 100):
            return []
        return [whole.value * share.value / 100, whole.value * (100 - share.value) / 100, whole.value * 100 / share.value]
    if claimed.kind == "percent":
        out = []
        if a.kind == b.kind == "percent":
            out.append(abs(x - y))  # percentage points
            if x and y:  # and the change of one rate to the other (11% to 7%: more than a third lower)
                out += [abs(y - x) / x * 100, abs(x - y) / y * 100]
            if x + y <= 100:
                out.append(x + y)  # two shares of one whole together (45% and 30%: 约四分之三)
        if a.kind == b.kind and a.kind in ("number", "duration") and a.compatible(b):  # (21 working days to 6: 71% shorter)
            if x:
                out.append(abs(y - x) / abs(x) * 100)  # a change in percent
            if y:
                out += [abs(x - y) / abs(y) * 100, x / y * 100]  # and the share of one in the other
            if x:
                out.append(y / x * 100)
        return out
    if claimed.measure in _MULTIPLES:  # "2.6倍以上", "three times as many": the ratio of two alike figures
        return [max(abs(x), abs(y)) / min(abs(x), abs(y))] if a.kind == b.kind and _alike(a, b) and min(abs(x), abs(y)) > 0 else []
    if a.kind != b.kind or not _alike(a, b) or not _alike(claimed, a):
        return []
    out = [abs(x - y), x + y]
    if claimed.measure == "" and min(abs(x), abs(y)) > 0:
        out += [max(abs(x), abs(y)) / min(abs(x), abs(y))]  # "three times as many"
    return out


def _alike(a: fx.Quantity, b: fx.Quantity) -> bool:
    """Whether two figures count alike: compatible, or both counting things a word names (31 crew
    and four passengers are 35 people aboard)."""
    return a.compatible(b) or (fx.counts_things(a) and fx.counts_things(b))


def _close(claimed: fx.Quantity, value: float, slack: float = 0.0) -> bool:
    """Whether a worked-out value is the claim's at the claim's precision (or its bound's)."""
    v = claimed.value
    if claimed.bound in ("gt", "ge"):  # "more than a third", 超过六成: above it, by less than half again
        return v <= value <= min(100.0, v * 1.5)
    if claimed.bound in ("lt", "le"):
        return v * 0.5 <= value <= v
    if claimed.bound in ("approx", "nearly"):
        tolerance = 0.075 * abs(v) + claimed.unit / 2
    else:
        tolerance = claimed.unit / 2 if not claimed.exact else 0.5
    return abs(value - v) <= tolerance + slack / 2
