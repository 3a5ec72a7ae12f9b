"""A retried model call names the agent it was for: the File agent's, the citation judge's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Fault, Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli


@pytest.mark.slow
def test_retries_name_the_file_agent_and_the_judge(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cells.md").write_text("# Cells\n\nSodium-ion cell costs fell 14% in 2026.\n")
    failed: set[str] = set()

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply | Fault:
        first = str(messages[0]["content"])
        kind = "file" if first.startswith("You are the File agent") else "judge" if first.startswith("You check the citations") else "main"
        if kind in ("file", "judge") and kind not in failed:
            failed.add(kind)
            return Fault(503, "busy", retry_after=0.01)
        if kind == "file":
            return reply(call("write_attached", file_path="Notebook/01.md"), call("finish", answer="written"))
        if kind == "judge":
            return reply(content='{"verdicts": []}')
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query="cells", max_results=2))
        if len(observations) == 1:
            source = observations[0].split("]")[0].lstrip("[")
            return reply(call("file_operation", operation_description="Write the attached chapter to Notebook/01.md",
                              content=f"## Costs\n\nSodium-ion cell costs fell 14% in 2026 [{source}].\n"))  # fmt: skip
        return reply(call("all_finished", result="done", chapters=["Notebook/01.md"]))

    ws = tmp_path / "ws"
    with ScriptedEndpoint(script) as server:
        done = run_cli(["run", "Cells", "--workspace", str(ws), "--search", "local", "--corpus", str(corpus), "-q"],
                       cli_env(server.url), cwd=tmp_path)  # fmt: skip
    assert done.code == 0, done.stderr
    events = [json.loads(line) for line in (ws / ".runtime" / "events.jsonl").read_text().splitlines()]
    retries = [(e["agent"], e["call"]) for e in events if e["event"] == "model_retry"]
    assert [agent for agent, _ in retries] == ["file", "citation_judge"]
    assert retries[0][1].startswith("step ") and "claims of" in retries[1][1]
