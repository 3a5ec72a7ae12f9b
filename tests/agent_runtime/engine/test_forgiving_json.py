"""A small local model in `--tool-mode json` (Qwen2.5-Coder-1.5B on llama.cpp, as observed) played
by the scripted endpoint through the real CLI: raw newlines inside its JSON strings, the call in
doubled braces its chat template teaches, two actions in one reply, a dashboard sent as a JSON
object. Every one of those replies is acted on, and the run ends with a cited report."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, reply
from tests.support.cli import cli_env, run_cli
from tests.support.runs import events

Endpoint = Callable[[Any], ScriptedEndpoint]

# Written the way the model writes them: real line breaks inside the JSON strings.
OVERALL = (
    '{{"action": "update_overall_dashboard", "arguments": {{"content": "# Sodium-ion cells\n\n'
    "## Research questions\n1. How cheap are sodium-ion cells?\n2. How safe are they?\n\n"
    '## Outline\n1. Notebook/01_cost.md: cost and safety"}}}}'
)
TWO_SEARCHES = (
    '[{"action": "web_search", "arguments": {"query": "sodium-ion cell cost", "max_results": 1}},\n'
    ' {"action": "web_search", "arguments": {"query": "sodium-ion thermal runaway", "max_results": 1}}]'
)


def _shown(messages: list[dict[str, Any]]) -> str:
    """What the runtime told the model (dashboards, observations, notes), not the model's own text."""
    return "\n".join(str(m.get("content")) for m in messages if m.get("role") == "user")


def judge(prompt: str) -> Reply:
    """The citation check after all_finished: each claim supported by the source's one sentence."""
    source = prompt.split("<<<\n", 1)[1].split("\n>>>", 1)[0]
    sentence = re.search(r"Sodium-ion[^.]*\.", source)
    assert sentence, source
    verdicts = [
        {"claim": int(n), "verdict": "supported", "quote": sentence.group(), "reason": "stated"}
        for n in re.findall(r"^Claim (\d+):", prompt, re.MULTILINE)
    ]
    return reply(content=json.dumps({"verdicts": verdicts}))


def small_model(ws: Path) -> Callable[[list[dict[str, Any]], Any], Reply]:
    """Stateless: reads its progress from what the runtime shows it (the dashboards on disk, the
    observations), so a reply the runtime refused is not mistaken for work done."""

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        assert tools == []  # json mode: the actions are in the prompt, not in a tool list
        if "You check the citations" in str(messages[0]["content"]):
            return judge(str(messages[-1]["content"]))
        shown = _shown(messages)
        if "How safe are they?" not in shown:
            return reply(content=OVERALL)
        written = re.findall(
            r"- Sodium-ion cells (?:cost less|resist thermal runaway)[^\[]*\[(S\d+)\]", shown
        )
        if written:  # the current dashboard holds the findings: write the report and finish
            (ws / "report.draft.md").write_text(
                "# Sodium-ion cells\n\n## Cost and safety\n"
                f"Sodium-ion cells cost less than lithium-ion cells [{written[0]}]. "
                f"They resist thermal runaway [{written[1]}].\n"
            )
            return reply(
                content='{"action": "all_finished", "arguments": {"result": "Cheaper\n\tand safer.", '
                '"report_path": "report.draft.md"}}'
            )
        cost = re.search(r"\[(S\d+)\][^\[]*?Cell cost", shown)
        safety = re.search(r"\[(S\d+)\][^\[]*?Cell safety", shown)
        if not (cost and safety):
            return reply(content=TWO_SEARCHES)
        dashboard = {
            "action": "update_current_dashboard",
            "arguments": {
                "content": {
                    "Current task": "Write the report",
                    "Findings": [
                        f"Sodium-ion cells cost less than lithium-ion cells [{cost.group(1)}]",
                        f"Sodium-ion cells resist thermal runaway [{safety.group(1)}]",
                    ],
                    "Next steps": ["write report.draft.md", "finish"],
                }
            },
        }
        return reply(content=json.dumps(dashboard))

    return script


@pytest.mark.slow
def test_a_small_models_json_actions_are_all_taken_and_the_run_finishes(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cost.md").write_text("# Cell cost\n\nSodium-ion cell cost fell below lithium-ion cell cost.\n")
    (corpus / "safety.md").write_text(
        "# Cell safety\n\nSodium-ion cells resist thermal runaway in abuse tests.\n"
    )
    ws = tmp_path / "ws"
    server = endpoint(small_model(ws))
    result = run_cli(
        ["run", "Sodium-ion cells", "--workspace", str(ws), "--tool-mode", "json",
         "--search", "local", "--corpus", str(corpus), "--max-steps", "12", "-q"],
        cli_env(server.url),
    )  # fmt: skip
    assert result.code == 0, result.stderr

    report = (ws / "report.md").read_text()
    assert "Sodium-ion cells cost less than lithium-ion cells [1]." in report
    assert "They resist thermal runaway [2]." in report  # the second search of the list ran too
    assert "corpus:cost.md" in report and "corpus:safety.md" in report

    # Raw line breaks inside a doubled-brace call: the dashboard keeps them as line breaks.
    overall = (ws / "overall_dashboard.md").read_text()
    assert "## Research questions\n1. How cheap are sodium-ion cells?\n2. How safe are they?\n" in overall
    # The dashboard sent as an object is written as Markdown, and the model is told so.
    current = (ws / "current_dashboard.md").read_text()
    assert current.startswith(
        "## Current task\n\nWrite the report\n\n## Findings\n\n- Sodium-ion cells cost less"
    )
    assert "\n## Next steps\n\n- write report.draft.md\n- finish\n" in current
    main = [r["messages"] for r in server.requests if "You check the citations" not in str(r["messages"][0])]
    told = json.dumps(main[-1], ensure_ascii=False)  # what the model saw after its dashboard object
    assert "content was a JSON object, not text; it was written as Markdown" in told

    # Four replies, five actions, none refused.
    calls = [e for e in events(ws) if e["event"] == "model_call" and e["agent"] == "main"]
    assert [c["calls"] for c in calls] == [
        ["update_overall_dashboard"],
        ["web_search", "web_search"],
        ["update_current_dashboard"],
        ["all_finished"],
    ]
    assert not [problem for c in calls for problem in c["problems"]]
    assert not [e for e in events(ws) if e["event"] == "action" and e.get("error")]
    assert not [e for e in events(ws) if e["event"] in ("model_retry", "citation_judge_failed")]
