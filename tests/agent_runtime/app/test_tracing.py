"""OpenTelemetry traces of a run, read back from a real OTLP/HTTP receiver on 127.0.0.1.

The real CLI runs against the scripted model served as an OpenAI-compatible endpoint, with the
standard OTEL_* variables set; the receiver (tests/support/otlp_receiver.py) decodes what the SDK sent with
the official `opentelemetry-proto` classes. Nothing of the SDK is mocked.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.engine.run_record import read_events
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.check_cli import calls_tools
from tests.support.cli import cli_env, run_cli
from tests.support.otlp_receiver import OtlpReceiver
from tests.support.traced_runs import (
    COLLECTOR_KEY,
    KEY,
    MODEL,
    PAGE_FACT,
    TITLE,
    by_name,
    has_root,
    research_script,
    root_of,
    run_research,
    traced_env,
)

pytestmark = pytest.mark.slow  # real CLI processes and a receiver (docs/testing.md: the quick loop leaves them out)

@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    # The page holds the run's key too, as a page may hold anything: it must never be sent as it is.
    (root / "zorblat.md").write_text(
        f"# Zorblat reactor\n\n{PAGE_FACT} The operators' test token was {KEY}.\n", "utf-8"
    )
    (root / "ulm.md").write_text("# Ulm\n\nUlm is a city on the Danube with a reactor test site.\n", "utf-8")
    return root


def test_a_run_is_one_trace_with_a_span_per_model_call_and_per_action(tmp_path: Path, corpus: Path) -> None:
    with OtlpReceiver() as receiver:
        result, endpoint = run_research(
            tmp_path, corpus,
            {"OTEL_SERVICE_NAME": "team-research", "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=ci"},
            receiver,
        )  # fmt: skip
        assert result.code == 0, result.stderr + result.stdout
        spans = receiver.wait_for(has_root)
        raw = receiver.raw()
        headers = receiver.received.headers

    root = root_of(spans)
    assert {s.trace_id for s in spans} == {root.trace_id}  # one trace
    assert root.parent_id == ""
    attributes = root.attributes
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["deep_researcher.title"] == TITLE
    assert attributes["deep_researcher.workspace"] == "ws"
    assert attributes["deep_researcher.tool_mode"] in ("native", "json")
    assert attributes["deep_researcher.outcome"] == "finished"
    assert attributes["gen_ai.conversation.id"] == attributes["deep_researcher.run.id"]
    assert root.resource["service.name"] == "team-research"  # the SDK's own variables hold
    assert root.resource["deployment.environment"] == "ci"
    assert all(h.get("authorization") == f"Bearer {COLLECTOR_KEY}" for h in headers)  # the collector's key went as a header

    # A model-call span for each request the endpoint answered, with the GenAI attributes.
    chats = by_name(spans, "chat ")
    assert len(chats) == len(endpoint.requests) >= 6
    for chat in chats:
        a = chat.attributes
        assert chat.name == f"chat {MODEL}" and chat.kind == 3  # CLIENT
        assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.request.model"] == MODEL
        assert a["gen_ai.response.model"] == MODEL
        assert a["gen_ai.usage.input_tokens"] > 0 and a["gen_ai.usage.output_tokens"] > 0
        assert a["gen_ai.response.finish_reasons"] in (["tool_calls"], ["stop"])
        assert a["server.address"] == "127.0.0.1"
        assert "gen_ai.input.messages" not in a and "gen_ai.output.messages" not in a
    assert {c.attributes["gen_ai.agent.name"] for c in chats} == {"main", "file", "citation_judge"}

    # An action span for each action run, as the event log counts them.
    events = list(read_events(tmp_path / "ws" / ".runtime" / "events.jsonl"))
    actions = [e["action"] for e in events if e.get("event") == "action"]
    tools = by_name(spans, "execute_tool ")
    assert sorted(t.attributes["gen_ai.tool.name"] for t in tools) == sorted(actions)
    assert all(t.name == f"execute_tool {t.attributes['gen_ai.tool.name']}" for t in tools)
    assert all(t.attributes["deep_researcher.tool.outcome"] == "ok" for t in tools)
    main_tools = [t for t in tools if t.attributes["gen_ai.agent.name"] == "main"]
    assert all(t.parent_id == root.span_id for t in main_tools)
    searches = by_name(spans, "execute_tool web_search")
    assert len(searches) == 2 and {s.parent_id for s in searches} == {root.span_id}  # siblings

    # The File agent's work nests under the action that started it.
    (operation,) = by_name(spans, "execute_tool file_operation")
    nested = [s for s in spans if s.parent_id == operation.span_id]
    assert {s.name for s in nested} == {f"chat {MODEL}", "execute_tool write_attached", "execute_tool finish"}
    assert all(s.attributes["gen_ai.agent.name"] == "file" for s in nested)

    # Finalization, with its figures.
    (check,) = by_name(spans, "citation_check")
    (assembly,) = by_name(spans, "assemble_report")
    (finish,) = by_name(spans, "execute_tool all_finished")
    assert check.parent_id == assembly.parent_id == finish.span_id
    assert check.attributes["deep_researcher.citations.pairs"] == 1
    assert check.attributes["deep_researcher.citations.checked_by"] == "model"
    (judge,) = [s for s in chats if s.attributes["gen_ai.agent.name"] == "citation_judge"]
    assert judge.parent_id == check.span_id
    assert assembly.attributes["deep_researcher.citations.checked"] == 1
    assert assembly.attributes["deep_researcher.citations.supported"] == 1
    assert assembly.attributes["deep_researcher.citations.citation_accuracy"] == 1.0
    assert root.attributes["deep_researcher.citation_accuracy"] == 1.0

    # Nothing secret, no page text.
    assert KEY.encode() not in raw and KEY[-8:].encode() not in raw
    assert COLLECTOR_KEY.encode() not in raw
    assert b"Zorblat reactor in Ulm" not in raw and b"41 days" not in raw


def test_with_content_capture_the_messages_arrive_redacted(tmp_path: Path, corpus: Path) -> None:
    with OtlpReceiver() as receiver:
        result, _ = run_research(
            tmp_path, corpus, {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}, receiver
        )
        assert result.code == 0, result.stderr + result.stdout
        spans = receiver.wait_for(has_root)
        raw = receiver.raw()

    chats = by_name(spans, "chat ")
    first = json.loads(chats[0].attributes["gen_ai.input.messages"])
    assert first[0]["role"] == "system" and first[0]["parts"][0]["type"] == "text"
    inputs = " ".join(c.attributes["gen_ai.input.messages"] for c in chats)
    assert PAGE_FACT in inputs  # the visited page, as the model saw it
    assert TITLE in inputs
    outputs = [json.loads(c.attributes["gen_ai.output.messages"]) for c in chats]
    assert any(part["type"] == "tool_call" and part["name"] == "visit_url" for out in outputs for part in out[0]["parts"])
    (visit,) = by_name(spans, "execute_tool visit_url")
    assert PAGE_FACT in visit.attributes["gen_ai.tool.call.result"]
    assert "url" in json.loads(visit.attributes["gen_ai.tool.call.arguments"])
    # The key on the page went through the redaction: masked, never whole.
    assert KEY.encode() not in raw
    assert "sk-…" in inputs


def test_a_resume_is_a_new_trace_linked_to_the_first(tmp_path: Path, corpus: Path) -> None:
    workspace = tmp_path / "ws"
    with OtlpReceiver() as receiver, ScriptedEndpoint(research_script(workspace)) as endpoint:
        env = traced_env(endpoint, receiver.url)
        stopped = run_cli(
            ["run", TITLE, "--workspace", str(workspace), "--search", "local", "--corpus", str(corpus),
             "--max-steps", "2", "-q"], env, cwd=tmp_path,
        )  # fmt: skip
        assert stopped.code == 3, stopped.stderr  # a budget stop: its spans are flushed too
        first = root_of(receiver.wait_for(has_root))
        assert first.attributes["deep_researcher.outcome"] == "stopped"
        resumed = run_cli(["resume", str(workspace), "--max-steps", "10", "-q"], env, cwd=tmp_path)
        assert resumed.code == 0, resumed.stderr
        spans = receiver.wait_for(lambda s: len(by_name(s, "invoke_agent")) == 2)

    roots = by_name(spans, "invoke_agent")
    second = next(r for r in roots if r.span_id != first.span_id)
    assert second.trace_id != first.trace_id
    assert second.attributes["deep_researcher.run.id"] == first.attributes["deep_researcher.run.id"]
    assert second.attributes["deep_researcher.resumes"] == 1
    assert [(t, s) for t, s, _ in second.links] == [(first.trace_id, first.span_id)]
    assert second.attributes["deep_researcher.outcome"] == "finished"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_collector_that_is_down_costs_one_warning_and_nothing_else(tmp_path: Path, corpus: Path) -> None:
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    workspace = tmp_path / "ws"
    with ScriptedEndpoint(research_script(workspace)) as endpoint:
        result = run_cli(
            ["run", TITLE, "--workspace", str(workspace), "--search", "local", "--corpus", str(corpus),
             "--max-steps", "10", "-q"], traced_env(endpoint, down), cwd=tmp_path,
        )  # fmt: skip
    assert result.code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "traces" in line]
    assert len(warnings) == 1, result.stderr
    assert f"traces could not be sent to {down}/v1/traces" in warnings[0]
    assert "Traceback" not in result.stderr and "Failed to export" not in result.stderr
    assert (workspace / "report.md").is_file()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_signal_ends_the_run_resumably_and_its_spans_still_arrive(
    stop: signal.Signals, tmp_path: Path, corpus: Path
) -> None:
    workspace = tmp_path / "ws"
    reached, release = threading.Event(), threading.Event()
    inner = research_script(workspace)
    served = {"n": 0}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        served["n"] += 1
        if served["n"] == 3:  # held while the test stops the run
            reached.set()
            release.wait(30)
        return inner(messages, tools)

    with OtlpReceiver() as receiver, ScriptedEndpoint(script) as endpoint:
        process = subprocess.Popen(
            [sys.executable, "-m", "agent_runtime.app.cli", "run", TITLE, "--workspace", str(workspace),
             "--search", "local", "--corpus", str(corpus), "-q"],
            env=traced_env(endpoint, receiver.url), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
        )  # fmt: skip
        try:
            assert reached.wait(60), "the run never reached its third model call"
            process.send_signal(stop)
            _, err = process.communicate(timeout=60)
        finally:
            release.set()
        assert process.returncode == 130, err.decode()
        spans = receiver.wait_for(has_root)

    root = root_of(spans)
    assert root.attributes["deep_researcher.outcome"] == "interrupted"
    assert len(by_name(spans, "execute_tool web_search")) == 2  # the work before the signal
    assert all(s.trace_id == root.trace_id for s in spans)


def test_each_run_of_a_batch_is_its_own_trace_with_the_batch_id(tmp_path: Path, corpus: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "\n".join(json.dumps({"id": f"t{n}", "prompt": f"Zorblat question {n}"}) for n in (1, 2)) + "\n", "utf-8"
    )

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        title = re.search(r"Zorblat question \d", str(messages[1]["content"]) + str(messages[0]["content"]))
        assert title is not None
        return reply(call("all_finished", result="nothing found", report_path="missing.md"))

    with OtlpReceiver() as receiver, ScriptedEndpoint(script) as endpoint:
        env = traced_env(endpoint, receiver.url)
        done = run_cli(
            ["batch", str(tasks), "--out", str(tmp_path / "out"), "--jobs", "2", "--max-steps", "1",
             "--search", "local", "--corpus", str(corpus), "-q"], env, cwd=tmp_path, timeout=180,
        )  # fmt: skip
        assert done.code in (0, 3), done.stderr
        spans = receiver.wait_for(lambda s: len(by_name(s, "invoke_agent")) == 2)

    roots = by_name(spans, "invoke_agent")
    assert len(roots) == 2 and roots[0].trace_id != roots[1].trace_id
    assert roots[0].attributes["deep_researcher.batch.id"] == roots[1].attributes["deep_researcher.batch.id"]
    assert {r.attributes["deep_researcher.batch.task"] for r in roots} == {"t1", "t2"}


# -- without the extra or the variable --------------------------------------------------------------------
PROBE = """
import json, sys
from agent_runtime.app.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "otel": sorted(m for m in sys.modules if m.startswith("opentelemetry"))}), file=sys.stderr)
"""


def probe(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], report["otel"], done.stdout + done.stderr


def test_without_the_variable_a_run_imports_no_opentelemetry(tmp_path: Path, corpus: Path) -> None:
    with ScriptedEndpoint(research_script(tmp_path / "ws")) as endpoint:
        env = traced_env(endpoint, "unused")
        del env["OTEL_EXPORTER_OTLP_ENDPOINT"]
        code, modules, output = probe(
            ["run", TITLE, "--workspace", str(tmp_path / "ws"), "--search", "local", "--corpus", str(corpus), "-q"],
            env, tmp_path,
        )  # fmt: skip
    assert code == 0, output
    assert modules == []


def test_help_imports_no_opentelemetry_even_with_the_variable(tmp_path: Path) -> None:
    env = cli_env(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4318")
    code, modules, _ = probe(["run", "--help"], env, tmp_path)
    assert code == 0 and modules == []


@pytest.fixture
def without_the_extra(tmp_path: Path) -> Path:
    """A folder that, first on PYTHONPATH, hides the installed OpenTelemetry packages: an empty
    `opentelemetry` package, as on a machine where the extra was not installed."""
    shadow = tmp_path / "shadow"
    (shadow / "opentelemetry").mkdir(parents=True)
    (shadow / "opentelemetry" / "__init__.py").write_text("", "utf-8")
    return shadow


def test_check_says_where_traces_go_with_the_credentials_masked(tmp_path: Path) -> None:
    with OtlpReceiver() as receiver, ScriptedEndpoint(calls_tools) as endpoint:
        with_password = receiver.url.replace("http://", "http://team:hunter2hunter2@")
        env = cli_env(endpoint.url, OTEL_EXPORTER_OTLP_ENDPOINT=with_password, OTEL_EXPORTER_OTLP_HEADERS="x-api-key=abc")
        result = run_cli(["check", "--offline", "--search", "local", "--corpus", str(tmp_path)], env, cwd=tmp_path)
    line = next(line for line in result.stdout.splitlines() if " traces " in f" {line} ")
    assert line.startswith("ok"), result.stdout
    assert f"http://team:***@127.0.0.1:{receiver.port}/v1/traces" in line and "x-api-key" in line
    assert "hunter2" not in result.stdout + result.stderr and "abc" not in line.split("header")[-1]


def test_check_and_run_without_the_extra_say_how_to_install_it(
    tmp_path: Path, corpus: Path, without_the_extra: Path
) -> None:
    repo = Path(__file__).resolve().parents[3]
    with ScriptedEndpoint(research_script(tmp_path / "ws")) as endpoint:
        env = traced_env(endpoint, "http://127.0.0.1:4318", PYTHONPATH=f"{without_the_extra}:{repo}")
        check = run_cli(["check", "--offline", "--search", "local", "--corpus", str(corpus)], env, cwd=tmp_path)
        run = run_cli(
            ["run", TITLE, "--workspace", str(tmp_path / "ws"), "--search", "local", "--corpus", str(corpus), "-q"],
            env, cwd=tmp_path,
        )  # fmt: skip
    line = next(line for line in check.stdout.splitlines() if line.split()[1:2] == ["traces"])
    assert line.startswith("warn") and "pip install 'deep-researcher[otel]'" in line
    assert run.code == 0, run.stderr
    assert run.stderr.count("pip install 'deep-researcher[otel]'") == 1


# -- the variables, as the SDK defines them ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, None),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, "http://collector:4318/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "https://cloud.langfuse.com/api/public/otel/"},
         "https://cloud.langfuse.com/api/public/otel/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:6006/v1/traces"},
         "http://b:6006/v1/traces"),  # the signal's own variable wins, taken as it is
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_SDK_DISABLED": "true"}, None),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_TRACES_EXPORTER": "none"}, None),
    ],
)  # fmt: skip
def test_the_endpoint_is_resolved_as_the_sdk_does(env: dict[str, str], url: str | None) -> None:
    from agent_runtime.app.tracing import traces_endpoint

    assert traces_endpoint(env) == url


def test_check_names_what_is_off_and_refuses_grpc() -> None:
    from agent_runtime.app.tracing import describe

    assert describe({}) == ("note", describe({})[1]) and "OTEL_EXPORTER_OTLP_ENDPOINT is not set" in describe({})[1]
    verdict, text = describe({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    assert verdict == "warn" and "gRPC is not supported" in text and "http/protobuf" in text
    verdict, text = describe({"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{free_port()}"})
    assert verdict == "warn" and "nothing answers there" in text


def test_batch_attributes_survive_the_trip_through_the_environment() -> None:
    from agent_runtime.app.tracing import (
        ATTRIBUTES_VARIABLE,
        _env_attributes,
        attributes,
        run_attributes,
        trace_attributes,
    )

    value = trace_attributes(batch_id="b1", task_id="任务,1=x", out="/data/runs, 2026")
    assert _env_attributes({ATTRIBUTES_VARIABLE: value}) == {
        "deep_researcher.batch.id": "b1", "deep_researcher.batch.task": "任务,1=x",
        "deep_researcher.batch.out": "/data/runs, 2026",
    }  # fmt: skip
    with attributes(deep_researcher__request__id="req-7"):  # how a served request names its run
        assert run_attributes.get() == {"deep_researcher.request.id": "req-7"}
    assert run_attributes.get() is None
