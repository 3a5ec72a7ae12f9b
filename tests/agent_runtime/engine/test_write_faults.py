"""Fault injection at the two write helpers every file of a run goes through (`atomic_write_text`'s
replace and the event log's append): each write of a scripted research fails once, in turn, with a
full disk; the run stops resumably at once with a clear message, nothing is torn, and `resume`
finishes it."""

from __future__ import annotations

import errno
import json
import re
from pathlib import Path
from typing import Any

import pytest

import sandbox.safe_write
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.run_record import EventLog
from agent_runtime.testing import Reply, call, reply
from tests.support.cli import write_cited_report
from tests.support.runs import resume_run, start_run


def research(workspace: Path) -> Any:
    """Overall dashboard, current dashboard, then the report; picks up from what the dashboards say."""

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        shown = "\n".join(str(m.get("content")) for m in messages)
        if "## Plan v1" not in shown:
            return reply(
                call("update_overall_dashboard", content="# Test research\n\n## Plan v1\n- one chapter\n")
            )
        if "## Findings v1" not in shown:
            return reply(
                call("update_current_dashboard", content="# Current\n\n## Findings v1\n- found it\n")
            )
        return reply(
            call("all_finished", result="done", report_path=write_cited_report(workspace, "draft.md"))
        )

    return script


class FailingDisk:
    """Counts writes through both helpers; the `fail_at`-th raises ENOSPC (before writing anything)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail_at: int | None) -> None:
        self.count, self.fail_at, self.failed = 0, fail_at, False
        real_replace, real_append = sandbox.safe_write.atomic_write_bytes, EventLog._write

        def replace(path: Path, data: bytes, *, durable: bool = True, shared: bool = False) -> None:
            self._tick()
            real_replace(path, data, durable=durable, shared=shared)

        def append(log: EventLog, data: bytes) -> None:
            self._tick()
            real_append(log, data)

        monkeypatch.setattr(sandbox.safe_write, "atomic_write_bytes", replace)
        # The event log's append, patched by name: it is below every caller, and the one other writer
        # (atomic_write_bytes) is public; one public append helper would be the seam (issue 35's write helpers).
        monkeypatch.setattr(EventLog, "_write", append)

    def _tick(self) -> None:
        self.count += 1
        if self.count == self.fail_at:
            self.failed = True
            raise OSError(errno.ENOSPC, "No space left on device")


def assert_nothing_torn(workspace: Path) -> None:
    for dashboard in ("overall_dashboard.md", "current_dashboard.md"):
        text = (workspace / dashboard).read_text("utf-8")
        assert text.startswith("# "), text[:40]
    json.loads((workspace / ".runtime" / "run.json").read_text())
    for line in (workspace / ".runtime" / "events.jsonl").read_text().splitlines():
        json.loads(line)  # every line complete: a failed append wrote nothing
    assert not list(workspace.rglob("*.tmp"))


async def writes_of_one_run(tmp_path: Path) -> int:
    with pytest.MonkeyPatch.context() as monkeypatch:
        disk = FailingDisk(monkeypatch, fail_at=None)
        result, _ = await start_run(tmp_path / "count", research(tmp_path / "count" / "ws"))
    assert result.status == "finished"
    return disk.count


@pytest.mark.slow
async def test_every_write_failing_once_stops_the_run_resumably(tmp_path: Path) -> None:
    writes = await writes_of_one_run(tmp_path)
    assert writes >= 15  # run.json, dashboards, ledger, report, events: each one is failed in turn below
    for fail_at in range(1, writes + 1):
        with pytest.MonkeyPatch.context() as monkeypatch:
            disk = FailingDisk(monkeypatch, fail_at)
            await one_failing_write(tmp_path / f"run{fail_at}", disk, monkeypatch)


async def one_failing_write(tmp_path: Path, disk: FailingDisk, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    try:
        result, model = await start_run(tmp_path, research(ws))
    except Exception as exc:  # only while creating the workspace: a clear error, and either no run
        assert "no space left on the disk (ENOSPC)" in str(exc), exc  # at all, or one resume finishes
        monkeypatch.undo()
        if not (ws / ".runtime" / "run.json").exists():
            assert ResearchWorkspace(ws).holds_nothing()
            return
        resumed, _ = await resume_run(tmp_path, research(ws))
        assert resumed.status == "finished", resumed.reason
        return
    assert disk.failed, disk.fail_at  # every write of the counted run is reached
    if result.status == "finished":  # only the last line of the log failed: run.json has the outcome
        assert json.loads((ws / ".runtime" / "run.json").read_text())["status"] == "finished"
        assert "run_ended" not in (ws / ".runtime" / "events.jsonl").read_text()
        return
    assert result.status == "error" and result.exit_code == 1, (disk.fail_at, result.reason)
    assert re.search(r"cannot write in \S+: no space left on the disk \(ENOSPC\)", result.reason or ""), (
        result.reason
    )
    # At once: the failing step was not retried by the model.
    assert len(model.requests) <= 3
    assert_nothing_torn(ws)

    monkeypatch.undo()
    resumed, _ = await resume_run(tmp_path, research(ws))
    assert resumed.status == "finished", resumed.reason
    assert (ws / "report.md").is_file()
    assert_nothing_torn(ws)
