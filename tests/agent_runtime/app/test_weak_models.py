"""What a weak, slow local model does, played by the scripted endpoint through the real CLI: a
server slower than the per-attempt timeout, a rambling reply cut at the output cap, a call in flight
when --max-time ends, ten text replies in a row, six near-identical dashboard updates, a malformed
fenced call; and a weak model that makes such mistakes at random and still finishes."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import CliResult, cli_env, run_cli, write_cited_report
from tests.support.runs import events

Endpoint = Callable[[Any], ScriptedEndpoint]


def run(ws: Path, server: ScriptedEndpoint, *flags: str, **env: str) -> CliResult:
    return run_cli(["run", "Sodium-ion cells", "--workspace", str(ws), *flags], cli_env(server.url, **env))


def tool_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


def last(messages: list[dict[str, Any]]) -> str:
    return str(messages[-1]["content"])


@pytest.mark.slow
def test_a_server_slower_than_the_timeout_is_waited_for_once_and_the_user_sees_it(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    ws = tmp_path / "ws"

    def slow_then_finish(messages: list[dict[str, Any]], tools: Any) -> Reply:
        time.sleep(2.5)  # a CPU server reading a new prompt prefix
        return reply(call("all_finished", result="ok", report_path=write_cited_report(ws)))

    server = endpoint(slow_then_finish)
    result = run(ws, server, "--max-steps", "3", DEEP_RESEARCHER_REQUEST_TIMEOUT="1")
    assert result.code == 0, result.stderr
    assert len(server.requests) == 1  # waited for, never abandoned and sent again
    assert "waiting for the model" in result.stderr and "it is working" in result.stderr
    assert [e for e in events(ws) if e["event"] == "model_waiting"]


@pytest.mark.slow
def test_a_rambling_reply_is_cut_at_the_output_cap_and_the_model_is_told(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    ws = tmp_path / "ws"
    told: list[str] = []

    def rambling(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if len(told) == 0:
            told.append("")
            return reply(content="Let me think about sodium-ion cells. " * 2000)  # ~74,000 characters
        told.append(last(messages))
        return reply(call("all_finished", result="ok", report_path=write_cited_report(ws)))

    server = endpoint(rambling)
    result = run(ws, server, "-q", DEEP_RESEARCHER_MAX_OUTPUT_TOKENS="500")
    assert result.code == 0, result.stderr
    assert server.requests[0]["max_tokens"] == 500
    assert "cut" in told[1] and "output limit" in told[1]
    calls = [e for e in events(ws) if e["event"] == "model_call"]
    assert "cut_at_output_limit" in calls[0]["problems"]


@pytest.mark.slow
def test_a_call_in_flight_when_the_time_budget_ends_is_stopped(tmp_path: Path, endpoint: Endpoint) -> None:
    ws = tmp_path / "ws"

    def very_slow(messages: list[dict[str, Any]], tools: Any) -> Reply:
        time.sleep(8)
        return reply(call("update_current_dashboard", content="# Current\n"))

    server = endpoint(very_slow)
    started = time.monotonic()
    result = run(ws, server, "--max-time", "2", "-q")
    took = time.monotonic() - started
    assert result.code == 3, result.stderr
    assert "max_time" in result.stderr and "--max-time" in result.stderr
    assert took < 6  # within a few seconds of the budget, not after the 8 s call
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "stopped" and 2 <= meta["totals"]["elapsed_seconds"] < 5


@pytest.mark.slow
def test_text_replies_without_an_action_are_escalated_then_stopped(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    ws = tmp_path / "ws"
    server = endpoint(lambda m, t: reply(content="[resumed] This run was resumed. I will continue."))
    result = run(ws, server, "-q")
    assert result.code == 3
    assert "without an action" in result.stderr and "--tool-mode json" in result.stderr
    assert len(server.requests) == 6  # not ten, not two hundred
    third = server.requests[3]["messages"]  # what the model saw after its third text reply
    nudge = [str(m["content"]) for m in third if m["role"] == "user" and "text alone" in str(m["content"])][
        -1
    ]
    # From the third on, the nudge shows the call the method needs next, ready to copy.
    example = re.search(r"for example:\n(\{.*\})", nudge)
    assert example, nudge
    assert json.loads(example.group(1))["name"] == "update_overall_dashboard"


@pytest.mark.slow
def test_near_identical_dashboard_updates_are_noticed_and_stopped(tmp_path: Path, endpoint: Endpoint) -> None:
    ws = tmp_path / "ws"
    count = iter(range(100))
    blueprint = "# Sodium-ion cells\n\n## Research questions\n" + "".join(
        f"{i}. A question about cells?\n" for i in range(12)
    )

    def again(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("update_overall_dashboard", content=blueprint + f"\n(version {next(count)})\n"))

    server = endpoint(again)
    result = run(ws, server, "-q")
    assert result.code == 3
    assert "nearly the same arguments" in result.stderr
    assert len(server.requests) == 6
    told = last(server.requests[3]["messages"])
    assert "[done] overall_dashboard.md updated" in told
    assert "nearly the same arguments" in told and "Move on" in told


@pytest.mark.slow
def test_a_malformed_fenced_call_gets_the_parse_error_with_its_position(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    ws = tmp_path / "ws"
    seen: list[list[str]] = []

    def broken_quote(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen.append(tool_texts(messages))
        if len(seen) == 1:
            return reply(
                content='```json\n{"name": "web_search", "arguments": {"query": "the "best" cells", "max_results": 5}}\n```'
            )
        return reply(call("all_finished", result="ok", report_path=write_cited_report(ws)))

    server = endpoint(broken_quote)
    result = run(ws, server, "-q")
    assert result.code == 0, result.stderr
    observation = seen[1][0]
    assert observation.startswith("Error: could not read the arguments of web_search")
    assert "line 1, column" in observation and "⟨here⟩" in observation


# -- a weak model, start to finish -------------------------------------------------------------------
def weak_model(ws: Path, seed: int) -> Callable[..., Reply]:
    """A small model that knows the method but makes the usual mistakes a third of the time:
    prose with no action, a <think> block, a call as fenced text, a broken fenced call, a repeated
    dashboard update, a rambling reply. Stateless: it reads its progress from what it is shown."""
    rng = random.Random(seed)

    def right_step(messages: list[dict[str, Any]]) -> Reply:
        shown = json.dumps(messages, ensure_ascii=False)
        if "Research questions\\n1. How cheap" not in shown:
            return reply(call("update_overall_dashboard", content=(
                "# Sodium-ion cells\n\n## Research questions\n1. How cheap are sodium-ion cells?\n\n"
                "## Outline\n1. Notebook/01_cost.md: cost\n")))  # fmt: skip
        ids = re.findall(r"\[(S\d+)\]", " ".join(tool_texts(messages)))
        if "## Cited findings" not in shown and not ids:
            return reply(call("web_search", query="sodium-ion cell cost", max_results=3))
        if ids:
            return reply(
                call(
                    "update_current_dashboard",
                    content=f"# Current\n\n## Cited findings\n- cheaper [{ids[0]}]\n",
                )
            )
        report = ws / "report.draft.md"
        source = re.search(r"cheaper \[(S\d+)\]", shown)
        assert source, shown[-2000:]
        report.write_text(
            f"# Sodium-ion cells\n\n## Cost\nSodium-ion cells are cheaper [{source.group(1)}].\n"
        )
        return reply(call("all_finished", result="done", report_path="report.draft.md"))

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        good = right_step(messages)
        if not tools:  # json mode (--tool-mode auto switched): no tool list, so the call is text
            wanted = good.tool_calls[0]["function"]
            good = reply(content=f'{{"action": "{wanted["name"]}", "arguments": {wanted["arguments"]}}}')
            return good if rng.random() > 0.35 else reply(content="I will continue the research as planned.")
        mistake = rng.random()
        if mistake > 0.35:
            return good
        wanted = good.tool_calls[0]["function"]
        as_json = f'{{"name": "{wanted["name"]}", "arguments": {wanted["arguments"]}}}'
        kind = rng.randrange(6)
        if kind == 0:
            return reply(content="I should now continue with the research as planned in the dashboards.")
        if kind == 1:
            return Reply(content="<think>The next step is clear.</think>", tool_calls=good.tool_calls)
        if kind == 2:
            return reply(content=f"Next step:\n```json\n{as_json}\n```")
        if kind == 3:
            return reply(content=f'```json\n{as_json[:-3]}"oops" }}\n```')
        if kind == 4:
            return reply(content="Thinking about sodium. " * 3000)  # cut at the cap
        return reply(
            call(
                "update_overall_dashboard",
                content="# Sodium-ion cells\n\n## Research questions\n1. How cheap are sodium-ion cells?\n",
            )
        )

    return script


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_weak_model_making_the_usual_mistakes_still_finishes(
    seed: int, tmp_path: Path, endpoint: Endpoint
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cost.md").write_text(
        "# Cell cost\n\nSodium-ion cell cost fell below lithium-ion cell cost in 2026.\n"
    )
    ws = tmp_path / "ws"
    server = endpoint(weak_model(ws, seed))
    result = run(
        ws, server, "--search", "local", "--corpus", str(corpus), "--max-steps", "40", "-q",
        DEEP_RESEARCHER_MAX_OUTPUT_TOKENS="800",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    report = (ws / "report.md").read_text()
    assert "Sodium-ion cells are cheaper [1]." in report and "corpus:cost.md" in report
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["totals"]["steps"] <= 40


@pytest.mark.slow
def test_a_tool_call_cut_by_the_output_cap_is_explained_and_the_run_goes_on(
    tmp_path: Path, endpoint: Endpoint
) -> None:
    ws = tmp_path / "ws"
    shown: list[list[dict[str, Any]]] = []

    def long_call_then_finish(messages: list[dict[str, Any]], tools: Any) -> Reply:
        shown.append(messages)
        if len(shown) == 1:  # 8,000 characters of arguments: the server stops after 300 tokens
            return reply(call("file_operation", operation_description="Write it", content="word " * 1600))
        return reply(call("all_finished", result="ok", report_path=write_cited_report(ws)))

    server = endpoint(long_call_then_finish)
    result = run(ws, server, "-q", DEEP_RESEARCHER_MAX_OUTPUT_TOKENS="300")
    assert result.code == 0, result.stderr
    after = json.dumps(shown[1], ensure_ascii=False)
    assert "could not read the arguments of file_operation" in after  # the cut JSON, as an error
    assert "output limit" in after  # and why: the reply was cut
    calls = [e for e in events(ws) if e["event"] == "model_call"]
    assert "cut_at_output_limit" in calls[0]["problems"] and "invalid_arguments" in calls[0]["problems"]
