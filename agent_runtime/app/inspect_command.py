"""`deep-researcher inspect WORKSPACE`: a run's state from its files alone."""

from __future__ import annotations

import json
import sys
from collections import deque
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agent_runtime.app.wording import not_a_workspace
from agent_runtime.config import COST_UNKNOWN, describe_cost, priced
from agent_runtime.domain.layout import CURRENT_DASHBOARD, OVERALL_DASHBOARD, ResearchWorkspace
from agent_runtime.domain.research_task_log import research_tasks
from agent_runtime.domain.steering import load_steering, parents, plan_sections
from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.run_record import WAITING_STATUSES, load_meta, read_events
from agent_runtime.errors import WorkspaceError


def workspace_state(root: Path, last_events: int = 10) -> dict[str, Any]:
    space = ResearchWorkspace(root)
    if not space.overall_dashboard.is_file() and not space.run_file.is_file():
        raise WorkspaceError(not_a_workspace(space.root))
    meta = load_meta(space.run_file)
    if meta is None:
        title, purpose = space.title_from_dashboard()
        state: dict[str, Any] = {"title": title, "purpose": purpose, "status": "unknown (no run metadata)"}
    else:
        state = meta.model_dump(mode="json")
        state["totals"]["total_tokens"] = meta.totals.total_tokens
    state["workspace"] = str(space.root)
    state["overall_dashboard"] = space.read_text(OVERALL_DASHBOARD)
    state["current_dashboard"] = space.read_text(CURRENT_DASHBOARD)
    state["notebook"] = space.notebook_files()
    steering = load_steering(space.root)
    if state.get("status") in WAITING_STATUSES:
        waiting_for = "answers" if state["status"] == "awaiting_answers" else "review"
        state["waiting"] = {"for": waiting_for, "questions": steering.questions if waiting_for == "answers" else []}
        if waiting_for == "review":
            state["waiting"]["plan"] = [{"heading": h, "text": t} for h, t in plan_sections(state["overall_dashboard"])]
    state["follows"] = [str(path) for path in parents(space.root)]
    last: deque[dict[str, Any]] = deque(maxlen=last_events)
    agents: list[dict[str, Any]] = []  # one pass over a log that may be long
    for event in read_events(space.events_file):
        last.append(event)
        if event.get("event") in ("agent_started", "agent_ended"):
            agents.append(event)
    state["last_events"] = list(last)
    state["research_tasks"] = [asdict(task) for task in research_tasks(agents)]
    return state


def _task_line(task: dict[str, Any]) -> str:
    """`- research-2 · finished in 7 steps · Notebook/notes/02.md — What drives …`"""
    if task["outcome"] == "finished":
        how = f"finished in {task['steps']} steps"
    elif task["outcome"] is None:
        how = "not ended (still running, or the run stopped during it)"
    else:
        how = f"{task['outcome']} after {task['steps']} steps"
    return f"- {task['agent']} · {task['depth']} · {how} · {task['notes_file']} — {task['question'][:160]}"


def _event_line(event: dict[str, Any]) -> str:
    kind = event.get("event")
    head = f"{event.get('time', '')} step {event.get('step', '-')} [{event.get('agent', 'run')}] {kind}"
    if kind == "action":
        error = f" ERROR {event['error'][:100]}" if event.get("error") else ""
        return f"{head} {event.get('action')} → {event.get('observation_chars')} chars{error}"
    if kind == "model_call":
        problems = f" ({', '.join(event['problems'])})" if event.get("problems") else ""
        return f"{head} {event.get('prompt_tokens')}+{event.get('completion_tokens')} tokens{problems}"
    if kind == "agent_started" and event.get("question"):
        return f"{head} {str(event['question'])[:100]} → {event.get('notes_file')}"
    if kind == "agent_ended":
        return f"{head} {event.get('outcome')} after {event.get('steps')} steps"
    if kind == "run_ended":
        return f"{head} {event.get('status')} {event.get('reason') or ''}".rstrip()
    return head


def inspect_workspace(root: Path, as_json: bool = False) -> int:
    state = workspace_state(root)
    if as_json:
        json.dump(state, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    out: list[str] = [f"# {state['title']}", f"workspace: {state['workspace']}"]
    if state.get("purpose"):
        out.append(f"purpose:   {state['purpose']}")
    out.append(
        f"status:    {state['status']}" + (f" ({state['stop_reason']})" if state.get("stop_reason") else "")
    )
    totals = state.get("totals")
    if totals:
        known = priced(state.get("settings") or {})
        cost = f"cost {describe_cost(totals['cost'], True)}" if known else COST_UNKNOWN
        out.append(
            f"steps:     {totals['steps']} · model calls {totals['model_calls']} · tokens {totals['prompt_tokens']:,} in / "
            f"{totals['completion_tokens']:,} out · {cost} · {totals['elapsed_seconds']:.0f}s"
        )
    summary = state.get("summary") or {}
    if summary:
        out.append(
            f"sources:   {summary.get('sources_seen', 0)} seen · {summary.get('sources_fetched', 0)} fetched · "
            f"{summary.get('sources_cited', 0)} cited"
        )
    citations = summary.get("citations")
    if isinstance(citations, dict):  # the citation audit of the finished report
        from agent_runtime.domain.citecheck.figures import describe

        out.append(describe(citations) + " (report.citations.json)")
        if citations.get("unverified") and state.get("status") == "finished":
            out.append(
                f"status:    finished with {citations['unverified']} citations that could not be verified"
            )
    if state.get("report_path"):
        out.append(f"report:    {state['report_path']}")
    for number, earlier in enumerate(state["follows"]):  # a follow-up: the runs it builds on, nearest first
        out.append(f"{'follows:' if number == 0 else '':<10} {earlier}")
    waiting = state.get("waiting")
    if waiting:
        out += ["", "## Waiting for your answers" if waiting["for"] == "answers" else "## Waiting for your review of the plan"]
        out += [f"{n}. {q}" for n, q in enumerate(waiting["questions"], 1)]
        for section in waiting.get("plan", []):
            out += [f"### {section['heading']}", section["text"]]
    if state.get("status") not in ("finished", "running", None) and totals:
        limits = state.get("settings") or {}
        out.append(f"continue:  {resume_command(Path(state['workspace']), state.get('stop_reason'), limits)}")
    if state.get("report_problems"):
        out += ["", "## Report problems (finalized with these listed in its appendix)"]
        out += [f"- {problem}" for problem in state["report_problems"]]
    out += ["", "## Overall dashboard", state["overall_dashboard"].strip(), "", "## Current dashboard",
            state["current_dashboard"].strip(), "", "## Notebook"]  # fmt: skip
    out += [f"- {name}" for name in state["notebook"]] or ["(empty)"]
    if state["research_tasks"]:
        out += ["", "## Research tasks"] + [_task_line(task) for task in state["research_tasks"]]
    out += ["", "## Last events"] + [_event_line(e) for e in state["last_events"]]
    print("\n".join(out))
    return 0
