"""A small MCP server run as a real process by the tests (python mcp_helper_server.py): what the
reference servers do not show — its environment, a large result, an embedded document, its pid."""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import EmbeddedResource, TextContent, TextResourceContents

if "--fail" in sys.argv:  # a server that cannot start: says why on stderr, then exits
    print("helper: cannot open the database /nonexistent/db.sqlite", file=sys.stderr)
    for name in sorted(os.environ):  # a server that prints its credentials: they must never be shown
        if name.startswith("MY_"):
            print(f"helper: {name}={os.environ[name]}", file=sys.stderr)
    sys.exit(3)

server = MCPServer("helper")


@server.tool()
def authorization(ctx: Context) -> str:
    """The Authorization header of the HTTP request that called this tool (streamable HTTP only)."""
    request = getattr(ctx.request_context, "request", None)
    headers = getattr(request, "headers", None) or {}
    return str(headers.get("authorization", "(none)"))


@server.tool()
def environment() -> str:
    """The names of the variables in this server's environment, one a line."""
    return "\n".join(sorted(os.environ))


@server.tool()
def pid() -> str:
    """This server's process id."""
    return str(os.getpid())


@server.tool()
def big(size: int) -> str:
    """A text of `size` characters.

    Args:
        size: how many characters.
    """
    line = "Tidal energy output grew in the Bay of Fundy according to the survey. "
    return (line * (size // len(line) + 1))[:size]


@server.tool()
def memo(topic: str) -> list[TextContent | EmbeddedResource]:
    """A memo on the topic, as an embedded document.

    Args:
        topic: what the memo is about.
    """
    text = f"# Memo on {topic}\n\nThe harbour of 潮汐 recorded 4.2 metres on 3 March.\n"
    resource = TextResourceContents(uri=f"memo://notes/{topic}", mime_type="text/markdown", text=text)
    return [TextContent(type="text", text="One memo found."), EmbeddedResource(type="resource", resource=resource)]


if __name__ == "__main__":
    if "--http" in sys.argv:  # a streamable HTTP server on 127.0.0.1:PORT/mcp
        server.run("streamable-http", port=int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        server.run("stdio")
