"""The MCP servers a user configured: the `{"mcpServers": {...}}` JSON that Claude Desktop, Cursor
and VS Code use, read as it is.

    {"mcpServers": {
        "time":  {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "Europe/Paris"}},
        "docs":  {"url": "https://mcp.example.org/mcp", "headers": {"Authorization": "Bearer …"}},
        "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "exclude_tools": ["fetch_raw"]}}}

VS Code's own file names the map "servers" (with a "type" of "stdio" or "http"): accepted too.
Per server, besides what those clients take: "tools" (an allow-list) or "exclude_tools" (a deny
list), and "timeout" (seconds one tool call may take, default 120). Keys other clients add for
themselves ("disabled", "autoApprove", "type", "description") are accepted; `"disabled": true`
leaves the server out. VS Code's "envFile" (KEY=VALUE lines, relative to the config file's folder)
is read: its variables join "env", whose own entries win. Anything else that is wrong is a usage
error naming the file and the server.

Every value of "env" (and of the envFile), of "headers", and the user-info and query values of a
"url" are registered as secrets whatever their names (an `X-API-Key`, a `?tavilyApiKey=`): redaction
then masks them in everything printed or written (`sandbox.redaction`). `where()` masks them too.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from agent_runtime.config import Settings
from agent_runtime.errors import SettingValueError
from sandbox.redaction import register_secrets

DEFAULT_TIMEOUT = 120.0
_KNOWN_KEYS = frozenset(
    {"command", "args", "env", "cwd", "url", "headers", "tools", "exclude_tools", "timeout",
     "disabled", "autoApprove", "alwaysAllow", "type", "description", "envFile"}
)  # fmt: skip
# A tool's name as an OpenAI function name: letters, digits, _ and -, at most 64 in all.
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class ServerConfig:
    name: str
    command: str | None = None  # stdio
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None  # streamable HTTP
    headers: dict[str, str] = field(default_factory=dict)
    allow: tuple[str, ...] | None = None  # "tools"
    exclude: tuple[str, ...] = ()  # "exclude_tools"
    timeout: float = DEFAULT_TIMEOUT

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def offers(self, tool: str) -> bool:
        """Whether the user lets the agent call `tool` of this server."""
        if self.allow is not None and tool not in self.allow:
            return False
        return tool not in self.exclude

    def where(self) -> str:
        """How the server is reached, for `check` and messages: never the headers or env values,
        nor a URL's password or query values (`?apiKey=***`)."""
        if self.command:
            return " ".join([self.command, *self.args])
        return _masked_url(str(self.url))

    def secrets(self) -> list[str]:
        """Every value the config gives this server that may be a credential, whatever its name: the
        env and header values (and each word of one, so `Bearer <token>` gives the token), and a
        URL's user-info and query values."""
        values = [*self.env.values(), *self.headers.values()]
        values += [word for value in self.headers.values() for word in value.split()]
        if self.url:
            parts = urlsplit(self.url)
            values += [parts.username or "", parts.password or ""]
            values += [value for _, value in parse_qsl(parts.query, keep_blank_values=True)]
        return [value for value in values if value]


def _masked_url(url: str) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = "&".join(f"{name}=***" for name, _ in parse_qsl(parts.query, keep_blank_values=True))
    return parts._replace(netloc=netloc, query=query).geturl()


def safe_name(text: str) -> str:
    return _UNSAFE.sub("_", text).strip("_") or "x"


