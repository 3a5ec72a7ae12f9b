"""The real CLI process against the loopback endpoint through the real `openai` client."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Fault, Reply, ScriptedEndpoint, call, raw_call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.research_script import research_script, with_fault_at

Script = Callable[[list[dict[str, Any]], list[dict[str, Any]]], Reply | Fault]


@pytest.mark.slow
def test_scripted_end_to_end_run(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    ws = tmp_path / "ws"
    server = endpoint(research_script(ws))
    result = run_cli(
        ["run", "Solid-state batteries in 2026", "--purpose", "an investment memo", "--workspace", str(ws)],
        cli_env(server.url),
    )
    assert result.code == 0, result.stderr
    assert "Finished: report.md" in result.stdout and "Solid-state batteries: a summary." in result.stdout

    assert (
        ws / "overall_dashboard.md"
    ).read_text() == "# Solid-state\n\n## Research questions\n- Q1: cost per kWh\n"
    assert (ws / "current_dashboard.md").read_text() == "# Current\n\nphase: writing\n"
    assert (ws / "Notebook").is_dir() and (ws / "sources").is_dir()
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["title"] == "Solid-state batteries in 2026" and meta["purpose"] == "an investment memo"
    assert meta["status"] == "finished" and meta["report_path"] == "report.md"
    assert (ws / "draft.md").exists()  # the draft stays where it was
    report = (ws / "report.md").read_text()
    assert "Solid-state cells are near [1]." in report
    assert "1. Solid-state cells. https://example.org/solid-state" in report
    assert meta["summary"]["sources_seen"] == 1 and meta["summary"]["sources_cited"] == 1
    assert meta["totals"]["steps"] == 3 and meta["totals"]["model_calls"] == 3
    assert meta["totals"]["prompt_tokens"] > 0 and "test-key" not in json.dumps(meta)

    events = [json.loads(line) for line in (ws / ".runtime" / "events.jsonl").read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds == ["run_started"] + ["model_call", "action"] * 3 + ["run_ended"]
    actions = [e for e in events if e["event"] == "action"]
    assert [a["action"] for a in actions] == [
        "update_overall_dashboard",
        "update_current_dashboard",
        "all_finished",
    ]
    for event in actions:
        assert {"time", "step", "agent", "arguments", "observation_chars", "duration", "error"} <= set(event)
    assert all(e["prompt_tokens"] > 0 for e in events if e["event"] == "model_call")
    # the endpoint saw the purpose in the system prompt and the dashboards in the next message
    first = server.requests[0]["messages"]
    assert "an investment memo" in first[0]["content"]
    assert "overall_dashboard.md" in first[1]["content"]

    shown = run_cli(["inspect", str(ws)], cli_env())
    assert shown.code == 0
    for expected in (
        "Solid-state batteries in 2026",
        "status:    finished",
        "Q1: cost per kWh",
        "phase: writing",
        "all_finished",
    ):
        assert expected in shown.stdout
    as_json = json.loads(run_cli(["inspect", str(ws), "--json"], cli_env()).stdout)
    assert as_json["status"] == "finished" and as_json["totals"]["steps"] == 3 and as_json["last_events"]


FAULTS = {
    "429_then_success": Fault(429, retry_after=0.2),
    "500": Fault(500),
    "503": Fault(503),
    "hang_past_the_deadline": Fault(200, hang=6.0),
    "malformed_argument_json": reply(
        raw_call("update_overall_dashboard", '{"content": "# x\\n- Q1: cost per kWh')
    ),
    "tool_call_as_text": Reply(
        content='{"name": "update_overall_dashboard", "arguments": {"content": "# T\\n- Q1: cost per kWh"}}'
    ),
    "empty_reply": Reply(content="   "),
    "think_block": Reply(
        content="<think>The user wants a blueprint.</think>",
        tool_calls=[call("update_overall_dashboard", content="# T\n- Q1: cost per kWh")],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FAULTS))
def test_each_fault_is_survived_and_the_run_finishes(
    name: str, tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    server = endpoint(with_fault_at(research_script(ws), 0, FAULTS[name]))
    env = cli_env(server.url, DEEP_RESEARCHER_REQUEST_TIMEOUT="2")
    result = run_cli(["run", "Faults", "--workspace", str(ws), "-q"], env)
    assert result.code == 0, result.stderr
    assert json.loads((ws / ".runtime" / "run.json").read_text())["status"] == "finished"
    events = [json.loads(line) for line in (ws / ".runtime" / "events.jsonl").read_text().splitlines()]
    problems = [p for e in events if e["event"] == "model_call" for p in e["problems"]]
    expected_problem = {
        "malformed_argument_json": "invalid_arguments",
        "tool_call_as_text": "text_tool_call",
        "empty_reply": "empty_reply",
        "think_block": "think_block",
    }.get(name)
    if expected_problem:
        assert expected_problem in problems
    else:  # transport faults: the endpoint saw the retry, and the log counts it
        assert len(server.requests) == 4
        retries = [e for e in events if e["event"] == "model_retry"]
        assert len(retries) == 1 and retries[0]["attempt"] == 1


@pytest.mark.slow
def test_no_api_key_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli(["run", "T", "--workspace", str(tmp_path / "ws")], cli_env())
    assert result.code == 1
    assert "OPENAI_API_KEY" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "ws").exists()


@pytest.mark.slow
def test_unreachable_endpoint_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli(
        ["run", "T", "--workspace", str(tmp_path / "ws"), "--base-url", "http://127.0.0.1:9/v1"], cli_env()
    )
    assert result.code == 1
    assert "cannot reach the model endpoint" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_endpoint_refusing_the_model_is_a_clear_error(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    server = endpoint(lambda messages, tools: Fault(404, message="model 'nope' not found"))
    result = run_cli(
        ["run", "T", "--workspace", str(tmp_path / "ws"), "--model", "nope"], cli_env(server.url)
    )
    assert result.code == 1
    assert (
        "HTTP 404" in result.stderr
        and "check the model name" in result.stderr
        and "Traceback" not in result.stderr
    )
    assert json.loads((tmp_path / "ws" / ".runtime" / "run.json").read_text())["status"] == "error"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run"], "the following arguments are required: title"),
        (["run", "T", "--max-steps", "many"], "invalid int value"),
        (["run", "T", "--tool-mode", "xml"], "invalid choice"),
        (["fly"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = run_cli(args, cli_env())
    assert result.code == 2 and message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_invalid_setting_values_are_clear_errors(tmp_path: Path) -> None:
    result = run_cli(
        ["run", "T", "--workspace", str(tmp_path / "ws"), "--max-steps", "0"],
        cli_env("http://127.0.0.1:9/v1"),
    )
    # a usage error (exit 2), named as the flag was given, as argparse names a bad flag
    assert result.code == 2 and "--max-steps=0: expected a value at least 1" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_workspace_holding_a_run_is_not_overwritten(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    server = endpoint(research_script(ws))
    assert run_cli(["run", "First", "--workspace", str(ws), "-q"], cli_env(server.url)).code == 0
    before = (ws / "overall_dashboard.md").read_text()
    again = run_cli(["run", "Second", "--workspace", str(ws), "-q"], cli_env(server.url))
    assert again.code == 1 and "already holds a research run" in again.stderr and "resume" in again.stderr
    assert (ws / "overall_dashboard.md").read_text() == before


@pytest.mark.slow
def test_inspect_and_resume_of_a_folder_that_is_not_a_workspace(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("my own file")
    for command in (["inspect", str(tmp_path)], ["resume", str(tmp_path), "--api-key", "k"]):
        result = run_cli(command, cli_env())
        assert result.code == 1 and "not a research workspace" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli(["resume", str(empty), "--api-key", "k"], cli_env())
    assert (
        result.code == 1
        and "holds no research run" in result.stderr
        and "deep-researcher run" in result.stderr
    )


@pytest.mark.slow
def test_json_tool_mode_end_to_end(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    ws = tmp_path / "ws"
    native = research_script(ws)

    def as_json_text(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply | Fault:
        assert tools == []  # json mode sends no tool list
        answer = native(messages, tools)
        assert isinstance(answer, Reply)
        function = answer.tool_calls[0]["function"]
        return Reply(
            content=f'```json\n{{"action": "{function["name"]}", "arguments": {function["arguments"]}}}\n```'
        )

    server = endpoint(as_json_text)
    result = run_cli(
        ["run", "JSON mode", "--workspace", str(ws), "--tool-mode", "json", "-q"], cli_env(server.url)
    )
    assert result.code == 0, result.stderr
    system = server.requests[0]["messages"][0]["content"]
    assert '{"action": "<action name>"' in system and "update_current_dashboard(content)" in system
