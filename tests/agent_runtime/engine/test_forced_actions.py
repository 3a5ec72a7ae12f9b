"""Forcing every reply into an action, through the real CLI against a scripted server that behaves
like llama.cpp's and vLLM's: it honours `tool_choice: "required"` and a JSON-schema
`response_format`, or refuses them with a 400 naming the parameter; and --tool-mode auto, which
switches a run to json when the model writes its actions as JSON text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import CliResult, cli_env, run_cli, write_cited_report
from tests.support.runs import events

PROSE = "Let me think about how to approach this research in detail. " * 400  # cut at the cap


def run(ws: Path, server: ScriptedEndpoint, *flags: str, **env: str) -> CliResult:
    return run_cli(
        ["run", "Sodium-ion cells", "--workspace", str(ws), "-q", *flags], cli_env(server.url, **env)
    )


def forced(body: dict[str, Any]) -> bool:
    """Whether the request asks the server to constrain the reply to an action."""
    return body.get("tool_choice") == "required" or "response_format" in body


def small_model(ws: Path) -> Any:
    """A 1.5B model: left free it writes prose to the output cap; constrained by the server's
    grammar it produces the action (a native call, or the JSON the schema allows)."""

    def script(messages: list[dict[str, Any]], tools: list[Any], body: dict[str, Any]) -> Reply:
        if not forced(body):
            return reply(content=PROSE)
        finish = call("all_finished", result="done", report_path=write_cited_report(ws))
        if tools:
            return reply(finish)
        return reply(
            content=json.dumps(
                {"action": "all_finished", "arguments": json.loads(finish["function"]["arguments"])}
            )
        )

    return script


@pytest.mark.slow
def test_native_requests_force_an_action_and_the_small_model_finishes(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with ScriptedEndpoint(small_model(ws)) as server:
        result = run(ws, server, "--tool-mode", "native", "--max-steps", "4")
    assert result.code == 0, result.stderr
    assert server.requests[0]["tool_choice"] == "required"


@pytest.mark.slow
def test_tool_choice_auto_opts_out_and_the_same_model_never_acts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with ScriptedEndpoint(small_model(ws)) as server:
        result = run(ws, server, "--tool-mode", "native", "--tool-choice", "auto", "--max-steps", "20")
    assert result.code == 3
    assert "without an action" in result.stderr
    assert {body.get("tool_choice") for body in server.requests} == {"auto"}
    cut = [e for e in events(ws) if e["event"] == "model_call" and "cut_at_output_limit" in e["problems"]]
    assert cut, "the prose came back at the cap with finish_reason length"


@pytest.mark.slow
def test_a_server_refusing_required_falls_back_to_auto_once_and_logs_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    def acts_when_asked(messages: list[dict[str, Any]], tools: list[Any]) -> Reply:
        return reply(call("all_finished", result="done", report_path=write_cited_report(ws)))

    with ScriptedEndpoint(acts_when_asked, refuses=["tool_choice=required"]) as server:
        result = run(ws, server, "--tool-mode", "native", "--max-steps", "4")
    assert result.code == 0, result.stderr
    sent = [body.get("tool_choice") for body in server.requests]
    assert sent == ["required", "auto"]  # refused once, then remembered
    (fallback,) = [e for e in events(ws) if e["event"] == "model_fallback"]
    assert fallback["parameter"] == "tool_choice" and fallback["before"] == "required"
    assert fallback["after"] == "auto" and "Unsupported param" in fallback["refusal"]


@pytest.mark.slow
def test_json_mode_sends_the_action_schema_and_falls_back_to_json_object_then_nothing(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    with ScriptedEndpoint(small_model(ws), refuses=["response_format=json_schema"]) as server:
        result = run(ws, server, "--tool-mode", "json", "--max-steps", "4")
    assert result.code == 0, result.stderr
    first, second = server.requests[0], server.requests[1]
    schema = first["response_format"]["json_schema"]["schema"]
    names = {v["properties"]["action"]["enum"][0] for v in schema["$defs"]["action"]["anyOf"]}
    assert {"web_search", "all_finished", "update_overall_dashboard"} <= names
    assert "tools" not in first
    assert second["response_format"] == {"type": "json_object"}

    ws2 = tmp_path / "ws2"
    with ScriptedEndpoint(small_model(ws2), refuses=["response_format"]) as server:
        result = run(ws2, server, "--tool-mode", "json", "--max-steps", "6")
    assert result.code == 3  # nothing can force this server: the prose model never acts
    formats = [body.get("response_format", {}).get("type") for body in server.requests]
    assert formats[:3] == ["json_schema", "json_object", None]
    assert all(kind is None for kind in formats[3:])
    steps = [e["after"] for e in events(ws2) if e["event"] == "model_fallback"]
    assert steps == ["json_object", "not sent"]


@pytest.mark.slow
def test_auto_mode_switches_to_json_when_the_model_writes_json_text(tmp_path: Path) -> None:
    """llama-server without --jinja: the model sees the tools but its calls come back as text."""
    ws = tmp_path / "ws"
    plan = [
        (
            "update_overall_dashboard",
            {"content": "# Sodium-ion cells\n\n## Research questions\n1. How cheap?\n"},
        ),
        ("web_search", {"query": "sodium-ion cell price", "max_results": 3}),
        ("all_finished", {"result": "done", "report_path": "draft.md"}),
    ]
    seen: list[int] = []

    def as_text(messages: list[dict[str, Any]], tools: list[Any]) -> Reply:
        step = min(len(seen), len(plan) - 1)
        seen.append(len(tools))
        name, arguments = plan[step]
        if name == "all_finished":
            write_cited_report(ws)
        return reply(content="```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```")

    with ScriptedEndpoint(as_text) as server:
        result = run(ws, server, "--search", "local", "--corpus", str(corpus(tmp_path)), "--max-steps", "8")
    assert result.code == 0, result.stderr
    assert seen[:2] == [len(server.requests[0]["tools"])] * 2  # native at first, tools sent
    assert seen[2:] and set(seen[2:]) == {0}  # then json: no tool list, the action schema instead
    assert "response_format" in server.requests[2] and "tool_choice" not in server.requests[2]
    system = server.requests[2]["messages"][0]["content"]
    assert '{"action": "<action name>"' in system  # the prompt now teaches the json form
    history = json.dumps(server.requests[2]["messages"])
    assert '"role": "tool"' not in history  # the native history was carried over in json form
    (switch,) = [e for e in events(ws) if e["event"] == "tool_mode_switched"]
    assert switch["to"] == "json" and switch["step"] == 2
    assert json.loads((ws / ".runtime" / "run.json").read_text())["tool_mode"] == "json"


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir(exist_ok=True)
    (folder / "price.md").write_text(
        "# Sodium-ion cell price\n\nSodium-ion cells cost less than lithium cells.\n"
    )
    return folder


def jinja_refusal(body: dict[str, Any]) -> Any:
    """llama-server without --jinja: any request with a tool list is a 500 with this message."""
    from agent_runtime.testing import Fault

    return Fault(500, message="tools param requires --jinja flag")


@pytest.mark.slow
def test_a_server_refusing_tool_lists_moves_an_auto_run_to_json_at_once(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    finish = small_model(ws)

    def no_jinja(messages: list[dict[str, Any]], tools: list[Any], body: dict[str, Any]) -> Any:
        return jinja_refusal(body) if tools else finish(messages, tools, body)

    with ScriptedEndpoint(no_jinja) as server:
        result = run(ws, server, "--max-steps", "4")
    assert result.code == 0, result.stderr
    assert "tools" in server.requests[0] and "tools" not in server.requests[1]  # no retries of the 500
    (switch,) = [e for e in events(ws) if e["event"] == "tool_mode_switched"]
    assert switch["reason"] == "the server refuses a tool list"

    ws2 = tmp_path / "ws2"
    with ScriptedEndpoint(no_jinja) as server:
        native = run(ws2, server, "--tool-mode", "native", "--max-steps", "4")
    assert native.code == 1 and len(server.requests) == 1
    assert "takes no tool list" in native.stderr and "--tool-mode json" in native.stderr
