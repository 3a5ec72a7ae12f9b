"""MCP tools as actions, against real servers run as real processes: the reference servers from
PyPI (mcp-server-time, mcp-server-fetch) and a small helper server (tests/support/mcp_helper_server.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from actions.mcp import McpServerError, McpServers, start_servers
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.registry import ActionSet
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.tool_modes import action_schema
from agent_runtime.testing import scratch_context
from tests.support.loopback import Handler, LoopbackServer, send
from tests.support.mcp_servers import HELPER, PAGE, alive, needs_reference_servers, reference_server


def config(tmp_path: Path, servers: dict[str, object]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def python_server(*args: str, **entry: object) -> dict[str, object]:
    return {"command": sys.executable, "args": list(args), **entry}


@pytest.fixture
def page_server() -> Iterator[LoopbackServer]:
    def answer(handler: Handler) -> None:
        if handler.path == "/tides.html":
            send(handler, PAGE.encode())
        else:
            send(handler, b"not found", status=404, content_type="text/plain")

    with LoopbackServer(answer) as server:
        yield server


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[ActionContext]:
    context = scratch_context(tmp_path / "ws")
    yield context
    await context.services.aclose()


async def started(ctx: ActionContext, path: Path) -> tuple[McpServers, ActionSet]:
    servers = await start_servers(path)
    ctx.services.provide(McpServers, servers)  # stopped with the run's services
    return servers, ActionSet.of(servers.actions)


@pytest.mark.slow
@needs_reference_servers
async def test_time_server_tools_with_their_own_schema(ctx: ActionContext, tmp_path: Path) -> None:
    path = config(tmp_path, {"time": reference_server("mcp_server_time", "--local-timezone", "Europe/London")})
    _, actions = await started(ctx, path)
    assert actions.names() == ["mcp__time__get_current_time", "mcp__time__convert_time"]
    schema = actions.schemas()[0]["function"]
    assert schema["parameters"]["required"] == ["timezone"]
    assert "IANA timezone" in schema["parameters"]["properties"]["timezone"]["description"]
    assert actions.schemas() == actions.schemas()  # the same list at every step

    shanghai = await actions.run(ctx, "mcp__time__get_current_time", {"timezone": "Asia/Shanghai"})
    assert not shanghai.error and '"timezone": "Asia/Shanghai"' in shanghai.text and "+08:00" in shanghai.text

    wrong = await actions.run(ctx, "mcp__time__get_current_time", {"tz": "Asia/Shanghai"})
    assert wrong.error and "'timezone' is a required property" in wrong.text
    refused = await actions.run(ctx, "mcp__time__get_current_time", {"timezone": "Nowhere/Atlantis"})
    assert refused.error and "Error from time/get_current_time" in refused.text and "Nowhere/Atlantis" in refused.text

    # json tool mode and the compact profile take the same tools
    reply_schema = json.dumps(action_schema(actions.schemas()))
    assert "mcp__time__get_current_time" in reply_schema and "mcp__time__convert_time" in reply_schema
    brief = ActionSet.of(actions, brief=True).schemas()[0]["function"]
    assert brief["name"] == "mcp__time__get_current_time" and brief["parameters"]["required"] == ["timezone"]


@pytest.mark.slow
@needs_reference_servers
async def test_allow_and_deny_lists(ctx: ActionContext, tmp_path: Path) -> None:
    path = config(tmp_path, {
        "only": reference_server("mcp_server_time", tools=["convert_time"]),
        "but": python_server(HELPER, exclude_tools=["environment", "big"]),
    })  # fmt: skip
    _, actions = await started(ctx, path)
    assert actions.names() == ["mcp__only__convert_time", "mcp__but__authorization", "mcp__but__pid", "mcp__but__memo"]


@pytest.mark.slow
@needs_reference_servers
async def test_fetched_page_becomes_a_source(
    ctx: ActionContext, tmp_path: Path, page_server: LoopbackServer
) -> None:
    # --allow-private-ips: mcp-server-fetch refuses 127.0.0.1 otherwise. Its robots.txt check gets a
    # 404 here, which it reads as "allowed"; readabilipy uses node where it is installed.
    path = config(tmp_path, {"fetch": reference_server("mcp_server_fetch", "--allow-private-ips")})
    _, actions = await started(ctx, path)
    url = f"http://127.0.0.1:{page_server.port}/tides.html"
    seen = await actions.run(ctx, "mcp__fetch__fetch", {"url": url})
    assert not seen.error, seen.text
    assert f"## [S1] {url}" in seen.text and "cite it as [S1]" in seen.text and "4.2 metres" in seen.text
    record = Ledger.load(ctx.workspace.root / "sources").get("S1")
    assert record is not None and record.fetched and record.url == url
    snapshot = (ctx.workspace.root / str(record.snapshot)).read_text(encoding="utf-8")
    assert "reached 4.2 metres on 3 March" in snapshot and "extraction: \"MCP tool fetch/fetch\"" in snapshot

    missing = await actions.run(ctx, "mcp__fetch__fetch", {"url": f"http://127.0.0.1:{page_server.port}/gone"})
    assert missing.error and "404" in missing.text
    assert len(Ledger.load(ctx.workspace.root / "sources")) == 1


async def test_embedded_document_large_result_and_environment(
    ctx: ActionContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-to-a-server")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-never")
    path = config(tmp_path, {"helper": python_server(HELPER, env={"HELPER_TOKEN": "named-so-given"})})
    _, actions = await started(ctx, path)

    memo = await actions.run(ctx, "mcp__helper__memo", {"topic": "tides"})
    assert "## [S1] memo://notes/tides" in memo.text and "One memo found." in memo.text
    record = Ledger.load(ctx.workspace.root / "sources").get("S1")
    assert record is not None and record.title == "Memo on tides"
    assert "潮汐 recorded 4.2 metres" in (ctx.workspace.root / str(record.snapshot)).read_text(encoding="utf-8")

    big = await actions.run(ctx, "mcp__helper__big", {"size": 200_000})
    assert len(big.text) < ctx.settings.max_observation_chars
    pointer = big.text.rsplit("the whole result is in ", 1)[1].split(" ", 1)[0]
    assert len((ctx.workspace.root / pointer).read_text(encoding="utf-8")) == 200_000

    names = (await actions.run(ctx, "mcp__helper__environment", {})).text.split("\n\n", 1)[1].split()
    assert "HELPER_TOKEN" in names and "PATH" in names
    assert not {"OPENAI_API_KEY", "TAVILY_API_KEY"} & set(names)
    allowed = {"HELPER_TOKEN", "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL",
               "LC_CTYPE", "TMPDIR"}  # fmt: skip
    assert set(names) <= allowed


@pytest.mark.slow
@needs_reference_servers
async def test_a_server_that_cannot_start(tmp_path: Path) -> None:
    path = config(tmp_path, {"time": reference_server("mcp_server_time"), "db": python_server(HELPER, "--fail")})
    with pytest.raises(McpServerError) as caught:
        await start_servers(path)
    message = str(caught.value)
    assert "MCP server 'db'" in message and "could not start" in message
    assert "cannot open the database /nonexistent/db.sqlite" in message  # the tail of its stderr

    path = config(tmp_path, {"nope": {"command": "no-such-mcp-server-here"}})
    with pytest.raises(McpServerError, match=r"MCP server 'nope'.*no-such-mcp-server-here"):
        await start_servers(path)


@pytest.mark.slow
async def test_a_server_killed_mid_run_is_restarted_once_and_none_is_left(
    ctx: ActionContext, tmp_path: Path
) -> None:
    path = config(tmp_path, {"helper": python_server(HELPER)})
    _, actions = await started(ctx, path)

    async def pid() -> int:
        seen = await actions.run(ctx, "mcp__helper__pid", {})
        assert not seen.error, seen.text
        return int(seen.text.split()[-1])

    first = await pid()
    os.kill(first, signal.SIGKILL)
    died = await actions.run(ctx, "mcp__helper__pid", {})
    assert died.error and "stopped during the call" in died.text and "it was restarted" in died.text
    second = await pid()
    assert second != first and alive(second)

    os.kill(second, signal.SIGKILL)
    again = await actions.run(ctx, "mcp__helper__pid", {})
    assert again.error and "not restarted a second time" in again.text
    events = [json.loads(line)["event"] for line in ctx.workspace.events_file.read_text().splitlines()]
    assert events.count("mcp_server_died") == 2 and events.count("mcp_server_restarted") == 1

    await ctx.services.aclose()
    assert not alive(first) and not alive(second)


async def test_servers_stop_with_the_run(ctx: ActionContext, tmp_path: Path) -> None:
    path = config(tmp_path, {"a": python_server(HELPER), "b": python_server(HELPER)})
    _, actions = await started(ctx, path)
    pids = [int((await actions.run(ctx, f"mcp__{n}__pid", {})).text.split()[-1]) for n in "ab"]
    assert all(alive(p) for p in pids)
    await ctx.services.aclose()
    assert not any(alive(p) for p in pids)


@pytest.mark.slow
async def test_streamable_http_server_with_headers(ctx: ActionContext, tmp_path: Path) -> None:
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, HELPER, "--http", str(port)], stderr=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(100):  # until it listens
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.1)
        path = config(tmp_path, {"remote": {"url": f"http://127.0.0.1:{port}/mcp",
                                            "headers": {"Authorization": "Bearer sekrit-token-123"}}})  # fmt: skip
        _, actions = await started(ctx, path)
        assert "mcp__remote__memo" in actions.names()
        seen = await actions.run(ctx, "mcp__remote__authorization", {})
        assert not seen.error and "Bearer sekrit-token-123" in seen.text
    finally:
        process.terminate()
        process.wait(timeout=10)
