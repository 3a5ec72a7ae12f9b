"""What a research run records of its report in run.json, beside the engine's generic record.

The engine's RunMeta (agent_runtime/engine/run_record) knows no report: the fields below live in its
`extra`, at the top level of run.json where earlier versions wrote them, so a workspace of an
earlier version resumes with its refusal count and problems, and its run.json keeps its shape.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from agent_runtime.engine.run_record import RunMeta
from agent_runtime.errors import WorkspaceError


class ReportRecord(BaseModel):
    """The report of a research run, as run.json records it."""

    report_path: str | None = None  # workspace-relative; set once a report (finished or not) is written
    report_problems: list[str] = Field(default_factory=list)  # listed when finalization was forced
    finish_refusals: int = 0  # all_finished calls refused so far (the last try finalizes as it is)


def report_record(meta: RunMeta) -> ReportRecord:
    """The report's record of the run (its defaults for a run that wrote none yet)."""
    stored = {name: meta.extra[name] for name in ReportRecord.model_fields if name in meta.extra}
    try:
        return ReportRecord.model_validate(stored)
    except ValidationError as exc:
        fields = ", ".join(sorted({str(error["loc"][0]) for error in exc.errors() if error["loc"]}))
        raise WorkspaceError(
            f"the run metadata (.runtime/run.json) holds an invalid {fields}; correct or remove it, then resume"
        ) from None


def record_report(meta: RunMeta, **fields: Any) -> ReportRecord:
    """Change the report's record (`report_path=…`, `report_problems=…`, `finish_refusals=…`),
    validated as ReportRecord; returns it as it now is."""
    record = ReportRecord.model_validate({**report_record(meta).model_dump(), **fields})
    meta.extra.update(record.model_dump())
    return record
