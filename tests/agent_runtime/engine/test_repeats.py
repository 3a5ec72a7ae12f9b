"""The loop detector stops loops, not progress: similar calls that target different files, or whose
results differ, go on; the same effect again and again stops the run. Through the real loop, in
process, with a scripted model (and the real web_search over a local corpus)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.engine.repeats import STOP_AT, STOP_EXACT_AT, RepeatWatch, nearly_equal, targets
from agent_runtime.testing import Reply, call, reply
from tests.support.runs import finish_with_report, start_run

FILE_AGENT = "You are the File agent"
CHAPTERS = 12
REGIONS = [
    "Bavaria", "Catalonia", "Lombardy", "Flanders", "Silesia", "Brittany",
    "Scotland", "Andalusia", "Saxony", "Piedmont", "Wallonia", "Galicia",
]  # fmt: skip
WORDS = [
    "grid", "storage", "capacity", "operator", "cells", "sodium", "lithium", "cost", "plant", "demand",
    "supply", "solar", "wind", "evening", "peak", "frequency", "response", "arbitrage", "warranty",
    "container", "permit", "interconnector", "tariff", "auction",
]  # fmt: skip


def frames() -> list[str]:
    """The template every regional chapter follows: the same sentences in the same order, each with
    slots for the region and a figure (one fixed sequence, so the chapters share it)."""
    rng = random.Random(7)
    return [
        " ".join(rng.choice(WORDS) for _ in range(12)).capitalize()
        + " in {region} reached {figure} by the end of the year [S"
        + str(1 + i % 3)
        + "]."
        for i in range(80)
    ]


def chapter(n: int) -> str:
    """About 8,000 characters of chapter n: the regional chapters share a template (the same frame
    sentences), but each names its own region and figures, and ends with its own findings."""
    region = REGIONS[n - 1]
    lines = [f"## Chapter {n}: grid storage in {region}", ""]
    for i, frame in enumerate(frames()):
        if sum(len(line) + 1 for line in lines) >= 7_000:
            break
        lines.append(frame.format(region=region, figure=f"{(n * 37 + i * 11) % 900 + 100} MWh"))
    lines += ["", f"### What is particular to {region}", ""]
    while sum(len(line) + 1 for line in lines) < 8_000:
        lines.append(
            f"{region} finding {len(lines)}: chapter {n} records a detail of its own, number {n * len(lines)}."
        )
    return "\n".join(lines)


def last_user_text(messages: list[dict[str, Any]]) -> str:
    return str(messages[-1]["content"])


async def test_twelve_templated_chapters_written_one_after_another_are_progress(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    written: list[int] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(FILE_AGENT):
            task = str(messages[1]["content"])
            path = task.split(" to ", 1)[1].split()[0].rstrip(".")
            return reply(call("write_attached", file_path=path), call("finish", answer=f"Wrote {path}."))
        if len(written) == CHAPTERS:
            return finish_with_report(ws)
        n = len(written) + 1
        written.append(n)
        return reply(call("file_operation", operation_description=f"Write the attached chapter to Notebook/{n:02d}.md",
                          content=chapter(n)))  # fmt: skip

    result, model = await start_run(tmp_path, script, max_steps=40)
    assert (result.status, result.exit_code) == ("finished", 0), result.reason
    for n in range(1, CHAPTERS + 1):
        assert (ws / "Notebook" / f"{n:02d}.md").read_text() == chapter(n)
    assert not any("nearly the same arguments" in str(messages) for messages, _ in model.requests)
    # The chapters are alike enough that their arguments count as nearly the same (the detector
    # stopped this run at the sixth chapter before it looked at targets and results).
    assert nearly_equal(arguments(1), arguments(2)) and nearly_equal(arguments(11), arguments(12))


def arguments(n: int, path: str | None = None) -> str:
    """file_operation's arguments for chapter n as the loop gives them to the detector."""
    description = f"Write the attached chapter to {path or f'Notebook/{n:02d}.md'}"
    return json.dumps(
        {"content": chapter(n), "operation_description": description}, sort_keys=True, ensure_ascii=False
    )


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "cells.md").write_text(
        "# Sodium-ion cell costs\n\nWhat sodium-ion cells cost in 2026: the cost of a cell fell to 60 dollars.\n"
    )
    return folder


async def test_the_same_search_with_the_same_result_stops_as_a_loop(tmp_path: Path) -> None:
    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("web_search", query="sodium-ion cell cost 2026", max_results=5))

    result, model = await start_run(tmp_path, script, search="local", corpus=corpus(tmp_path), max_steps=30)
    assert (result.status, result.exit_code) == ("stopped", 3)
    assert result.reason is not None
    assert result.reason.startswith("loop: web_search was called 5 times in a row with the same arguments")
    assert len(model.requests) == 5
    assert "same arguments and got the same result" in last_user_text(model.requests[3][0])


