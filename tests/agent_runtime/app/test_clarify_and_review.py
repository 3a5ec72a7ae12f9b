"""`run --clarify` and `run --review-plan` through the real CLI and the scripted endpoint: the run
pauses resumably (exit 3, awaiting_answers / awaiting_review), `inspect` shows what it waits for,
and what the person writes in overall_dashboard.md reaches the model on resume."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli, write_cited_report

pytestmark = pytest.mark.slow  # real CLI processes (docs/testing.md: the quick loop leaves them out)

Script = Callable[[list[dict[str, Any]], list[dict[str, Any]]], Reply]
PLAN = "# Batteries\n\n## Research questions\n1. Q1: cost per kWh\n\n## Outline\n1. Notebook/01_costs.md: costs\n"


def _seen(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages, ensure_ascii=False)


def _tools(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools") or []]


def finishing(ws: Path, seen: str) -> Reply:
    """After the plan: a current dashboard, then the report."""
    if "phase: writing" in seen:
        write_cited_report(ws)
        return reply(call("all_finished", result="done", report_path="draft.md"))
    return reply(call("update_current_dashboard", content="# Current\n\nphase: writing\n"))


def test_clarify_asks_pauses_and_the_answers_reach_the_model_on_resume(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = _seen(messages)
        if "Q1: cost per kWh" in seen:
            return finishing(ws, seen)
        if "[answers]" in seen:
            return reply(call("update_overall_dashboard", content=PLAN + "\n## Assumptions\n- region: any\n"))
        return reply(call("ask_user", questions=["Which chemistry do you mean?", "Which region?"]))

    server = endpoint(script)
    first = run_cli(["run", "batteries", "--clarify", "--workspace", str(ws)], cli_env(server.url))
    assert first.code == 3, first.stderr
    assert "Which chemistry do you mean?" in first.stderr and f"deep-researcher resume {ws}" in first.stderr
    assert "ask_user" in _tools(server.requests[0])
    assert "first ask them with ask_user" in server.requests[0]["messages"][0]["content"]  # the method says when
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "awaiting_answers" and "waiting for your answers" in meta["stop_reason"]
    dashboard = (ws / "overall_dashboard.md").read_text()
    assert "## Questions for you" in dashboard and "### 1. Which chemistry do you mean?" in dashboard

    shown = run_cli(["inspect", str(ws)], cli_env())
    assert "status:    awaiting_answers" in shown.stdout and "## Waiting for your answers" in shown.stdout
    state = json.loads(run_cli(["inspect", str(ws), "--json"], cli_env()).stdout)
    assert state["waiting"] == {"for": "answers", "questions": ["Which chemistry do you mean?", "Which region?"]}

    # The person answers the first question and leaves the second empty ("no preference").
    answered = dashboard.replace(
        "### 1. Which chemistry do you mean?\n", "### 1. Which chemistry do you mean?\n\nsulfide electrolytes\n"
    )
    (ws / "overall_dashboard.md").write_text(answered)
    asked_before = len(server.requests)
    second = run_cli(["resume", str(ws)], cli_env(server.url))
    assert second.code == 0, second.stderr
    resumed = _seen(server.requests[asked_before]["messages"])
    assert "sulfide electrolytes" in resumed and "Which region?: (no preference)" in resumed
    # Asked once: the run never asked again, and the plan records the assumption.
    asks = [e for e in map(json.loads, (ws / ".runtime/events.jsonl").read_text().splitlines()) if e.get("action") == "ask_user"]
    assert len(asks) == 1
    assert "region: any" in (ws / "overall_dashboard.md").read_text()


def test_on_a_terminal_the_questions_are_asked_there_and_the_run_goes_on(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = _seen(messages)
        if "Q1: cost per kWh" in seen:
            return finishing(ws, seen)
        if "The user answered" in seen:
            return reply(call("update_overall_dashboard", content=PLAN))
        return reply(call("ask_user", questions=["Which chemistry do you mean?", "Which region?"]))

    server = endpoint(script)
    main, terminal = pty.openpty()  # stdin and stderr are a terminal, as when a person types the command
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "batteries", "--clarify", "--workspace", str(ws), "-q"],
        stdin=terminal, stderr=terminal, stdout=subprocess.PIPE, env=cli_env(server.url),
    )  # fmt: skip
    os.close(terminal)
    shown = b""
    typed = [b"sulfide electrolytes\n", b"\n"]
    deadline = time.monotonic() + 60  # a bound, not a speed assertion
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if select.select([main], [], [], 0.2)[0]:
                try:
                    shown += os.read(main, 4096)
                except OSError:  # the process closed the terminal
                    break
            if typed and shown.count(b"> ") > 2 - len(typed):
                os.write(main, typed.pop(0))
        assert process.wait(timeout=60) == 0, shown.decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
        os.close(main)
    text = shown.decode(errors="replace")
    assert "The agent asks, before it plans" in text and "1. Which chemistry do you mean?" in text
    answered = [_seen(r["messages"]) for r in server.requests if "The user answered" in _seen(r["messages"])]
    assert answered and "sulfide electrolytes" in answered[0] and "answer: (no preference)" in answered[0]
    assert json.loads((ws / ".runtime" / "run.json").read_text())["status"] == "finished"


def test_without_clarify_there_is_no_ask_user(tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = _seen(messages)
        return finishing(ws, seen) if "Q1: cost per kWh" in seen else reply(call("update_overall_dashboard", content=PLAN))

    server = endpoint(script)
    assert run_cli(["run", "batteries", "--workspace", str(ws)], cli_env(server.url)).code == 0
    assert all("ask_user" not in _tools(request) for request in server.requests)
    assert "ask_user" not in server.requests[0]["messages"][0]["content"]


def test_bad_questions_and_a_late_ask_are_refused_with_a_clear_observation(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    attempts = [
        call("ask_user", questions=[]),
        call("ask_user", questions=["a?", "b?", "c?", "d?"]),
        call("ask_user", questions=["x" * 10_000]),
        call("update_overall_dashboard", content=PLAN),
        call("ask_user", questions=["Too late?"]),
    ]

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = _seen(messages)
        if attempts:
            return reply(attempts.pop(0))
        return finishing(ws, seen)

    server = endpoint(script)
    result = run_cli(["run", "batteries", "--clarify", "--workspace", str(ws)], cli_env(server.url))
    assert result.code == 0, result.stderr
    texts = [_seen(r["messages"]) for r in server.requests]
    assert "needs one to three short questions" in texts[1]
    assert "at most 3 questions, 4 were given" in texts[2]
    assert "10,000 characters long" in texts[3]
    assert "already written: ask_user is only for before the plan" in texts[5]
    assert "Questions for you" not in (ws / "overall_dashboard.md").read_text()  # nothing was asked


def test_review_plan_pauses_before_any_search_and_the_edited_plan_reaches_the_model(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = _seen(messages)
        if "Q1: cost per kWh" not in seen:
            return reply(call("update_overall_dashboard", content=PLAN), call("web_search", query="never before review"))
        return finishing(ws, seen)

    server = endpoint(script)
    first = run_cli(["run", "batteries", "--review-plan", "--workspace", str(ws)], cli_env(server.url))
    assert first.code == 3, first.stderr
    assert "The plan waits for your review" in first.stderr and "Q1: cost per kWh" in first.stderr
    assert "Notebook/01_costs.md" in first.stderr and f"deep-researcher resume {ws}" in first.stderr
    state = json.loads(run_cli(["inspect", str(ws), "--json"], cli_env()).stdout)
    assert state["status"] == "awaiting_review" and state["waiting"]["for"] == "review"
    assert state["waiting"]["plan"][0]["text"] == "1. Q1: cost per kWh"
    assert "## Waiting for your review of the plan" in run_cli(["inspect", str(ws)], cli_env()).stdout

    edited = (ws / "overall_dashboard.md").read_text() + "\n2. Q2: recycling, the user's own question\n"
    (ws / "overall_dashboard.md").write_text(edited)
    asked_before = len(server.requests)
    second = run_cli(["resume", str(ws)], cli_env(server.url))
    assert second.code == 0, second.stderr
    resumed = _seen(server.requests[asked_before]["messages"])
    assert "Q2: recycling, the user's own question" in resumed and "[plan reviewed]" in resumed
    events = [json.loads(line) for line in (ws / ".runtime/events.jsonl").read_text().splitlines()]
    statuses = [e["status"] for e in events if e["event"] == "run_ended"]
    assert statuses == ["awaiting_review", "finished"]  # one pause, never a second
    # The search sent in the same reply as the plan was refused, not run: nothing before the review.
    searches = [e for e in events if e.get("action") == "web_search"]
    assert len(searches) == 1 and "before any search or fetch" in searches[0]["error"]
    assert not [e for e in events if e["event"].startswith("search")]


def test_with_both_flags_a_plan_sent_beside_the_questions_still_waits_for_review(
    tmp_path: Path, endpoint: Callable[[Script], ScriptedEndpoint]
) -> None:
    """Nothing after a pause in the same reply runs: a plan sent with ask_user is not written before
    the answers, and the plan written after them pauses for review before any search."""
    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = _seen(messages)
        if "[plan reviewed]" in seen or "phase: writing" in seen:
            return finishing(ws, seen)
        if "[answers]" in seen:
            return reply(call("update_overall_dashboard", content=PLAN), call("web_search", query="too early"))
        return reply(call("ask_user", questions=["Which region?"]), call("update_overall_dashboard", content=PLAN))

    server = endpoint(script)
    flags = ["--clarify", "--review-plan", "--workspace", str(ws)]
    first = run_cli(["run", "batteries", *flags], cli_env(server.url))
    assert first.code == 3, first.stderr
    assert "Q1: cost per kWh" not in (ws / "overall_dashboard.md").read_text()  # the plan beside the questions did not run
    second = run_cli(["resume", str(ws)], cli_env(server.url))
    assert second.code == 3, second.stderr  # the plan now waits for review
    third = run_cli(["resume", str(ws)], cli_env(server.url))
    assert third.code == 0, third.stderr
    events = [json.loads(line) for line in (ws / ".runtime/events.jsonl").read_text().splitlines()]
    assert [e["status"] for e in events if e["event"] == "run_ended"] == ["awaiting_answers", "awaiting_review", "finished"]
    assert not [e for e in events if e["event"].startswith("search")]  # no search before the review


def test_batch_with_a_steering_flag_is_a_usage_error(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"title": "batteries"}\n')
    for flag in ("--clarify", "--review-plan"):
        result = run_cli(["batch", str(tasks), "--out", str(tmp_path / "out"), flag], cli_env())
        assert result.code == 2 and "a batch has no one to answer" in result.stderr and flag in result.stderr
    assert not (tmp_path / "out").exists()
    from_env = run_cli(["batch", str(tasks), "--out", str(tmp_path / "out")], cli_env(DEEP_RESEARCHER_REVIEW_PLAN="1"))
    assert from_env.code == 2 and "DEEP_RESEARCHER_REVIEW_PLAN" in from_env.stderr and "no one to answer" in from_env.stderr
    assert not (tmp_path / "out").exists()
