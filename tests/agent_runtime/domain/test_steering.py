"""The questions section of the overall dashboard, as a person edits it: answers read under their
questions, in English and Chinese; a section deleted or garbled is "no answers"; the section written
again replaces the old one and keeps the rest of the dashboard."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.app.steering_notes import steering_note
from agent_runtime.domain.steering import (
    Steering,
    follow_up_workspace,
    load_steering,
    parents,
    questions_section,
    read_answers,
    save_steering,
    with_section,
)
from agent_runtime.errors import SettingValueError

BLUEPRINT = "# Batteries\n\n**Purpose:** a memo\n\n## Research questions\n\n## Outline\n"


def test_the_answers_are_read_under_their_questions() -> None:
    section = questions_section(["Which chemistry?", "Which region?"], [], "en", "deep-researcher resume ws")
    dashboard = with_section(BLUEPRINT, section)
    assert dashboard.startswith(BLUEPRINT.rstrip("\n")) and "## Questions for you" in dashboard
    assert read_answers(dashboard) == {"Which chemistry?": "", "Which region?": ""}
    answered = dashboard.replace("### 1. Which chemistry?\n", "### 1. Which chemistry?\n\nsulfide, mostly\nand oxide\n")
    assert read_answers(answered) == {"Which chemistry?": "sulfide, mostly\nand oxide", "Which region?": ""}


def test_a_chinese_run_asks_in_chinese() -> None:
    section = questions_section(["哪种化学体系？"], ["硫化物"], "zh", "deep-researcher resume ws")
    dashboard = with_section("# 电池\n\n## 研究问题\n", section)
    assert "## 需要你回答的问题" in dashboard and "然后运行：deep-researcher resume ws" in dashboard
    assert read_answers(dashboard) == {"哪种化学体系？": "硫化物"}


def test_a_deleted_or_garbled_section_is_no_answers(tmp_path: Path) -> None:
    dashboard = with_section(BLUEPRINT, questions_section(["Which chemistry?"], [], "en", "resume"))
    assert read_answers(BLUEPRINT) is None
    garbled = dashboard.replace("### 1. Which chemistry?", "which chemistry: sulfide")
    assert read_answers(garbled) is None
    note = steering_note(tmp_path, "awaiting_answers", garbled)
    assert note is not None and "gave no answers" in note and "Do not ask again" in note


def test_writing_the_section_again_replaces_it_and_keeps_what_follows() -> None:
    first = with_section(BLUEPRINT + "\n## Status\nNot started.\n", questions_section(["A?"], [], "en", "resume"))
    second = with_section(first, questions_section(["A?"], ["yes"], "en", "resume"))
    assert second.count("## Questions for you") == 1 and read_answers(second) == {"A?": "yes"}
    assert "## Status\nNot started." in second


def test_the_chain_of_parents_ends_at_a_loop_or_a_missing_record(tmp_path: Path) -> None:
    a, b, c = (tmp_path / name for name in "abc")
    for folder in (a, b, c):
        folder.mkdir()
    save_steering(b, Steering(follows=str(a)))
    save_steering(c, Steering(follows=str(b)))
    assert parents(c) == [b, a]
    save_steering(a, Steering(follows=str(c)))  # a loop a person made by hand
    assert parents(c) == [b, a]
    (b / ".runtime" / "steering.json").write_text("{broken")
    assert load_steering(b) == Steering() and parents(c) == [b]


@pytest.mark.parametrize("inside", ["Notebook/next", ".", ".."])
def test_a_follow_up_folder_inside_the_earlier_one_or_holding_it_is_refused(tmp_path: Path, inside: str) -> None:
    earlier = tmp_path / "ws"
    earlier.mkdir()
    with pytest.raises(SettingValueError, match="inside the earlier workspace"):
        follow_up_workspace(earlier, earlier / inside)
    assert follow_up_workspace(earlier, tmp_path / "next") == tmp_path / "next"
