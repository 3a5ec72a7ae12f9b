"""SIGKILL of the CLI process at several points: nothing written before is lost, no file is torn,
and `resume` finishes every time."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.researcher import resume_note
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.run_record import EventLog, RunMeta, read_events
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.actions.test_research_task import old_unfinished_research_note
from tests.conftest import cli_env, run_cli, write_cited_report

PAD = "filler line for a large dashboard\n" * 30_000  # ~1 MB: a write that takes a while
# A window and an output cap that let a 1 MB dashboard through one reply (the scripted endpoint cuts
# a reply at the cap, as real servers do).
LARGE = {"DEEP_RESEARCHER_CONTEXT_WINDOW": "4000000", "DEEP_RESEARCHER_MAX_OUTPUT_TOKENS": "500000"}


def versioned(kind: str, n: int) -> str:
    return f"# {kind} v{n}\n\n{PAD}\nEND v{n}\n"


def assert_whole(path: Path) -> int:
    """The file is one complete version (never a torn mix): returns its version number."""
    text = path.read_bytes().decode("utf-8")  # must decode: no half-written multibyte tail
    if (
        text.startswith("# Current dashboard")
        or text.startswith("# Solid")
        or "v" not in text.split("\n", 1)[0]
    ):
        return 0  # the template version
    head = re.match(r"# \w+ v(\d+)\n", text)
    assert head, text[:80]
    assert text.endswith(f"END v{head.group(1)}\n"), "torn dashboard"
    return int(head.group(1))


@dataclass
class Gate:
    """Holds the scripted model at its `at`-th request (so a test can act on the CLI meanwhile)
    until `release` is set."""

    at: int
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, n: int) -> None:
        if n == self.at:
            self.reached.set()
            self.release.wait(30)


def script_for(workspace: Path, versions: int, gate: Callable[[int], None]) -> Callable[..., Reply]:
    """Writes `versions` large current dashboards, then the report; stateless across restarts:
    it reads its progress from the current dashboard the model is shown."""
    served = {"n": 0}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        served["n"] += 1
        gate(served["n"])
        shown = "\n".join(str(m.get("content")) for m in messages)
        found = re.findall(r"# Current v(\d+)\n", shown)
        done = int(found[-1]) if found else 0
        if done >= versions:
            return reply(call("all_finished", result="ok", report_path=write_cited_report(workspace)))
        return reply(call("update_current_dashboard", content=versioned("Current", done + 1)))

    return script


def start_cli(ws: Path, url: str) -> subprocess.Popen[bytes]:
    env = cli_env(url, **LARGE)
    return subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Kill test", "--workspace", str(ws), "-q"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def check_workspace(ws: Path) -> None:
    for md in ws.rglob("*.md"):
        assert_whole(md) if md.name == "current_dashboard.md" else md.read_bytes().decode("utf-8")
    run_file = ws / ".runtime" / "run.json"
    if run_file.exists():
        json.loads(run_file.read_text())


def resume_env(url: str) -> dict[str, str]:
    return cli_env(url, **LARGE)


def resume_to_the_end(ws: Path, url: str) -> None:
    result = run_cli(["resume", str(ws), "-q"], resume_env(url))
    assert result.code == 0, result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "finished" and meta["resumes"] == 1
    assert assert_whole(ws / "current_dashboard.md") == 3


@pytest.mark.parametrize("moment", ["before_first_dashboard_write", "after_a_dashboard_write"])
def test_kill_while_waiting_on_the_model(
    moment: str, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    block_at = 1 if moment == "before_first_dashboard_write" else 3  # request 3 follows the 2nd write
    gate = Gate(block_at)

    server = endpoint(script_for(ws, 3, gate))
    process = start_cli(ws, server.url)
    try:
        assert gate.reached.wait(60), "the CLI never reached the blocking request"
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        gate.release.set()
    check_workspace(ws)
    expected = 0 if block_at == 1 else 2
    assert assert_whole(ws / "current_dashboard.md") == expected  # nothing written before was lost
    resume_to_the_end(ws, server.url)


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.15, 0.3])
def test_kill_during_dashboard_writes(
    delay: float, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    """Large dashboards written back to back; the kill lands at an arbitrary moment, often mid-write."""
    ws = tmp_path / "ws"
    server = endpoint(script_for(ws, 3, lambda n: None))
    process = start_cli(ws, server.url)
    deadline = time.monotonic() + 60
    while not (ws / "current_dashboard.md").exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait(30)
    check_workspace(ws)
    run_file = ws / ".runtime" / "run.json"
    if run_file.exists() and json.loads(run_file.read_text())["status"] == "finished":
        return  # the whole run beat the kill on a fast machine
    resume_to_the_end(ws, server.url)


def test_resume_without_run_metadata_needs_new_settings_and_takes_the_title_from_the_dashboard(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    gate = Gate(2)

    server = endpoint(script_for(ws, 3, gate))
    process = start_cli(ws, server.url)
    try:
        assert gate.reached.wait(60)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        gate.release.set()
    os.remove(ws / ".runtime" / "run.json")
    # a person edits the current dashboard before resuming: the agent works from the edited text
    (ws / "current_dashboard.md").write_text(versioned("Current", 2))
    # The run's settings are gone with run.json: never a silent fall-back to defaults.
    refused = run_cli(["resume", str(ws), "-q"], resume_env(server.url))
    assert (
        refused.code == 1 and "--new-settings" in refused.stderr and "settings of this run" in refused.stderr
    )
    assert len(server.requests) == 2
    result = run_cli(["resume", str(ws), "--new-settings", "-q"], resume_env(server.url))
    assert result.code == 0, result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["title"] == "Kill test" and meta["status"] == "finished"
    resumed = server.requests[2]["messages"]
    assert "# Current v2" in resumed[1]["content"]  # the edited dashboard
    assert "[resumed]" in resumed[2]["content"] and "update_current_dashboard" in resumed[2]["content"]
    assert meta["totals"]["steps"] == 2  # v3, then all_finished: the edit skipped a step


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_stops_resumably_with_exit_130(
    sig: signal.Signals, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    gate = Gate(2)

    server = endpoint(script_for(ws, 3, gate))
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Interrupted", "--workspace", str(ws)],
        env=cli_env(server.url, **LARGE), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert gate.reached.wait(60)
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=30)
    finally:
        gate.release.set()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and f"deep-researcher resume {ws}" in stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "interrupted" and meta["totals"]["steps"] == 1
    resume_to_the_end(ws, server.url)


# ----------------------------------------------------------------- the resume note from a long log


def old_resume_note(workspace: ResearchWorkspace, meta: RunMeta, prompts: Prompts, last: int = 5) -> str:
    """The reference: `resume_note` as it was, with the whole log in memory."""
    events = list(read_events(workspace.events_file))
    actions = [e for e in events if e.get("event") == "action" and e.get("agent") == "main"]
    lines = []
    for event in actions[-last:]:
        args = ", ".join(f"{k}={str(v)[:60]!r}" for k, v in (event.get("arguments") or {}).items())
        status = " (failed)" if event.get("error") else ""
        lines.append(f"step {event.get('step')}: {event.get('action')}({args}){status}")
    stopped = {"stopped": "budget", "interrupted": "interrupted", "error": "error"}.get(meta.status, "killed")
    if (meta.stop_reason or "").startswith("loop:"):
        stopped = "loop"
    note = prompts.render("resume_note.j2", stopped=stopped, last_actions=lines)
    tasks = old_unfinished_research_note(workspace.root, events)
    return note if tasks is None else f"{note.rstrip()}\n\n{tasks}"


ARGUMENTS: list[dict[str, Any]] = [
    {"query": "solid-state electrolyte costs 2026 " * 4},
    {"path": "Notebook/notes/a.md", "content": "## Findings\n- 電池のコスト [S1]\n" * 20},
    {"nested": {"a": [1, 2, {"b": None}]}, "n": 3, "flag": True},
    {"text": "quote ' and \" and \\ and \u2028 line separator"},
    {},
]


def write_runs(ws: Path, rng: random.Random, runs: int) -> None:
    """An event log of several runs, as EventLog writes it: the main agent's actions (some failed),
    research tasks that finish, stop or never end (a name started again in a later run), their own
    actions, model calls; sometimes a run killed before it did anything, or a torn last line."""
    log = EventLog(ws / ".runtime" / "events.jsonl")
    step, task = 0, 0
    for _ in range(runs):
        log.append("run_started", title="T", resumed=step > 0)
        for _ in range(rng.randint(0, 30)):
            step += 1
            kind = rng.choice(["action", "action", "model_call", "task", "task_action"])
            if kind == "action":
                error = rng.choice([None, None, "the page could not be read"])
                log.append("action", step=step, agent="main", action=rng.choice(["web_search", "write_file"]),
                           arguments=rng.choice(ARGUMENTS), error=error, observation_chars=rng.randint(0, 9000))  # fmt: skip
            elif kind == "model_call":
                log.append("model_call", step=step, agent="main", prompt_tokens=rng.randint(1, 9000))
            elif kind == "task":
                task = task + 1 if rng.random() < 0.7 else max(task, 1)  # sometimes a name again
                agent = f"research-{task}"
                log.append("agent_started", step=step, agent=agent, task=task, question=f"question {task} " * 40,
                           notes_file=rng.choice(["Notebook/notes/a.md", "Notebook/notes/none.md"]),
                           depth=rng.choice(["quick", "standard", ""]))  # fmt: skip
                outcome = rng.choice(["finished", "max_steps", "interrupted", "budget", "stopped", None])
                if outcome is not None:
                    log.append("agent_ended", step=step, agent=agent, task=task, outcome=outcome, steps=3)
            else:
                log.append("action", step=step, agent=f"research-{max(task, 1)}", action="web_search",
                           arguments={"query": "a research agent's search"})  # fmt: skip
        if rng.random() < 0.2:
            log.append("run_started", title="T", resumed=True)  # killed before it did anything
    log.close()
    if rng.random() < 0.3:
        with (ws / ".runtime" / "events.jsonl").open("a") as handle:
            handle.write('{"event": "action", "step": 9999, "agent": "main", "acti')  # killed mid-line


def test_the_resume_note_read_as_a_stream_is_the_note_read_from_the_whole_log(tmp_path: Path) -> None:
    """The note is built in one pass over the log, keeping only what it tells: the same text, byte
    for byte, as when the whole log was read into memory."""
    prompts = Prompts()
    rng = random.Random(7)
    tasks_told = 0
    for case in range(40):
        ws = ResearchWorkspace(tmp_path / f"ws{case}")
        ws.create("T", None)
        (ws.root / "Notebook" / "notes").mkdir()
        (ws.root / "Notebook" / "notes" / "a.md").write_text("# A\n\n## Costs\nCells fell 14% [S1][S3].\n")
        write_runs(ws.root, rng, rng.randint(0, 6))
        status = rng.choice(["running", "stopped", "interrupted", "error", "finished"])
        stop_reason = rng.choice([None, "loop: the same search 5 times", "max_steps reached"])
        meta = RunMeta(title="T", status=status, stop_reason=stop_reason)
        expected = old_resume_note(ws, meta, prompts)
        assert resume_note(ws, meta, prompts) == expected, case
        for last in (1, 3):
            assert resume_note(ws, meta, prompts, last=last) == old_resume_note(ws, meta, prompts, last=last)
        tasks_told += "[research tasks]" in expected
    assert 5 < tasks_told < 35  # notes with and without unfinished tasks were both compared


def test_the_resume_note_does_not_hold_the_log_in_memory(tmp_path: Path) -> None:
    """A log of many MB: the note's peak of Python memory stays a small fraction of it (the whole
    log in memory took several times its size)."""
    ws = ResearchWorkspace(tmp_path / "ws")
    ws.create("T", None)
    observation = "Pack prices reached 115 dollars per kWh. " * 50  # ~2 KB a line
    with ws.events_file.open("w", encoding="utf-8") as handle:
        for run in range(4):
            handle.write(json.dumps({"event": "run_started", "title": "T"}) + "\n")
            handle.write(json.dumps({"event": "agent_started", "agent": f"research-{run}", "task": run,
                                     "question": "costs", "notes_file": "Notebook/x.md"}) + "\n")  # fmt: skip
            for step in range(2_000):
                event = {"event": "action", "step": step, "agent": "main", "action": "visit_url",
                         "arguments": {"url": f"https://example.org/{step}"}, "observation": observation}  # fmt: skip
                handle.write(json.dumps(event) + "\n")
    size = ws.events_file.stat().st_size
    assert size > 15_000_000
    prompts = Prompts()
    meta = RunMeta(title="T", status="stopped")
    prompts.render("resume_note.j2", stopped="budget", last_actions=[])  # the template compiled before
    tracemalloc.start()
    try:
        note = resume_note(ws, meta, prompts)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "step 1999: visit_url(url='https://example.org/1999')" in note and "research-3" in note
    assert peak < size / 10
