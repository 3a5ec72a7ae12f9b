"""The same kind of research in Chinese, through the real CLI: a Chinese title gives a Chinese
workspace name and a prompt that asks for Chinese; the local corpus finds a 2-character word inside
Chinese sentences; the chapter is written once (attached) and the report is assembled by code with
its References heading in Chinese."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli

CORPUS = Path(__file__).parent / "data" / "cjk_corpus" / "docs"
TITLE = "固态电池的产业化进展"
RESULT_LINE = re.compile(r"^\[(S\d+)\] ", re.M)
SOLID_STATE = re.compile(r"^\[(S\d+)\] 固态电池的产业化进程", re.M)


@pytest.mark.slow
def test_a_research_in_chinese(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    seen: dict[str, Any] = {}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        system = str(messages[0]["content"])
        if system.startswith("You are the File agent"):
            return reply(
                call("write_attached", file_path="Notebook/01_进展.md"), call("finish", answer="已写入。")
            )
        seen.setdefault("system", system)
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query="电池", max_results=5))
        if len(observations) == 1:
            seen["search"] = observations[0]
            ids = SOLID_STATE.findall(observations[0])  # the result that states the sentence
            chapter = f"## 产业化进展\n\n多家企业宣布，半固态电池已经在2026年小批量装车 [{ids[0]}]。\n"
            seen["chapter"] = chapter
            return reply(
                call(
                    "file_operation",
                    operation_description="把附带的章节写入 Notebook/01_进展.md",
                    content=chapter,
                )
            )
        return reply(call("all_finished", result="完成", chapters=["Notebook/01_进展.md"]))

    with ScriptedEndpoint(script) as server:
        result = run_cli(
            ["run", TITLE, "--search", "local", "--corpus", str(corpus), "--max-steps", "10", "-q"],
            cli_env(server.url), cwd=tmp_path,
        )  # fmt: skip
    assert result.code == 0, result.stderr + result.stdout
    ws = tmp_path / TITLE  # the default workspace is named after the Chinese title
    assert "Chinese (中文)" in seen["system"]
    assert RESULT_LINE.findall(seen["search"]), seen["search"]  # 电池 found inside sentences
    assert "电池" in seen["search"]
    report = (ws / "report.md").read_text()
    assert report.startswith(f"# {TITLE}\n\n## 产业化进展\n\n多家企业宣布，半固态电池已经在2026年小批量装车 [1]。")
    assert "附录" not in report  # the sentence is what its source says: nothing flagged
    assert "## 参考文献" in report and "## References" not in report