async def test_a_search_rephrased_again_and_again_with_the_same_results_stops(tmp_path: Path) -> None:
    queries = [
        "sodium-ion cell cost 2026",
        "sodium ion cells cost 2026",
        "cost of sodium-ion cells in 2026",
        "sodium-ion cell costs in 2026",
        "what do sodium-ion cells cost in 2026",
        "sodium-ion cells cost 2026",
        "2026 sodium-ion cell cost",
        "sodium-ion cell cost in 2026",
    ]
    asked: list[str] = []

    def rephrasing(messages: list[dict[str, Any]], tools: Any) -> Reply:
        asked.append(queries[len(asked) % len(queries)])
        return reply(call("web_search", query=asked[-1], max_results=5))

    result, model = await start_run(
        tmp_path, rephrasing, search="local", corpus=corpus(tmp_path), max_steps=30
    )
    assert (result.status, result.exit_code) == ("stopped", 3)
    assert result.reason is not None
    assert result.reason.startswith(
        "loop: web_search was called 6 times in a row with nearly the same arguments"
    )
    assert len(model.requests) == 6
    assert "nearly the same arguments" in last_user_text(model.requests[3][0])


# -- the detector alone --------------------------------------------------------------------------
def verdicts(calls: list[tuple[str, str, str]]) -> list[str]:
    watch = RepeatWatch()
    out = []
    for name, args, result in calls:
        verdict = watch.call(name, args, result)
        out.append("" if verdict is None else f"{verdict.kind}{verdict.count}{'!' if verdict.stop else ''}")
    return out


def search(query: str, result: str) -> tuple[str, str, str]:
    args = json.dumps({"max_results": 5, "query": query}, sort_keys=True)
    return "web_search", args, f'web_search "{query}" — 1 result (local)\n{result}'


@pytest.mark.slow
def test_the_same_chapter_rewritten_to_the_same_file_is_still_a_loop() -> None:
    calls = [
        ("file_operation", arguments(n, "Notebook/03.md"), "Wrote Notebook/03.md.")
        for n in range(1, STOP_AT + 1)
    ]
    assert verdicts(calls)[-1] == f"similar{STOP_AT}!"
    # ...but the same chapters to twelve files, or with other results, are progress
    assert not any(verdicts([("file_operation", arguments(n), "Wrote it.") for n in range(1, 13)]))
    answers = [" ".join(random.Random(n).choices(WORDS, k=40)) for n in range(1, 13)]  # what it found there
    assert not any(
        verdicts([("file_operation", arguments(n, "Notebook/03.md"), answers[n - 1]) for n in range(1, 13)])
    )


def test_rephrased_searches_are_a_loop_only_while_their_results_stay_the_same() -> None:
    queries = [
        "sodium cell cost",
        "sodium cells cost",
        "cost of sodium cells",
        "sodium cell costs",
        "sodium-ion cell cost",
        "the sodium cell cost",
    ]
    same = [search(q, "[S1] Cells — https://example.org/cells — cost fell") for q in queries]
    assert verdicts(same)[-1] == f"similar{STOP_AT}!"
    new = [
        search(q, f"[S{i}] Cells — https://example.org/cells-{i} — cost fell") for i, q in enumerate(queries)
    ]
    assert not any(verdicts(new))
    # the same query again with the same results, each fenced with a new random boundary
    fenced = [
        search(
            "sodium cell cost",
            f"<<<SEARCH RESULTS {i:012x}>>>\n[S1] Cells\n<<<END SEARCH RESULTS {i:012x}>>>",
        )
        for i in range(STOP_EXACT_AT)
    ]
    assert verdicts(fenced)[-1] == f"same{STOP_EXACT_AT}!"
    # another question that happens to find nothing either is not a rephrasing
    nothing = [
        search(q, "No results.")
        for q in ["sodium cell cost", "lithium plant permits", "grid tariffs in Spain"] * 2
    ]
    assert not any(verdicts(nothing))


def test_a_dashboard_rewritten_with_a_word_changed_is_still_a_loop() -> None:
    text = "# Overall\n\n## Research questions\n" + "".join(
        f"{i}. A question about cells?\n" for i in range(12)
    )
    calls = [
        ("update_overall_dashboard", json.dumps({"content": text + f"word{i}"}),
         f"overall_dashboard.md updated ({len(text) + 5 + i // 10:,} characters). The history was cleared.")
        for i in range(STOP_AT)
    ]  # fmt: skip
    assert verdicts(calls)[-1] == f"similar{STOP_AT}!"


def test_paths_and_urls_are_found_in_any_string_argument() -> None:
    found = targets(
        {"operation_description": "Append the attached text to ./Notebook/03.md, then check report.md.",
         "content": "See https://example.org/a?b=1. e.g. 1/2 of U.S. plants, and/or", "more": [{"x": "sources/S1.md"}]}
    )  # fmt: skip
    assert found == {"Notebook/03.md", "report.md", "https://example.org/a?b=1", "sources/S1.md", "and/or"}


def test_short_notes_appended_one_after_another_are_progress() -> None:
    notes = [f"Sodium cells cost {50 + n} dollars a kWh in 2026, down from 2025 [S1]." for n in range(8)]
    calls = [
        ("write_notes", json.dumps({"content": note, "mode": "append"}),
         f"Appended {len(note)} characters to Notebook/cells.md (now {200 + 70 * n:,} characters). Cites [S1].")
        for n, note in enumerate(notes)
    ]  # fmt: skip
    assert not any(verdicts(calls))
