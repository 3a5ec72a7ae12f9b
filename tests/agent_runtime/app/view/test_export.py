"""The page's Export buttons: the report as a download in each format (agent_runtime.app.export), written
to a temporary folder that is removed afterwards, never into the run's workspace."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.support.view import AUTH

CHROMIUM = Path("/usr/bin/chromium")


def exports_left() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("deep-researcher-export-*"))


@pytest.mark.parametrize("fmt", ["html", "docx", "pdf"])
def test_each_format_downloads_and_leaves_nothing_behind(client: TestClient, runs: Path, fmt: str) -> None:
    if fmt == "pdf" and not CHROMIUM.exists():
        pytest.skip("a PDF is printed by Chromium, which is not installed")
    before = exports_left()
    files = sorted((runs / "ssb").rglob("*"))
    answer = client.get(f"/api/export/{fmt}?ws=ssb", headers=AUTH)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-disposition"] == f'attachment; filename="ssb.{fmt}"'
    body = answer.content
    if fmt == "html":
        assert answer.headers["content-type"].startswith("text/html")
        assert "Solid-state batteries" in body.decode() and "https://example.org/costs" in body.decode()
    elif fmt == "docx":
        assert body.startswith(b"PK")  # a zip, as a DOCX is
    else:
        assert body.startswith(b"%PDF")
    assert exports_left() == before
    assert sorted((runs / "ssb").rglob("*")) == files  # nothing written into the workspace


def test_an_unknown_format_or_a_missing_report_is_one_line(client: TestClient, runs: Path) -> None:
    assert client.get("/api/export/odt?ws=ssb", headers=AUTH).status_code == 404
    (runs / "ssb" / "report.md").unlink()
    answer = client.get("/api/export/html?ws=ssb", headers=AUTH)
    assert answer.status_code == 409 and answer.json()["error"] == "this run has no report yet"
