"""Settings honoured as given, through the real CLI: a bad value is a usage error named where it
came from; a relative path means the folder it meant when given, also on a resume from elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli


@pytest.mark.slow
def test_a_bad_variable_is_a_usage_error_that_names_it(tmp_path: Path) -> None:
    done = run_cli(["run", "Anything"], cli_env("http://127.0.0.1:9/v1", DEEP_RESEARCHER_MAX_STEPS="abc"), cwd=tmp_path)
    assert done.code == 2
    assert "DEEP_RESEARCHER_MAX_STEPS='abc': expected a whole number" in done.stderr
    assert "Traceback" not in done.stderr and "pydantic" not in done.stderr


@pytest.mark.slow
def test_a_relative_corpus_means_the_same_folder_on_a_resume_from_elsewhere(tmp_path: Path) -> None:
    start = tmp_path / "project"
    (start / "corpus").mkdir(parents=True)
    (start / "corpus" / "cells.md").write_text("# Cells\n\nSodium-ion cells cost less in 2026.\n")

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("web_search", query="sodium cells", max_results=3))

    with ScriptedEndpoint(script) as server:
        env = cli_env(server.url)
        first = run_cli(["run", "Cells", "--workspace", "ws", "--search", "local", "--corpus", "corpus", "--max-steps", "1"], env, cwd=start)
        assert first.code == 3, first.stderr
        stored = json.loads((start / "ws" / ".runtime" / "run.json").read_text())["settings"]
        assert stored["corpus"] == str(start / "corpus")
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        again = run_cli(["resume", str(start / "ws"), "--max-steps", "2"], env, cwd=elsewhere)
        assert again.code == 3, again.stderr
        assert "not a folder" not in again.stderr
        sources = "".join(p.read_text() for p in (start / "ws" / "sources").iterdir() if p.is_file())
        assert "cells.md" in sources  # the resumed run's search read the same corpus
