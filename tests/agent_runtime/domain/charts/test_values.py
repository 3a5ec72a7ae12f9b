"""The value check: each value stated in its source in the forms people write, English and
Chinese, with the chart's unit; rounding allowed, invented precision and bounds not."""

from __future__ import annotations

import pytest

from agent_runtime.domain.charts.spec import ChartSpec
from agent_runtime.domain.charts.values import check_series

EN = """# Metro networks

Eastby had 1,234 stations. Westby carried 1.2 million riders a day, and Southby 3.5bn a year.
Northby's share of trips was 12%. Upton has more than 120 stations.
"""
ZH = "北京地铁客运量为1.2万人次。上海投资3亿元。广州占比百分之十二。深圳有490座车站。"


def check(text: str, labels: list[str], values: list[float], unit: str | None = None) -> list[tuple[str, float]]:
    spec = ChartSpec.parse("t", "bar", labels, [{"name": "s", "values": values, "source": "S1"}], unit)
    return check_series(spec.series[0], spec.labels, spec.unit, text).missing


@pytest.mark.parametrize(
    ("labels", "values", "unit"),
    [
        (["Eastby"], [1234], None),
        (["Eastby"], [1.2], "thousand stations"),  # a chart may round a precise figure
        (["Westby"], [1.2], "million"),
        (["Westby"], [1_200_000], None),
        (["Southby"], [3.5], "billion"),
        (["Southby"], [3500], "million"),
        (["Northby"], [12], "%"),
    ],
)
def test_english_forms_are_read(labels: list[str], values: list[float], unit: str | None) -> None:
    assert check(EN, labels, values, unit) == []


@pytest.mark.parametrize(
    ("labels", "values", "unit"),
    [(["北京"], [1.2], "万人次"), (["北京"], [12000], None), (["上海"], [3], "亿元"), (["广州"], [12], "%"), (["深圳"], [490], "座")],
)
def test_chinese_forms_are_read(labels: list[str], values: list[float], unit: str | None) -> None:
    assert check(ZH, labels, values, unit) == []


def test_invented_precision_a_bound_and_a_wrong_unit_are_not_stated() -> None:
    assert check(EN, ["Westby"], [1_234_567], None) == [("Westby", 1_234_567.0)]  # "1.2 million" says less
    assert check(EN, ["Upton"], [120], None) == [("Upton", 120.0)]  # "more than 120" is no value
    assert check(EN, ["Westby"], [1.2], "billion") == [("Westby", 1.2)]
    assert check(ZH, ["深圳"], [490], "%") == [("深圳", 490.0)]  # a count is no share


def test_the_refusal_names_the_value_and_what_the_source_gives() -> None:
    spec = ChartSpec.parse("t", "bar", ["Eastby", "Northby"], [{"name": "s", "values": [1234, 999], "source": "S3"}])
    result = check_series(spec.series[0], spec.labels, None, EN)
    assert result.refusal().startswith("999 (Northby) of series 's' is not stated in [S3]; it gives ")
    assert "1,234" in result.refusal() and "12%" in result.refusal()


def test_a_value_stated_near_its_label_is_preferred() -> None:
    text = "Eastby opened 40 stations.\n\nWestby opened 40 stations and Eastby 55."
    spec = ChartSpec.parse("t", "bar", ["Westby"], [{"name": "s", "values": [40], "source": "S1"}])
    found = check_series(spec.series[0], spec.labels, None, text).found[0]
    assert found.near_label and "Westby" in found.sentence
    spec = ChartSpec.parse("t", "bar", ["Southby"], [{"name": "s", "values": [40], "source": "S1"}])
    assert not check_series(spec.series[0], spec.labels, None, text).found[0].near_label


SIGNED = "Exports grew 4.1% in 2023 and -3.2% in 2024. 净利润为-1.5亿元，增速为-3.2%。"


@pytest.mark.parametrize(
    ("labels", "values", "unit", "missing"),
    [
        (["2024"], [-3.2], "%", []),  # a fall, charted with its sign
        (["2024"], [3.2], "%", [("2024", 3.2)]),  # the same fall charted as a rise is not stated
        (["2023"], [4.1], "%", []),
        (["2023"], [-4.1], "%", [("2023", -4.1)]),  # a rise charted as a fall neither
        (["净利润"], [-1.5], "亿元", []),  # Chinese writes the sign after 为
    ],
)
def test_a_sign_is_read_and_never_dropped(labels: list[str], values: list[float], unit: str, missing: list[tuple[str, float]]) -> None:
    assert check(SIGNED, labels, values, unit) == missing
