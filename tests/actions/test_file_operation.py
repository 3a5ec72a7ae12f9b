"""file_operation in-process: the real main loop and the real File agent loop, driven by a
scripted model that plays both agents (told apart by their system prompts)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from actions.file_operation import ANSWER_LIMIT, file_operation
from actions.files import file_actions
from agent_runtime.app.researcher import Researcher, RunResult
from agent_runtime.config import load_settings
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.messages import Message
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.registry import ActionSet
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import EventLog, RunMeta
from agent_runtime.testing import Reply, ScriptedEndpoint, ScriptedModel, call, reply

FILE_AGENT = "You are the File agent"
FileScript = Callable[[str, list[Message]], Reply]


def is_file_agent(messages: list[Message]) -> bool:
    return str(messages[0]["content"]).startswith(FILE_AGENT)


def tool_results(messages: list[Message]) -> list[str]:
    """The observations in a request, in order: tool messages (native) or user observations (json)."""
    return [
        str(m["content"])
        for m in messages
        if m["role"] == "tool" or (m["role"] == "user" and str(m["content"]).startswith("Observation from "))
    ]


def main_script(operations: list[str], file_agent: FileScript, report: str = "report.md") -> Any:
    """The main agent runs each operation in turn (its step is the number of observations in its
    history), then finishes; requests from the File agent go to `file_agent(description, messages)`."""

    def script(messages: list[Message], tools: Any) -> Reply:
        if is_file_agent(messages):
            return file_agent(str(messages[1]["content"]), messages)
        step = len(tool_results(messages))
        if step < len(operations):
            return reply(call("file_operation", operation_description=operations[step]))
        return reply(call("all_finished", result="done", report_path=report))

    return script


async def start_run(tmp_path: Path, script: Any, **overrides: Any) -> tuple[RunResult, ScriptedModel, Path]:
    model = ScriptedModel(script)
    settings = load_settings(overrides, env={})
    researcher = Researcher.start("Test research", workspace=tmp_path / "ws", settings=settings, model=model)
    result = await researcher.run()
    return result, model, researcher.workspace.root


def events(workspace: Path) -> list[dict[str, Any]]:
    lines = (workspace / ".runtime" / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def simple_file_agent(description: str, messages: list[Message]) -> Reply:
    """Creates the intro or writes the report, then answers briefly (never quoting its observation)."""
    if tool_results(messages):
        return reply(call("finish", answer="intro created" if "intro" in description else "report written"))
    if "intro" in description:
        return reply(call("create_file", file_path="Notebook/01_intro.md", initial_content="# Intro\n"))
    return reply(call("write_file", file_path="report.md", content="# Report\n\nDone.\n"))


OPERATIONS = ["Create Notebook/01_intro.md with the text '# Intro'", "Write report.md with a short report"]


async def test_the_file_agents_context_never_enters_the_main_history(tmp_path: Path) -> None:
    result, model, ws = await start_run(tmp_path, main_script(OPERATIONS, simple_file_agent))
    assert (result.status, result.exit_code) == ("finished", 0)
    assert (ws / "Notebook/01_intro.md").read_text() == "# Intro\n"
    assert (ws / "report.md").read_text().startswith("# Report\n\nDone.\n")  # all_finished adds references

    main = [(m, t) for m, t in model.requests if not is_file_agent(m)]
    files = [(m, t) for m, t in model.requests if is_file_agent(m)]
    assert len(files) == 4
    assert len(main) >= 3  # all_finished may refuse a report without citations before it finalizes it
    # The File agent starts from its own two messages and has its own tools, in the contract order.
    first_messages, first_tools = files[0]
    assert [m["role"] for m in first_messages] == ["system", "user"]
    assert first_messages[1]["content"] == OPERATIONS[0]
    assert [t["function"]["name"] for t in first_tools] == [a.name for a in file_actions()]
    assert main[0][1][0]["function"]["name"] == "file_operation"
    # The main agent's next request holds its call and the answer, and nothing of the File agent's work.
    after_first = main[1][0]
    assert [m["role"] for m in after_first] == ["system", "user", "assistant", "tool", "user"]
    assert after_first[3]["content"] == "intro created"
    observation = "Created Notebook/01_intro.md (1 line, 8 bytes)."
    assert observation in json.dumps(files[1][0])
    for messages, tools in main:
        text = json.dumps(messages)
        assert FILE_AGENT not in text and observation not in text and "create_file" not in text
        assert all(t["function"]["name"] != "create_file" for t in tools)
    # Both agents' model calls count in the run's totals; the File agent's actions are logged as its own.
    assert result.totals.model_calls == len(model.requests)
    assert result.totals.steps == len(main)  # the File agent's steps are not the run's steps
    logged = [(e["agent"], e["action"]) for e in events(ws) if e["event"] == "action"]
    assert logged[:7] == [
        ("file", "create_file"),
        ("file", "finish"),
        ("main", "file_operation"),
        ("file", "write_file"),
        ("file", "finish"),
        ("main", "file_operation"),
        ("main", "all_finished"),
    ]
    assert [e["agent"] for e in events(ws) if e["event"] == "model_call"].count("file") == 4
    ended = [e for e in events(ws) if e["event"] == "agent_ended"]
    assert [(e["agent"], e["outcome"], e["steps"]) for e in ended] == [("file", "finished", 2)] * 2


async def test_a_long_answer_is_bounded_with_a_pointer_to_the_whole(tmp_path: Path) -> None:
    long_answer = "".join(f"line {n}: " + "x" * 90 + "\n" for n in range(100))  # about 10,000 characters

    def file_agent(description: str, messages: list[Message]) -> Reply:
        if "report" in description:
            return simple_file_agent(description, messages)
        return reply(call("finish", answer=long_answer))

    result, model, ws = await start_run(
        tmp_path, main_script(["Return everything", "Write the report"], file_agent)
    )
    assert result.status == "finished"
    main = [m for m, _ in model.requests if not is_file_agent(m)]
    seen = main[1][-2]["content"]
    assert len(seen) < ANSWER_LIMIT + 300
    assert seen.startswith(long_answer[:ANSWER_LIMIT])
    pointer = re.search(r"the whole answer is in (\S+?);", seen)
    assert pointer, seen
    assert (ws / pointer.group(1)).read_text() == long_answer


async def test_at_its_step_limit_the_file_agent_reports_what_it_did(tmp_path: Path) -> None:
    def file_agent(description: str, messages: list[Message]) -> Reply:
        if "report" in description:
            return simple_file_agent(description, messages)
        n = len(tool_results(messages))
        return reply(call("create_file", file_path=f"Notebook/part{n}.md", initial_content=f"part {n}\n"))

    script = main_script(["Create many parts", "Write the report"], file_agent)
    result, model, ws = await start_run(tmp_path, script, file_max_steps=3)
    assert result.status == "finished"
    assert sorted(p.name for p in (ws / "Notebook").iterdir()) == ["part0.md", "part1.md", "part2.md"]
    seen = [m for m, _ in model.requests if not is_file_agent(m)][1][-2]["content"]
    assert seen.splitlines()[:5] == [
        "The File agent used all its 3 steps without finishing the operation.",
        "What it did:",
        '- create_file(file_path="Notebook/part0.md", initial_content="part 0\\n") → Created Notebook/part0.md '
        "(1 line, 7 bytes).",
        '- create_file(file_path="Notebook/part1.md", initial_content="part 1\\n") → Created Notebook/part1.md '
        "(1 line, 7 bytes).",
        '- create_file(file_path="Notebook/part2.md", initial_content="part 2\\n") → Created Notebook/part2.md '
        "(1 line, 7 bytes).",
    ]
    assert len([m for m, _ in model.requests if is_file_agent(m)]) == 3 + 2


async def test_a_file_agent_repeating_itself_is_stopped(tmp_path: Path) -> None:
    def file_agent(description: str, messages: list[Message]) -> Reply:
        if "report" in description:
            return simple_file_agent(description, messages)
        return reply(call("list_directory", directory_path="Notebook"))

    result, model, _ = await start_run(
        tmp_path, main_script(["List forever", "Write the report"], file_agent)
    )
    assert result.status == "finished"
    seen = [m for m, _ in model.requests if not is_file_agent(m)][1][-2]["content"]
    assert seen.startswith("The File agent was stopped because it repeated itself")
    assert seen.count("- list_directory(") == 5


async def test_a_stream_carries_over_to_the_next_file_operation(tmp_path: Path) -> None:
    big = "".join(f"row {n}\n" for n in range(1, 3001))

    def file_agent(description: str, messages: list[Message]) -> Reply:
        done = tool_results(messages)
        if "report" in description:
            return simple_file_agent(description, messages)
        if done:
            header = done[-1].splitlines()[0]
            return reply(call("finish", answer=header))
        if description.startswith("Start"):
            (tmp_path / "ws/Notebook/big.txt").write_text(big)
            return reply(call("stream_read_file", file_path="Notebook/big.txt", chunk_size=100))
        return reply(call("continue_stream_read", stream_id="s1"))

    operations = ["Start streaming Notebook/big.txt", "Continue the stream s1", "Write the report"]
    result, model, _ = await start_run(tmp_path, main_script(operations, file_agent))
    assert result.status == "finished"
    main = [m for m, _ in model.requests if not is_file_agent(m)]
    assert main[1][-2]["content"].startswith("[stream s1 · Notebook/big.txt · lines 1-100 of 3,000")
    assert main[2][-2]["content"].startswith("[stream s1 · Notebook/big.txt · lines 101-200 of 3,000")


async def test_json_tool_mode_describes_the_file_actions_in_the_prompt(tmp_path: Path) -> None:
    def as_json(name: str, **arguments: Any) -> Reply:
        return reply(content=json.dumps({"action": name, "arguments": arguments}))

    def script(messages: list[Message], tools: Any) -> Reply:
        assert tools == []
        done = tool_results(messages)
        if is_file_agent(messages):
            if done:
                return as_json("finish", answer="written")
            return as_json("write_file", file_path="report.md", content="# Report\n")
        if done:
            return as_json("all_finished", result="done", report_path="report.md")
        return as_json("file_operation", operation_description="Write report.md")

    result, model, ws = await start_run(tmp_path, script, tool_mode="json")
    assert result.status == "finished" and (ws / "report.md").read_text().startswith("# Report\n")
    system = next(m for m, _ in model.requests if is_file_agent(m))[0]["content"]
    for item in file_actions():
        assert f"## {item.signature_text()}\n{item.description}\n" in system
    assert "## write_file(file_path, content, mode='overwrite', line=None)" in system


async def test_a_configured_file_model_serves_the_file_agent(tmp_path: Path, endpoint: Any) -> None:
    def file_agent(messages: list[Message], tools: Any) -> Reply:
        assert is_file_agent(messages)
        return simple_file_agent(str(messages[1]["content"]), messages)

    server: ScriptedEndpoint = endpoint(file_agent)

    def main_only(messages: list[Message], tools: Any) -> Reply:
        assert not is_file_agent(messages), "the main model was sent a File agent request"
        return main_script(OPERATIONS, simple_file_agent)(messages, tools)

    result, model, ws = await start_run(
        tmp_path, main_only, file_model="cheap-file-model", base_url=server.url, api_key="test"
    )
    assert model.requests and not any(is_file_agent(m) for m, _ in model.requests)
    assert result.status == "finished"
    assert (ws / "Notebook/01_intro.md").exists() and (ws / "report.md").exists()
    assert len(server.requests) == 4  # the File agent's two operations, two steps each
    assert {body["model"] for body in server.requests} == {"cheap-file-model"}
    file_calls = [e for e in events(ws) if e["event"] == "model_call" and e["agent"] == "file"]
    assert {e["model"] for e in file_calls} == {"cheap-file-model"}


async def test_an_empty_description_is_refused(tmp_path: Path) -> None:
    def script(messages: list[Message], tools: Any) -> Reply:
        assert not is_file_agent(messages)
        done = tool_results(messages)
        if not done:
            return reply(call("file_operation", operation_description="  "))
        (tmp_path / "ws/report.md").write_text("# Report\n")
        return reply(call("all_finished", result="done", report_path="report.md"))

    result, model, _ = await start_run(tmp_path, script)
    assert result.status == "finished"
    assert "operation_description is empty" in model.requests[1][0][-2]["content"]


async def test_the_file_agent_continues_the_runs_clock_without_counting_it_twice(tmp_path: Path) -> None:
    workspace = ResearchWorkspace(tmp_path / "ws")
    workspace.create("Test research", None)
    meta = RunMeta(title="Test research")
    meta.totals.elapsed_seconds = 100.0  # spent by earlier sessions of the run
    model = ScriptedModel(lambda messages, tools: reply(call("finish", answer="nothing to do")))
    ctx = ActionContext(
        workspace, load_settings({}, env={}), model, EventLog(workspace.events_file), meta, Prompts()
    )
    ctx._started -= 50  # this session has run for 50 s
    observation = await ActionSet.of([file_operation]).run(
        ctx, "file_operation", {"operation_description": "Nothing"}
    )
    assert observation.text == "nothing to do"
    assert (
        150 <= meta.totals.elapsed_seconds < 160
    )  # saved by the File agent's loop: 100 + 50, not 100 + 150 + 50
    assert 150 <= ctx.elapsed() < 160
