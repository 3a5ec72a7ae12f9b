"""The workspace list at scale and live: each row is read from its files only when they changed (yet
every change shows at the next request), a workspace is found by its name without listing the
folder, and the list is pushed to the page over SSE (the whole list, then the changed rows) until
the view stops."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view import workspaces
from agent_runtime.app.view.workspaces import Folder
from agent_runtime.engine.run_record import load_meta, save_meta
from tests.support.cli import cli_env
from tests.support.view import AUTH, RunningView, make_workspace, sse_messages

LONG_AGO = time.time() - 3600  # older than workspaces.RACY_SECONDS: what was read of it is kept


def age(workspace: Path) -> None:
    """Date the files a summary reads an hour back, as those of a run that ended long ago."""
    for path in (
        workspace / ".runtime" / "run.json",
        workspace / "overall_dashboard.md",
        workspace / "report.md",
    ):
        os.utime(path, (LONG_AGO, LONG_AGO))


def set_steps(workspace: Path, steps: int) -> None:
    run_file = workspace / ".runtime" / "run.json"
    meta = load_meta(run_file)
    assert meta is not None
    meta.totals.steps = steps
    save_meta(run_file, meta)


def test_a_change_to_a_workspace_shows_at_the_next_request(client: TestClient, runs: Path) -> None:
    age(runs / "ssb")
    assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["steps"] == 5
    set_steps(runs / "ssb", 7)  # now: within the racy window
    assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["steps"] == 7
    assert client.get("/api/workspaces", headers=AUTH).json()["workspaces"][0]["steps"] == 7
    age(runs / "ssb")  # the same change, dated long ago (a copied folder): its stat differs all the same
    set_steps(runs / "ssb", 8)
    age(runs / "ssb")
    assert client.get("/api/workspaces", headers=AUTH).json()["workspaces"][0]["steps"] == 8
    (runs / "ssb" / "report.md").unlink()
    assert not client.get("/api/summary?ws=ssb", headers=AUTH).json()["has_report"]


def test_files_that_did_not_change_are_not_read_again(
    client: TestClient, runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(5):
        age(make_workspace(runs / f"old-{n}", title=f"Old run {n}"))
    age(runs / "ssb")
    reads: list[Path] = []
    # Patched by name (no seam): how many times the costly read runs is what this test measures.
    real = workspaces._from_files
    monkeypatch.setattr(workspaces, "_from_files", lambda path: reads.append(path) or real(path))
    first = client.get("/api/workspaces", headers=AUTH).json()["workspaces"]
    assert len(first) == 6 and len(reads) <= 6
    reads.clear()
    again = client.get("/api/workspaces", headers=AUTH).json()["workspaces"]
    assert again == first and reads == []
    set_steps(runs / "old-3", 42)
    rows = {row["id"]: row for row in client.get("/api/workspaces", headers=AUTH).json()["workspaces"]}
    assert reads == [runs / "old-3"] and rows["old-3"]["steps"] == 42


def test_a_workspace_made_or_removed_shows_in_the_list(client: TestClient, runs: Path) -> None:
    listed = lambda: [w["id"] for w in client.get("/api/workspaces", headers=AUTH).json()["workspaces"]]  # noqa: E731
    assert listed() == ["ssb"]
    (runs / "later").mkdir()
    assert listed() == ["ssb"]  # an empty folder is no workspace…
    make_workspace(runs / "later", title="Made later")  # …until its run writes its files in it
    assert listed() == ["later", "ssb"]
    assert client.get("/api/summary?ws=later", headers=AUTH).json()["title"] == "Made later"
    os.rename(runs / "later", runs / "renamed")
    assert listed() == ["renamed", "ssb"]
    assert client.get("/api/summary?ws=later", headers=AUTH).status_code == 404


def test_a_workspace_is_found_by_name_only_as_the_list_would_show_it(runs: Path) -> None:
    folder = Folder(runs)
    assert folder.find("ssb") == (runs / "ssb").resolve()
    (runs / "link").symlink_to(runs / "ssb")
    make_workspace(runs / ".hidden")
    for refused in ("link", ".hidden", "ssb/Notebook", "..", ".", "", "nothing"):
        with pytest.raises(Exception, match="is not a research workspace in this folder"):
            folder.find(refused)


@pytest.mark.slow
def test_the_list_is_pushed_whole_then_the_rows_that_change_until_the_view_stops(
    runs: Path, view_process: Callable[..., RunningView]
) -> None:
    age(runs / "ssb")
    view = view_process(runs, cli_env())
    with httpx.Client(base_url=view.base, timeout=20) as client:
        assert client.get("/api/workspaces/stream").status_code == 401  # the token, as everywhere
        with client.stream("GET", f"/api/workspaces/stream?token={view.token}") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            messages = (m for m in sse_messages(stream.iter_lines()) if "event" in m)
            first = next(messages)
            assert first["event"] == "list"
            listed = json.loads(first["data"])
            assert listed["can_start"] and [w["id"] for w in listed["workspaces"]] == ["ssb"]
            make_workspace(runs / "zinc", title="锌离子电池的产业化进展")
            change = json.loads(next(messages)["data"])
            assert [row["title"] for row in change["rows"]] == ["锌离子电池的产业化进展"]
            assert change["order"] == ["ssb", "zinc"] and change["removed"] == []
            set_steps(runs / "ssb", 9)
            change = json.loads(next(messages)["data"])
            assert [(row["id"], row["steps"]) for row in change["rows"]] == [
                ("ssb", 9)
            ] and "order" not in change
            view.process.send_signal(signal.SIGINT)  # the stream ends with the view
            for _ in messages:
                pass
    _, err = view.process.communicate(timeout=15)
    assert view.process.returncode == 0 and "Traceback" not in err
