"""A long report written the new way, through the real CLI with a per-reply output cap of 4,096
tokens: 12 chapters of 8,000-12,000 characters attached to file_operation (written once, by
write_attached), drafted with markers, each marker replaced as one passage (replace_text), and the
report assembled by code with all_finished(chapters=…). report.md holds every chapter's final text
unchanged but for renumbered citations, and the run generated at most 1.15x the report's tokens."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.writing import CHAPTERS, chapter_text, fact

FILE_AGENT = "You are the File agent"
RESULT_LINE = re.compile(r"^\[(S\d+)\] .*? — (\S+)", re.M)


def script_for(workspace: Path) -> tuple[Any, dict[str, Any]]:
    state: dict[str, Any] = {"step": 0, "ids": []}

    def main_agent(messages: list[dict[str, Any]]) -> Reply:
        state["step"] += 1
        step = state["step"]
        if step == 1:
            return reply(call("web_search", query="storage economics", max_results=12))
        if not state["ids"]:
            tools = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
            state["ids"] = [i for i, _ in RESULT_LINE.findall(tools[0])][:6]
        ids = state["ids"]
        if step <= 1 + CHAPTERS:  # draft each chapter, attached: written once
            n = step - 1
            return reply(call("file_operation", operation_description=f"Write the attached chapter to Notebook/{n:02d}.md",
                              content=chapter_text(n, ids)))  # fmt: skip
        if step <= 1 + 2 * CHAPTERS:  # fill each marker: one passage replaced
            n = step - 1 - CHAPTERS
            return reply(call("file_operation", operation_description=(
                f'In Notebook/{n:02d}.md replace "[NEEDS RESEARCH: the cost figure for chapter {n}]" with: {fact(n, ids)}')))  # fmt: skip
        return reply(
            call(
                "all_finished",
                result="done",
                chapters=[f"Notebook/{n:02d}.md" for n in range(1, CHAPTERS + 1)],
            )
        )

    def file_agent(messages: list[dict[str, Any]]) -> Reply:
        task = str(messages[1]["content"])
        target = re.search(r"Notebook/\d+\.md", task)
        assert target, task
        if task.startswith("Write the attached chapter"):
            return reply(call("write_attached", file_path=target.group(0)),
                         call("finish", answer=f"Wrote {target.group(0)}."))  # fmt: skip
        found = re.search(r'replace "(.+?)" with: (.+)$', task, re.S)
        assert found, task
        old, new = found.groups()
        return reply(call("replace_text", file_path=target.group(0), old_text=old, new_text=new),
                     call("finish", answer=f"Replaced the marker in {target.group(0)}."))  # fmt: skip

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(FILE_AGENT):
            return file_agent(messages)
        return main_agent(messages)

    return script, state


@pytest.mark.slow
def test_a_long_report_is_written_once_and_assembled_by_code(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(1, 7):
        (corpus / f"s{n}.md").write_text(
            f"# Storage economics {n}\n\nStorage economics source {n}: costs and supply.\n"
        )
    ws = tmp_path / "ws"
    script, state = script_for(ws)
    with ScriptedEndpoint(script) as server:
        result = run_cli(
            ["run", "Storage economics", "--workspace", str(ws), "--search", "local", "--corpus", str(corpus),
             "--max-steps", "40", "-q"],
            cli_env(server.url, DEEP_RESEARCHER_MAX_OUTPUT_TOKENS="4096", DEEP_RESEARCHER_CONTEXT_WINDOW="128000"),
            timeout=300, cwd=tmp_path,
        )  # fmt: skip
        caps = {body.get("max_tokens") for body in server.requests}
    assert result.code == 0, result.stderr + result.stdout
    assert caps == {4096}
    report = (ws / "report.md").read_text()
    body = report.split("\n## References")[0]
    # Code's one change besides renumbering: a citation the check could not verify is marked †, and
    # the appendix says so, once for each mark.
    marks = body.count("†")
    assert marks == report.split("\n## Appendix")[-1].count("]† “") if marks else "## Appendix" not in report
    body = body.replace("†", "")
    number = {}
    for source in re.findall(r"\[(S\d+)\]", (ws / "report.draft.md").read_text()):
        number.setdefault(source, len(number) + 1)
    ids = state["ids"]
    for n in range(1, CHAPTERS + 1):
        final = chapter_text(n, ids).replace(
            f"[NEEDS RESEARCH: the cost figure for chapter {n}]", fact(n, ids)
        )
        renumbered = re.sub(r"\[(S\d+)\]", lambda m: f"[{number[m[1]]}]", final.strip())
        assert renumbered in body, f"chapter {n} is not in the report unchanged"
    assert "NEEDS RESEARCH" not in report
    events = [json.loads(line) for line in (ws / ".runtime" / "events.jsonl").read_text().splitlines()]
    calls = [e for e in events if e["event"] == "model_call"]
    generated = sum(e["completion_tokens"] for e in calls)
    report_tokens = len(report) // 4  # the endpoint's measure: four characters a token
    ratio = generated / report_tokens
    print(f"completion tokens {generated:,} for a report of {report_tokens:,} tokens: {ratio:.3f}")
    assert ratio <= 1.15, ratio
    file_calls = [e for e in calls if e["agent"] == "file"]
    assert len(file_calls) == 2 * CHAPTERS  # one File-agent call per operation
