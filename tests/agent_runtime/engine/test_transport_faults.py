"""Transport faults a real endpoint or proxy produces, through the real `openai` client: a body
cut short, an HTML page with status 200, a connection reset, nothing listening. Each is retried
like a 5xx and, when the retries run out, ends the run with a clear reason (never a traceback)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.errors import ModelUnreachableError
from agent_runtime.testing import Fault, ScriptedEndpoint
from tests.support.cli import cli_env, run_cli
from tests.support.model_client import MESSAGES, client, faults_then_success
from tests.support.research_script import research_script, with_fault_at

CUT = '{"id": "x", "choices": ['
HTML = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"

TRANSPORT_FAULTS = {
    "body_cut_short": (Fault(200, body=CUT), "not a complete chat completion"),
    "body_cut_in_transfer": (Fault(200, body=CUT, missing_bytes=500), "connection failed"),
    "html_page": (Fault(200, body=HTML, content_type="text/html"), "not a complete chat completion"),
    "json_without_choices": (Fault(200, body='{"id": "x", "object": "chat.completion"}'), "no choices"),
    "choice_without_message": (Fault(200, body='{"choices": [{"index": 0, "message": null}]}'), "no message"),
    "error_object_with_200": (
        Fault(200, body='{"error": {"message": "upstream provider failed", "code": 502}}'),
        "upstream provider failed",
    ),
    "connection_reset": (Fault(reset=True), "connection reset by the server"),
}


@pytest.mark.parametrize("name", list(TRANSPORT_FAULTS))
async def test_a_transport_fault_is_retried(name: str, endpoint: Callable[..., ScriptedEndpoint]) -> None:
    fault, reason = TRANSPORT_FAULTS[name]
    server = endpoint(faults_then_success(fault))
    model = client(server.url)
    retries: list[str] = []
    model.on_retry = lambda attempt, why, delay: retries.append(why)
    raw = await model.complete(MESSAGES, [])
    assert raw.tool_calls and raw.tool_calls[0][1] == "all_finished"
    assert len(server.requests) == 2
    assert len(retries) == 1 and reason in retries[0], retries


async def test_when_retries_run_out_the_reason_is_clear(endpoint: Callable[..., ScriptedEndpoint]) -> None:
    server = endpoint(lambda messages, tools: Fault(200, body=CUT))
    with pytest.raises(ModelUnreachableError, match="not a complete chat completion") as caught:
        await client(server.url, max_retries=2).complete(MESSAGES, [])
    assert "after 3 attempt(s)" in str(caught.value) and len(server.requests) == 3


async def test_a_connection_refused_says_so() -> None:
    with pytest.raises(ModelUnreachableError, match=r"connection failed \(connection refused\)"):
        await client("http://127.0.0.1:9/v1", max_retries=0).complete(MESSAGES, [])


@pytest.mark.slow
def test_the_cli_run_survives_a_cut_body(tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    ws = tmp_path / "ws"
    server = endpoint(with_fault_at(research_script(ws), 1, Fault(200, body=CUT)))
    result = run_cli(["run", "Cut", "--workspace", str(ws), "-q"], cli_env(server.url))
    assert result.code == 0, result.stderr
    assert json.loads((ws / ".runtime" / "run.json").read_text())["status"] == "finished"
    events = [json.loads(line) for line in (ws / ".runtime" / "events.jsonl").read_text().splitlines()]
    retries = [e for e in events if e["event"] == "model_retry"]
    assert len(retries) == 1 and "not a complete chat completion" in retries[0]["reason"]


@pytest.mark.slow
def test_the_cli_stops_with_a_clear_error_when_every_body_is_cut(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    ws = tmp_path / "ws"
    server = endpoint(lambda messages, tools: Fault(200, body=CUT))
    env = cli_env(server.url, DEEP_RESEARCHER_MAX_RETRIES="1")
    result = run_cli(["run", "Cut", "--workspace", str(ws), "-q"], env)
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "not a complete chat completion" in result.stderr
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert meta["status"] == "error" and "not a complete chat completion" in meta["stop_reason"]
