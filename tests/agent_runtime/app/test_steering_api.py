"""The Python API of steering: research(..., clarify=True, review_plan=True) returns the waiting
status (exit code 3, resumable), resume goes on from what the person wrote, and follow_up_research
builds on the finished run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_runtime import follow_up_research, research, resume
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import write_cited_report

PLAN = "# Cells\n\n## Research questions\n1. Q1: cost per kWh\n\n## Outline\n1. Notebook/01_costs.md: costs\n"


def _script(workspaces: list[Path]) -> Any:
    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen = json.dumps(messages, ensure_ascii=False)
        if "phase: writing" in seen:
            write_cited_report(workspaces[-1])
            return reply(call("all_finished", result="done", report_path="draft.md"))
        if "Q1: cost per kWh" in seen and "[follow-up]" not in seen:
            return reply(call("update_current_dashboard", content="# Current\n\nphase: writing\n"))
        if "[answers]" in seen or "[follow-up]" in seen:
            return reply(call("update_overall_dashboard", content=PLAN))
        return reply(call("ask_user", questions=["Which cells?"]))

    return script


async def test_the_api_returns_each_waiting_state_and_resumes_and_follows_up(tmp_path: Path) -> None:
    ws, later = tmp_path / "ws", tmp_path / "later"
    workspaces = [ws]
    with ScriptedEndpoint(_script(workspaces)) as server:
        settings = {"base_url": server.url, "api_key": "k-test-0001"}
        first = await research("Sodium-ion cells", workspace=ws, clarify=True, review_plan=True, **settings)
        assert (first.status, first.exit_code) == ("awaiting_answers", 3)
        assert first.next_command == f"deep-researcher resume {ws}"
        overall = ws / "overall_dashboard.md"
        overall.write_text(overall.read_text().replace("### 1. Which cells?\n", "### 1. Which cells?\n\nsodium\n"))
        second = await resume(ws, **settings)
        assert (second.status, second.exit_code) == ("awaiting_review", 3)
        third = await resume(ws, **settings)
        assert third.status == "finished", third.reason

        workspaces.append(later)
        followed = await follow_up_research(ws, "And in 2027?", workspace=later, **settings)
        assert followed.status == "finished", followed.reason
        assert [r.id for r in Ledger.load(later / "sources").records()] == ["S1"]
