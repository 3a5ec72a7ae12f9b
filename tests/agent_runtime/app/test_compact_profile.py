"""A small window gets the compact profile, through the real CLI: a shorter system prompt, brief tool
descriptions and only the actions a small model uses well, so that the fixed prefix of every
request fits in 2,000 tokens at 8k; and the language instruction travels in the last message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, count_tokens, reply
from tests.support.cli import cli_env, run_cli, write_cited_report


def first_request(tmp_path: Path, title: str, *flags: str) -> dict[str, Any]:
    ws = tmp_path / "ws"

    def finish(messages: list[dict[str, Any]], tools: Any) -> Reply:
        arguments = {"result": "done", "report_path": write_cited_report(ws)}
        if not tools:  # json mode: the action is the reply's text
            return reply(content=json.dumps({"action": "all_finished", "arguments": arguments}))
        return reply(call("all_finished", **arguments))

    with ScriptedEndpoint(finish) as server:
        result = run_cli(
            ["run", title, "--workspace", str(ws), "-q", "--max-steps", "3", *flags], cli_env(server.url)
        )
    assert result.code == 0, result.stderr
    return server.requests[0]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["native", "json"])
def test_an_8k_window_gets_a_prefix_under_2000_tokens(tmp_path: Path, mode: str) -> None:
    body = first_request(
        tmp_path, "libffi calling conventions", "--context-window", "8000", "--tool-mode", mode
    )
    system = body["messages"][0]
    prefix = count_tokens([system], body.get("tools", []))
    assert prefix <= 2_000, prefix
    names = [tool["function"]["name"] for tool in body.get("tools", [])]
    if mode == "native":
        assert "web_search" in names and "all_finished" in names
        assert "browse" not in names and "research_task" not in names
    else:
        assert "## web_search(" in system["content"] and "## browse(" not in system["content"]


@pytest.mark.slow
def test_a_large_window_keeps_the_full_profile(tmp_path: Path) -> None:
    body = first_request(tmp_path, "libffi calling conventions", "--tool-mode", "native")
    names = [tool["function"]["name"] for tool in body["tools"]]
    assert "browse" in names and "research_task" in names
    assert count_tokens([body["messages"][0]], body["tools"]) > 2_000


@pytest.mark.slow
def test_the_language_travels_in_the_last_message(tmp_path: Path) -> None:
    body = first_request(tmp_path, "libffi 在 ARM64 上的调用约定", "--context-window", "8000")
    assert "[language] Write in Chinese (中文)." in body["messages"][-1]["content"]
