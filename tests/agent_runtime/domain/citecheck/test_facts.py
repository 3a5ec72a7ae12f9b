"""`facts.read_unit`: how a chart's unit turns its values into what a source states (the chart's
value check reads the source's numbers with `facts.extract`, the citation check's own reading)."""

from __future__ import annotations

import pytest

from agent_runtime.domain.citecheck.facts import UnitReading, extract, read_unit


@pytest.mark.parametrize(
    ("unit", "scale", "kind"),
    [
        ("%", 1.0, "percent"), ("percent", 1.0, "percent"), ("个百分点", 1.0, "percent"),
        ("million USD", 1e6, "number"), ("bn $", 1e9, "number"), ("thousand stations", 1e3, "number"),
        ("亿元", 1e8, "number"), ("万辆", 1e4, "number"), ("万亿元", 1e12, "number"),
        ("years", 365.25, "duration"), ("年", 365.25, "duration"),
        ("stations", 1.0, "number"), ("座", 1.0, "number"), (None, 1.0, "number"), ("", 1.0, "number"),
    ],
)  # fmt: skip
def test_a_unit_gives_its_scale_and_kind(unit: str | None, scale: float, kind: str) -> None:
    reading = read_unit(unit)
    assert (reading.scale, reading.kind) == (scale, kind)


def test_a_scaled_value_is_what_the_source_states() -> None:
    stated = {q.value for q in extract("投资3亿元，销量12万辆，Westby 1.2 million riders.", strict=False).amounts}
    assert 3 * read_unit("亿元").scale in stated
    assert 12 * read_unit("万辆").scale in stated
    assert 1.2 * read_unit("million").scale in stated


@pytest.mark.parametrize(
    ("unit", "scale", "kind"),
    [
        ("% of GDP", 1.0, "percent"), ("percent of GDP", 1.0, "percent"),
        ("millions", 1e6, "number"), ("USD millions", 1e6, "number"), ("billions of dollars", 1e9, "number"),
        ("USD m", 1e6, "number"), ("£m", 1e6, "number"), ("k", 1e3, "number"),
        ("m", 1.0, "number"), ("千米", 1.0, "number"), ("千克", 1.0, "number"),  # metres, kilometres, kilograms
        ("（亿元）", 1e8, "number"), ("人民币亿元", 1e8, "number"), ("单位：万辆", 1e4, "number"),
    ],
)  # fmt: skip
def test_a_charts_unit_is_read_as_people_write_it(unit: str, scale: float, kind: str) -> None:
    assert read_unit(unit) == UnitReading(scale, kind)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "value"), [("去年为百分之十", 10.0), ("占比为百分之百", 100.0), ("百分之10的用户", 10.0)]
)
def test_chinese_percentages_of_one_character_or_digits_are_read(text: str, value: float) -> None:
    [found] = extract(text, strict=False).quantities
    assert (found.value, found.kind) == (value, "percent")
