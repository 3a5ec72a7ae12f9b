"""The Python API takes a model name as the CLI does, records it, and resume calls that model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_runtime import research, resume
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply


def _search(messages: list[dict[str, Any]], tools: Any) -> Reply:
    return reply(call("web_search", query="sodium cells", max_results=3))


async def test_a_model_name_is_used_recorded_and_resumed(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cells.md").write_text("# Cells\n\nSodium-ion cells cost less in 2026.\n")
    ws = tmp_path / "ws"
    with ScriptedEndpoint(_search) as server:
        result = await research(
            "Sodium-ion cells", workspace=ws, model="qwen3:14b", base_url=server.url, api_key="k-test-0001",
            search="local", corpus=corpus, max_steps=1,
        )  # fmt: skip
        assert result.status == "stopped", result.reason
        assert {body.get("model") for body in server.requests} == {"qwen3:14b"}
        assert json.loads((ws / ".runtime" / "run.json").read_text())["settings"]["model"] == "qwen3:14b"
        before = len(server.requests)
        again = await resume(ws, base_url=server.url, api_key="k-test-0001", max_steps=2)
        assert again.status == "stopped", again.reason
        assert {body.get("model") for body in server.requests[before:]} == {"qwen3:14b"}
