"""The MCP config's credentials never shown or written, whatever their names; --offline refused with
an MCP config; a server that cannot start ends the run before "run_started" (through the real CLI)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.mcp_servers import HELPER

ENV_VALUE = "mtv-5a4b3c2d1e0f9988"  # env "MY_TOKEN_VALUE": a name no pattern says is secret
FILE_VALUE = "mfv-77aa66bb55cc4433"  # from the envFile
HEADER_VALUE = "k-1234567890abcdef"  # header "X-API-Key"
QUERY_VALUE = "tvly-dev-0123456789abcdef"  # ?tavilyApiKey=
SECRETS = (ENV_VALUE, FILE_VALUE, HEADER_VALUE, QUERY_VALUE)


def leaky_config(tmp_path: Path) -> Path:
    """A stdio server that fails and prints its MY_* variables on stderr, and an HTTP server with a key
    in a header and in its URL that cannot be reached (nothing listens on port 9)."""
    (tmp_path / "servers.env").write_text(f"# the file VS Code reads\nMY_FILE_VALUE={FILE_VALUE}\n", "utf-8")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "db": {"command": sys.executable, "args": [HELPER, "--fail"], "env": {"MY_TOKEN_VALUE": ENV_VALUE},
               "envFile": "servers.env"},
        "search": {"url": f"http://127.0.0.1:9/mcp/?tavilyApiKey={QUERY_VALUE}",
                   "headers": {"X-API-Key": HEADER_VALUE}},
    }}))  # fmt: skip
    return config


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"{secret} shown in:\n{text}"


@pytest.mark.slow
def test_run_with_a_server_that_cannot_start_shows_no_credential_and_never_says_started(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    server = endpoint(lambda messages, tools: reply(call("all_finished", result="x")))
    workspace = tmp_path / "ws"
    result = run_cli(["run", "Tides", "--workspace", str(workspace), "--mcp-config", str(leaky_config(tmp_path))],
                     cli_env(server.url))  # fmt: skip
    assert result.code == 1, result.stderr
    # the server's stderr is shown (so the user sees why), its credentials masked
    assert "MCP server 'db'" in result.stderr and "cannot open the database" in result.stderr
    assert "MY_TOKEN_VALUE=mtv…9988" in result.stderr and "MY_FILE_VALUE=mfv…4433" in result.stderr
    written = {path.name: path.read_text("utf-8") for path in workspace.rglob("*") if path.is_file()}
    assert "run.json" in written and "events.jsonl" in written
    assert "MCP server 'db'" in written["run.json"]
    assert_no_secret(result.stdout, result.stderr, *written.values())
    events = [json.loads(text)["event"] for text in written["events.jsonl"].splitlines()]
    assert "run_started" not in events and "mcp_servers_started" not in events
    assert not server.requests


@pytest.mark.slow
def test_check_shows_no_credential(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    from tests.support.check_cli import calls_tools, check

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Notes\n\nResearch on tides.\n", "utf-8")
    server = endpoint(calls_tools)
    result = check(server.url, "--model", "scripted-model", "--search", "local", "--corpus", str(corpus),
                   "--browser-path", str(tmp_path / "no-chromium"), "--mcp-config", str(leaky_config(tmp_path)),
                   tmp_path=tmp_path)  # fmt: skip
    lines = [text for text in result.stdout.splitlines() if text[6:].startswith("mcp")]
    assert len(lines) == 2 and all(text.startswith("FAIL ") for text in lines), result.stdout
    assert "MCP server 'db'" in lines[0] and "MY_TOKEN_VALUE=mtv…9988" in lines[0]
    assert "MCP server 'search' (http://127.0.0.1:9/mcp/?tavilyApiKey=***)" in lines[1]
    assert_no_secret(result.stdout, result.stderr)


@pytest.mark.slow
def test_offline_with_an_mcp_config_is_a_usage_error(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    server = endpoint(lambda messages, tools: reply(call("all_finished", result="x")))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Notes\n\nResearch on tides.\n", "utf-8")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"db": {"command": sys.executable, "args": [HELPER]}}}))
    offline = ["--offline", "--search", "local", "--corpus", str(corpus)]
    workspace = tmp_path / "ws"

    def refused(result: Any) -> None:
        assert result.code == 2, result.stderr
        assert "--offline cannot be used with an MCP config" in result.stderr
        assert "may reach the network" in result.stderr and "drop --mcp-config" in result.stderr
        assert "drop --offline" in result.stderr and "Traceback" not in result.stderr

    refused(run_cli(["run", "Tides", "--workspace", str(workspace), "--mcp-config", str(config), *offline],
                    cli_env(server.url)))  # fmt: skip
    assert not workspace.exists() and not server.requests
    refused(run_cli(["check", "--mcp-config", str(config), *offline], cli_env(server.url)))
    assert not server.requests
    # a run stored with the config, resumed offline
    done = run_cli(["run", "Tides", "--workspace", str(workspace), "--search", "local", "--corpus", str(corpus),
                    "--mcp-config", str(config)], cli_env(server.url))  # fmt: skip
    assert done.code in (0, 1, 3), done.stderr
    asked = len(server.requests)
    refused(run_cli(["resume", str(workspace), "--offline", "--new-settings"], cli_env(server.url)))
    assert len(server.requests) == asked
