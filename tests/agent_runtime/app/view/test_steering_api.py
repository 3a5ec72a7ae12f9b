"""The view's HTTP API for steering: a paused run is listed and summarized as waiting, and resumable
(Continue is /api/resume); /api/follow-up refuses what it cannot follow up, with a reason, and makes
nothing. (The browser test drives Continue and Follow up on live runs.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view.server import create_app
from agent_runtime.app.view.workspaces import Folder
from tests.support.view import AUTH, ORIGIN, PORT, TOKEN


def set_status(workspace: Path, status: str) -> None:
    run_file = workspace / ".runtime" / "run.json"
    meta = json.loads(run_file.read_text())
    meta["status"] = status
    run_file.write_text(json.dumps(meta))


@pytest.mark.parametrize("status", ["awaiting_answers", "awaiting_review"])
def test_a_paused_run_is_shown_waiting_and_resumable(client: TestClient, runs: Path, status: str) -> None:
    set_status(runs / "ssb", status)
    summary = client.get("/api/summary?ws=ssb", headers=AUTH).json()
    assert summary["status"] == status and summary["resumable"] is True and summary["running"] is False
    row = client.get("/api/workspaces", headers=AUTH).json()["workspaces"][0]
    assert row["status"] == status and row["resumable"] is True


def test_a_follow_up_is_refused_with_a_reason_and_makes_nothing(client: TestClient, runs: Path) -> None:
    before = sorted(p.name for p in runs.iterdir())
    unfinished = client.post("/api/follow-up?ws=ssb", json={"question": "What changed?"}, headers=AUTH)
    assert unfinished.status_code == 409 and "has not finished" in unfinished.json()["error"]
    set_status(runs / "ssb", "finished")
    for body, says in (
        ({}, "the follow-up question"),
        ({"question": "   "}, "the follow-up question"),
        ({"question": 7}, "the follow-up question"),
        ({"question": "x" * 1001}, "at most 1,000"),
    ):
        answer = client.post("/api/follow-up?ws=ssb", json=body, headers=AUTH)
        assert answer.status_code == 400 and says in answer.json()["error"], answer.text
    not_json = client.post("/api/follow-up?ws=ssb", content=b"question=x", headers=AUTH)
    assert not_json.status_code == 400 and "must be JSON" in not_json.json()["error"]
    assert client.post("/api/follow-up?ws=ssb", json={"question": "Why?"}).status_code == 403  # no token
    assert client.post("/api/follow-up?ws=nowhere", json={"question": "Why?"}, headers=AUTH).status_code == 404
    assert sorted(p.name for p in runs.iterdir()) == before


def test_a_view_of_one_workspace_makes_no_follow_up_beside_it(runs: Path) -> None:
    set_status(runs / "ssb", "finished")
    with TestClient(create_app(Folder(runs / "ssb"), TOKEN, PORT), base_url=ORIGIN) as single:
        answer = single.post("/api/follow-up?ws=.", json={"question": "Why?"}, headers=AUTH)
    assert answer.status_code == 409 and "view FOLDER" in answer.json()["error"]
    assert sorted(p.name for p in runs.iterdir()) == ["ssb"]
