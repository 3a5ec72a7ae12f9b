"""A chart as the model asks for it, validated before anything is read or drawn.

`ChartSpec.parse` turns the action's arguments into a spec or raises `ChartError` with every
problem said plainly (lengths that differ, a value that is not a finite number, a negative share
in a pie, more than a reader can read). The spec is saved beside its figure as JSON
(`Notebook/figures/<name>.json`): finalization draws and checks the figure again from it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from agent_runtime.domain.layout import NOTEBOOK, title_slug
from agent_runtime.errors import ActionError

KINDS = ("bar", "stacked_bar", "line", "pie")
MAX_SERIES = 12
MAX_POINTS = 60
MAX_TITLE_CHARS = 200
MAX_LABEL_CHARS = 80
MAX_NOTE_CHARS = 500
MAX_UNIT_CHARS = 40
MAX_ABS_VALUE = 1e15  # larger is no statistic a source gives, and no axis a reader can read
FIGURES = f"{NOTEBOOK}/figures"  # relative to the workspace
_SOURCE_ID = re.compile(r"^\[?\s*(S\d{1,7})\s*\]?$", re.IGNORECASE)


class ChartError(ActionError):
    """A chart that cannot be drawn as asked: the message names every problem."""


@dataclass
class Series:
    name: str
    values: list[float]
    source: str  # "S<n>"


@dataclass
class ChartSpec:
    title: str
    kind: str
    labels: list[str]
    series: list[Series]
    unit: str | None = None
    note: str | None = None
    # What the figure files held when drawn (sha256 by suffix): finalization notices an edit.
    digests: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The files' name, from the title, in any script: never a path."""
        return title_slug(self.title, empty="chart")

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(s.source for s in self.series))

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2) + "\n"

    def drawn_digest(self) -> str:
        """What the picture shows (everything but the digests): a record edited since the drawing
        (other values, another title) no longer matches the files, which are drawn again."""
        shown = {k: v for k, v in asdict(self).items() if k != "digests"}
        return hashlib.sha256(json.dumps(shown, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()

    @classmethod
    def from_json(cls, text: str) -> ChartSpec:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ChartError("the figure's record is not a JSON object")
        spec = cls.parse(
            data.get("title"), data.get("kind"), data.get("labels"), data.get("series"), data.get("unit"), data.get("note")
        )
        digests = data.get("digests")
        if isinstance(digests, dict):
            spec.digests = {str(k): str(v) for k, v in digests.items()}
        return spec

    @classmethod
    def parse(cls, title: Any, kind: Any, labels: Any, series: Any, unit: Any = None, note: Any = None) -> ChartSpec:
        problems: list[str] = []
        title_text = _text(title, "title", MAX_TITLE_CHARS, problems)
        if kind not in KINDS:
            problems.append(f"kind {kind!r} is not one of {', '.join(KINDS)}")
        label_list: list[str] = []
        if not isinstance(labels, list) or not labels:
            problems.append("labels must be a non-empty list of the categories (or x values)")
        elif len(labels) > MAX_POINTS:
            problems.append(f"{len(labels)} labels: at most {MAX_POINTS} points a series (a reader cannot read more)")
        else:
            label_list = [_label(x, i, problems) for i, x in enumerate(labels)]
            repeated = sorted({x for x in label_list if label_list.count(x) > 1 and x})
            if repeated:
                problems.append(f"labels repeat: {', '.join(repeated[:5])}")
        parsed: list[Series] = []
        if not isinstance(series, list) or not series:
            problems.append('series must be a non-empty list of {"name", "values", "source"}')
        elif len(series) > MAX_SERIES:
            problems.append(f"{len(series)} series: at most {MAX_SERIES}")
        else:
            for i, item in enumerate(series, 1):
                found = _series(item, i, len(label_list) if label_list else None, problems)
                if found is not None:
                    parsed.append(found)
        if kind == "pie":
            if len(parsed) > 1:
                problems.append("a pie shows one series: give one, or choose bar")
            negative = [v for s in parsed for v in s.values if v < 0]
            if negative:
                problems.append(f"a pie cannot show negative values ({number_text(negative[0])})")
            elif parsed and not any(v > 0 for s in parsed for v in s.values):
                problems.append("a pie needs at least one value above zero")
        unit_text = _text(unit, "unit", MAX_UNIT_CHARS, problems, required=False) if unit not in (None, "") else None
        note_text = _text(note, "note", MAX_NOTE_CHARS, problems, required=False) if note not in (None, "") else None
        if problems:
            raise ChartError("the chart was not drawn: " + "; ".join(problems))
        return cls(title_text, str(kind), label_list, parsed, unit_text, note_text)


def _text(value: Any, what: str, limit: int, problems: list[str], *, required: bool = True) -> str:
    if not isinstance(value, str) or (required and not value.strip()):
        problems.append(f"{what} must be a non-empty text")
        return ""
    text = " ".join(value.split())
    if len(text) > limit:
        problems.append(f"{what} has {len(text):,} characters: at most {limit}")
    return text


def _label(value: Any, index: int, problems: list[str]) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        problems.append(f"label {index + 1} is not a text")
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a year sent as a number (2019, or 2019.0 once parsed) is labelled 2019
    text = " ".join(str(value).split())
    if not text:
        problems.append(f"label {index + 1} is empty")
    elif len(text) > MAX_LABEL_CHARS:
        problems.append(f"label {index + 1} has {len(text):,} characters: at most {MAX_LABEL_CHARS}")
        return text[:MAX_LABEL_CHARS]
    return text


def _series(item: Any, index: int, points: int | None, problems: list[str]) -> Series | None:
    if not isinstance(item, dict):
        problems.append(f'series {index} must be an object {{"name", "values", "source"}}')
        return None
    name = " ".join(str(item.get("name") or "").split())[:MAX_LABEL_CHARS] or f"series {index}"
    source = item.get("source")
    matched = _SOURCE_ID.match(source.strip()) if isinstance(source, str) else None
    if matched is None:
        problems.append(f"series {name!r}: source must be the [S<n>] id of the source that states its values")
    values = item.get("values")
    if not isinstance(values, list) or not values:
        problems.append(f"series {name!r}: values must be a non-empty list of numbers")
        return None
    numbers: list[float] = []
    for k, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(f"series {name!r}: value {k + 1} ({str(value)[:40]!r}) is not a number")
        elif not math.isfinite(value) or abs(value) > MAX_ABS_VALUE:
            problems.append(f"series {name!r}: value {k + 1} ({value!r}) is not a finite number a chart can show")
        else:
            numbers.append(float(value))
    if points is not None and len(values) != points:
        problems.append(f"series {name!r} has {len(values)} values for {points} labels: give one value per label")
    if len(numbers) != len(values) or matched is None:
        return None
    return Series(name, numbers, matched.group(1).upper())


def number_text(value: float) -> str:
    """A value as a person writes it: 120, 1.5, 1,234,567."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}" if abs(value) >= 1e6 else repr(value)

