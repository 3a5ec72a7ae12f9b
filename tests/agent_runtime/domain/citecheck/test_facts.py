"""`facts.read_unit`: how a chart's unit turns its values into what a source states (the chart's
value check reads the source's numbers with `facts.extract`, the citation check's own reading)."""

from __future__ import annotations

import pytest

from agent_runtime.domain.citecheck.facts import extract, read_unit


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
