"""A person steering a research: the questions the agent asks before its plan (`run --clarify`), the
plan a person reviews before any search (`run --review-plan`), and the earlier run a follow-up
builds on (`deep-researcher follow-up`).

What the run did of these is kept in `.runtime/steering.json` (written atomically); the questions
and their answers live where a person reads and edits the research anyway, in
`overall_dashboard.md`, under a section "Questions for you" in the run's language. Reading the
answers never fails: a section the person deleted or garbled is "no answers".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ValidationError

from agent_runtime.errors import SettingValueError
from agent_runtime.language import DASHBOARD_WORDS
from sandbox import atomic_write_text

STEERING_FILE = Path(".runtime") / "steering.json"
MAX_QUESTIONS = 3
MAX_QUESTION_CHARS = 500

# The words code writes into the dashboard, by language (a language without a table gets English).
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "heading": "Questions for you",
        "intro": 'Write your answer under each question (an empty answer means "no preference"), then run: {command}',
        "follows": "Follows up",
    },
    "zh": {
        "heading": "需要你回答的问题",
        "intro": "请在每个问题下面写下你的回答（留空表示“没有偏好”），然后运行：{command}",
        "follows": "延续的研究",
    },
}
_QUESTION = re.compile(r"^###\s+(?:\d+[.)、]\s*)?(.*?)\s*#*\s*$")
_SECTION = re.compile(r"^##\s+(.*?)\s*#*\s*$")
_HEADINGS = frozenset(words["heading"].casefold() for words in _WORDS.values())


class Steering(BaseModel):
    """What a run did of its steering (`.runtime/steering.json`)."""

    asked: bool = False  # ask_user was used (once per run)
    questions: list[str] = []
    plan_written: bool = False  # the first research blueprint was written
    plan_reviewed: bool = False  # a person had the plan to review (a --review-plan run pauses once)
    follows: str | None = None  # the earlier workspace a follow-up builds on (absolute path)


EARLIER_REPORT = "earlier_report.md"  # a follow-up's copy of the report it builds on

def words(language: str | None) -> dict[str, str]:
    return _WORDS.get((language or "en").split("-")[0].lower(), _WORDS["en"])


def load_steering(root: Path) -> Steering:
    """The run's steering record; a missing or damaged file is an empty record (a workspace made
    before steering existed, or a file a person broke: nothing was asked or reviewed)."""
    try:
        return Steering.model_validate(json.loads((root / STEERING_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return Steering()


def save_steering(root: Path, steering: Steering) -> None:
    (root / STEERING_FILE).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(root / STEERING_FILE, steering.model_dump_json(indent=2) + "\n")


def questions_section(questions: list[str], answers: list[str], language: str | None, command: str) -> str:
    """The section asking the person, with each answer given so far under its question."""
    said = words(language)
    parts = [f"## {said['heading']}", said["intro"].format(command=command)]
    for number, question in enumerate(questions, 1):
        answer = answers[number - 1] if number <= len(answers) else ""
        parts.append(f"### {number}. {' '.join(question.split())}" + (f"\n\n{answer.strip()}" if answer.strip() else ""))
    return "\n\n".join(parts) + "\n"


def with_section(dashboard: str, section: str) -> str:
    """The dashboard with `section` in place of its questions section, or after its end."""
    lines = dashboard.rstrip("\n").split("\n")
    start = _section_start(lines)
    if start is None:
        return dashboard.rstrip("\n") + "\n\n" + section
    end = _section_end(lines, start)
    kept = lines[:start] + section.rstrip("\n").split("\n") + lines[end:]
    return "\n".join(kept).rstrip("\n") + "\n"


def read_answers(dashboard: str) -> dict[str, str] | None:
    """Question → the person's answer ("" for no preference), as the section now reads; None when
    the section is gone or holds no question any more (taken as "no answers")."""
    lines = dashboard.split("\n")
    start = _section_start(lines)
    if start is None:
        return None
    found: dict[str, str] = {}
    question: str | None = None
    body: list[str] = []
    for line in lines[start + 1 : _section_end(lines, start)]:
        heading = _QUESTION.match(line)
        if heading:
            if question is not None:
                found[question] = "\n".join(body).strip()
            question, body = heading.group(1), []
        elif question is not None:
            body.append(line)
    if question is not None:
        found[question] = "\n".join(body).strip()
    return found or None


def plan_sections(dashboard: str) -> list[tuple[str, str]]:
    """The research questions and the outline of a blueprint, as (heading, text), to show a person."""
    wanted = {" ".join(w[key].split()).casefold() for w in DASHBOARD_WORDS.values() for key in ("questions", "outline")}
    shown: list[tuple[str, str]] = []
    lines = dashboard.split("\n")
    for index, line in enumerate(lines):
        heading = _SECTION.match(line)
        if heading and " ".join(heading.group(1).split()).casefold() in wanted:
            body = "\n".join(lines[index + 1 : _section_end(lines, index)]).strip()
            shown.append((heading.group(1), body))
    return shown


def follows_line(earlier: Path, language: str | None) -> str:
    return f"**{words(language)['follows']}:** {earlier}"


def follow_up_workspace(earlier: Path, workspace: str | Path | None = None) -> Path:
    """The new workspace of a follow-up: `workspace` (new or empty), else `<earlier>-follow-up`, numbered."""
    if workspace is not None:
        chosen = Path(workspace).expanduser()
        mine, theirs = chosen.resolve(), earlier.resolve()
        if mine == theirs or theirs in mine.parents or mine in theirs.parents:
            raise SettingValueError(
                f"{chosen} is inside the earlier workspace {earlier} (or holds it); a follow-up leaves the earlier "
                "one as it is: choose a --workspace beside it"
            )
        if chosen.exists() and (not chosen.is_dir() or any(chosen.iterdir())):
            raise SettingValueError(
                f"{chosen} exists and is not empty; a follow-up needs a new or empty folder: choose another --workspace"
            )
        return chosen
    base = earlier.parent / f"{earlier.name}-follow-up"
    candidate, number = base, 2
    while candidate.exists() and (not candidate.is_dir() or any(candidate.iterdir())):
        candidate, number = base.with_name(f"{base.name}-{number}"), number + 1
    return candidate


def parents(root: Path, limit: int = 100) -> list[Path]:
    """The chain of earlier workspaces a follow-up builds on, nearest first (a loop or a missing
    record ends it)."""
    chain: list[Path] = []
    seen = {root.resolve()}
    follows = load_steering(root).follows
    while follows and len(chain) < limit:
        earlier = Path(follows)
        if earlier.resolve() in seen:
            break
        chain.append(earlier)
        seen.add(earlier.resolve())
        follows = load_steering(earlier).follows if earlier.is_dir() else None
    return chain


def _section_start(lines: list[str]) -> int | None:
    for index, line in enumerate(lines):
        heading = _SECTION.match(line)
        if heading and " ".join(heading.group(1).split()).casefold() in _HEADINGS:
            return index
    return None


def _section_end(lines: list[str], start: int) -> int:
    for index in range(start + 1, len(lines)):
        if _SECTION.match(lines[index]) or re.match(r"^#\s", lines[index]):
            return index
    return len(lines)
