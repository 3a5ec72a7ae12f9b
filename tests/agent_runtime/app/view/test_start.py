"""New research from the page: `view FOLDER` takes the run's model flags as the defaults of runs it
starts; POST /api/runs makes a workspace named as `run` names one and starts `deep-researcher run`
in the background (a real CLI process talking to a scripted endpoint), which then shows live and
can be stopped and resumed from the page. The API key reaches the run in its environment only,
never in a file nor in its arguments. Bad input is a 400 that says what to change; a second start
of one workspace is a 409."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view.server import create_app
from agent_runtime.app.view.workspaces import Folder
from agent_runtime.testing import ScriptedEndpoint, demo_script
from tests.support.cli import cli_env, run_cli
from tests.support.view import AUTH, ORIGIN, PORT, TOKEN, RunningView
from tests.support.view_scenario import PURPOSE, TITLE, Research, page_server

KEY = "sk-view-secret-4b1d9e"


def wait_for(read: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = read()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def every_file_text(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "the title is empty"),
        ({"title": "   "}, "the title is empty"),
        ({"title": "x" * 1001}, "the title has 1,001 characters; at most 1,000"),
        ({"title": "T", "purpose": "p" * 10_001}, "the purpose has 10,001 characters; at most 10,000"),
        ({"title": "T", "max_steps": "many"}, "max_steps must be a whole number from 1 to 100000"),
        ({"title": "T", "max_steps": 0}, "max_steps must be a whole number from 1"),
        ({"title": "T", "max_steps": 2.5}, "max_steps must be a whole number"),
        ({"title": "T", "max_steps": True}, "max_steps must be a whole number"),
        ({"title": "T", "max_cost": "cheap"}, "max_cost must be a number"),
        ({"title": "T", "max_cost": -1}, "max_cost must be a number"),
        ({"title": "T", "language": "klingon"}, "unknown language 'klingon'"),
        ({"title": 7}, "title must be text"),
        ({"title": "T", "budget": 5}, "unknown field 'budget'"),
        ({"title": "T", "folder": "../out"}, "must be one visible folder name"),
        (["T"], "the body must be a JSON object"),
    ],
)
def test_bad_input_is_a_400_that_says_what_to_change(
    client: TestClient, runs: Path, body: object, says: str
) -> None:
    answer = client.post("/api/runs", json=body, headers=AUTH)
    assert answer.status_code == 400 and says in answer.json()["error"], answer.text
    assert sorted(p.name for p in runs.iterdir()) == ["ssb"]  # nothing was made


def test_a_body_that_is_not_json_and_a_start_without_the_token_are_refused(client: TestClient) -> None:
    answer = client.post("/api/runs", content=b"title=T", headers=AUTH)
    assert answer.status_code == 400 and answer.json()["error"].startswith("the body must be JSON")
    assert client.post("/api/runs", json={"title": "T"}).status_code == 403
    evil = {**AUTH, "Origin": "https://evil.example"}
    assert client.post("/api/runs", json={"title": "T"}, headers=evil).status_code == 403


def test_a_view_of_one_workspace_starts_none(runs: Path) -> None:
    with TestClient(create_app(Folder(runs / "ssb"), TOKEN, PORT), base_url=ORIGIN) as client:
        assert client.get("/api/workspaces", headers=AUTH).json()["can_start"] is False
        answer = client.post("/api/runs", json={"title": "T"}, headers=AUTH)
        assert answer.status_code == 409 and "view FOLDER" in answer.json()["error"]


def test_a_start_into_a_workspace_that_holds_a_run_or_files_is_a_409(client: TestClient, runs: Path) -> None:
    answer = client.post("/api/runs", json={"title": "Again", "folder": "ssb"}, headers=AUTH)
    assert answer.status_code == 409 and "ssb already holds a research run" in answer.json()["error"]
    (runs / "mine").mkdir()
    (runs / "mine" / "notes.txt").write_text("my own notes\n")
    answer = client.post("/api/runs", json={"title": "Mine", "folder": "mine"}, headers=AUTH)
    assert answer.status_code == 409 and "mine is not empty" in answer.json()["error"]
    assert [p.name for p in (runs / "mine").iterdir()] == ["notes.txt"]


@pytest.mark.slow
def test_view_on_a_file_is_a_usage_error(tmp_path: Path) -> None:
    given = tmp_path / "report.md"
    given.write_text("# A report\n")
    result = run_cli(["view", str(given), "--port", "0"], cli_env(), timeout=60)
    assert result.code == 2
    assert (
        result.stderr.strip()
        == f"deep-researcher: error: {given} is a file, not a workspace folder: give a workspace, or a folder of workspaces"
    )


@pytest.mark.slow
def test_a_run_that_cannot_start_says_why_and_leaves_no_folder(
    tmp_path: Path, view_process: Callable[..., RunningView]
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    view = view_process(runs, cli_env(), "--base-url", "http://127.0.0.1:9/v1", "--api-key", KEY)
    with httpx.Client(base_url=view.base, timeout=60, headers={"X-Token": view.token}) as client:
        answer = client.post("/api/runs", json={"title": "Nowhere to go"})
    assert answer.status_code == 409, answer.text
    error = answer.json()["error"]
    assert (
        error.startswith("the run ended at once (exit 1): deep-researcher: error:") and "127.0.0.1:9" in error
    )
    assert [p.name for p in runs.iterdir()] == [".view-logs"]  # the empty workspace was taken back
    assert KEY not in every_file_text(runs)


@pytest.mark.slow
def test_start_watch_stop_and_resume_a_run_from_the_page(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint], view_process: Callable[..., RunningView]
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    with page_server() as pages:
        research = Research(f"http://127.0.0.1:{pages.port}", delay=0.4)
        server = endpoint(research)
        # No model variable in the view's environment: the flags are all the run has.
        view = view_process(
            runs, cli_env(), "--base-url", server.url, "--api-key", KEY, "--model", "scripted-model",
            "--allow-private-urls", "--max-steps", "80",
        )  # fmt: skip
        with httpx.Client(base_url=view.base, timeout=60, headers={"X-Token": view.token}) as client:
            started = client.post("/api/runs", json={"title": TITLE, "purpose": PURPOSE, "max_steps": 60})
            assert started.status_code == 201, started.text
            ws = started.json()["id"]
            assert ws == "solid-state-batteries-in-2026"  # as `run` would name it
            workspace = runs / ws
            pid = started.json()["pid"]
            # The key is in the run's environment, never in its arguments.
            assert f"OPENAI_API_KEY={KEY}".encode() in Path(f"/proc/{pid}/environ").read_bytes()
            assert KEY.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()

            # It shows live, like any run.
            summary = lambda: client.get("/api/summary", params={"ws": ws}).json()  # noqa: E731
            row = next(w for w in client.get("/api/workspaces").json()["workspaces"] if w["id"] == ws)
            assert row["title"] == TITLE and row["folder"] == ws and row["created_at"]
            assert summary()["running"] and summary()["max_steps"] == 60  # the form's budget over the view's
            wait_for(lambda: summary()["steps"] >= 2, 60, "two steps")

            # A second start of the same workspace is refused while it runs.
            again = client.post("/api/runs", json={"title": TITLE, "folder": ws})
            assert again.status_code == 409 and "already holds a research run" in again.json()["error"]

            # Stop, then Resume, from the page: the resumed run has the key too (the view's defaults).
            assert client.post("/api/stop", params={"ws": ws}).status_code == 200
            wait_for(lambda: summary()["status"] == "interrupted", 60, "the run to stop")
            research.finish.set()
            resumed = client.post("/api/resume", params={"ws": ws})
            assert resumed.status_code == 200, resumed.text
            wait_for(lambda: summary()["status"] == "finished", 90, "the run to finish")
            assert summary()["has_report"]
    meta = json.loads((workspace / ".runtime" / "run.json").read_text())
    assert (
        meta["status"] == "finished"
        and meta["resumes"] == 1
        and meta["settings"]["model"] == "scripted-model"
    )
    assert all(r.get("model") == "scripted-model" for r in server.requests)
    assert KEY not in every_file_text(runs)  # not in the workspace, the logs or run.json
    assert "run started from the live view" in (runs / ".view-logs" / f"{ws}.log").read_text()


@pytest.mark.slow
def test_two_runs_of_one_title_are_told_apart(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint], view_process: Callable[..., RunningView]
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "zn.md").write_text(
        "# 锌离子电池\n\n锌离子电池的能量密度在 2026 年达到每千克 120 瓦时。\n", "utf-8"
    )
    server = endpoint(demo_script)
    view = view_process(
        runs, cli_env(), "--base-url", server.url, "--api-key", KEY, "--search", "local", "--corpus", str(corpus),
    )  # fmt: skip
    title = "锌离子电池的产业化进展"
    with httpx.Client(base_url=view.base, timeout=60, headers={"X-Token": view.token}) as client:
        first = client.post("/api/runs", json={"title": title, "language": "zh"})
        second = client.post("/api/runs", json={"title": title})
        assert (first.status_code, second.status_code) == (201, 201), (first.text, second.text)
        assert (first.json()["id"], second.json()["id"]) == (title, f"{title}-2")
        rows = lambda: [w for w in client.get("/api/workspaces").json()["workspaces"] if w["title"] == title]  # noqa: E731
        wait_for(lambda: [r["status"] for r in rows()] == ["finished", "finished"], 90, "both runs to finish")
        shown = rows()
        assert [r["folder"] for r in shown] == [title, f"{title}-2"] and all(r["created_at"] for r in shown)
    for name in (title, f"{title}-2"):  # each a whole Chinese report of its own
        assert "## 参考文献" in (runs / name / "report.md").read_text("utf-8")
    assert os.environ.get("OPENAI_API_KEY") != KEY and KEY not in every_file_text(runs)


@pytest.mark.slow
def test_a_bad_run_flag_given_to_view_is_a_usage_error_at_once(runs: Path) -> None:
    result = run_cli(["view", str(runs), "--port", "0", "--max-steps", "-3"], cli_env(), timeout=60)
    assert (
        result.code == 2
        and result.stderr.strip() == "deep-researcher: error: --max-steps=-3: expected a value at least 1"
    )


def test_a_folder_that_is_a_symlink_is_refused(client: TestClient, runs: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (runs / "link").symlink_to(elsewhere)  # empty where it leads: only the link gives it away
    answer = client.post("/api/runs", json={"title": "Escape", "folder": "link"}, headers=AUTH)
    assert answer.status_code == 409 and "link is a symbolic link" in answer.json()["error"], answer.text
    assert list(elsewhere.iterdir()) == [] and not (runs / ".view-logs").exists()


def test_a_title_and_purpose_that_start_with_a_dash_reach_the_run(
    client: TestClient, runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in cli_env("http://127.0.0.1:9/v1").items():  # nothing answers: the run ends at once
        monkeypatch.setenv(name, value)
    answer = client.post(
        "/api/runs", json={"title": "-draft", "purpose": "-a memo", "language": "en"}, headers=AUTH
    )
    # Past its arguments (a title or purpose taken for an option would be exit 2) to the endpoint.
    assert answer.status_code == 409, answer.text
    assert (
        answer.json()["error"].startswith("the run ended at once (exit 1):") and "127.0.0.1:9" in answer.text
    )
