"""research_task: the real main loop and the real Research agent loop, driven by a scripted model
that plays both agents (told apart by their system prompts), searching and reading a local corpus
(`--search local`), in-process and through the real CLI over HTTP."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from actions.research_task import (
    ANSWER_LIMIT,
    _Task,
    _tasks,
    research_finish,
    research_task,
    research_tools,
    unfinished_research_note,
    write_notes,
)
from agent_runtime.app.inspect_command import inspect_workspace, workspace_state
from agent_runtime.app.terminal_status import LiveView
from agent_runtime.domain.research_task_log import research_tasks
from agent_runtime.domain.sources.ledger import Ledger, ledger_for
from agent_runtime.engine.messages import Message
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply, scratch_context
from tests.support.cli import cli_env, run_cli, write_cited_report
from tests.support.expected import notebook_with_b, stored
from tests.support.random_logs import ended, research_task_logs, started
from tests.support.research_agents import (
    DOCUMENTS,
    FILE,
    QUESTIONS,
    RESEARCH,
    is_research,
    main_agent,
    main_requests,
    observations,
    researcher,
    results,
    task_call,
    turns,
)
from tests.support.runs import events, resume_run, settings, start_run


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    for name, text in DOCUMENTS.items():
        (root / name).write_text(text, "utf-8")
    return root


# ----------------------------------------------------------------- one task, end to end


async def test_a_research_task_searches_reads_writes_cited_notes_and_returns_a_bounded_summary(
    tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"
    notes = "Notebook/notes/costs.md"
    script = main_agent(ws, [task_call(notes)], researcher())
    result, model = await start_run(tmp_path, script, search="local", corpus=corpus)

    assert result.status == "finished"
    # The notes file holds the cited finding, with an id the ledger gave for the page it read.
    ledger = ledger_for_ws(ws)
    written = (ws / notes).read_text()
    source = re.search(r"\[(S\d+)\]", written)
    assert source and ledger[source.group(1)]["url"] == "corpus:costs.md"
    assert ledger[source.group(1)]["fetched_at"]  # it was read, not only seen
    # The Research agent's own context: its system prompt and task, its own tools (no dashboards,
    # no all_finished, no research_task).
    research = [(m, t) for m, t in model.requests if is_research(m)]
    assert len(research) == 3  # search, read, write + finish
    first, tools = research[0]
    assert [m["role"] for m in first] == ["system", "user", "user"]  # + the status message
    assert "Research question: battery cell costs" in first[1]["content"]
    assert "Notes file: Notebook/notes/costs.md" in first[1]["content"]
    assert "[status] step 1 of 12 of this research task" in first[2]["content"]
    assert [t["function"]["name"] for t in tools] == [a.name for a in research_tools()]
    assert {t["function"]["name"] for t in tools} == {
        "web_search", "visit_url", "browse", "write_notes", "file_operation", "chart", "finish",
    }  # fmt: skip
    # The main agent gets the bounded summary: the notes file, the ids with titles, the answer.
    summary = observations(main_requests(model)[1])[0]
    assert len(summary) <= ANSWER_LIMIT
    assert summary.startswith("Research task research-1 finished in 3 steps: battery cell costs")
    assert f"Notes: {notes}: 3 lines" in summary and "headings: ## battery cell costs" in summary
    assert "Sources relied on (2): [S1] Battery costs; [S2] Grid storage" in summary
    assert "Found: battery cell costs is covered by [S1][S2]." in summary
    # Nothing of the Research agent's work enters the main history.
    for messages in main_requests(model):
        text = json.dumps(messages)
        assert RESEARCH not in text and "visit_url:" not in text
    # Events: the agent's name and task number; its model calls count in the run's totals.
    log = events(ws)
    started = [e for e in log if e["event"] == "agent_started"]
    ended = [e for e in log if e["event"] == "agent_ended" and e["agent"].startswith("research")]
    assert [(e["agent"], e["task"], e["question"], e["notes_file"], e["depth"]) for e in started] == [
        ("research-1", 1, "battery cell costs", notes, "standard")
    ]
    assert [(e["agent"], e["outcome"], e["steps"]) for e in ended] == [("research-1", "finished", 3)]
    calls = [e for e in log if e["event"] == "model_call"]
    assert [e["agent"] for e in calls].count("research-1") == 3
    assert result.totals.model_calls == len(model.requests) == len(calls)
    assert [e["action"] for e in log if e["event"] == "action" and e["agent"] == "research-1"] == [
        "web_search", "visit_url", "write_notes", "finish",
    ]  # fmt: skip
    # inspect shows the task.
    state = workspace_state(ws)
    assert [(t["agent"], t["outcome"], t["notes_file"]) for t in state["research_tasks"]] == [
        ("research-1", "finished", notes)
    ]


def ledger_for_ws(ws: Path) -> dict[str, dict[str, Any]]:
    return {r.id: r.to_json() for r in Ledger.load(ws / "sources").records()}


async def test_inspect_lists_the_research_tasks(tmp_path: Path, corpus: Path, capsys: Any) -> None:
    ws = tmp_path / "ws"
    script = main_agent(ws, [task_call("Notebook/notes/costs.md", "quick")], researcher())
    await start_run(tmp_path, script, search="local", corpus=corpus)
    capsys.readouterr()
    inspect_workspace(ws)
    shown = capsys.readouterr().out
    assert "## Research tasks" in shown
    assert (
        "- research-1 · quick · finished in 3 steps · Notebook/notes/costs.md — battery cell costs" in shown
    )


# ----------------------------------------------------------------- depth and refusals


@pytest.mark.parametrize(("depth", "limit"), [("quick", 2), ("standard", 4), ("deep", 5)])
async def test_the_depth_sets_the_step_limit_and_an_unfinished_task_is_an_error_with_what_it_wrote(
    depth: str, limit: int, tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"
    notes = "Notebook/notes/costs.md"
    script = main_agent(ws, [task_call(notes, depth)], researcher(keep_searching=True))
    steps = {"quick": 2, "standard": 4, "deep": 5}
    result, model = await start_run(tmp_path, script, search="local", corpus=corpus, research_steps=steps)

    research = [m for m, _ in model.requests if is_research(m)]
    assert len(research) == limit
    assert f"step {limit} of {limit} of this research task" in research[-1][-1]["content"]
    assert "This is your last step" in research[-1][-1]["content"]
    answer = observations(main_requests(model)[1])[0]
    assert answer.startswith(f"The Research agent research-1 used all its {limit} steps without finishing.\n")
    assert "Question: battery cell costs" in answer
    if limit > 2:  # it wrote its note at its third step
        assert f"What it wrote: {notes}: 3 lines" in answer and "cites 2 sources: [S1] [S2]" in answer
    else:
        assert f"What it wrote: {notes}: does not exist (nothing written)" in answer
    assert '- web_search(query="battery cell costs", max_results=3) → web_search' in answer
    assert "continue with another research_task on the same notes file" in answer
    ended = [e for e in events(ws) if e["event"] == "agent_ended" and e["agent"] == "research-1"]
    assert [(e["outcome"], e["steps"]) for e in ended] == [("max_steps", limit)]
    assert result.status == "finished"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"notes_file": "current_dashboard.md"}, "notes_file must be a file inside Notebook/"),
        ({"notes_file": "sources/S1.md"}, "notes_file must be a file inside Notebook/"),
        ({"notes_file": "../outside.md"}, "path escapes the workspace"),
        ({"notes_file": "/etc/passwd"}, "path escapes the workspace"),
        ({"notes_file": "Notebook"}, "notes_file must be a file inside Notebook/"),
        ({"notes_file": "Notebook/notes.md", "depth": "huge"}, "unknown depth 'huge'; use one of 'quick', 'standard', 'deep'"),
        ({"notes_file": "Notebook/notes.md", "question": "  "}, "the question is empty"),
    ],
)  # fmt: skip
async def test_invalid_arguments_are_refused_clearly_before_any_agent_runs(
    arguments: dict[str, str], message: str, tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"
    (ws / "Notebook").mkdir(parents=True, exist_ok=True)
    arguments = {"question": "battery cell costs", **arguments}
    script = main_agent(ws, [call("research_task", **arguments)], researcher())
    _, model = await start_run(tmp_path, script, search="local", corpus=corpus)

    answer = observations(main_requests(model)[1])[0]
    assert answer.startswith("Error in research_task:") and message in answer, answer
    assert not any(is_research(m) for m, _ in model.requests)
    assert not any(e["event"] == "agent_started" for e in events(ws))


async def test_a_folder_in_the_notebook_is_not_a_notes_file(tmp_path: Path) -> None:
    ctx = scratch_context(tmp_path / "ws")
    (tmp_path / "ws" / "Notebook" / "chapter").mkdir()
    observation = await research_task.run(ctx, {"question": "q", "notes_file": "Notebook/chapter"})
    assert observation.error and "Notebook/chapter is a folder" in observation.text


async def test_a_notes_file_held_by_a_running_task_is_refused(tmp_path: Path) -> None:
    ctx = scratch_context(tmp_path / "ws")
    running = _Task("research-1", 1, "q", "Notebook/a.md", "standard", 12)
    _tasks(ctx).running[running.name] = running
    observation = await research_task.run(ctx, {"question": "other", "notes_file": "Notebook/a.md"})
    assert observation.error and "Notebook/a.md is the notes file of research-1, which is still running" in (
        observation.text
    )


async def test_task_numbers_continue_from_the_event_log(tmp_path: Path) -> None:
    ctx = scratch_context(tmp_path / "ws")
    ctx.events.append(
        "agent_started", step=3, agent="research-4", task=4, question="q", notes_file="Notebook/a.md"
    )
    ctx.events.append("agent_started", step=3, agent="file")
    assert _tasks(ctx).last_number == 4


# ----------------------------------------------------------------- the agent's own actions


def research_ctx(tmp_path: Path) -> tuple[Any, _Task]:
    ctx = scratch_context(tmp_path / "ws")
    task = _Task("research-1", 1, "costs", "Notebook/notes/costs.md", "standard", 12)
    _tasks(ctx).running[task.name] = task
    return ctx.for_agent(task.name, ctx.model), task


async def test_write_notes_writes_the_tasks_file_and_refuses_ids_no_retrieval_gave(tmp_path: Path) -> None:
    ctx, task = research_ctx(tmp_path)
    known = ledger_for(ctx).register("https://example.org/costs", "Costs", via="search")
    refused = await write_notes.run(ctx, {"content": f"Costs fell [{known.id}] and rose [S99]."})
    assert refused.error and "nothing was written: [S99] is not a source id" in refused.text
    assert not (ctx.workspace.root / task.notes_file).exists()

    first = await write_notes.run(ctx, {"content": f"## Costs\n- fell [{known.id}]."})
    second = await write_notes.run(ctx, {"content": "- more to come"})
    assert not first.error and f"Cites [{known.id}]." in first.text
    assert "It cites no source" in second.text
    assert (
        ctx.workspace.root / task.notes_file
    ).read_text() == f"## Costs\n- fell [{known.id}].\n\n- more to come\n"
    assert task.cited == [known.id] and task.writes == 2
    await write_notes.run(ctx, {"content": "# Rewritten\n", "mode": "overwrite"})
    assert (ctx.workspace.root / task.notes_file).read_text() == "# Rewritten\n" and task.cited == []


async def test_write_notes_and_finish_work_only_inside_a_research_task(tmp_path: Path) -> None:
    ctx = scratch_context(tmp_path / "ws")
    for item, arguments in ((write_notes, {"content": "x"}), (research_finish, {"answer": "x"})):
        observation = await item.run(ctx, arguments)
        assert observation.error and "works only inside a research task" in observation.text


async def test_finish_asks_once_for_notes_and_refuses_unknown_ids(tmp_path: Path) -> None:
    ctx, _ = research_ctx(tmp_path)
    first = await research_finish.run(ctx, {"answer": "Nothing found."})
    assert first.error and "you have not written anything to your notes file" in first.text
    unknown = await research_finish.run(ctx, {"answer": "Costs fell [S7]."})
    assert unknown.error and "[S7] in your answer is not a source id" in unknown.text
    done = await research_finish.run(ctx, {"answer": "Nothing found."})
    assert done.finished and done.result == "Nothing found."


async def test_a_long_answer_is_saved_whole_and_the_summary_points_to_it(
    tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"
    long_answer = "Cell costs fell. " * 400  # 6,800 characters

    def agent(messages: list[Message]) -> Reply:
        found = results("\n".join(observations(messages)))
        if not found:
            return reply(call("web_search", query="battery cell costs", max_results=3))
        note = f"- costs [{found[0][0]}]\n"
        return reply(call("write_notes", content=note), call("finish", answer=long_answer))

    _, model = await start_run(tmp_path, main_agent(ws, [task_call("Notebook/notes/costs.md")], agent),
                                    search="local", corpus=corpus)  # fmt: skip
    summary = observations(main_requests(model)[1])[0]
    pointer = re.search(r"the whole answer is in (\S+);", summary)
    assert pointer and len(summary) < ANSWER_LIMIT + 300
    saved = (ws / pointer.group(1)).read_text()
    assert saved.startswith("Research task research-1 finished") and long_answer.strip() in saved


# ----------------------------------------------------------------- three tasks in one reply


def three_tasks_script(ws: Path) -> Any:
    return main_agent(ws, [task_call(notes) for notes in QUESTIONS], researcher())


def check_three_tasks(ws: Path, summaries: list[str]) -> None:
    ledger = ledger_for_ws(ws)
    urls = [s["canonical_url"] for s in ledger.values() if s["url"].startswith("corpus:")]
    assert len(urls) == len(set(urls)) == 3  # one id per document, whoever found it first
    assert len(ledger) == len({s["canonical_url"] for s in ledger.values()})
    ids_of: dict[str, set[str]] = {}  # URL -> the ids the tasks cited it with
    readers: dict[str, int] = {}  # URL -> how many tasks read and cited it
    for notes, question in QUESTIONS.items():
        text = (ws / notes).read_text()
        assert text.startswith(f"## {question}\n")
        for source in re.findall(r"S\d+", text):
            url = ledger[source]["url"]
            ids_of.setdefault(url, set()).add(source)
            readers[url] = readers.get(url, 0) + 1
    # Two tasks read costs.md and grid.md ("cell costs", "storage costs"): each has one id for all.
    assert all(len(ids) == 1 for ids in ids_of.values()), ids_of
    assert readers["corpus:costs.md"] >= 2 and readers["corpus:grid.md"] >= 2, readers
    # Three summaries, in the order of the calls.
    assert len(summaries) == 3
    for summary, (notes, question) in zip(summaries, QUESTIONS.items(), strict=True):
        assert re.match(rf"Research task research-\d finished in 3 steps: {question}\n", summary), summary
        assert f"Notes: {notes}: 3 lines" in summary
    agents = {e["agent"] for e in events(ws) if e["event"] == "agent_started"}
    assert agents == {"research-1", "research-2", "research-3"}


async def test_three_tasks_in_one_reply_each_write_their_notes_with_one_ledger(
    tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"
    result, model = await start_run(tmp_path, three_tasks_script(ws), search="local", corpus=corpus)
    assert result.status == "finished"
    check_three_tasks(ws, observations(main_requests(model)[1]))
    assert sum(1 for m, _ in model.requests if is_research(m)) == 9
    assert result.totals.model_calls == len(model.requests)


@pytest.mark.slow
def test_three_tasks_run_at_the_same_time_through_the_cli(
    tmp_path: Path, corpus: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    """The endpoint sees the three Research agents' requests in flight together."""
    ws = tmp_path / "ws"
    inner = three_tasks_script(ws)
    lock = threading.Lock()
    flight = {"now": 0, "most": 0}

    def script(messages: list[Message], tools: Any) -> Reply:
        if not is_research(messages):
            return inner(messages, tools)
        with lock:
            flight["now"] += 1
            flight["most"] = max(flight["most"], flight["now"])
        time.sleep(0.3)  # a model's latency: requests that can overlap do
        with lock:
            flight["now"] -= 1
        return inner(messages, tools)

    server = endpoint(script)
    run = run_cli(
        ["run", "Batteries", "--workspace", str(ws), "--search", "local", "--corpus", str(corpus), "-q"],
        cli_env(server.url),
    )
    assert run.code == 0, run.stderr
    main = [r["messages"] for r in server.requests if not is_research(r["messages"])]
    check_three_tasks(ws, observations(main[1]))
    assert flight["most"] == 3


