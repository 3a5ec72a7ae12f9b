"""A scripted research run through the real CLI process: the scripted model (a real OpenAI-
compatible endpoint on 127.0.0.1) searches — the local corpus in one run, a loopback SearXNG-
compatible endpoint in the other — reads two of the results in one visit_url call, and finishes;
then the sources/ snapshots and the ledger are checked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from agent_runtime.domain.sources.front_matter import read_front_matter
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.web_server import Route, WebServer

REPO = Path(__file__).resolve().parents[3]
RESULT_LINE = re.compile(r"^\[(S\d+)\] .*? — (\S+)(?: — .*)?$", re.M)


def research_script(workspace: Path, query: str) -> tuple[Callable[..., Reply], list[str]]:
    """search → visit the first two results in one call → write a cited report → all_finished."""
    observations: list[str] = []

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        tool_texts = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if tools:  # not the citation judge's call (no tools), which sees no observations
            observations[:] = tool_texts
        if not tool_texts:
            return reply(call("web_search", query=query, max_results=5))
        if len(tool_texts) == 1:
            found = RESULT_LINE.findall(tool_texts[0])
            return reply(call("visit_url", url=[url for _, url in found[:2]], goal=query))
        ids = re.findall(r"^## \[(S\d+)\]", tool_texts[1], re.M)
        report = "# Report\n\n" + "\n".join(f"- A finding [{source_id}]." for source_id in ids) + "\n"
        (workspace / "report.md").write_text(report, "utf-8")  # what the File agent would do
        return reply(call("all_finished", result="done", report_path="report.md"))

    return script, observations


def run_cli(
    endpoint: ScriptedEndpoint, workspace: Path, tmp_path: Path, *flags: str, env: dict[str, str]
) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DEEP_RESEARCHER_", "OPENAI_"))}
    for key in ("TAVILY_API_KEY", "SERPER_API_KEY", "BRAVE_API_KEY", "JINA_API_KEY", "SEARXNG_URL"):
        clean.pop(key, None)
    clean.update(HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO), **env)
    completed = subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Energy storage", "--workspace", str(workspace),
         "--base-url", endpoint.url, "--api-key", "test", "--max-steps", "8", "-q", *flags],
        env=clean, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Finished: report.md" in completed.stdout


def check_sources(workspace: Path, expected_urls: list[str]) -> Ledger:
    ledger = Ledger.load(workspace / "sources")
    for source_id, url in zip(("S1", "S2"), expected_urls, strict=True):
        record = ledger.get(source_id)
        assert record is not None and record.url == url
        assert (
            record.first_seen_via == "search"
            and record.fetched
            and record.snapshot == f"sources/{source_id}.md"
        )
        snapshot = (workspace / "sources" / f"{source_id}.md").read_text("utf-8")
        fields = read_front_matter(snapshot)
        assert fields["id"] == source_id and fields["url"] == url
        assert fields["sha256"] == record.sha256 and len(fields["sha256"]) == 64
        assert fields["fetched_at"] == record.fetched_at and fields["title"] == record.title
    return ledger


@pytest.mark.slow
def test_a_run_over_the_local_corpus(tmp_path: Path, make_pdf: Callable[..., bytes]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "flow.pdf").write_bytes(
        make_pdf(
            [
                [
                    "Flow batteries store energy in liquid electrolytes.",
                    "Vanadium flow batteries last decades.",
                ]
            ],
            title="Flow batteries",
        )
    )
    (corpus / "pumped.md").write_text(
        "# Pumped hydro\n\nPumped hydro stores energy by lifting water; flow of water drives turbines.\n",
        "utf-8",
    )
    (corpus / "other.txt").write_text("Unrelated notes about gardening.\n", "utf-8")
    workspace = tmp_path / "ws-local"
    script, observations = research_script(workspace, "flow energy")

    with ScriptedEndpoint(script) as endpoint:
        run_cli(endpoint, workspace, tmp_path, "--search", "local", "--corpus", str(corpus), env={})

    search_obs, visit_obs = observations[0], observations[1]
    found = RESULT_LINE.findall(search_obs)
    assert {url for _, url in found} == {"corpus:flow.pdf", "corpus:pumped.md"}
    assert "(local)" in search_obs
    assert visit_obs.startswith("visit_url: 2 of 2 pages read")
    ledger = check_sources(workspace, [url for _, url in found[:2]])
    assert len(ledger) == 2
    flow = ledger.lookup("corpus:flow.pdf")
    assert flow is not None and flow.snapshot is not None
    assert "Vanadium flow batteries last decades." in (workspace / flow.snapshot).read_text("utf-8")
    assert (workspace / ".runtime" / "corpus").is_dir()  # the index lives with the run


@pytest.mark.slow
def test_a_run_over_a_searxng_endpoint(
    tmp_path: Path, web_server: WebServer, make_server: Callable[[], WebServer]
) -> None:
    pages = {
        "/storage": (
            "Grid storage in 2025",
            "Batteries now make up most new grid storage capacity worldwide.",
        ),
        "/hydro": ("Pumped hydro", "Pumped hydro remains the largest source of stored energy on the grid."),
        "/third": ("Third result", "Not visited."),
    }
    for path, (title, text) in pages.items():
        paragraphs = "".join(
            f"<p>{text} Paragraph {i} adds detail about costs and capacity.</p>" for i in range(4)
        )
        web_server.routes[path] = Route(
            body=f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{paragraphs}</article></body></html>".encode()
        )
    searches: list[dict[str, list[str]]] = []

    def searxng(request_path: str) -> bytes:
        searches.append(parse_qs(urlsplit(request_path).query))
        results = [
            {"title": title, "url": web_server.url(path), "content": text[:60], "engine": "x"}
            for path, (title, text) in pages.items()
        ]
        return json.dumps({"query": "grid storage", "results": results}).encode()

    # The SearXNG-compatible endpoint: its own server on 127.0.0.1, answering /search?format=json.
    search_server = make_server()
    search_server.routes["/search"] = lambda path: Route(body=searxng(path), content_type="application/json")
    workspace = tmp_path / "ws-searxng"
    script, observations = research_script(workspace, "grid storage")
    with ScriptedEndpoint(script) as endpoint:
        run_cli(
            endpoint, workspace, tmp_path, "--search", "searxng", "--allow-private-urls",
            env={"SEARXNG_URL": search_server.base},
        )  # fmt: skip

    assert searches == [{"q": ["grid storage"], "format": ["json"], "pageno": ["1"]}]
    search_obs, visit_obs = observations[0], observations[1]
    assert "3 results (searxng)" in search_obs
    assert visit_obs.startswith("visit_url: 2 of 2 pages read")
    assert sorted(web_server.requests) == ["/hydro", "/storage"]
    ledger = check_sources(workspace, [web_server.url("/storage"), web_server.url("/hydro")])
    third = ledger.get("S3")
    assert third is not None and third.url == web_server.url("/third") and not third.fetched  # only seen
    snapshot = (workspace / "sources" / "S1.md").read_text("utf-8")
    assert "Batteries now make up most new grid storage capacity worldwide." in snapshot
    report = (workspace / "report.md").read_text("utf-8")  # its references are built from the ledger
    assert web_server.url("/storage") in report and web_server.url("/hydro") in report


@pytest.mark.slow
def test_a_run_over_office_documents_names_what_it_cannot_read(tmp_path: Path) -> None:
    from tests.support.office_files import make_docx, make_pptx

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    memo = make_docx("Cobalt memo", ["Sodium-ion cells avoid cobalt.", "钠离子电池不使用钴。"])
    (corpus / "memo.docx").write_bytes(memo)
    (corpus / "deck.pptx").write_bytes(
        make_pptx([("Intro", ["Storage"]), ("Supply", ["Cobalt supply is concentrated."])])
    )
    (corpus / "broken.docx").write_bytes(memo[:1500])
    (corpus / "a.bin").write_bytes(b"\x00\x01\x02")
    (corpus / "b.dwg").write_bytes(b"AC1032")
    workspace = tmp_path / "ws-office"
    script, observations = research_script(workspace, "cobalt")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DEEP_RESEARCHER_", "OPENAI_"))}
    clean.update(HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))

    with ScriptedEndpoint(script) as endpoint:
        completed = subprocess.run(
            [sys.executable, "-m", "agent_runtime.app.cli", "run", "Cobalt", "--workspace", str(workspace),
             "--base-url", endpoint.url, "--api-key", "test", "--max-steps", "8", "--search", "local",
             "--corpus", str(corpus)],
            env=clean, capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip

    assert completed.returncode == 0, completed.stdout + completed.stderr
    skipped = "Corpus: skipped 2 files of a kind that is not read: a.bin, b.dwg"
    assert completed.stderr.count(skipped) == 1, completed.stderr
    search_obs, visit_obs = observations[0], observations[1]
    assert {url for _, url in RESULT_LINE.findall(search_obs)} == {"corpus:memo.docx", "corpus:deck.pptx"}
    assert "[slide 2]" in search_obs
    assert "broken.docx (the Word document (DOCX) is damaged" in search_obs
    assert visit_obs.startswith("visit_url: 2 of 2 pages read")
    events = [
        json.loads(line) for line in (workspace / ".runtime" / "events.jsonl").read_text("utf-8").splitlines()
    ]
    assert [e["files"] for e in events if e["event"] == "corpus_skipped"] == [["a.bin", "b.dwg"]]
    memo_record = Ledger.load(workspace / "sources").lookup("corpus:memo.docx")
    assert memo_record is not None and memo_record.snapshot is not None
    assert "钠离子电池不使用钴。" in (workspace / memo_record.snapshot).read_text("utf-8")
