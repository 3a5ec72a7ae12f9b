"""The `check` command as a process, and a scripted model that answers its probes with tool calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, call, reply
from tests.support.cli import CliResult, cli_env, run_cli


def calls_tools(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
    if tools:
        return reply(call("report_word", word="ready"))
    return reply(content='{"action": "report_word", "arguments": {"word": "ready"}}')


def check(base_url: str, *flags: str, tmp_path: Path, **env: str) -> CliResult:
    environment = cli_env(None, HOME=str(tmp_path / "home"), **env)
    for key in ("TAVILY_API_KEY", "SERPER_API_KEY", "BRAVE_API_KEY", "JINA_API_KEY", "SEARXNG_URL"):
        environment.pop(key, None)
    environment.update(env)
    return run_cli(
        ["check", "--base-url", base_url, "--api-key", "test-key", *flags], environment, cwd=tmp_path
    )


def line(result: CliResult, what: str) -> str:
    found = [text for text in result.stdout.splitlines() if text[6:].startswith(what)]
    assert found, f"no {what!r} line in:\n{result.stdout}{result.stderr}"
    return found[0]
