"""What the page reads and changes: the workspace list and figures, documents, sources, the report's
citation passages, and dashboard edits (written atomically, refused when the run changed the file
meanwhile)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agent_runtime.app.view.server import create_app
from agent_runtime.app.view.workspaces import Folder
from tests.support.view import AUTH, ORIGIN, PORT, TOKEN, make_workspace


def test_the_list_shows_each_workspace_with_its_title_status_and_figures(client: TestClient, runs: Path) -> None:
    (runs / "notes").mkdir()  # a folder that is no workspace is not listed
    make_workspace(runs / "other", title="Sodium-ion batteries")
    found = client.get("/api/workspaces", headers=AUTH).json()
    assert found["folder"].endswith("/runs")
    by_id = {w["id"]: w for w in found["workspaces"]}
    assert sorted(by_id) == ["other", "ssb"]
    ssb = by_id["ssb"]
    assert ssb["title"] == "Solid-state batteries" and ssb["status"] == "stopped" and not ssb["running"]
    assert (ssb["steps"], ssb["max_steps"], ssb["tokens"], ssb["elapsed_text"]) == (5, 5, 1500, "0s")
    assert ssb["resumable"] and ssb["has_report"]
    assert ssb["stop_reason"].startswith("max_steps")


def test_a_workspace_given_itself_is_the_one_shown(runs: Path) -> None:
    with TestClient(create_app(Folder(runs / "ssb"), TOKEN, PORT), base_url=ORIGIN) as client:
        listed = client.get("/api/workspaces", headers=AUTH).json()["workspaces"]
        assert [w["id"] for w in listed] == ["."]
        assert client.get("/api/summary?ws=.", headers=AUTH).json()["title"] == "Solid-state batteries"


def test_a_run_killed_while_running_shows_as_interrupted(client: TestClient, runs: Path) -> None:
    run_file = runs / "ssb" / ".runtime" / "run.json"
    run_file.write_text(run_file.read_text().replace('"stopped"', '"running"'))
    summary = client.get("/api/summary?ws=ssb", headers=AUTH).json()
    assert summary["status"] == "interrupted" and summary["resumable"]  # no process holds its lock


def test_dashboards_notebook_and_sources_are_rendered(client: TestClient) -> None:
    dashboards = client.get("/api/dashboards?ws=ssb", headers=AUTH).json()
    assert set(dashboards) == {"overall_dashboard.md", "current_dashboard.md"}
    assert dashboards["overall_dashboard.md"]["text"].startswith("# Solid-state batteries")
    assert "<h1>Solid-state batteries</h1>" in dashboards["overall_dashboard.md"]["html"]
    assert client.get("/api/notebook?ws=ssb", headers=AUTH).json()["files"] == ["Notebook/01_costs.md"]
    note = client.get("/api/file?ws=ssb&path=Notebook/01_costs.md", headers=AUTH).json()["html"]
    assert '<span class="source-id" data-source="S1">S1</span>' in note
    sources = client.get("/api/sources?ws=ssb", headers=AUTH).json()["sources"]
    assert [(s["id"], s["title"], s["url"], s["fetched"]) for s in sources] == [
        ("S1", "Page costs", "https://example.org/costs", True),
        ("S2", "Page forum", "https://example.org/forum", True),
    ]
    source = client.get("/api/source?ws=ssb&id=s1", headers=AUTH).json()
    assert source["front_matter"]["url"] == "https://example.org/costs"
    assert source["html"].startswith("<p>Cells cost 180 dollars per kWh in 2026.</p>")  # no front matter
    assert client.get("/api/source?ws=ssb&id=S9", headers=AUTH).status_code == 404
    assert client.get("/api/file?ws=ssb&path=Notebook/none.md", headers=AUTH).status_code == 404


def test_a_snapshot_the_ledger_does_not_list_yet_is_shown(client: TestClient, runs: Path) -> None:
    (runs / "ssb" / "sources" / "S3.md").write_text('---\nid: "S3"\nurl: "https://example.org/new"\n---\n\nNew.\n')
    sources = client.get("/api/sources?ws=ssb", headers=AUTH).json()["sources"]
    assert sources[-1]["id"] == "S3" and sources[-1]["url"] == "https://example.org/new"


def test_each_citation_shows_the_audited_passage_else_the_opening_of_its_source(client: TestClient) -> None:
    report = client.get("/api/report?ws=ssb", headers=AUTH).json()
    assert '<a class="cite" href="#ref-1" data-cite="1">1</a>' in report["html"]
    assert 'id="ref-1"' in report["html"] and 'href="https://example.org/costs"' in report["html"]
    first = report["citations"]["1"][0]
    assert first["passage"] == "Cells cost 180 dollars per kWh in 2026." and first["verdict"] == "supported"
    assert first["url"] == "https://example.org/costs" and first["lines"] == [5, 5]
    second = report["citations"]["2"][0]  # not in report.citations.json: found by its References URL
    assert second["source"] == "S2" and second["statement"] == "" and second["url"] == "https://example.org/forum"


def test_without_the_audit_file_every_citation_shows_its_source_opening(client: TestClient, runs: Path) -> None:
    (runs / "ssb" / "report.citations.json").unlink()
    first = client.get("/api/report?ws=ssb", headers=AUTH).json()["citations"]["1"][0]
    assert first["source"] == "S1"
    assert first["passage"] == "Cells cost 180 dollars per kWh in 2026. The second paragraph."


def test_a_run_without_report_answers_404(client: TestClient, runs: Path) -> None:
    (runs / "ssb" / "report.md").unlink()
    assert client.get("/api/report?ws=ssb", headers=AUTH).status_code == 404
    assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["has_report"] is False


def test_a_dashboard_edit_is_written_atomically_and_refused_when_the_run_changed_it_meanwhile(
    client: TestClient, runs: Path
) -> None:
    target = runs / "ssb" / "current_dashboard.md"
    loaded = client.get("/api/dashboards?ws=ssb", headers=AUTH).json()["current_dashboard.md"]
    url = "/api/dashboards/current_dashboard.md?ws=ssb"
    saved = client.post(url, json={"content": "# Current\n\nLook at costs first.", "base": loaded["sha"]}, headers=AUTH)
    assert saved.status_code == 200
    assert target.read_text() == "# Current\n\nLook at costs first.\n"
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]

    target.write_text("# Current\n\nThe agent's own update.\n")  # the run writes while the person edits
    stale = client.post(url, json={"content": "# Mine\n", "base": saved.json()["sha"]}, headers=AUTH)
    assert stale.status_code == 409 and "changed" in stale.json()["error"]
    assert stale.json()["current"] == "# Current\n\nThe agent's own update.\n"
    assert target.read_text() == "# Current\n\nThe agent's own update.\n"
    assert client.post(url, json={"content": "# Mine\n"}, headers=AUTH).status_code == 200  # "save anyway"
    assert target.read_text() == "# Mine\n"


def test_a_dashboard_edit_must_be_text_and_a_dashboard(client: TestClient) -> None:
    url = "/api/dashboards/current_dashboard.md?ws=ssb"
    assert client.post(url, content=b"not json", headers=AUTH).status_code == 400
    assert client.post(url, json={"content": 3}, headers=AUTH).status_code == 400
    assert client.post(url, json=["x"], headers=AUTH).status_code == 400
    assert client.post(url, content=b'{"content": "lone \\ud800"}', headers=AUTH).status_code == 400  # no UTF-8 form
    assert client.post("/api/dashboards/report.md?ws=ssb", json={"content": "x"}, headers=AUTH).status_code == 404
    assert client.post("/api/dashboards/..%2Fx.md?ws=ssb", json={"content": "x"}, headers=AUTH).status_code == 404


def test_a_symlinked_dashboard_is_replaced_never_followed(client: TestClient, runs: Path) -> None:
    outside = runs.parent / "elsewhere.md"
    outside.write_text("keep\n")
    target = runs / "ssb" / "current_dashboard.md"
    target.unlink()
    target.symlink_to(outside)
    answer = client.post("/api/dashboards/current_dashboard.md?ws=ssb", json={"content": "x"}, headers=AUTH)
    assert answer.status_code == 403  # reading it to compare would leave the workspace
    assert outside.read_text() == "keep\n"


@pytest.mark.slow
def test_a_dashboard_too_long_to_show_whole_cannot_be_edited_nor_saved(client: TestClient, runs: Path) -> None:
    """Over 2 MB the view reads only the beginning: saving an edit of it would cut the file."""
    target = runs / "ssb" / "current_dashboard.md"
    long_text = "# Current\n\n" + "- a finding worth keeping\n" * 90_000  # 2.2 MB
    target.write_text(long_text)
    loaded = client.get("/api/dashboards?ws=ssb", headers=AUTH).json()["current_dashboard.md"]
    assert loaded["cut"] is True and "only its beginning is shown" in loaded["html"]
    assert client.get("/api/dashboards?ws=ssb", headers=AUTH).json()["overall_dashboard.md"]["cut"] is False
    url = "/api/dashboards/current_dashboard.md?ws=ssb"
    for body in ({"content": loaded["text"][:1000] + "- mine\n", "base": loaded["sha"]}, {"content": "# Short\n"}):
        refused = client.post(url, json=body, headers=AUTH)
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"] == (
            "current_dashboard.md is longer than 2,000,000 bytes: the view shows only its beginning and "
            "cannot save it without losing the rest; edit it in an editor"
        )
    assert target.read_text() == long_text
    too_long = client.post("/api/dashboards/overall_dashboard.md?ws=ssb", json={"content": long_text}, headers=AUTH)
    assert too_long.status_code == 400 and "2,000,000 bytes" in too_long.json()["error"]


FIGURES = {
    "checked": 4, "supported": 2, "weak": 1, "unsupported": 1, "citation_accuracy": 0.5,
    "effective_citations": 2, "unverified": 2, "checked_by": "model:judge-1",
}  # fmt: skip


def finish(runs: Path, citations: object, status: str = "finished") -> None:
    """The workspace's run.json as the finish writes it: the audit's figures in summary.citations."""
    run_file = runs / "ssb" / ".runtime" / "run.json"
    meta = json.loads(run_file.read_text())
    meta.update(status=status, stop_reason=None)
    meta["summary"] = {"steps": 5, "sources_cited": 2, "citations": citations}
    run_file.write_text(json.dumps(meta))


def test_the_summary_gives_the_citation_figures_of_the_finished_report(client: TestClient, runs: Path) -> None:
    before = client.get("/api/summary?ws=ssb", headers=AUTH).json()
    assert before["citations"] is None and before["citation_note"] is None  # no audit yet
    finish(runs, FIGURES)
    summary = client.get("/api/summary?ws=ssb", headers=AUTH).json()
    assert summary["status"] == "finished"
    assert summary["citations"] == FIGURES
    assert summary["citation_note"] == "finished with 2 citations that could not be verified"
    listed = client.get("/api/workspaces", headers=AUTH).json()["workspaces"][0]
    # The list's row carries the note (its badge's mark) and the two figures runs are compared by (a
    # batch folder's list); the whole figures are for the open run's status line.
    assert listed["citation_note"] == summary["citation_note"] and "citations" not in listed
    assert listed["cited"] == [0.5, 2]

    finish(runs, {**FIGURES, "supported": 3, "unverified": 1})
    assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["citation_note"] == (
        "finished with 1 citation that could not be verified"
    )
    finish(runs, {**FIGURES, "supported": 4, "weak": 0, "unsupported": 0, "unverified": 0, "citation_accuracy": 1.0})
    assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["citation_note"] is None
    finish(runs, FIGURES, status="stopped")  # only a finished run's report is said to be finished so
    assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["citation_note"] is None


def test_damaged_citation_figures_are_left_out(client: TestClient, runs: Path) -> None:
    for damaged in ("12 checked", {"checked": "4"}, {"checked": True}, {"checked": -1}, []):
        finish(runs, damaged)
        assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["citations"] is None
    finish(runs, {"checked": 0, "citation_accuracy": None, "checked_by": "lexical"})  # nothing was cited
    assert client.get("/api/summary?ws=ssb", headers=AUTH).json()["citations"] == {
        "checked": 0, "supported": None, "weak": None, "unsupported": None, "citation_accuracy": None,
        "effective_citations": None, "unverified": None, "checked_by": "lexical",
    }  # fmt: skip
    # Without "unverified" (an older run.json) it is the checked pairs that were not supported.
    finish(runs, {"checked": 4, "supported": 3, "citation_accuracy": 7, "checked_by": 3})
    figures = client.get("/api/summary?ws=ssb", headers=AUTH).json()["citations"]
    assert (figures["unverified"], figures["citation_accuracy"], figures["checked_by"]) == (1, None, None)


def test_a_citation_the_check_did_not_confirm_shows_its_closest_passage_as_not_verified(
    client: TestClient, runs: Path
) -> None:
    (runs / "ssb" / "report.md").write_text(
        "# Solid-state batteries\n\nCells cost 180 dollars per kWh in 2026 [1]. Cells cost 90 dollars [1]†.\n\n"
        "## References\n\n1. Page costs. https://example.org/costs (accessed 2026-01-01)\n"
    )
    supported = {
        "citation": 1, "source": "S1", "statement": "Cells cost 180 dollars per kWh in 2026.", "verdict": "supported",
        "judged_by": "lexical", "passage": "Cells cost 180 dollars per kWh in 2026.", "passage_is": "supporting",
        "file": "sources/S1.md", "lines": [5, 5], "score": 1.0, "reasons": [],
    }  # fmt: skip
    unsupported = {
        **supported, "statement": "Cells cost 90 dollars.", "verdict": "unsupported", "judged_by": "model:judge-1",
        "passage_is": "closest", "score": 0.4, "reasons": ["the source gives 180; the sentence says 90", "other"],
    }  # fmt: skip
    (runs / "ssb" / "report.citations.json").write_text(json.dumps({"citations": [supported, unsupported]}))
    report = client.get("/api/report?ws=ssb", headers=AUTH).json()
    first, second = report["citations"]["1"]
    assert (first["verified"], first["passage_is"], first["reasons"]) == (True, "supporting", [])
    assert (second["verified"], second["passage_is"]) == (False, "closest")
    assert second["reasons"] == ["the source gives 180; the sentence says 90", "other"]
    assert second["judged_by"] == "model:judge-1" and second["verdict"] == "unsupported"
    # The † the finalization added stays as text after the citation's link.
    assert '<a class="cite" href="#ref-1" data-cite="1">1</a>]</span>†.' in report["html"]

    # A supporting passage with a verdict that is not "supported" is not verified either.
    weak = {**supported, "verdict": "weak"}
    (runs / "ssb" / "report.citations.json").write_text(json.dumps({"citations": [weak]}))
    only = client.get("/api/report?ws=ssb", headers=AUTH).json()["citations"]["1"][0]
    assert only["verified"] is False


def test_an_older_citations_file_is_read_by_its_verdicts(client: TestClient) -> None:
    """The fixture's record has no passage_is nor reasons (written before the audit said them)."""
    first = client.get("/api/report?ws=ssb", headers=AUTH).json()["citations"]["1"][0]
    assert (first["verified"], first["passage_is"], first["reasons"]) == (True, "supporting", [])
    second = client.get("/api/report?ws=ssb", headers=AUTH).json()["citations"]["2"][0]
    assert (second["verified"], second["passage_is"]) == (False, "opening")  # no record: the source's opening
