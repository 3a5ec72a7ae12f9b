"""The batch's task file: JSONL (one object a line) or CSV (a header row), read whole before any
run starts, so that one bad line stops the batch with its line number instead of half-way.

A task has a title (`title`, or `prompt` as DeepResearch Bench's query.jsonl names it), and may
have an `id` (its workspace's folder name under DIR), a `purpose` and a `language`. Other fields
(query.jsonl's `topic`) are kept out of the run. Without an id, the title's slug is the id: the
same file read again gives the same ids, so a re-run finds the same workspaces.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime import language
from agent_runtime.domain.layout import title_slug
from agent_runtime.errors import DeepResearcherError

RESULT_FILES = ("results.jsonl", "results.csv")
_MAX_ID_CHARS = 100
_UNSAFE_ID = re.compile(r"[/\\\x00-\x1f\x7f]")


class TaskFileError(DeepResearcherError):
    """The task file cannot be used as it is: a usage error (exit 2), and no run starts."""


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    purpose: str | None = None
    language: str | None = None
    line: int = 0  # where the task file gives it, for messages


def read_tasks(path: Path) -> list[Task]:
    """Every task of the file, or TaskFileError naming the first line that is wrong."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TaskFileError(f"no task file {path}") from None
    except OSError as exc:
        raise TaskFileError(f"cannot read the task file {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")  # a BOM, as Excel writes UTF-8 CSV, is not part of the header
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TaskFileError(f"{path}, line {line}: not UTF-8 text; save the file as UTF-8") from None
    rows = _csv_rows(path, text) if path.suffix.lower() == ".csv" else _jsonl_rows(path, text)
    tasks = [_task(path, line, row) for line, row in rows]
    if not tasks:
        raise TaskFileError(
            f"{path} holds no task: give one JSON object a line, or a CSV with a title column"
        )
    _refuse_duplicates(path, tasks)
    return tasks


def _jsonl_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise TaskFileError(
                f"{path}, line {number}: not valid JSON ({exc}); each line must be one object such as "
                '{"id": "t1", "title": "…"}'
            ) from None
        if not isinstance(row, dict):
            raise TaskFileError(
                f"{path}, line {number}: a JSON {type(row).__name__}, not an object with a title or prompt"
            )
        rows.append((number, row))
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [name.strip() for name in reader.fieldnames or []]
    if "title" not in header and "prompt" not in header:
        raise TaskFileError(
            f"{path}, line 1: the header has no title column (found: {', '.join(header) or 'nothing'})"
        )
    reader.fieldnames = header
    rows, start = [], 2
    try:
        for row in reader:
            if None in row:  # more cells than the header names
                raise TaskFileError(
                    f"{path}, line {start}: more cells than the header's {len(header)} columns"
                )
            rows.append((start, {k: v for k, v in row.items() if v not in (None, "")}))
            start = reader.line_num + 1  # a quoted cell may span lines: the next row starts after it
    except csv.Error as exc:
        raise TaskFileError(f"{path}, line {reader.line_num}: {exc}") from None
    return rows


def _text(path: Path, line: int, row: dict[str, Any], key: str) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise TaskFileError(f"{path}, line {line}: {key} must be text, not {json.dumps(value)[:60]}")
    return value.strip() or None


def _task(path: Path, line: int, row: dict[str, Any]) -> Task:
    if "title" not in row and "prompt" not in row:
        raise TaskFileError(f"{path}, line {line}: no title (or prompt) field")
    title = _text(path, line, row, "title" if "title" in row else "prompt")
    if not title:
        raise TaskFileError(f"{path}, line {line}: the title is empty")
    purpose = _text(path, line, row, "purpose")
    lang = _text(path, line, row, "language")
    if lang is not None:
        try:
            language.normalize(lang)
        except ValueError as exc:
            raise TaskFileError(f"{path}, line {line}: {exc}") from None
    return Task(_task_id(path, line, row.get("id"), title), title, purpose, lang, line)


def _task_id(path: Path, line: int, given: Any, title: str) -> str:
    if given is None or given == "":
        return title_slug(title, empty=f"task-{line}")  # as `run` names a title's workspace
    if isinstance(given, bool) or not isinstance(given, str | int):
        raise TaskFileError(
            f"{path}, line {line}: id must be text or a whole number, not {json.dumps(given)[:60]}"
        )
    task_id = unicodedata.normalize("NFC", str(given).strip())
    problem = None
    if not task_id:
        problem = "the id is empty"
    elif _UNSAFE_ID.search(task_id) or task_id.startswith(".") or task_id in RESULT_FILES:
        problem = (
            f"the id {task_id[:60]!r} cannot name a folder (no '/', '\\', control characters or leading '.')"
        )
    elif len(task_id) > _MAX_ID_CHARS:
        problem = f"the id is longer than {_MAX_ID_CHARS} characters"
    if problem:
        raise TaskFileError(f"{path}, line {line}: {problem}")
    return task_id


def _refuse_duplicates(path: Path, tasks: list[Task]) -> None:
    # Case folded: on a case-insensitive disk (macOS, a Windows share) "A1" and "a1" are one folder.
    first: dict[str, Task] = {}
    for task in tasks:
        key = task.id.casefold()
        if key in first:
            raise TaskFileError(
                f"{path}, line {task.line}: the id {task.id!r} is also on line {first[key].line}; "
                "each task needs its own id (its workspace's folder; without an id, it is the title's slug)"
            )
        first[key] = task
