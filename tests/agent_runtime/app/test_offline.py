"""`deep-researcher run --offline` through the real CLI process, against the scripted model served as
a real OpenAI-compatible endpoint on 127.0.0.1. The model does what small local models do: it
invents a URL (here a real server on 127.0.0.1, reachable under --allow-private-urls, so that a
request would be noticed), then reads a corpus document by its source id, and finishes. The run
finishes, the server was never contacted, and the observation told the model why."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_record import load_meta
from agent_runtime.engine.workspace import Workspace
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.loopback import Handler, LoopbackServer, send

REPO = Path(__file__).resolve().parents[3]
FACT = "The merger with Northwind closes in the third quarter."


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "confidential"
    root.mkdir()
    (root / "memo.md").write_text(f"# Board memo\n\n{FACT} Only the board knows the price.\n", "utf-8")
    (root / "minutes.txt").write_text("Minutes: the audit committee met twice this year.\n", "utf-8")
    return root


@pytest.fixture
def outside() -> Iterator[LoopbackServer]:
    """A server standing in for the internet: it answers every request, and records each one."""

    def answer(handler: Handler) -> None:
        send(handler, b"<html><body><p>Public page about the merger.</p></body></html>")

    with LoopbackServer(answer) as server:
        yield server


def run_cli(endpoint: ScriptedEndpoint, tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEP_RESEARCHER_", "OPENAI_"))}
    for key in ("TAVILY_API_KEY", "SERPER_API_KEY", "BRAVE_API_KEY", "JINA_API_KEY", "SEARXNG_URL"):
        env.pop(key, None)
    env.update(HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Board decisions", "--workspace", str(tmp_path / "ws"),
         "--base-url", endpoint.url, "--api-key", "test", "--max-steps", "8", "-q", *flags],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip


@pytest.mark.slow
def test_an_offline_run_reads_the_corpus_by_id_and_never_connects(
    corpus: Path, outside: LoopbackServer, tmp_path: Path
) -> None:
    invented = f"http://127.0.0.1:{outside.port}/news/merger-2026"
    workspace = tmp_path / "ws"
    observations: list[str] = []

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        tool_texts = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if tools:  # not the citation judge's call (no tools), which sees no observations
            observations[:] = tool_texts
        if not tool_texts:
            return reply(call("web_search", query="merger", max_results=5))
        if len(tool_texts) == 1:
            return reply(call("visit_url", url=invented))  # a URL the model made up
        if len(tool_texts) == 2:
            source = re.search(r"\[(S\d+)\] [^\n]*corpus:memo\.md", tool_texts[0])
            assert source is not None, tool_texts[0]
            return reply(call("visit_url", url=f"[{source.group(1)}]"))  # the id, as small models write it
        (workspace / "report.md").write_text(f"# Board decisions\n\n{FACT} [S1]\n", "utf-8")
        return reply(call("all_finished", result="done", report_path="report.md"))

    with ScriptedEndpoint(script) as endpoint:
        # Private addresses allowed: only the offline rule stands between the model and the server.
        flags = ("--offline", "--search", "local", "--corpus", str(corpus), "--allow-private-urls")
        completed = run_cli(endpoint, tmp_path, *flags)

    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Finished: report.md" in completed.stdout
    assert outside.traffic.untouched, outside.traffic.requests  # not even a connection
    search_obs, refused, read = observations[:3]
    assert "corpus:memo.md" in search_obs and "(local)" in search_obs
    assert "0 of 1 page read" in refused and "this run is offline (--offline)" in refused
    assert "only documents of the local corpus can be read" in refused and 'visit_url("S' in refused
    assert "1 of 1 page read" in read and "## [S1] corpus:memo.md" in read and FACT in read
    ledger = Ledger.load(workspace / "sources")
    assert len(ledger) == 1 and ledger.lookup(invented) is None  # the invented URL got no id
    record = ledger.get("S1")
    assert record is not None and record.fetched and record.url == "corpus:memo.md"
    # Stored with the run: a `resume` without the flag stays offline.
    meta = load_meta(Workspace(workspace).run_file)
    assert meta is not None and meta.settings["offline"] is True


@pytest.mark.slow
@pytest.mark.parametrize("search", ["duckduckgo", "local,duckduckgo"])
def test_offline_with_a_web_search_provider_does_not_start(search: str, corpus: Path, tmp_path: Path) -> None:
    def never(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        raise AssertionError("the model was called")

    with ScriptedEndpoint(never) as endpoint:
        completed = run_cli(endpoint, tmp_path, "--offline", "--search", search, "--corpus", str(corpus))
        assert endpoint.requests == []

    # Exit 1, as for any search configuration refused at start (a missing API key too).
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "--offline allows only --search local --corpus DIR" in completed.stderr
    assert "duckduckgo" in completed.stderr
    assert not (tmp_path / "ws").exists()  # refused before anything was created
