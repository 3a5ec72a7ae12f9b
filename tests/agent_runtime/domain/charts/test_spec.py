"""Validation of a chart's arguments: every problem named at once, nothing drawn."""

from __future__ import annotations

import pytest

from agent_runtime.domain.charts.spec import ChartError, ChartSpec


def problems(**changes: object) -> str:
    args: dict[str, object] = {"title": "T", "kind": "bar", "labels": ["a", "b"], "series": [{"name": "s", "values": [1, 2], "source": "S1"}]}
    args.update(changes)
    with pytest.raises(ChartError) as caught:
        ChartSpec.parse(args["title"], args["kind"], args["labels"], args["series"], args.get("unit"))
    return str(caught.value)


def test_each_problem_is_named() -> None:
    assert "kind 'scatter' is not one of bar, stacked_bar, line, pie" in problems(kind="scatter")
    assert "has 3 values for 2 labels" in problems(series=[{"name": "s", "values": [1, 2, 3], "source": "S1"}])
    assert "value 2 ('x') is not a number" in problems(series=[{"name": "s", "values": [1, "x"], "source": "S1"}])
    assert "source must be the [S<n>] id" in problems(series=[{"name": "s", "values": [1, 2], "source": "https://x"}])
    assert "13 series: at most 12" in problems(series=[{"name": "s", "values": [1, 2], "source": "S1"}] * 13)
    assert "labels repeat: a" in problems(labels=["a", "a"])
    assert "a pie shows one series" in problems(kind="pie", series=[{"name": "s", "values": [1, 2], "source": "S1"}] * 2)
    assert "title must be a non-empty text" in problems(title="  ")


def test_a_source_id_in_brackets_and_number_labels_are_taken() -> None:
    spec = ChartSpec.parse("T", "line", [2021, 2022], [{"name": "s", "values": [1, 2.5], "source": "[s7]"}])
    assert spec.labels == ["2021", "2022"] and spec.series[0].source == "S7"


def test_the_name_is_from_the_title_in_any_script_and_never_a_path() -> None:
    assert ChartSpec.parse("../../etc/passwd", "bar", ["a"], [{"name": "s", "values": [1], "source": "S1"}]).name == "etc-passwd"
    assert ChartSpec.parse("各城市车站数量", "bar", ["a"], [{"name": "s", "values": [1], "source": "S1"}]).name == "各城市车站数量"
    assert ChartSpec.parse("///", "bar", ["a"], [{"name": "s", "values": [1], "source": "S1"}]).name == "chart"


def test_the_record_round_trips() -> None:
    spec = ChartSpec.parse("T", "bar", ["a"], [{"name": "s", "values": [1.5], "source": "S1"}], "%")
    spec.digests = {"svg": "x"}
    again = ChartSpec.from_json(spec.to_json())
    assert again == spec
