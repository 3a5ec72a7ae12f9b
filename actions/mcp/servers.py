"""The configured MCP servers of one run: started with it, stopped with it, restarted once.

Each server lives in a task of its own that enters the SDK's transport (`stdio_client`, which runs
the command in a new process group, or `streamable_http_client`) and the `ClientSession`, then
waits to be told to stop: anyio's cancel scopes must be left by the task that entered them, and
tool calls come from whichever task runs the action. Leaving the transport closes the server's
stdin, waits, then kills its whole process group (the SDK's shutdown), so Ctrl-C, a budget stop
and a crash all end in `McpServers.aclose()` (the run's services) with no process left. Should
our own process be killed outright, the server sees its stdin close and a stdio server exits.

A server process sees only what its config names in "env", plus the variables needed to start a
process at all: the SDK's HOME, LOGNAME, PATH, SHELL, TERM, USER, and LANG, LC_ALL, LC_CTYPE,
TMPDIR from here (`BASE_ENVIRONMENT`). Never the model's API key or a search key unless named.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from actions.mcp.config import ServerConfig
from agent_runtime.errors import DeepResearcherError
from sandbox.redaction import redact, register_secrets

# Added to the SDK's own minimal set (HOME, LOGNAME, PATH, SHELL, TERM, USER): the locale, so a
# server reads and writes UTF-8, and the temporary folder.
BASE_ENVIRONMENT = ("LANG", "LC_ALL", "LC_CTYPE", "TMPDIR")
START_TIMEOUT = 60.0  # seconds for a server to start and list its tools (uvx may download first)
STDERR_TAIL = 1_500  # characters of a server's stderr shown when it fails


class McpServerError(DeepResearcherError):
    """A configured MCP server could not start: the run cannot offer what the user asked for."""


class ServerGone(DeepResearcherError):
    """The connection to a server ended (its process died, the HTTP server went away)."""


@dataclass(frozen=True)
class ToolInfo:
    name: str
    description: str
    input_schema: dict[str, Any]


def server_environment(config: ServerConfig) -> dict[str, str]:
    """What the server's process gets on top of the SDK's minimal set: the locale and TMPDIR, then
    exactly what the config names."""
    base = {name: os.environ[name] for name in BASE_ENVIRONMENT if os.environ.get(name)}
    return {**base, **config.env}


class McpServer:
    """One configured server: `start`, `call`, `restart`, `stop`."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.tools: list[ToolInfo] = []  # every tool the server lists, in its order
        self.restarts = 0
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._error: BaseException | None = None
        self._stderr: IO[str] | None = None
        self._lock = asyncio.Lock()  # one restart at a time
        # Every env and header value, and a URL's user-info and query values, whatever their names, are
        # never printed or written (load_mcp_config registers them too; a config made in code is here).
        register_secrets(config.secrets())

    @property
    def running(self) -> bool:
        return self._session is not None and self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start the server and list its tools; McpServerError naming it and its stderr's tail."""
        self._stop, self._ready, self._error = asyncio.Event(), asyncio.Event(), None
        if self._stderr is not None:
            self._stderr.close()
        # A real file: the SDK hands it to the process as its stderr. Outside the workspace, and
        # only its redacted tail is ever shown.
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self._task = asyncio.create_task(self._serve(), name=f"mcp-{self.config.name}")
        ready = asyncio.create_task(self._ready.wait())
        try:
            await asyncio.wait({self._task, ready}, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
        if self._ready.is_set() and self._error is None:
            return
        why = self._error_text() if self._task.done() else f"it did not answer within {START_TIMEOUT:.0f} s"
        await self.stop(keep_stderr=True)  # the process has ended: its stderr is complete
        message = self._failure(f"could not start: {why}")
        await self.stop()
        raise McpServerError(message)

    def _failure(self, what: str) -> str:
        tail = self.stderr_tail()
        # On one line (" | " between its lines): it goes into `check`'s one-line verdicts too.
        tail = " | ".join(line.strip() for line in tail.splitlines() if line.strip())
        told = f"; its stderr ended with: {tail}" if tail else " (it wrote nothing on stderr)"
        return f"MCP server {self.config.name!r} ({redact(self.config.where())}) {what}{told}"

    def _error_text(self) -> str:
        error = self._error
        while isinstance(error, BaseExceptionGroup) and error.exceptions:
            error = error.exceptions[0]
        if error is None:
            return "its connection ended"
        text = str(error) or type(error).__name__
        if text == "Connection closed":  # the SDK's words for a process that ended before answering
            text = "the process ended before it answered"
        if isinstance(error, FileNotFoundError):
            text = f"the command {self.config.command!r} was not found ({text})"
        return redact(text)

    def stderr_tail(self) -> str:
        if self._stderr is None or self._stderr.closed:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 4 * STDERR_TAIL))
            text = self._stderr.read()
        except (OSError, ValueError):
            return ""
        return redact(text.strip()[-STDERR_TAIL:])

    async def _serve(self) -> None:
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self.tools = await _list_tools(session)
                self._session = session
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # recorded for start() and call(); the task must not raise
            self._error = exc
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._session = None

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        config = self.config
        if config.command:
            from mcp import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=server_environment(config), cwd=config.cwd
            )
            return stdio_client(params, errlog=self._stderr)  # type: ignore[arg-type]
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=dict(config.headers))
        return streamable_http_client(str(config.url), http_client=client)

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The tool's CallToolResult. ServerGone when the connection ended (the caller restarts);
        the SDK's MCPError for an error the server answered with; TimeoutError after the timeout."""
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        session = self._session
        if session is None or not self.running:
            raise ServerGone(self._error_text())
        try:
            return await session.call_tool(tool, arguments, read_timeout_seconds=self.config.timeout)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED or not self.running:
                raise ServerGone(str(exc)) from None
            raise
        except (OSError, EOFError) as exc:
            raise ServerGone(str(exc) or type(exc).__name__) from None
        except Exception as exc:  # a stream closed under the call: the process is gone
            if type(exc).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream"):
                raise ServerGone(type(exc).__name__) from None
            raise

    async def restart(self) -> None:
        async with self._lock:
            self.restarts += 1
            await self.stop(keep_stderr=True)
            await self.start()

    async def stop(self, keep_stderr: bool = False) -> None:
        self._stop.set()
        task, self._task = self._task, None
        if task is not None and not task.done():
            try:  # the SDK's shutdown is bounded (a few seconds at most); a hang must not keep us
                await asyncio.wait_for(asyncio.shield(task), timeout=15)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            except BaseException:  # its error was recorded; stopping goes on
                pass
        self._session = None
        if not keep_stderr and self._stderr is not None:
            self._stderr.close()
            self._stderr = None


async def _list_tools(session: Any) -> list[ToolInfo]:
    """Every tool, across pages, in the server's order."""
    from mcp_types import PaginatedRequestParams

    tools: list[ToolInfo] = []
    cursor: str | None = None
    for _ in range(100):  # a server that pages forever must not hang the start
        page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        for tool in page.tools:
            schema = dict(tool.input_schema or {})
            tools.append(ToolInfo(tool.name, tool.description or "", schema))
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


class McpServers:
    """The run's servers (a run service: closed with the others when the run ends)."""

    def __init__(self, configs: Sequence[ServerConfig]) -> None:
        self.servers = [McpServer(config) for config in configs]
        self.actions: list[Any] = []  # the tools as actions (actions.mcp.tools), in a fixed order

    async def start(self) -> None:
        """Start every server, together; the first that fails stops the others and is raised."""
        results = await asyncio.gather(*(s.start() for s in self.servers), return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        if failures:
            await self.aclose()
            raise failures[0]

    async def aclose(self) -> None:
        await asyncio.gather(*(s.stop() for s in self.servers), return_exceptions=True)
