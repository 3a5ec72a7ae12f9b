"""A compaction summary must be a summary: what a small model sends back to the summary request
(a tool call, the transcript, a dashboard without its headings or ids) never replaces the
dashboard. Unit rules, then a run against the real endpoint whose model answers with a tool call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.sources.records import CITED_ID
from agent_runtime.engine.summaries import summary_cap, summary_problem
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.runs import events, finish_with_report, is_summary_request, researcher, step_counter

DASHBOARD = (
    "# Current dashboard\n\n## Task at hand\nPrices.\n\n## Findings so far\n- cheaper [S2]\n\n"
    "## Next steps\n- read S5\n\n## Lessons\n"
)
ACTIONS = {"update_current_dashboard", "web_search"}
GOOD = DASHBOARD.replace("- cheaper [S2]", "- cheaper [S2]\n- 160 units [S7]")


@pytest.mark.parametrize(
    ("summary", "reason"),
    [
        ("```update_current_dashboard```", "tool call"),
        ('{"name": "update_current_dashboard", "arguments": {"content": "x"}}', "tool call"),
        ("### assistant\nI searched.\n\n### tool\nresults", "transcript"),
        (GOOD.replace("## Lessons\n", ""), "heading(s) Lessons"),
        (GOOD.replace(" [S7]", ""), "source id(s) S7"),
        (GOOD.replace(" [S2]", ""), "source id(s) S2"),
    ],
)
def test_what_is_not_a_summary_is_named(summary: str, reason: str) -> None:
    problem = summary_problem(summary, DASHBOARD, "Found: 160 units [S7].", ACTIONS, kept_ids=CITED_ID)
    assert problem is not None and reason in problem


def test_a_real_summary_passes_in_either_language() -> None:
    assert summary_problem(GOOD, DASHBOARD, "Found: 160 units [S7].", ACTIONS, kept_ids=CITED_ID) is None
    chinese = "# 当前\n\n## 发现\n- 钠离子电池更便宜 [S3]\n"
    assert (
        summary_problem(
            chinese.replace("[S3]", "[S3]，容量 160 [S4]"), chinese, "容量 160 [S4]。", ACTIONS, kept_ids=CITED_ID
        )
        is None
    )
    # The template's italic example id is guidance, not a finding to keep.
    template = (
        '## Findings so far\n_None yet. Record findings with their source ids, e.g. "<a finding> [S3]"._\n'
    )
    assert summary_problem(
        "## Findings so far\n- cheaper [S1]\n", template, "cheaper [S1]", ACTIONS, kept_ids=CITED_ID
    ) is None


def test_the_summary_cap_is_small_for_small_windows() -> None:
    assert summary_cap(8_000, 2_000) == 512
    assert summary_cap(64_000, 4_096) == 4_000
    assert summary_cap(128_000, 1_000) == 1_000  # never above the run's own cap


@pytest.mark.slow
async def test_a_summary_answered_with_a_tool_call_keeps_the_dashboard(tmp_path: Path, endpoint: Any) -> None:
    ws = tmp_path / "ws"
    caps: list[int] = []

    def script(messages: list[dict[str, Any]], tools: Any, body: dict[str, Any]) -> Reply:
        if is_summary_request(messages):
            caps.append(body["max_tokens"])
            return Reply(content="```update_current_dashboard```")
        step = step_counter(ws)
        if step == 1:
            return reply(call("update_current_dashboard", content=DASHBOARD))
        if step > 30:
            return finish_with_report(ws)
        return reply(call("read_fixture", part=step))

    server = ScriptedEndpoint(script, context_window=8_000).__enter__()
    try:
        result = await researcher(tmp_path, server.url, context_window=8_000).run()
    finally:
        server.close()
    assert result.status == "finished"
    assert caps and set(caps) == {512}  # the summariser is capped, whatever the run's cap
    assert (ws / "current_dashboard.md").read_text().strip() == DASHBOARD.strip()
    rejected = [e for e in events(ws) if e["event"] == "summary_rejected"]
    assert rejected and "tool call" in rejected[0]["reason"]
    summaries = [e for e in events(ws) if e["event"] == "model_call" and e.get("agent") == "summarizer"]
    assert summaries and all("duration" in e for e in summaries)
    assert {e["how"] for e in events(ws) if e["event"] == "compaction"} == {"pointers"}


def test_the_dashboard_title_may_go_but_not_its_sections() -> None:
    assert summary_problem(GOOD.replace("# Current dashboard\n\n", ""), DASHBOARD, "[S7]", ACTIONS, kept_ids=CITED_ID) is None
    assert summary_cap(8_000, 2_000, memory_tokens=1_000) == 1_378  # room for the dashboard it rewrites


@pytest.mark.slow
async def test_a_summary_cut_at_the_cap_is_rejected(tmp_path: Path, endpoint: Any) -> None:
    ws = tmp_path / "ws"
    long_summary = GOOD.replace(
        "## Lessons\n", "## Lessons\n" + "- a long lesson about searching better\n" * 120
    )

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if is_summary_request(messages):
            return Reply(content=long_summary)  # the server cuts it at the cap, finish_reason "length"
        step = step_counter(ws)
        if step == 1:
            return reply(call("update_current_dashboard", content=DASHBOARD))
        if step > 30:
            return finish_with_report(ws)
        return reply(call("read_fixture", part=step))

    server = ScriptedEndpoint(script, context_window=8_000).__enter__()
    try:
        result = await researcher(tmp_path, server.url, context_window=8_000).run()
    finally:
        server.close()
    assert result.status == "finished"
    assert (ws / "current_dashboard.md").read_text().strip() == DASHBOARD.strip()
    rejected = [e for e in events(ws) if e["event"] == "summary_rejected"]
    assert rejected and "cut at the output cap" in rejected[0]["reason"]
