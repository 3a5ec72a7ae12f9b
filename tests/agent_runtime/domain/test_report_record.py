"""The report's fields left the engine's record (RunMeta.extra, typed by domain/report_record) and
run.json kept its shape: a workspace written before the move resumes with its refusal count, and
the run.json written now still has the fields where earlier versions read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.report_record import record_report, report_record
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_record import RunMeta, load_meta, save_meta
from agent_runtime.errors import WorkspaceError
from agent_runtime.testing import Reply, call, reply
from tests.support.runs import resume_run, start_run

# run.json as main (before the move) wrote it for a run interrupted after two refused reports (its
# settings left out here: they are the test's own); the bytes a user's workspace holds.
MAIN_RUN_JSON: dict[str, Any] = {
    "title": "Test research",
    "purpose": "testing",
    "created_at": "2026-11-27T20:56:14+00:00",
    "updated_at": "2026-11-27T20:56:15+00:00",
    "status": "interrupted",
    "stop_reason": "interrupted by the user",
    "totals": {
        "steps": 2, "model_calls": 2, "prompt_tokens": 6930, "completion_tokens": 34, "cost": 0.0,
        "elapsed_seconds": 0.156, "invalid_replies": 0, "compactions": 0,
    },
    "result": None,
    "report_path": "report.md",
    "report_problems": [
        "[S9] is not a source any search or visit returned",
        "unresolved marker [NEEDS RESEARCH: figures]",
        "the chapter 'B' is empty",
    ],
    "finish_refusals": 2,
    "summary": {
        "steps": 2, "model_calls": 2, "prompt_tokens": 6930, "completion_tokens": 34, "cost": 0.0,
        "elapsed_seconds": 0.2, "sources_seen": 3, "sources_fetched": 0, "sources_cited": 1, "report": "unfinished",
        "citations": {
            "checked": 1, "supported": 0, "weak": 1, "unsupported": 0, "citation_accuracy": 0.0,
            "effective_citations": 0, "unverified": 1, "checked_by": "lexical",
        },
    },
    "resumes": 0,
    "context_windows": {},
    "tool_mode": None,
}  # fmt: skip
BAD = "# T\n\n## A\nFirst [S2]. Invented [S9]. [NEEDS RESEARCH: figures]\n\n## B\n"


def submit_bad_draft(workspace: Path) -> Any:
    def script(messages: Any, tools: Any) -> Reply:
        ledger = Ledger.load(workspace / "sources")
        for n in (1, 2, 3):
            ledger.register(f"https://example.org/{n}", f"Source {n}", via="search")
        (workspace / "Notebook" / "draft.md").write_text(BAD)
        return reply(call("all_finished", result="summary", report_path="Notebook/draft.md"))

    return script


def stop_after_first_request(messages: Any, tools: Any) -> Reply:
    raise KeyboardInterrupt


async def test_a_workspace_written_before_the_move_resumes_with_its_refusal_count(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    first, _ = await start_run(tmp_path, stop_after_first_request)
    assert first.status == "interrupted"
    run_file = ws / ".runtime" / "run.json"
    settings = json.loads(run_file.read_text())["settings"]
    run_file.write_text(json.dumps({**MAIN_RUN_JSON, "settings": settings}, indent=2))  # main's record

    result, model = await resume_run(tmp_path, submit_bad_draft(ws))

    # Two tries were spent before: the third report is finalized at once, its problems listed.
    assert result.status == "finished" and len(model.requests) == 1
    assert "## Appendix: problems found at finalization" in (ws / "report.md").read_text()
    assert result.report_path == "report.md" and any("S9" in p for p in result.report_problems)
    stored = json.loads(run_file.read_text())
    # Readable by the version that wrote it: every key it wrote is still there, at the top level.
    assert set(MAIN_RUN_JSON) <= set(stored)
    assert stored["finish_refusals"] == 2 and stored["report_path"] == "report.md" and stored["resumes"] == 1


async def test_a_run_json_older_than_the_report_fields_resumes(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    await start_run(tmp_path, stop_after_first_request)
    run_file = ws / ".runtime" / "run.json"
    stored = json.loads(run_file.read_text())
    for name in ("report_path", "report_problems", "finish_refusals"):
        del stored[name]
    run_file.write_text(json.dumps(stored))

    result, model = await resume_run(tmp_path, submit_bad_draft(ws))

    assert result.status == "finished" and len(model.requests) == 3  # refused twice, then finalized
    assert json.loads(run_file.read_text())["finish_refusals"] == 2


def test_a_new_run_json_has_the_report_fields_and_the_engine_record_names_none(tmp_path: Path) -> None:
    assert not {"report_path", "report_problems", "finish_refusals"} & set(RunMeta.model_fields)
    meta = RunMeta(title="x")
    assert report_record(meta).finish_refusals == 0 and "finish_refusals" not in meta.extra
    record_report(meta, finish_refusals=1)
    save_meta(tmp_path / "run.json", meta)
    stored = json.loads((tmp_path / "run.json").read_text())
    assert stored["finish_refusals"] == 1 and stored["report_path"] is None and stored["report_problems"] == []
    loaded = load_meta(tmp_path / "run.json")
    assert loaded is not None and report_record(loaded).finish_refusals == 1


def test_an_invalid_report_field_is_a_clear_error(tmp_path: Path) -> None:
    run_file = tmp_path / "run.json"
    run_file.write_text(json.dumps({"title": "x", "finish_refusals": "many"}))
    meta = load_meta(run_file)
    assert meta is not None
    with pytest.raises(WorkspaceError, match="invalid finish_refusals"):
        report_record(meta)
