"""Makes the stored expected outputs in this folder, which stand where copies of old code stood as
oracles (issue 35): three functions were rewritten to be faster or to stream, with a promise of the
same output, byte for byte, and the tests hold that promise against these files.

- `fit_digests.json`: `ContextGuard.fit` on the 200 histories of `random_logs.fit_cases` (SHA-256
  of each returned request as `json.dumps(..., ensure_ascii=False)`; a request runs to megabytes).
- `unfinished_notes.json`: `unfinished_research_note` on the 600 logs of
  `random_logs.research_task_logs` (the note, or null), in a folder holding `Notebook/b.md`.
- `resume_notes.json`: `resume_note` on the 40 workspaces of `random_logs.resume_cases`, with the
  last 5, 1 and 3 actions.

How they were made: at commit 8a68995 the old functions were still kept in the tests as oracles
(`old_fit` in tests/agent_runtime/engine/test_compression.py, `old_resume_note` in
tests/agent_runtime/app/test_kill_resume.py, `old_unfinished_research_note` in
tests/actions/test_research_task.py). The files were written once by passing those functions to
`write_all` (in place of `current_*` below); this script, run on the new code, then wrote the very
same bytes. The tests hold the new code to them.

    python tests/data/expected/make_expected.py          # writes the files from the current code

Run it only when an output is meant to change (say, the resume note's template words), and read the
diff: a change to the inputs (tests/support/random_logs.py) or to the functions' output shows there.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from agent_runtime.app.researcher import resume_note
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.context_guard import ContextGuard
from agent_runtime.engine.messages import Message, ToolSchema
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.run_record import RunMeta
from tests.support.expected import EXPECTED, digest, notebook_with_b
from tests.support.random_logs import fit_cases, research_task_logs, resume_cases

Fit = Callable[[ContextGuard, list[Message], Sequence[ToolSchema]], list[Message]]
UnfinishedNote = Callable[[Path, list[dict[str, Any]]], str | None]
ResumeNote = Callable[..., str]
LASTS = (5, 1, 3)


def fit_digests(fit: Fit) -> list[str]:
    with tempfile.TemporaryDirectory() as scratch:
        workspace = ResearchWorkspace(Path(scratch))
        return [digest(fit(guard, history, tools)) for history, tools, guard in fit_cases(workspace)]


def unfinished_notes(note: UnfinishedNote) -> list[str | None]:
    with tempfile.TemporaryDirectory() as scratch:
        root = notebook_with_b(Path(scratch))
        return [note(root, log) for log in research_task_logs()]


def resume_notes(note: ResumeNote) -> list[dict[str, str]]:
    prompts = Prompts()
    with tempfile.TemporaryDirectory() as scratch:
        return [
            {str(last): note(ws, meta, prompts, last=last) for last in LASTS}
            for ws, meta in resume_cases(Path(scratch))
        ]


def write_all(fit: Fit, unfinished: UnfinishedNote, resume: ResumeNote) -> None:
    for name, made in (
        ("fit_digests.json", fit_digests(fit)),
        ("unfinished_notes.json", unfinished_notes(unfinished)),
        ("resume_notes.json", resume_notes(resume)),
    ):
        text = json.dumps(made, ensure_ascii=False, indent=1) + "\n"
        (EXPECTED / name).write_text(text, encoding="utf-8")
        print(f"{name}: {len(made)} cases")


def current_fit(guard: ContextGuard, history: list[Message], tools: Sequence[ToolSchema]) -> list[Message]:
    return guard.fit(history, tools)


def current_unfinished(root: Path, log: list[dict[str, Any]]) -> str | None:
    from actions.research_task import unfinished_research_note

    return unfinished_research_note(root, iter(log))


def current_resume(ws: ResearchWorkspace, meta: RunMeta, prompts: Prompts, last: int) -> str:
    return resume_note(ws, meta, prompts, last=last)


if __name__ == "__main__":
    write_all(current_fit, current_unfinished, current_resume)
