"""Tools from MCP servers as actions (`mcp__<server>__<tool>`): the configuration (`config`), the
servers' lifecycle (`servers`), and the tools as actions with their results as observations and
sources (`tools`). `start_servers` is what a run calls; the SDK is imported only then."""

from __future__ import annotations

from pathlib import Path

from actions.mcp.config import ServerConfig, load_mcp_config
from actions.mcp.servers import McpServer, McpServerError, McpServers
from actions.mcp.tools import McpToolAction, mcp_actions_for, tool_actions


async def start_servers(config_file: Path) -> McpServers:
    """Read the config, start every server and make their tools into actions. SettingValueError for a
    bad file, McpServerError (naming the server, with its stderr's tail) for one that cannot start;
    then nothing is left running."""
    servers = McpServers(load_mcp_config(config_file))
    await servers.start()
    servers.actions = tool_actions(servers)
    return servers


async def check_servers(config_file: Path) -> list[tuple[bool, str]]:
    """For `check`: each configured server started, its tools listed, and stopped, one line each
    ((True, "time (stdio: uvx mcp-server-time): 2 tools: mcp__time__get_current_time, …") or
    (False, why)); one failing server does not hide the others."""
    lines: list[tuple[bool, str]] = []
    for config in load_mcp_config(config_file):
        servers = McpServers([config])
        try:
            await servers.start()
        except McpServerError as exc:
            lines.append((False, str(exc)))
            continue
        try:
            offered = [action.name for action in tool_actions(servers)]
            left_out = len(servers.servers[0].tools) - len(offered)
        finally:
            await servers.aclose()
        held_back = f" ({left_out} left out by tools/exclude_tools)" if left_out else ""
        listed = ", ".join(offered) if offered else "none"
        lines.append((True, f"{config.name} ({config.transport}: {config.where()}): "
                            f"{len(offered)} tool{'s' if len(offered) != 1 else ''}{held_back}: {listed}"))  # fmt: skip
    return lines


__all__ = [
    "McpServer",
    "McpServerError",
    "McpServers",
    "McpToolAction",
    "ServerConfig",
    "check_servers",
    "load_mcp_config",
    "mcp_actions_for",
    "start_servers",
]
