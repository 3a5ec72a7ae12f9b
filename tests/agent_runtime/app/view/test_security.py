"""The view's guard: the token, the Host header, changes needing the header, path confinement and
safe rendering of what runs and web pages wrote."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view.security import CSP
from agent_runtime.app.view.server import STATIC, create_app
from agent_runtime.app.view.workspaces import Folder
from tests.support.view import AUTH, ORIGIN, PORT, TOKEN


@pytest.mark.parametrize(
    "path", ["/api/workspaces", "/api/report?ws=ssb", "/api/events?ws=ssb", "/api/export/html?ws=ssb", "/nowhere"]
)
def test_every_request_without_the_token_is_refused(client: TestClient, path: str) -> None:
    cookie = {"Cookie": f"deep_researcher_view_{PORT}={TOKEN}"}  # what the view once set: no longer a key
    for headers in ({}, {"X-Token": "wrong"}, {"Authorization": f"Bearer {TOKEN[:-1]}"}, cookie):
        answer = client.get(path, headers=headers)
        assert answer.status_code == 401, (path, headers)
        assert "token" in answer.text
    assert client.get(path.replace("?", "?token=wrong&") if "?" in path else path + "?token=wrong").status_code == 401


def test_the_token_is_never_put_in_a_cookie_nor_in_the_page(client: TestClient) -> None:
    """Browsers share 127.0.0.1's cookies among all its ports: a cookie would hand the token to
    every other local server the browser visits. The page takes it from the printed URL instead
    and keeps it in its tab (sessionStorage, which is per port)."""
    scripts = [f"/static/{name}" for name in STATIC if name.endswith(".js")]
    for path in ("/", f"/?token={TOKEN}", *scripts, "/static/style.css"):
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == 200, path
        assert "set-cookie" not in answer.headers and TOKEN not in answer.text, path
    assert not client.cookies
    assert client.get("/api/workspaces", headers=AUTH).status_code == 200
    assert client.get("/api/workspaces", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert client.get(f"/api/workspaces?token={TOKEN}").status_code == 200  # as EventSource sends it
    assert client.get("/static/nothing.js").status_code == 401  # only the page's own files are public


def test_every_response_carries_a_csp_without_inline_scripts(client: TestClient) -> None:
    for path in ("/", "/api/workspaces", "/nowhere"):
        headers = client.get(path, headers=AUTH).headers
        assert headers["content-security-policy"] == CSP
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
    assert "script-src 'self';" in CSP and "unsafe-inline" not in CSP
    page = client.get("/", headers=AUTH).text
    assert "<script>" not in page and "onclick" not in page  # the scripts are files under /static/


@pytest.mark.parametrize("host", ["evil.example:8765", "127.0.0.1:9999", "localhost", "rebind.attacker.test"])
def test_a_foreign_host_header_is_refused_even_with_the_token(runs: Path, host: str) -> None:
    with TestClient(create_app(Folder(runs), TOKEN, PORT), base_url=f"http://{host}") as foreign:
        answer = foreign.get("/api/workspaces", headers=AUTH)
    assert answer.status_code == 403 and "127.0.0.1" in answer.text


def test_localhost_by_name_is_served(runs: Path) -> None:
    with TestClient(create_app(Folder(runs), TOKEN, PORT), base_url=f"http://localhost:{PORT}") as local:
        assert local.get("/api/workspaces", headers=AUTH).status_code == 200


def test_a_change_needs_the_header_not_only_the_token_in_the_url(client: TestClient, runs: Path) -> None:
    body = {"content": "# Overall\n\nchanged\n"}
    target = runs / "ssb" / "overall_dashboard.md"
    before = target.read_text()
    assert client.post("/api/dashboards/overall_dashboard.md?ws=ssb", json=body).status_code == 403
    assert client.post(f"/api/dashboards/overall_dashboard.md?ws=ssb&token={TOKEN}", json=body).status_code == 403
    cross_site = {**AUTH, "Origin": "http://evil.example"}
    assert client.post("/api/dashboards/overall_dashboard.md?ws=ssb", json=body, headers=cross_site).status_code == 403
    assert target.read_text() == before
    same_site = {**AUTH, "Origin": ORIGIN}
    assert client.post("/api/dashboards/overall_dashboard.md?ws=ssb", json=body, headers=same_site).status_code == 200
    assert target.read_text() == body["content"]


@pytest.mark.parametrize(
    "path",
    ["../ssb/report.md", "/etc/passwd", "Notebook/../../outside.md", "~/x.md", ".runtime/run.json",
     ".runtime/lock", "Notebook/link.md", "Notebook/dir-link/secret.md", "outside-link.md"],
)  # fmt: skip
def test_files_outside_what_the_view_shows_are_refused(client: TestClient, runs: Path, path: str) -> None:
    secret = runs.parent / "outside.md"
    secret.write_text("TOP-SECRET-CONTENT")
    (runs.parent / "outside-dir").mkdir()
    (runs.parent / "outside-dir" / "secret.md").write_text("TOP-SECRET-CONTENT")
    os.symlink(secret, runs / "ssb" / "Notebook" / "link.md")
    os.symlink(runs.parent / "outside-dir", runs / "ssb" / "Notebook" / "dir-link")
    os.symlink(secret, runs / "ssb" / "outside-link.md")
    answer = client.get("/api/file", params={"ws": "ssb", "path": path}, headers=AUTH)
    assert answer.status_code == 403, answer.text
    assert "TOP-SECRET-CONTENT" not in answer.text
    assert "Notebook/link.md" not in client.get("/api/notebook?ws=ssb", headers=AUTH).json()["files"]


@pytest.mark.parametrize("ws", ["..", "../runs", ".", "/tmp", "ssb/..", ".hidden", "linked", "missing"])
def test_only_workspaces_in_the_folder_are_served(client: TestClient, runs: Path, ws: str) -> None:
    hidden = runs / ".hidden"
    hidden.mkdir()
    (hidden / "overall_dashboard.md").write_text("# Hidden\n")
    os.symlink(runs / "ssb", runs / "linked")  # a symlinked folder could lead anywhere
    assert client.get("/api/summary", params={"ws": ws}, headers=AUTH).status_code == 404
    listed = [w["id"] for w in client.get("/api/workspaces", headers=AUTH).json()["workspaces"]]
    assert listed == ["ssb"]


def test_a_snapshot_carrying_a_script_is_served_as_text(client: TestClient) -> None:
    shown = client.get("/api/source?ws=ssb&id=S2", headers=AUTH).json()["html"]
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in shown
    assert "<script" not in shown and "<img" not in shown
    report = client.get("/api/report?ws=ssb", headers=AUTH).json()
    assert "<script" not in report["html"]
    # The passage shown for [2] is the snapshot's opening, as JSON text: the page sets it with
    # textContent (the browser test checks that it does not run).
    assert report["citations"]["2"][0]["passage"].startswith("<script>")


def test_html_in_a_dashboard_or_note_is_text(client: TestClient, runs: Path) -> None:
    (runs / "ssb" / "current_dashboard.md").write_text("# Current\n\n<script>alert(1)</script> [S1]\n")
    (runs / "ssb" / "Notebook" / "02.md").write_text('<iframe src="https://evil.example"></iframe>\n[x](javascript:alert(1))\n')
    dashboards = client.get("/api/dashboards?ws=ssb", headers=AUTH).json()
    shown = dashboards["current_dashboard.md"]["html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown and '<span class="source-id" data-source="S1">' in shown
    note = client.get("/api/file?ws=ssb&path=Notebook/02.md", headers=AUTH).json()["html"]
    assert "<iframe" not in note and 'href="javascript:' not in note


def test_a_served_workspace_answers_only_to_its_own_id_never_to_a_folder_inside_it(runs: Path) -> None:
    """`deep-researcher view WORKSPACE`: the list shows "." only. A Notebook/ the agent shaped as a
    workspace (a dashboard, a run.json pointing Resume at another endpoint) is no workspace here."""
    notebook = runs / "ssb" / "Notebook"
    (notebook / "overall_dashboard.md").write_text("# Planted\n")
    (notebook / ".runtime").mkdir()
    (notebook / ".runtime" / "run.json").write_text('{"settings": {"base_url": "https://attacker.example/v1"}}')
    with TestClient(create_app(Folder(runs / "ssb"), TOKEN, PORT), base_url=ORIGIN) as served:
        assert [w["id"] for w in served.get("/api/workspaces", headers=AUTH).json()["workspaces"]] == ["."]
        for ws in ("Notebook", "sources", "ssb", ".."):
            assert served.get("/api/summary", params={"ws": ws}, headers=AUTH).status_code == 404, ws
            assert served.post("/api/resume", params={"ws": ws}, headers=AUTH).status_code == 404, ws
        assert not (notebook / ".runtime" / "view-resume.log").exists()  # nothing was started


def test_every_script_the_page_loads_or_a_module_imports_is_served(client: TestClient) -> None:
    """The page's scripts are ES modules importing each other: a module missing from STATIC would be
    refused (401) and the whole page would stay blank."""
    page = client.get("/").text
    wanted = set(re.findall(r'<script[^>]*src="/static/([^"]+)"', page))
    seen: set[str] = set()
    while wanted - seen:
        name = sorted(wanted - seen)[0]
        seen.add(name)
        answer = client.get(f"/static/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/javascript"), name
        wanted |= set(re.findall(r'^import [^;]* from "\./([^"]+)";', answer.text, re.M))
    assert {"app.js", "shared.js", "runs-list.js", "run-page.js", "new-run.js"} <= seen
    assert seen == {name for name in STATIC if name.endswith(".js")}  # nothing served that no page uses
