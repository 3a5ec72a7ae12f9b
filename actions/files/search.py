"""The File agent's searches: search_in_file, grep_files and file_search.

Patterns run on the `regex` engine with its `timeout=`: a catastrophic pattern such as `(a+)+$`
is stopped after a few seconds instead of hanging the run (the standard `re` cannot be
interrupted). Each file is searched as whole blocks of text rather than line by line, which
keeps a 50 MB Notebook under a second; matches are reported per line, as grep does. Binary
files are skipped, `.trash/` is never searched, and output is capped with a count of the rest.
"""

from __future__ import annotations

import asyncio
import fnmatch
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import regex

from actions.files.common import (
    TextFile,
    body_budget,
    file_policy,
    human_size,
    iter_blocks,
    open_text,
    plural,
    split_lines,
)
from agent_runtime.engine.registry import action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.workspace import RUNTIME
from agent_runtime.errors import ActionError, BinaryFileError, PatternTooSlowError, SandboxError
from sandbox.paths import DirectoryEntry, PathPolicy

MAX_PATTERN_CHARS = 1000
MAX_COUNTED = 10_000  # matching lines counted before a search stops counting
MAX_SHOWN = 100  # matching lines (or names) shown at most, within the character budget
MAX_LINE_CHARS = 240  # a long matching line is shown around its match
MAX_CONTEXT_LINES = 20
FILE_SECONDS = 3.0  # one file's share of time before a pattern counts as too slow there
TOTAL_SECONDS = 10.0  # the most one search may take
MAX_SLOW_FILES = 3  # a pattern too slow on this many files is too slow, full stop

Pattern = Any  # regex.Pattern[str]; the regex package ships no type information


def compile_pattern(pattern: str, ignore_case: bool = False) -> Pattern:
    if not pattern:
        raise ActionError("the pattern is empty; give a regular expression or a plain word")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ActionError(
            f"the pattern is {len(pattern):,} characters long; the limit is {MAX_PATTERN_CHARS}"
        )
    flags = regex.MULTILINE | (regex.IGNORECASE if ignore_case else 0)
    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise ActionError(
            f"invalid regular expression {pattern!r}: {exc}. To match special characters such as "
            ". * + ? ( ) [ ] { } | \\ literally, put a backslash before each."
        ) from None


def matching_lines(
    pattern: Pattern, text: str, first_line: int, deadline: float
) -> Iterator[tuple[int, str, int]]:
    """(line number, line, column of the match) for each line of `text` with a match, in order.
    Raises PatternTooSlowError past `deadline` (time.monotonic())."""
    pos, line, counted_to = 0, first_line, 0
    while pos <= len(text):
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise TimeoutError
            match = pattern.search(text, pos=pos, timeout=remaining)
        except TimeoutError:
            raise PatternTooSlowError from None
        if match is None:
            return
        start = match.start()
        if start == len(text) and (not text or text.endswith("\n")):
            return  # an empty match after the last newline is not a line
        line += text.count("\n", counted_to, start)
        counted_to = start
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        yield line, text[line_start:line_end], start - line_start
        pos = line_end + 1  # one report per line, as grep does


