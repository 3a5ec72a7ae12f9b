"""A whole run through the real CLI with MCP servers: the scripted model calls the reference
servers' tools, cites the fetched page, and the servers are gone when the run has ended."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.loopback import Handler, LoopbackServer, send
from tests.support.mcp_servers import (
    HELPER,
    PAGE,
    alive,
    marked_pids,
    needs_reference_servers,
    reference_server,
)


@pytest.mark.slow
@needs_reference_servers
def test_run_calls_mcp_tools_and_cites_the_fetched_source(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    def answer(handler: Handler) -> None:
        if handler.path == "/tides.html":
            send(handler, PAGE.encode())
        else:
            send(handler, b"not found", status=404, content_type="text/plain")

    marker = f"DR_MCP_TEST={uuid.uuid4().hex}"
    name, value = marker.split("=")
    ws = tmp_path / "ws"
    during: list[int] = []
    with LoopbackServer(answer) as pages:
        url = f"http://127.0.0.1:{pages.port}/tides.html"
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {
            "time": reference_server("mcp_server_time", env={name: value}),
            "fetch": reference_server("mcp_server_fetch", "--allow-private-ips", env={name: value}),
        }}))  # fmt: skip

        def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
            seen = json.dumps(messages, ensure_ascii=False)
            names = [t["function"]["name"] for t in tools]
            assert names[-3:] == ["mcp__time__get_current_time", "mcp__time__convert_time", "mcp__fetch__fetch"]
            if "cite it as [S1]" not in seen:
                return reply(
                    call("mcp__time__get_current_time", timezone="Asia/Tokyo"),
                    call("mcp__fetch__fetch", url=url),
                )
            during.extend(marked_pids(value))
            (ws / "draft.md").write_text(
                "# Tides\n\n## Findings\nThe spring tide at Lyme Regis reached 4.2 metres on 3 March [S1].\n",
                encoding="utf-8",
            )
            return reply(call("all_finished", result="Tides: a summary.", report_path="draft.md"))

        server = endpoint(script)
        result = run_cli(
            ["run", "Tides of Lyme", "--workspace", str(ws), "--mcp-config", str(config),
             "--verify-citations", "lexical", "--search", "local", "--corpus", str(tmp_path)],
            cli_env(server.url),
        )  # fmt: skip
    assert result.code == 0, result.stderr
    report = (ws / "report.md").read_text(encoding="utf-8")
    assert "reached 4.2 metres on 3 March [1]" in report and url in report
    observations = json.dumps(server.requests[1]["messages"], ensure_ascii=False)
    assert '\\"timezone\\": \\"Asia/Tokyo\\"' in observations and "+09:00" in observations
    events = [json.loads(line) for line in (ws / ".runtime" / "events.jsonl").read_text().splitlines()]
    started = next(e for e in events if e["event"] == "mcp_servers_started")
    assert started["servers"] == ["time", "fetch"]
    # both servers ran during the run, and none is left after it
    assert len(during) == 2 and not any(alive(pid) for pid in during)
    assert not [pid for pid in marked_pids(value) if alive(pid)]


@pytest.mark.slow
def test_server_that_cannot_start_ends_the_run_with_exit_1(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"db": {"command": sys.executable, "args": [HELPER, "--fail"]}}}))
    server = endpoint(lambda messages, tools: reply(call("all_finished", result="x")))
    result = run_cli(["run", "Tides", "--workspace", str(tmp_path / "ws"), "--mcp-config", str(config)],
                     cli_env(server.url))  # fmt: skip
    assert result.code == 1
    assert "MCP server 'db'" in result.stderr and "cannot open the database /nonexistent/db.sqlite" in result.stderr
    assert "Traceback" not in result.stderr and not server.requests  # no model call was made


@pytest.mark.slow
def test_bad_config_is_a_usage_error_before_anything_starts(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"time": {"command": "uvx", "args": "mcp-server-time"}}}')
    result = run_cli(["run", "Tides", "--workspace", str(tmp_path / "ws"), "--mcp-config", str(config)],
                     cli_env("http://127.0.0.1:9/v1"))  # fmt: skip
    assert result.code == 2, result.stderr
    assert str(config) in result.stderr and "MCP server 'time'" in result.stderr and '"args" must be a list' in result.stderr
    assert not (tmp_path / "ws").exists()


@pytest.mark.slow
@needs_reference_servers
def test_check_lists_each_server_and_its_tools(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    from tests.support.check_cli import calls_tools, check, line

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Notes\n\nResearch on tides.\n", "utf-8")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "time": reference_server("mcp_server_time", exclude_tools=["convert_time"]),
        "db": {"command": sys.executable, "args": [HELPER, "--fail"]},
    }}))  # fmt: skip
    server = endpoint(calls_tools)
    result = check(server.url, "--model", "scripted-model", "--search", "local", "--corpus", str(corpus),
                   "--browser-path", str(tmp_path / "no-chromium"), "--mcp-config", str(config),
                   tmp_path=tmp_path)  # fmt: skip
    lines = [text for text in result.stdout.splitlines() if text[6:].startswith("mcp")]
    assert lines[0].startswith("ok ") and "time (stdio:" in lines[0]
    assert "1 tool (1 left out by tools/exclude_tools): mcp__time__get_current_time" in lines[0]
    assert lines[1].startswith("FAIL ") and "MCP server 'db'" in lines[1] and "cannot open the database" in lines[1]
    assert result.code == 1 and line(result, "search").startswith("ok ")


@pytest.mark.slow
def test_budget_stop_and_interrupt_leave_no_server(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    import signal
    import subprocess
    import time

    marker = uuid.uuid4().hex
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "helper": {"command": sys.executable, "args": [HELPER], "env": {"DR_MCP_TEST": marker}}}}))  # fmt: skip
    during: list[int] = []

    def calls_pid(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        during.extend(marked_pids(marker))
        return reply(call("mcp__helper__pid"))

    server = endpoint(calls_pid)
    flags = ["--mcp-config", str(config), "--search", "local", "--corpus", str(tmp_path), "-q"]
    stopped = run_cli(["run", "Tides", "--workspace", str(tmp_path / "a"), "--max-steps", "2", *flags],
                      cli_env(server.url))  # fmt: skip
    assert stopped.code == 3, stopped.stderr  # a budget stop
    assert during and not any(alive(pid) for pid in during) and not marked_pids(marker)

    # Ctrl-C in the middle of a run: the CLI stops resumably (130) and takes its servers with it.
    during.clear()
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Tides", "--workspace", str(tmp_path / "b"), *flags],
        env=cli_env(server.url), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        for _ in range(600):  # until the run has asked the model at least twice (its server is up)
            if len(during) >= 2:
                break
            time.sleep(0.1)
        assert during, "the run never reached the model"
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
    finally:
        if process.poll() is None:
            process.kill()
    assert not any(alive(pid) for pid in during) and not [p for p in marked_pids(marker) if alive(p)]


@pytest.mark.slow
def test_research_agents_get_the_mcp_tools(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"helper": {"command": sys.executable, "args": [HELPER]}}}))
    ws = tmp_path / "ws"
    research_tools: list[list[str]] = []

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = json.dumps(messages, ensure_ascii=False)
        if str(messages[0]["content"]).startswith("You are a Research agent"):
            research_tools.append([t["function"]["name"] for t in tools])
            if "cite it as [S1]" not in seen:
                return reply(call("mcp__helper__memo", topic="tides"))
            return reply(
                call("write_notes", content="## Findings\n- The harbour recorded 4.2 metres on 3 March [S1].\n"),
                call("finish", answer="The harbour recorded 4.2 metres on 3 March [S1]."),
            )
        if "Research task research-1 finished" not in seen:
            return reply(call("research_task", question="What did the tide memo record?",
                              notes_file="Notebook/notes/tides.md"))  # fmt: skip
        (ws / "draft.md").write_text("# Tides\n\n## Findings\nThe harbour recorded 4.2 metres on 3 March [S1].\n")
        return reply(call("all_finished", result="done", report_path="draft.md"))

    server = endpoint(script)
    result = run_cli(
        ["run", "Tides", "--workspace", str(ws), "--mcp-config", str(config), "--verify-citations", "lexical",
         "--search", "local", "--corpus", str(tmp_path), "-q"],
        cli_env(server.url),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert research_tools and all("mcp__helper__memo" in names for names in research_tools)
    assert "memo://notes/tides" in (ws / "report.md").read_text(encoding="utf-8")


@pytest.mark.slow
@needs_reference_servers
def test_with_review_plan_an_mcp_tool_waits_for_the_review_as_a_search_does(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"time": reference_server("mcp_server_time")}}))

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        return reply(call("mcp__time__get_current_time", timezone="Asia/Tokyo"))  # before any plan

    server = endpoint(script)
    result = run_cli(
        ["run", "Tides", "--workspace", str(ws), "--review-plan", "--mcp-config", str(config), "--max-steps", "2"],
        cli_env(server.url),
    )
    assert result.code == 3, result.stderr  # the step budget: the tool never ran
    events = [json.loads(line) for line in (ws / ".runtime/events.jsonl").read_text().splitlines()]
    calls = [e for e in events if e.get("action") == "mcp__time__get_current_time"]
    assert calls and all("before any search or fetch" in str(e.get("error")) for e in calls)
