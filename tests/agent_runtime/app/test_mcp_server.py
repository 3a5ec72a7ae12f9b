"""`deep-researcher mcp` driven by the MCP SDK's own stdio client: the tools it lists, a research
started against the scripted endpoint, its status polled until finished, and its report."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, write_cited_report
from tests.support.mcp_servers import alive, marked_pids


def research_script(folder: Path) -> Callable[[list[dict[str, Any]], list[dict[str, Any]]], Reply]:
    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = json.dumps(messages, ensure_ascii=False)
        if "Q1: cost per kWh" in seen:
            runs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
            workspace = next(p for p in reversed(runs) if not (p / "report.md").exists())
            write_cited_report(workspace)
            return reply(call("all_finished", result="Solid-state: a summary.", report_path="draft.md"))
        return reply(
            call(
                "update_overall_dashboard",
                content="# Solid-state\n\n## Research questions\n- Q1: cost per kWh\n",
            )
        )

    return script


def text(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.mark.slow
def test_mcp_server_over_stdio(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    folder = tmp_path / "research"
    folder.mkdir()
    server = endpoint(research_script(folder))
    marker = uuid.uuid4().hex  # in the environment of the server and of the runs it starts
    env = cli_env(server.url, DEEP_RESEARCHER_VERIFY_CITATIONS="lexical", DR_MCP_SERVER_TEST=marker)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agent_runtime.app.cli", "mcp", "--folder", str(folder)], env=env
    )

    async def session_work() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            assert [t.name for t in listed.tools] == [
                "start_research", "research_status", "read_report", "answer_research", "follow_up"
            ]
            start_schema = listed.tools[0].input_schema
            assert start_schema["required"] == ["title"] and {"purpose", "language"} <= set(
                start_schema["properties"]
            )

            started = json.loads(text(await session.call_tool(
                "start_research", {"title": "Solid-state batteries in 2026", "purpose": "an investment memo"}
            )))  # fmt: skip
            workspace = started["workspace"]
            assert started["status"] == "started" and Path(workspace).parent == folder.resolve()

            status: dict[str, Any] = {}
            with anyio.fail_after(90):  # a bound, not a speed assertion: the run takes seconds
                while status.get("status") != "finished":
                    await anyio.sleep(0.5)
                    status = json.loads(
                        text(await session.call_tool("research_status", {"workspace": workspace}))
                    )
                    assert status["status"] in ("starting", "running", "finished"), status
            assert status["title"] == "Solid-state batteries in 2026" and status["report"].endswith(
                "report.md"
            )

            report = text(await session.call_tool("read_report", {"workspace": workspace}))
            assert "Solid-state cells are near [1]." in report and "https://example.org/solid-state" in report

            outside = await session.call_tool("read_report", {"workspace": str(tmp_path)})
            assert outside.is_error and "is outside" in outside.content[0].text

            again = json.loads(
                text(await session.call_tool("start_research", {"title": "Solid-state batteries in 2026"}))
            )
            assert again["workspace"] != workspace and again["workspace"].endswith(
                "-2"
            )  # a finished run stays

    anyio.run(session_work)
    # the client closed the server: the run it was still doing was stopped, no process is left
    assert not [pid for pid in marked_pids(marker) if alive(pid)]
    run = json.loads((Path(folder) / "solid-state-batteries-in-2026" / ".runtime" / "run.json").read_text())
    assert run["status"] == "finished" and run["purpose"] == "an investment memo"


def _runs(folder: Path, monkeypatch: Any, url: str = "http://127.0.0.1:9/v1") -> Any:
    """The server's Runs on `folder`, its runs aimed at `url` (port 9: nothing answers, a run ends at once)."""
    from agent_runtime.app.mcp_server import Runs

    for name, value in cli_env(url).items():
        monkeypatch.setenv(name, value)
    return Runs(folder.resolve())


def _ended(runs: Any) -> dict[str, int]:
    return {path.name: child.process.wait(60) for path, child in runs.children.items()}