def load_mcp_config(path: Path) -> list[ServerConfig]:
    """The servers of the config file at `path`, in the file's order; SettingValueError (a usage error)
    naming the file, and the server, for anything wrong."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SettingValueError(f"MCP config file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingValueError(f"cannot read the MCP config file {path}: {exc}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SettingValueError(
            f"the MCP config file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    servers = data.get("mcpServers", data.get("servers")) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise SettingValueError(
            f'the MCP config file {path} needs an object {{"mcpServers": {{"NAME": {{"command": …}}}}}} '
            "(the format Claude Desktop, Cursor and VS Code use)"
        )
    configs: list[ServerConfig] = []
    seen: dict[str, str] = {}
    for name, entry in servers.items():
        config = _server(path, str(name), entry)
        if config is None:
            continue
        key = safe_name(config.name)
        if key in seen:
            raise SettingValueError(
                f"MCP servers {seen[key]!r} and {config.name!r} in {path} have the same name once made safe "
                f"for tool names ({key!r}); rename one"
            )
        seen[key] = config.name
        configs.append(config)
    return configs


def _server(path: Path, name: str, entry: Any) -> ServerConfig | None:
    def bad(problem: str) -> SettingValueError:
        return SettingValueError(f"MCP server {name!r} in {path}: {problem}")

    if not name.strip():
        raise bad("the server's name is empty")
    if not isinstance(entry, dict):
        raise bad('its entry must be an object such as {"command": "uvx", "args": ["mcp-server-time"]}')
    if entry.get("disabled") is True:
        return None
    unknown = sorted(set(entry) - _KNOWN_KEYS)
    if unknown:
        raise bad(f"unknown key(s) {', '.join(unknown)}; a server takes command, args, env (stdio) or url, "
                  "headers (HTTP), and tools or exclude_tools")  # fmt: skip
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        raise bad('give either "command" (a server run as a process) or "url" (a streamable HTTP server)')
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise bad('"command" must be a non-empty string, e.g. "uvx" or "npx"')
    if url is not None and (not isinstance(url, str) or not re.match(r"https?://", url)):
        raise bad('"url" must be an http(s) URL, e.g. "http://127.0.0.1:8000/mcp"')
    args = _strings(entry.get("args", []), '"args"', bad)
    allow = entry.get("tools")
    if "tools" in entry and "exclude_tools" in entry:
        raise bad('give "tools" (the tools to offer) or "exclude_tools" (those to leave out), not both')
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise bad('"timeout" must be a positive number of seconds')
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise bad('"cwd" must be a folder path')
    env = {**_env_file(path, entry.get("envFile"), bad), **_mapping(entry.get("env", {}), '"env"', bad)}
    config = ServerConfig(
        name=name,
        command=command,
        args=tuple(args),
        env=env,
        cwd=cwd,
        url=url,
        headers=_mapping(entry.get("headers", {}), '"headers"', bad),
        allow=None if allow is None else tuple(_strings(allow, '"tools"', bad)),
        exclude=tuple(_strings(entry.get("exclude_tools", []), '"exclude_tools"', bad)),
        timeout=float(timeout),
    )
    register_secrets(config.secrets())  # before anything can print or write them
    return config


def _env_file(path: Path, value: Any, bad: Any) -> dict[str, str]:
    """VS Code's "envFile": KEY=VALUE lines (python-dotenv's syntax: comments, quotes, `export`),
    relative to the config file's folder. Names without a value are left out."""
    if value is None:
        return {}
    if not isinstance(value, str) or not value.strip():
        raise bad('"envFile" must be the path of a file of KEY=VALUE lines, e.g. "${workspaceFolder}/.env"')
    from dotenv import dotenv_values

    # VS Code's variables: the workspace holds .vscode/mcp.json; elsewhere the file's folder stands for it
    workspace = path.parent.parent if path.parent.name == ".vscode" else path.parent
    named = value.replace("${workspaceFolder}", str(workspace)).replace("${userHome}", str(Path.home()))
    if "${" in named:
        raise bad(f'its "envFile" {value!r} uses a variable other than ${{workspaceFolder}} or ${{userHome}}; '
                  "give the file's path instead")  # fmt: skip
    file = path.parent / Path(named).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise bad(f'its "envFile" {file} does not exist; create it or remove "envFile"') from None
    except (OSError, UnicodeDecodeError) as exc:
        raise bad(f'cannot read its "envFile" {file}: {exc}') from None
    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    return {str(k): v for k, v in values.items() if v is not None}


def _strings(value: Any, what: str, bad: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad(f"{what} must be a list of strings")
    return list(value)


def _mapping(value: Any, what: str, bad: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise bad(f'{what} must be an object of strings, e.g. {{"NAME": "value"}}')
    return {str(k): v for k, v in value.items()}


def refuse_offline_with_mcp(settings: Settings) -> None:
    """--offline promises that nothing leaves the machine but the model's requests; an MCP server
    is a program or a host of its own that may reach anything: the two together are a usage error."""
    if settings.offline and settings.mcp_config is not None:
        raise SettingValueError(
            f"--offline cannot be used with an MCP config ({settings.mcp_config}): offline promises that nothing "
            "leaves this machine except the requests to the model endpoint, and an MCP server may reach the "
            "network itself; drop --mcp-config (or mcp_config / DEEP_RESEARCHER_MCP_CONFIG) to stay offline, "
            "or drop --offline (offline / DEEP_RESEARCHER_OFFLINE) to use the servers"
        )


def check_mcp_config(settings: Settings) -> None:
    """The run's MCP config file read now, so that a bad one is refused before anything starts."""
    refuse_offline_with_mcp(settings)
    if settings.mcp_config is not None:
        load_mcp_config(settings.mcp_config)