def shorten(line: str, column: int) -> str:
    line = line.rstrip("\r")
    if len(line) <= MAX_LINE_CHARS:
        return line
    start = max(0, min(column - MAX_LINE_CHARS // 3, len(line) - MAX_LINE_CHARS))
    end = start + MAX_LINE_CHARS
    return ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")


# ----------------------------------------------------------------- search_in_file


def _context(text_file: TextFile, wanted: set[int]) -> dict[int, str]:
    """The text of the `wanted` line numbers (a second pass, only through blocks that have them)."""
    found: dict[int, str] = {}
    highest = max(wanted)
    for first, text in iter_blocks(text_file):
        if first > highest:
            break
        count = text.count("\n") + 1
        if any(first <= n < first + count for n in wanted):
            for index, line in enumerate(split_lines(text)):
                if first + index in wanted:
                    found[first + index] = line.rstrip("\n")
    return found


@action
async def search_in_file(ctx: ActionContext, file_path: str, pattern: str, context_lines: int = 0) -> str:
    """Find the lines of one file that match a regular expression, with their line numbers. Each
    comes as "12: …", and with context_lines > 0 the lines around it too ("11- …"). A plain word
    works as a pattern; the search is case-sensitive (use (?i) at the start to ignore case).

    Args:
        file_path: the file, e.g. "Notebook/02_<chapter>.md".
        pattern: a regular expression (Python syntax), e.g. "NEEDS RESEARCH" or "\\[S\\d+\\]".
        context_lines: lines to show before and after each match, 0-20.
    """
    if not 0 <= context_lines <= MAX_CONTEXT_LINES:
        raise ActionError(f"context_lines must be between 0 and {MAX_CONTEXT_LINES}, not {context_lines}")
    compiled = compile_pattern(pattern)
    policy, budget = file_policy(ctx), body_budget(ctx)

    def work() -> str:
        matches: list[tuple[int, str, int]] = []
        total, note = 0, ""
        deadline = time.monotonic() + TOTAL_SECONDS
        with open_text(policy, file_path) as text_file:
            try:
                for first, text in iter_blocks(text_file):
                    for found in matching_lines(compiled, text, first, deadline):
                        total += 1
                        if len(matches) < MAX_SHOWN:
                            matches.append(found)
                        if total >= MAX_COUNTED:
                            break
                    if total >= MAX_COUNTED:
                        note = f"[stopped counting at {MAX_COUNTED:,} matching lines]"
                        break
            except PatternTooSlowError:
                note = (
                    f"[the search was stopped after {TOTAL_SECONDS:g} s: the pattern is too slow here (nested "
                    "repetition such as (a+)+ backtracks without end); simplify it. Results so far are above.]"
                )
            if not matches:
                return f"No line of {text_file.shown} matches /{pattern}/." + (f"\n{note}" if note else "")
            wanted: set[int] = set()
            for number, _, _ in matches:
                wanted.update(range(max(1, number - context_lines), number + context_lines + 1))
            lines = _context(text_file, wanted) if context_lines else {}
            shown_path = text_file.shown
        for number, line, _ in matches:
            lines[number] = line
        marks = {number: ":" for number, _, _ in matches}
        columns = {number: column for number, _, column in matches}
        out: list[str] = []
        used, shown, previous = 0, 0, 0
        for number in sorted(lines):
            entry = f"{number}{marks.get(number, '-')} {shorten(lines[number], columns.get(number, 0))}"
            if used + len(entry) > budget:
                break
            if previous and number != previous + 1 and context_lines:
                out.append("--")
            out.append(entry)
            used += len(entry) + 1
            shown += number in marks
            previous = number
        header = f"{plural(total, 'matching line')} in {shown_path} for /{pattern}/:"
        if shown < total:
            note = f"[{total - shown:,} more matching lines not shown: narrow the pattern]" + (
                f"\n{note}" if note else ""
            )
        return "\n".join([header, *out] + ([note] if note else []))

    return await asyncio.to_thread(work)


# ----------------------------------------------------------------- walking folders


def walk(policy: PathPolicy, directory: str, *, folders: bool = False) -> Iterator[DirectoryEntry]:
    """Entries under `directory`, depth first in name order. `.trash/` is never entered (the
    policy hides it); `.runtime/` only when the walk starts there; linked folders are not
    followed (no cycles, no duplicates). Unreadable folders are passed over."""
    start = policy.resolve(directory)
    if not start.exists():
        raise ActionError(
            f"the folder {policy.relative(start)} does not exist; list_directory shows what is there"
        )
    if not start.is_dir():
        raise ActionError(
            f"{policy.relative(start)} is a file, not a folder; search_in_file searches one file"
        )
    in_runtime = policy.relative(start).split("/")[0] == RUNTIME
    pending = [policy.relative(start)]
    while pending:
        try:
            entries = list(policy.iter_directory(pending.pop()))
        except SandboxError:
            continue
        subfolders = []
        for entry in entries:
            if entry.is_dir:
                if entry.is_symlink or (entry.relative == RUNTIME and not in_runtime):
                    continue
                subfolders.append(entry.relative)
                if folders:
                    yield entry
            else:
                yield entry
        pending.extend(reversed(subfolders))


def _fold(text: str) -> str:
    """A name as globs compare it: in NFC, so a name saved on macOS (NFD) matches the same name
    typed by the model (NFC), then lower case (two equal NFC strings lower to equal strings)."""
    return unicodedata.normalize("NFC", text).lower()


def _glob_matches(entry: DirectoryEntry, glob: str) -> bool:
    """Case-insensitive, in NFC; a glob with a "/" is matched against the workspace-relative path."""
    subject = entry.relative if "/" in glob else entry.name
    return fnmatch.fnmatchcase(_fold(subject), _fold(glob))


# ----------------------------------------------------------------- grep_files


@dataclass
class _GrepResult:
    shown: list[str] = field(default_factory=list)
    used: int = 0
    total: int = 0
    files_with_matches: int = 0
    files_not_shown: set[str] = field(default_factory=set)
    searched: int = 0
    binary: int = 0
    unreadable: int = 0
    slow: list[str] = field(default_factory=list)
    stopped: str = ""


def _grep(
    policy: PathPolicy, compiled: Pattern, directory: str, glob: str | None, budget: int
) -> _GrepResult:
    result = _GrepResult()
    started = time.monotonic()
    for entry in walk(policy, directory):
        if glob and not _glob_matches(entry, glob):
            continue
        if time.monotonic() - started > TOTAL_SECONDS:
            result.stopped = (
                f"the search was stopped after {TOTAL_SECONDS:g} s; narrow the directory or the glob"
            )
            break
        try:
            text_file = open_text(policy, entry.relative)
        except BinaryFileError:
            result.binary += 1
            continue
        except (ActionError, SandboxError, OSError):
            result.unreadable += 1
            continue
        result.searched += 1
        deadline = min(time.monotonic() + FILE_SECONDS, started + TOTAL_SECONDS)
        matched = False
        try:
            with text_file:
                for first, text in iter_blocks(text_file):
                    for number, line, column in matching_lines(compiled, text, first, deadline):
                        matched = True
                        result.total += 1
                        entry_text = f"{entry.relative}:{number}: {shorten(line, column)}"
                        if len(result.shown) < MAX_SHOWN and result.used + len(entry_text) <= budget:
                            result.shown.append(entry_text)
                            result.used += len(entry_text) + 1
                        else:
                            result.files_not_shown.add(entry.relative)
                        if result.total >= MAX_COUNTED:
                            result.stopped = f"stopped counting at {MAX_COUNTED:,} matching lines"
                            result.files_with_matches += 1
                            return result
        except PatternTooSlowError:
            result.slow.append(entry.relative)
            if len(result.slow) >= MAX_SLOW_FILES:
                result.stopped = "the pattern is too slow (it was stopped on several files)"
                break
        except OSError:
            result.unreadable += 1
        result.files_with_matches += matched
    return result


@action
async def grep_files(
    ctx: ActionContext, pattern: str, directory: str = ".", ignore_case: bool = False, glob: str | None = None
) -> str:
    """Search the text files under a folder for a regular expression, like grep -rn. Each matching
    line comes as "path:line: text", subfolders included. Binary files and .trash/ are skipped;
    the output is capped, with a count of the matches not shown.

    Args:
        pattern: a regular expression (Python syntax), e.g. "NEEDS RESEARCH" or "\\[S\\d+\\]"; a plain word works.
        directory: the folder to search; "." is the whole workspace.
        ignore_case: true to match upper and lower case alike.
        glob: only the files it matches, e.g. "*.md", or with a "/" their path, e.g. "Notebook/*.md".
    """
    compiled = compile_pattern(pattern, ignore_case)
    policy, budget = file_policy(ctx), body_budget(ctx)
    result = await asyncio.to_thread(_grep, policy, compiled, directory, glob, budget)
    where = policy.relative(policy.resolve(directory))
    where = "the workspace" if where == "." else f"{where}/"
    scope = f"{plural(result.searched, 'text file')} in {where}" + (f" matching {glob!r}" if glob else "")
    skipped = [
        f"{plural(result.binary, 'binary file')} skipped" if result.binary else "",
        f"{result.unreadable:,} unreadable" if result.unreadable else "",
    ]
    scope += "".join(f"; {part}" for part in skipped if part)
    at_least = "at least " if result.total >= MAX_COUNTED else ""
    lines = [
        f"{at_least}{plural(result.total, 'matching line')} in {plural(result.files_with_matches, 'file')} "
        f"for /{pattern}/ ({scope}):"
        if result.total
        else f"No match for /{pattern}/ ({scope})."
    ]
    lines += result.shown
    if len(result.shown) < result.total:
        lines.append(
            f"[{result.total - len(result.shown):,} more matching lines in {len(result.files_not_shown):,} files "
            "not shown: narrow the pattern, the directory or the glob, or use search_in_file on one file]"
        )
    if result.slow:
        lines.append(
            f"[the pattern was too slow on {', '.join(result.slow)} and was stopped there (nested repetition "
            "such as (a+)+ backtracks without end); simplify it]"
        )
    if result.stopped:
        lines.append(f"[{result.stopped}]")
    return "\n".join(lines)


# ----------------------------------------------------------------- file_search


@action
async def file_search(ctx: ActionContext, directory: str, name_pattern: str) -> str:
    """Find files and folders by name under a folder and its subfolders (.trash/ excluded).
    Matching ignores case. A pattern without wildcards matches any name that contains it.

    Args:
        directory: the folder to search; "." is the whole workspace.
        name_pattern: a name or a glob, e.g. "chapter", "*.md", "0?_*.md", or "Notebook/*draft*" to match the path.
    """
    if not name_pattern.strip():
        raise ActionError("name_pattern is empty; give a part of a name or a glob such as *.md")
    glob = name_pattern if any(ch in name_pattern for ch in "*?[") else f"*{name_pattern}*"
    policy, budget = file_policy(ctx), body_budget(ctx)

    def work() -> tuple[list[str], int]:
        found: list[str] = []
        used = total = 0
        for entry in walk(policy, directory, folders=True):
            if not _glob_matches(entry, glob):
                continue
            total += 1
            if entry.is_dir:
                text = f"{entry.relative}/"
            else:
                try:
                    text = f"{entry.relative} ({human_size(entry.path.stat().st_size)})"
                except OSError:
                    text = entry.relative
            if len(found) < MAX_SHOWN and used + len(text) <= budget:
                found.append(text)
                used += len(text) + 1
        return found, total

    found, total = await asyncio.to_thread(work)
    where = policy.relative(policy.resolve(directory))
    where = "the workspace" if where == "." else f"{where}/"
    if not total:
        return f"No file or folder under {where} has a name matching {name_pattern!r}."
    lines = [
        f"{plural(total, 'name')} under {where} match{'es' if total == 1 else ''} {name_pattern!r}:",
        *found,
    ]
    if total > len(found):
        lines.append(f"[{total - len(found):,} more not shown: use a narrower pattern or folder]")
    return "\n".join(lines)
