"""A short scripted research that ends in a cited report (a CLI run from start to finish)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_runtime.testing import Fault, Reply, Script, call, reply
from tests.support.cli import write_cited_report


def research_script(workspace: Path) -> Script:
    """Blueprint → current dashboard → report file → all_finished, decided from what the model sees."""

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply | Fault:
        seen = json.dumps(messages)
        if "phase: writing" in seen:
            write_cited_report(workspace)
            return reply(
                call("all_finished", result="Solid-state batteries: a summary.", report_path="draft.md")
            )
        if "Q1: cost per kWh" in seen:
            return reply(call("update_current_dashboard", content="# Current\n\nphase: writing\n"))
        return reply(
            call(
                "update_overall_dashboard",
                content="# Solid-state\n\n## Research questions\n- Q1: cost per kWh\n",
            )
        )

    return script


def with_fault_at(script: Script, index: int, fault: Reply | Fault) -> Script:
    """Answer request number `index` (0-based, as the endpoint counts) with `fault` instead."""
    served = {"n": 0}

    def wrapped(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply | Fault:
        served["n"] += 1
        return fault if served["n"] - 1 == index else script(messages, tools)

    return wrapped
