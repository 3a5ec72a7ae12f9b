"""A traced research run for the OpenTelemetry tests and benchmark: a scripted research (two
searches in one reply, a visit, a chapter through the File agent), the OTEL_* environment pointing at
a receiver (tests/support/otlp_receiver.py), and readers of the spans it got."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli
from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan

KEY = "sk-test-7Hq2Lm9Xv4Rt8Wc3Np6Ks1Bd"  # looks like a real key: the redaction knows it
COLLECTOR_KEY = "lf-secret-9f8e7d6c5b4a3f2e1d0c"
PAGE_FACT = "The Zorblat reactor in Ulm ran for 41 days without a stop."
TITLE = "Zorblat 反应堆的运行记录"  # a Chinese title arrives as it was written
CHAPTER = "Notebook/01_run.md"
MODEL = "qwen2.5-7b-instruct"


def research_script(workspace: Path) -> Callable[[list[dict[str, Any]], Any], Reply]:
    """Two searches in one reply (parallel), a visit, a chapter through the File agent, the end."""

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        system = str(messages[0]["content"])
        if system.startswith("You are the File agent"):
            return reply(call("write_attached", file_path=CHAPTER), call("finish", answer="written"))
        if not tools and len(messages) == 1:  # the citation judge: it finds the sentence on the page
            verdict = {"claim": 1, "verdict": "supported", "quote": PAGE_FACT, "reason": "stated"}
            return reply(content=json.dumps({"verdicts": [verdict]}))
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query="Zorblat reactor", max_results=5), call("web_search", query="Ulm"))
        if len(observations) == 2:
            source = re.search(r"\[(S\d+)\][^\n]*zorblat", observations[0] + observations[1])
            assert source is not None, observations
            return reply(call("visit_url", url=f"[{source.group(1)}]"))
        if len(observations) == 3:
            source = re.search(r"\[(S\d+)\]", observations[2])
            assert source is not None, observations[2]
            chapter = f"## Operation\n\n{PAGE_FACT} [{source.group(1)}]\n"
            return reply(call("file_operation", operation_description=f"write the chapter to {CHAPTER}", content=chapter))
        return reply(call("all_finished", result="done", chapters=[CHAPTER]))

    return script


def traced_env(endpoint: ScriptedEndpoint, receiver_url: str, **extra: str) -> dict[str, str]:
    env = cli_env(endpoint.url, OPENAI_API_KEY=KEY, OTEL_EXPORTER_OTLP_ENDPOINT=receiver_url, DEEP_RESEARCHER_MODEL=MODEL)
    env.update(
        OTEL_EXPORTER_OTLP_HEADERS=f"Authorization=Bearer%20{COLLECTOR_KEY}",
        OTEL_BSP_SCHEDULE_DELAY="200",  # batches leave often: the test sees them while the run works
        **extra,
    )
    for name in ("OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"):
        if name not in extra:
            env.pop(name, None)
    return env


def run_research(tmp_path: Path, corpus: Path, env_extra: dict[str, str], receiver: OtlpReceiver) -> tuple[Any, ScriptedEndpoint]:
    workspace = tmp_path / "ws"
    with ScriptedEndpoint(research_script(workspace)) as endpoint:
        result = run_cli(
            ["run", TITLE, "--workspace", str(workspace), "--search", "local", "--corpus", str(corpus),
             "--max-steps", "10", "-q"],
            traced_env(endpoint, receiver.url, **env_extra), cwd=tmp_path,
        )  # fmt: skip
    return result, endpoint


def by_name(spans: list[ReceivedSpan], prefix: str) -> list[ReceivedSpan]:
    return [s for s in spans if s.name.startswith(prefix)]


def root_of(spans: list[ReceivedSpan]) -> ReceivedSpan:
    roots = by_name(spans, "invoke_agent")
    assert len(roots) == 1, [s.name for s in spans]
    return roots[0]


def has_root(spans: list[ReceivedSpan]) -> bool:
    return any(s.name.startswith("invoke_agent") for s in spans)