# ----------------------------------------------------------------- budgets


async def test_a_budget_spent_during_a_task_stops_it_and_the_run_resumably(
    tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"
    script = main_agent(ws, [task_call("Notebook/notes/costs.md")], researcher(keep_searching=True))
    result, _ = await start_run(tmp_path, script, search="local", corpus=corpus, max_tokens=9_000)
    assert result.status == "stopped" and "max_tokens" in (result.reason or "")
    ended = [e for e in events(ws) if e["event"] == "agent_ended" and e["agent"] == "research-1"]
    assert [e["outcome"] for e in ended] == ["budget"]
    note = unfinished_research_note(ws, events(ws))
    assert note and "research-1 (the run's budget ran out during it)" in note


# ----------------------------------------------------------------- kill and resume


def kill_script(ws: Path, gate: threading.Event, release: threading.Event) -> Any:
    """The main agent delegates one task, then finishes; the first Research agent writes a note,
    and at its fourth request the test kills the CLI. Stateless across restarts."""
    research_requests = {"n": 0}
    agent = researcher(keep_searching=True)

    def script(messages: list[Message], tools: Any) -> Reply:
        if is_research(messages):
            research_requests["n"] += 1
            if research_requests["n"] == 4:
                gate.set()
                release.wait(30)
            if turns(messages) >= 3:
                return reply(call("finish", answer="Costs fell, see the notes."))
            return agent(messages)
        if not observations(messages):
            return reply(task_call("Notebook/notes/costs.md"))
        return reply(call("all_finished", result="done", report_path=write_cited_report(ws)))

    return script


@pytest.mark.slow
def test_a_kill_during_a_task_then_resume_reports_it_and_names_stay_unique(
    tmp_path: Path, corpus: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    gate, release = threading.Event(), threading.Event()
    server = endpoint(kill_script(ws, gate, release))
    command = ["run", "Batteries", "--workspace", str(ws), "--search", "local", "--corpus", str(corpus), "-q"]
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", *command], env=cli_env(server.url),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert gate.wait(60), "the Research agent never reached its fourth request"
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        release.set()

    log = events(ws)
    tasks = research_tasks(log)
    assert [(t.agent, t.outcome) for t in tasks] == [("research-1", None)]  # started, never ended
    note = unfinished_research_note(ws, log)
    assert note is not None
    assert note.startswith("[research tasks] 1 research task did not finish before the run stopped")
    assert '- research-1 (the run was stopped during it): "battery cell costs" (depth standard)' in note
    assert "notes: Notebook/notes/costs.md: 3 lines" in note and "headings: ## battery cell costs" in note
    assert "Re-run research_task with the same question and notes file" in note

    before = len(server.requests)
    resumed = run_cli(["resume", str(ws), "-q"], cli_env(server.url))
    assert resumed.code == 0, resumed.stderr
    # The main agent's first request after the resume tells it about the unfinished task.
    first_main = next(r for r in server.requests[before:] if not is_research(r["messages"]))
    told = "\n".join(str(m.get("content") or "") for m in first_main["messages"])
    assert "[research tasks] 1 research task did not finish" in told and "Notebook/notes/costs.md" in told
    log = events(ws)
    assert [(t.agent, t.task, t.outcome) for t in research_tasks(log)] == [
        ("research-1", 1, None),
        ("research-2", 2, "finished"),
    ]
    assert unfinished_research_note(ws, log) is None  # the last run left nothing unfinished
    # The second task appended to the notes the first one left.
    assert (ws / "Notebook/notes/costs.md").read_text().count("## battery cell costs") == 2


# ----------------------------------------------------------------- the resume note, directly


def test_the_note_names_only_the_last_runs_unfinished_tasks(tmp_path: Path) -> None:
    (tmp_path / "Notebook").mkdir()
    (tmp_path / "Notebook" / "b.md").write_text("# B\n\nFact [S2].\n")
    run = {"event": "run_started"}
    first_run = [run, started(1), {"event": "action", "agent": "main"}]
    second_run = [run, started(2, "Notebook/b.md"), started(3), ended(3, "finished"), started(4), ended(4, "max_steps"),
                  started(5), ended(5, "interrupted"), started(6), ended(6, "budget")]  # fmt: skip
    note = unfinished_research_note(tmp_path, first_run + second_run)
    assert note is not None
    lines = note.splitlines()
    assert lines[0].startswith("[research tasks] 3 research tasks did not finish")
    assert lines[1] == (
        '- research-2 (the run was stopped during it): "q2" (depth quick); notes: Notebook/b.md: 3 lines, 16 bytes; '
        "headings: # B; cites 1 source: [S2]"
    )
    assert (
        lines[2].startswith('- research-5 (it was interrupted): "q5"')
        and "does not exist (nothing written)" in lines[2]
    )
    assert lines[3].startswith("- research-6 (the run's budget ran out during it)")
    # A run killed before it did anything: the tasks of the run before are still reported.
    assert unfinished_research_note(tmp_path, [*first_run, run]) == unfinished_research_note(
        tmp_path, first_run
    )
    assert unfinished_research_note(tmp_path, [run, started(1), ended(1, "finished")]) is None
    assert unfinished_research_note(tmp_path, []) is None


def test_the_note_read_as_a_stream_is_the_note_read_from_the_whole_log(tmp_path: Path) -> None:
    """The resume reads the log once, as a stream, keeping the last run's tasks only: the same
    note as `_last_run` on the whole log in memory gave (stored in
    tests/data/expected/unfinished_notes.json from that old way's output), on many logs of every
    shape."""
    root = notebook_with_b(tmp_path)
    expected = stored("unfinished_notes.json")
    logs = list(research_task_logs())
    assert len(logs) == len(expected)
    notes = 0
    for case, log in enumerate(logs):
        assert unfinished_research_note(root, iter(log)) == expected[case], (case, log)
        notes += expected[case] is not None
    assert 100 < notes < 550  # both kinds of answer were compared many times


def test_a_notes_path_that_escapes_is_described_not_followed(tmp_path: Path) -> None:
    note = unfinished_research_note(tmp_path, [started(1, "../../etc/passwd")])
    assert note is not None and "cannot be read" in note and "root:" not in note


# ----------------------------------------------------------------- the live view


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_live_view_shows_each_running_research_agent() -> None:
    feed = [
        {"event": "model_call", "agent": "main", "step": 4, "prompt_tokens": 100, "completion_tokens": 10},
        *({**started(n), "step": 4} for n in (1, 2, 3, 4)),
        {
            "event": "model_call",
            "agent": "research-1",
            "step": 1,
            "prompt_tokens": 10,
            "completion_tokens": 1,
        },
        {
            "event": "action",
            "agent": "research-2",
            "step": 1,
            "action": "web_search",
            "observation_chars": 50,
        },
        {**ended(3, "finished"), "step": 4},
    ]
    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        view = LiveView(stream, settings())
        for event in feed:
            view(event)
    last = terminal.getvalue().rsplit("\r\x1b[K", 1)[-1]
    assert last.startswith(
        "step 4/200 · research_task [research-1 thinking · research-2 web_search · research-4 starting] · 121 tokens"
    ), last
    lines = pipe.getvalue().splitlines()
    assert lines[0] == "step 4 research-1 started: q1 → Notebook/a.md (quick)"
    assert "step 4 research-2:web_search (50 chars)" in lines  # the run's step, not the agent's
    assert lines[-1] == "step 4 research-3 finished after 2 steps"
    view = LiveView(Terminal(), settings())
    for event in [started(n) for n in range(1, 6)]:
        view(event)
    assert view._agents_text().endswith("research-3 starting · +2 more]")


# ----------------------------------------------------------------- resume in-process keeps numbering


async def test_a_resumed_run_numbers_its_tasks_after_the_old_ones(tmp_path: Path, corpus: Path) -> None:
    ws = tmp_path / "ws"
    script = main_agent(ws, [task_call("Notebook/notes/costs.md", "quick")], researcher())
    await start_run(tmp_path, script, search="local", corpus=corpus, max_steps=1)  # stops after the task
    run_file = json.loads((ws / ".runtime" / "run.json").read_text())
    assert run_file["status"] == "stopped"
    await resume_run(tmp_path, script, max_steps=5)
    agents = [e["agent"] for e in events(ws) if e["event"] == "agent_started"]
    assert agents == ["research-1", "research-2"]


async def test_a_file_operation_of_a_research_task_names_its_task_in_the_log(
    tmp_path: Path, corpus: Path
) -> None:
    ws = tmp_path / "ws"

    def agent(messages: list[Message]) -> Reply:
        if turns(messages) == 0:
            return reply(
                call("file_operation", operation_description="Create Notebook/scratch.md saying hello")
            )
        return reply(
            call("write_notes", content="## costs\n- none found\n"), call("finish", answer="nothing")
        )

    def script(messages: list[Message], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(FILE):
            if not observations(messages):
                return reply(call("write_file", file_path="Notebook/scratch.md", content="hello\n"))
            return reply(call("finish", answer="created"))
        return main_agent(ws, [task_call("Notebook/notes/costs.md")], agent)(messages, tools)

    result, _ = await start_run(tmp_path, script, search="local", corpus=corpus)
    assert result.status == "finished"
    file_events = [e for e in events(ws) if e.get("agent") == "file"]
    assert file_events and {e.get("parent") for e in file_events} == {"research-1"}
    research_actions = [e for e in events(ws) if e.get("agent") == "research-1" and e["event"] == "action"]
    assert {e.get("parent") for e in research_actions} == {"main"}
