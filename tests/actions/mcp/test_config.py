"""The MCP config file: the JSON Claude Desktop / Cursor / VS Code use, read as it is; anything wrong
is a usage error that names the file and the server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from actions.mcp.config import load_mcp_config
from agent_runtime.config import load_settings
from agent_runtime.errors import SettingValueError


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_claude_desktop_file_as_it_is(tmp_path: Path) -> None:
    path = write(tmp_path, {"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "Europe/Paris"}},
        "docs": {"url": "https://mcp.example.org/mcp", "headers": {"Authorization": "Bearer abc"},
                 "tools": ["search"]},
        "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "exclude_tools": ["raw"], "autoApprove": []},
        "off": {"command": "uvx", "disabled": True},
    }})  # fmt: skip
    time, docs, fetch = load_mcp_config(path)
    assert (time.name, time.transport, time.command, time.args, time.env) == (
        "time", "stdio", "uvx", ("mcp-server-time",), {"TZ": "Europe/Paris"}
    )
    assert docs.transport == "http" and docs.headers == {"Authorization": "Bearer abc"}
    assert docs.offers("search") and not docs.offers("delete")
    assert fetch.offers("fetch") and not fetch.offers("raw")


def test_vs_code_servers_key(tmp_path: Path) -> None:
    path = write(tmp_path, {"servers": {"t": {"type": "stdio", "command": "python", "args": ["-m", "x"]}}})
    assert [s.name for s in load_mcp_config(path)] == ["t"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ('{"mcpServers": {"time": {"command": "uvx",}}}', "is not valid JSON"),
        ({"servers_typo": {}}, '"mcpServers"'),
        ({"mcpServers": {"time": {"args": ["x"]}}}, "MCP server 'time'"),
        ({"mcpServers": {"time": {"command": "uvx", "url": "http://x"}}}, "either \"command\""),
        ({"mcpServers": {"time": {"command": "uvx", "args": "mcp-server-time"}}}, '"args" must be a list'),
        ({"mcpServers": {"web": {"url": "ftp://x"}}}, "MCP server 'web'"),
        ({"mcpServers": {"time": {"command": "uvx", "env": {"N": 3}}}}, '"env" must be an object of strings'),
        ({"mcpServers": {"time": {"command": "uvx", "tools": ["a"], "exclude_tools": ["b"]}}}, "not both"),
        ({"mcpServers": {"time": {"command": "uvx", "comand": "x"}}}, "unknown key(s) comand"),
    ],
)
def test_bad_file_or_entry_names_the_file_and_the_server(tmp_path: Path, data: object, expected: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(SettingValueError) as caught:
        load_mcp_config(path)
    assert str(path) in str(caught.value) and expected in str(caught.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SettingValueError, match="MCP config file not found"):
        load_mcp_config(tmp_path / "none.json")


def test_setting_from_the_toml_config_file_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "config.toml"
    toml.write_text('mcp_config = "servers/mcp.json"\n', encoding="utf-8")
    settings = load_settings({}, env={}, config_file=toml)
    assert settings.mcp_config == tmp_path / "servers" / "mcp.json"
    flagged = load_settings({"mcp_config": "other.json"}, env={}, config_file=toml)
    assert flagged.mcp_config == tmp_path / "other.json"


def test_env_file_is_read_next_to_the_config_and_env_wins(tmp_path: Path) -> None:
    from sandbox.redaction import redact

    (tmp_path / "keys.env").write_text('export SHARED=from-file\nFILE_ONLY="ff-0011223344aabb"\n# a comment\nBARE\n')
    path = write(tmp_path, {"mcpServers": {"s": {"command": "x", "envFile": "keys.env", "env": {"SHARED": "from-env"}}}})
    [server] = load_mcp_config(path)
    assert server.env == {"SHARED": "from-env", "FILE_ONLY": "ff-0011223344aabb"}
    assert "ff-0011223344aabb" not in redact("value ff-0011223344aabb")  # registered as a secret


def test_vs_code_workspace_folder_in_env_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("A=1\n")
    (tmp_path / ".vscode").mkdir()
    path = tmp_path / ".vscode" / "mcp.json"
    path.write_text(json.dumps({"servers": {"s": {"command": "x", "envFile": "${workspaceFolder}/.env"}}}))
    assert load_mcp_config(path)[0].env == {"A": "1"}


@pytest.mark.parametrize(
    ("env_file", "expected"),
    [("missing.env", "does not exist; create it or remove"), ("${input:key}", "uses a variable other than"),
     (3, '"envFile" must be the path')],
)  # fmt: skip
def test_bad_env_file_is_a_usage_error(tmp_path: Path, env_file: object, expected: str) -> None:
    path = write(tmp_path, {"mcpServers": {"s": {"command": "x", "envFile": env_file}}})
    with pytest.raises(SettingValueError, match="MCP server 's' in") as caught:
        load_mcp_config(path)
    assert expected in str(caught.value)


def test_every_header_env_and_url_credential_is_a_secret_whatever_its_name(tmp_path: Path) -> None:
    from sandbox.redaction import redact

    url = "https://user:pw-998877665544aa@mcp.example.org/mcp/?tavilyApiKey=tvly-x1y2z3w4v5u6&lang=en"
    path = write(tmp_path, {"mcpServers": {
        "web": {"url": url, "headers": {"X-Goog-Api-Key": "goog-5566778899aabb", "Authorization": "Bearer tok-112233445566"}},
        "local": {"command": "x", "env": {"PLAIN_NAME": "plain-9988776655ab"}},
    }})  # fmt: skip
    web, _ = load_mcp_config(path)
    assert web.where() == "https://***@mcp.example.org/mcp/?tavilyApiKey=***&lang=***"
    text = redact(f"{url} goog-5566778899aabb tok-112233445566 plain-9988776655ab")
    for secret in ("pw-998877665544aa", "tvly-x1y2z3w4v5u6", "goog-5566778899aabb", "tok-112233445566",
                   "plain-9988776655ab"):  # fmt: skip
        assert secret not in text