def test_a_dash_title_starts_and_a_folder_named_agent_runtime_is_not_imported(
    tmp_path: Path, monkeypatch: Any
) -> None:
    folder = tmp_path / "research"
    (folder / "agent_runtime" / "app").mkdir(parents=True)  # a workspace of a research titled so
    marker = tmp_path / "imported"
    (folder / "agent_runtime" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (folder / "agent_runtime" / "app" / "__init__.py").write_text("")
    runs = _runs(folder, monkeypatch)
    try:
        started = runs.start("-draft: tidal power", "-a memo", None)
        assert started["status"] == "started" and Path(started["workspace"]).name == "draft-tidal-power"
        codes = _ended(runs)
    finally:
        runs.stop_all()
    log = (folder / ".deep-researcher-mcp" / "draft-tidal-power.log").read_text()
    # It got past its arguments (a title or purpose taken for an option is exit 2) to the endpoint.
    assert codes == {"draft-tidal-power": 1} and "127.0.0.1:9" in log, log
    assert not marker.exists()


def test_a_run_another_process_works_in_is_running_never_resumed_twice(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from agent_runtime.domain.layout import ResearchWorkspace
    from agent_runtime.engine.run_record import RunMeta, save_meta

    folder = tmp_path / "research"
    space = ResearchWorkspace(folder / "wind-power")
    space.create("Wind power", None)
    save_meta(space.run_file, RunMeta(title="Wind power", status="running"))
    runs = _runs(folder, monkeypatch)
    lock = space.lock()  # as the run a killed server left behind holds it, for its last step
    try:
        assert runs.status(str(space.root))["status"] == "running"
        again = runs.start("Wind power", None, None)
        assert again["status"] == "running" and not runs.children  # no second process on the run
    finally:
        lock.release()
    assert runs.status(str(space.root))["status"] == "stopped"  # nobody works in it any more


@pytest.mark.slow
def test_two_titles_of_one_slug_started_at_once_get_two_workspaces(tmp_path: Path, monkeypatch: Any) -> None:
    folder = tmp_path / "research"
    folder.mkdir()
    runs = _runs(folder, monkeypatch)
    try:
        first = runs.start("AI safety", None, None)
        second = runs.start("AI Safety!", None, None)  # before the first run has made its folder
        again = runs.start("AI safety", None, None)
    finally:
        _ended(runs)
        runs.stop_all()
    assert (first["status"], second["status"]) == ("started", "started")
    assert Path(first["workspace"]).name == "ai-safety" and Path(second["workspace"]).name == "ai-safety-2"
    assert again["workspace"] == first["workspace"] and again["status"] == "running"


def test_a_report_path_outside_the_workspace_is_never_read(tmp_path: Path, monkeypatch: Any) -> None:
    from agent_runtime.domain.layout import ResearchWorkspace
    from agent_runtime.engine.run_record import RunMeta, save_meta

    folder = tmp_path / "research"
    (folder / "secret.txt").parent.mkdir(parents=True)
    (folder / "secret.txt").write_text("the neighbour's secret")
    space = ResearchWorkspace(folder / "tampered")
    space.create("Tampered", None)
    save_meta(space.run_file, RunMeta(title="Tampered", status="finished", report_path="../secret.txt"))
    runs = _runs(folder, monkeypatch)
    assert "report" not in runs.status(str(space.root))
    try:
        said = runs.report(str(space.root))
    except ValueError as exc:
        said = str(exc)
    assert "the neighbour's secret" not in said and "names a report outside its workspace" in said


@pytest.mark.slow
def test_stopping_the_runs_leaves_sigterm_as_it_was(tmp_path: Path, monkeypatch: Any) -> None:
    """stop_all ignores a second SIGTERM while it waits; were that left so, every process started
    afterwards would inherit SIGTERM ignored and could no longer be stopped by it."""
    import signal

    before = signal.getsignal(signal.SIGTERM)
    runs = _runs(tmp_path / "research", monkeypatch)
    runs.start("Tidal power", None, None)
    runs.stop_all()
    assert signal.getsignal(signal.SIGTERM) == before
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    child.terminate()
    assert child.wait(timeout=10) == -signal.SIGTERM


def test_a_paused_run_is_answered_and_a_follow_up_started_over_mcp(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    """research_status says the run waits for a review of its plan; answer_research resumes it; the
    follow_up tool builds on the finished run, in a new workspace that names the earlier one."""
    folder = tmp_path / "research"
    folder.mkdir()
    server = endpoint(research_script(folder))
    env = cli_env(server.url, DEEP_RESEARCHER_VERIFY_CITATIONS="lexical")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agent_runtime.app.cli", "mcp", "--folder", str(folder)], env=env
    )

    async def until(session: ClientSession, workspace: str, wanted: str) -> dict[str, Any]:
        status: dict[str, Any] = {}
        with anyio.fail_after(90):  # a bound, not a speed assertion
            while status.get("status") != wanted:
                await anyio.sleep(0.5)
                status = json.loads(text(await session.call_tool("research_status", {"workspace": workspace})))
                assert status["status"] in ("starting", "running", wanted), status
        return status

    async def session_work() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            started = json.loads(text(await session.call_tool(
                "start_research", {"title": "Solid-state batteries", "review_plan": True}
            )))  # fmt: skip
            workspace = started["workspace"]
            waiting = await until(session, workspace, "awaiting_review")
            assert waiting["waiting"]["for"] == "review" and "answer_research" in waiting["next"]
            assert "Q1: cost per kWh" in waiting["waiting"]["plan"][0]["text"]

            resumed = json.loads(text(await session.call_tool("answer_research", {"workspace": workspace})))
            assert resumed["status"] == "resumed"
            await until(session, workspace, "finished")

            followed = json.loads(text(await session.call_tool(
                "follow_up", {"workspace": workspace, "question": "What changed since?"}
            )))  # fmt: skip
            assert followed["workspace"] == workspace + "-follow-up" and followed["follows"] == workspace
            done = await until(session, followed["workspace"], "finished")
            assert done["follows"] == [workspace]

            refused = await session.call_tool("answer_research", {"workspace": workspace})
            assert refused.is_error and "waits for no answer" in refused.content[0].text

    anyio.run(session_work)
