"""The labelled citation sets load through one reader that checks every line (tests/support/labelled.py):
each set is whole, in its languages (both, unless its files are named for one), with both labels; a bad line is refused naming its file and
line, never the text of a pair (the held-out sets are never read pair by pair)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.support.labelled import SETS, LabelledSetError, load, read_set, write_set


@pytest.mark.parametrize("name", list(SETS))
def test_every_set_loads_whole_in_its_languages_with_both_labels(name: str) -> None:
    pairs = load(name)
    counts = Counter((p["lang"], p["label"]) for p in pairs)
    # in the languages its files are named for (context8_pairs_zh.jsonl: Chinese only), else both
    named = {lang for path in SETS[name] for lang in ("en", "zh") if path.stem.endswith(f"_{lang}")}
    assert {lang for lang, _ in counts} == (named or {"en", "zh"})
    assert {label for _, label in counts} == {"supported", "unsupported"}
    assert all(p["source"].strip() and p["claim"].strip() for p in pairs)
    assert len({p["id"] for p in pairs}) == len(pairs)  # no pair twice across a set's files


def test_the_sets_hold_as_many_pairs_as_when_they_were_written_as_code() -> None:
    """The counts of the sets when they were JSON written by Python builders (commit 8a68995), and
    of the second page sets as their writers handed them over."""
    assert {name: len(load(name)) for name in SETS} == {
        "earlier": 230, "dev": 466, "heldout": 312, "context dev": 306, "context heldout": 224,
        "context dev 2": 320, "context heldout 2": 320, "context dev 3": 320, "context dev 4": 320, "context heldout 3": 320, "context dev 5": 300, "context heldout 4": 600, "context dev 6": 300, "context dev 7": 300, "context heldout 5": 600, "context dev 8": 300,
    }  # fmt: skip


GOOD = {"id": "x1", "claim": "Cells cost 180 dollars.", "source": "Cells cost 180 dollars in 2026.",
        "label": "supported", "kind": "verbatim", "lang": "en"}  # fmt: skip


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps({**GOOD, "label": "maybe"}), "label is not one of supported, unsupported"),
        (json.dumps({**GOOD, "lang": "fr"}), "lang is not one of en, zh"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "claim"}), "missing or empty: claim"),
        (json.dumps({**GOOD, "id": "x0"}), "the id 'x0' is used twice"),
        (json.dumps({**GOOD, "source_file": "S1.txt"}), "needs exactly one of source and source_file"),
        (json.dumps({**GOOD, "verdict": "supported"}), "unknown keys: verdict"),
    ],
)
def test_a_bad_line_is_refused_naming_its_file_and_line_not_its_text(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "pairs_en.jsonl"
    path.write_text(json.dumps({**GOOD, "id": "x0"}) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(LabelledSetError) as caught:
        read_set(path)
    assert str(caught.value).startswith(f"pairs_en.jsonl, line 3: {problem}")
    assert "180 dollars" not in str(caught.value)


def test_a_source_named_by_file_is_read_from_the_sets_sources_folder(tmp_path: Path) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "S1.txt").write_text("电池成本下降了14%。", encoding="utf-8")
    path = tmp_path / "pairs.jsonl"
    shared = {k: v for k, v in GOOD.items() if k != "source"}
    write_set(path, [{**shared, "source_file": "S1.txt", "lang": "zh"}, {**shared, "id": "x2", "source_file": "S2.txt"}])
    with pytest.raises(LabelledSetError, match=r"line 2: source_file 'S2.txt' is not in "):
        read_set(path)
    chinese = {**shared, "claim": "电池成本下降了14%。", "lang": "zh"}
    write_set(path, [{**chinese, "source_file": "S1.txt"}])
    assert "电池" in path.read_text("utf-8")  # written as it is, not escaped
    assert read_set(path) == [{**chinese, "source": "电池成本下降了14%。"}]


def test_an_unknown_set_is_named_with_the_sets_there_are() -> None:
    with pytest.raises(LabelledSetError, match="no labelled set 'dev2'; the sets: earlier, dev, heldout"):
        load("dev2")
