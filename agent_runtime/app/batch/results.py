"""Each task's row of `DIR/results.jsonl` and `DIR/results.csv`, read from its workspace's own
files (`.runtime/run.json`, report.md), and the two files, rewritten atomically as runs end.

Paths in a row are relative to DIR: the folder may be mounted elsewhere on another machine.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.batch.task_file import RESULT_FILES, Task
from agent_runtime.app.run_state import citation_figures, lock_state
from agent_runtime.domain.layout import REPORT
from agent_runtime.domain.report_record import report_record
from agent_runtime.engine.run_record import RunMeta, load_meta
from agent_runtime.engine.workspace import Workspace
from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text

COLUMNS = (
    "id", "title", "status", "workspace", "report", "words", "sources", "citations", "citation_accuracy",
    "effective_citations", "prompt_tokens", "completion_tokens", "cost", "seconds", "error",
)  # fmt: skip
# Statuses beyond run.json's: "pending" (not started: the batch's budget was reached, or the batch
# was stopped first) and "failed" (no run could start, or its process ended without saying why).
FAILED = ("error", "failed")
# Not actions.web.corpus_text.CJK: importing it loads the web stack into every batch worker.
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_WORD = re.compile(r"\w+")


def count_words(text: str) -> int:
    """Words as people count them: each Chinese, Japanese or Korean character is one, and so is
    each run of letters or digits between spaces and punctuation elsewhere."""
    return len(_CJK.findall(text)) + len(_WORD.findall(_CJK.sub(" ", text)))


def workspace_meta(root: Path) -> tuple[RunMeta | None, str | None]:
    """(run.json, None), (None, None) when the run never started, or (None, why it cannot be read)."""
    try:
        return load_meta(Workspace(root).run_file), None
    except WorkspaceError as exc:
        return None, str(exc)


def read_row(task: Task, out: Path, *, error: str | None = None, status: str | None = None) -> dict[str, Any]:
    """The task's row from its workspace as it is now. `status`/`error` are what the batch knows
    beyond the files (a run that could not start, a process that ended without a word)."""
    root = out / task.id
    meta, problem = workspace_meta(root)
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(id=task.id, title=task.title, workspace=task.id)
    if meta is None:
        row["status"] = status or ("failed" if problem or error else "pending")
        row["error"] = error or problem
        return row
    totals = meta.totals
    figures = citation_figures(meta.summary) or {}
    report_path = report_record(meta).report_path or REPORT
    report = root / report_path
    finished = meta.status == "finished"
    row.update(
        title=meta.title,
        status=_status(meta, root),
        report=f"{task.id}/{report_path}" if finished and report.is_file() else None,
        words=_words(report) if finished else None,
        sources=_count(meta.summary.get("sources_cited")),
        citations=figures.get("checked"),
        citation_accuracy=figures.get("citation_accuracy"),
        effective_citations=figures.get("effective_citations"),
        prompt_tokens=totals.prompt_tokens,
        completion_tokens=totals.completion_tokens,
        cost=round(totals.cost, 6),
        seconds=round(totals.elapsed_seconds, 1),
        error=None if finished else (error or meta.stop_reason),
    )
    if status == "failed" and row["status"] not in FAILED:
        row["status"] = "failed"  # the process ended badly after run.json said otherwise
    return row


def _status(meta: RunMeta, root: Path) -> str:
    if meta.status != "running":
        return meta.status
    # run.json says running: a process holds the lock (on this machine or another), or it was killed
    return "running" if lock_state(root).held else "interrupted"


def _words(report: Path) -> int | None:
    try:
        return count_words(report.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def write_results(out: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Both files, each replaced whole: a reader (or a kill) never sees half of one."""
    rows = list(rows)
    lines = "".join(json.dumps({k: row.get(k) for k in COLUMNS}, ensure_ascii=False) + "\n" for row in rows)
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if row.get(k) is None else row.get(k) for k in COLUMNS} for row in rows)
    atomic_write_text(out / RESULT_FILES[0], lines)
    atomic_write_text(out / RESULT_FILES[1], buffer.getvalue())
