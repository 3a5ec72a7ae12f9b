"""`deep-researcher serve` through the real `openai` client: a serve process started here, the
researches it runs against the scripted endpoint, and the workspaces they wrote, read back."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from agent_runtime.app.run_state import lock_state
from agent_runtime.domain.steering import parents
from agent_runtime.testing import Fault, ScriptedEndpoint, demo_script
from tests.support.cli import cli_env, run_cli
from tests.support.served import Gated, Served, files_holding, wait_for, write_corpus

pytestmark = pytest.mark.slow  # real CLI processes (docs/testing.md: the quick loop leaves them out)

MARKER = "[//]: # (deep-researcher workspace "


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


@pytest.fixture
def serve(tmp_path: Path, corpus: Path) -> Iterator[Callable[..., Served]]:
    started: list[Served] = []

    def start(endpoint_url: str, *flags: str, folder: Path | None = None, env: dict[str, str] | None = None) -> Served:
        server = Served(folder or tmp_path / "research", endpoint_url, corpus, *flags, env=env)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def client(server: Served, key: str | None = None) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=key or server.key, max_retries=0, timeout=120)


def stream_text(stream: Any) -> tuple[str, str, Any, list[Any]]:
    """(reasoning, content, usage, chunks) of a whole streamed answer."""
    reasoning, content, used, chunks = [], [], None, []
    for piece in stream:
        chunks.append(piece)
        if piece.usage is not None:
            used = piece.usage
        for choice in piece.choices:
            reasoning.append(getattr(choice.delta, "reasoning_content", None) or "")
            content.append(choice.delta.content or "")
    return "".join(reasoning), "".join(content), used, chunks


def test_a_question_answered_whole_and_streamed_in_chinese(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    server = serve(endpoint(demo_script).url)
    api = client(server)
    assert [m.id for m in api.models.list()] == ["deep-researcher"]

    whole = api.chat.completions.create(
        model="deep-researcher",
        messages=[
            {"role": "system", "content": "The reader is an energy analyst."},
            {"role": "user", "content": "Solar power efficiency"},
        ],
    )
    answer = whole.choices[0].message.content or ""
    assert answer.startswith(MARKER + "solar-power-efficiency)")
    assert "22 percent" in answer and "## References" in answer
    assert "Workspace: `solar-power-efficiency`" in answer
    assert whole.choices[0].finish_reason == "stop" and whole.usage is not None and whole.usage.prompt_tokens > 0
    run = server.run_json("solar-power-efficiency")
    assert run["title"] == "Solar power efficiency" and run["status"] == "finished"
    assert "The reader is an energy analyst." in run["purpose"]
    report = (server.folder / "solar-power-efficiency" / "report.md").read_text("utf-8")
    assert report.strip() in answer

    stream = api.chat.completions.create(
        model="deep-researcher", stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "固态电池的能量密度"}],
    )  # fmt: skip
    reasoning, content, used, chunks = stream_text(stream)
    assert "搜索：固态电池的能量密度" in reasoning and "撰写 Notebook/01_findings.md" in reasoning
    assert content.startswith(MARKER + "固态电池的能量密度)") and "400瓦时" in content
    assert "工作区：" in content and "## 参考文献" in content
    assert chunks[-1].choices == [] and used is not None and used.total_tokens > 0
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert server.run_json("固态电池的能量密度")["status"] == "finished"
    assert files_holding(server.folder, server.key) == []  # the key is in no workspace nor log


def test_the_key_is_required(serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]) -> None:
    server = serve(endpoint(demo_script).url)
    for key in ("wrong-key-0123456789", server.key[:-1]):
        with pytest.raises(openai.AuthenticationError) as refused:
            client(server, key).models.list()
        assert refused.value.status_code == 401
    bare = httpx.post(f"{server.base_url}/chat/completions", json={"model": "deep-researcher", "messages": []})
    assert bare.status_code == 401 and bare.json()["error"]["code"] == "invalid_api_key"
    assert server.workspaces() == []


def test_malformed_requests_get_openai_errors(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    server = serve(endpoint(demo_script).url)
    api = client(server)
    headers = {"Authorization": f"Bearer {server.key}", "Content-Type": "application/json"}
    not_json = httpx.post(f"{server.base_url}/chat/completions", content=b"{not json", headers=headers)
    assert not_json.status_code == 400 and set(not_json.json()["error"]) >= {"message", "type", "code"}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"model": "deep-researcher", "messages": []}, "non-empty list"),
        ({"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}]}, "not served here"),
        ({"model": "deep-researcher", "messages": [{"role": "user", "content": "x" * 1001}]}, "at most 1,000"),
    ]
    for sent, words in cases:
        with pytest.raises(openai.BadRequestError) as refused:
            api.chat.completions.create(**sent)
        assert refused.value.status_code == 400 and words in str(refused.value.message)
    missing = httpx.post(f"{server.base_url}/chat/completions", json={"model": "deep-researcher"}, headers=headers)
    assert missing.status_code == 400 and "messages" in missing.json()["error"]["message"]
    assert server.workspaces() == []  # nothing was started


def test_a_refusing_model_endpoint_is_a_502_with_its_reason(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    refusing = endpoint(lambda messages, tools: Fault(401, "Incorrect API key provided: sk-test"))
    server = serve(refusing.url)
    api = client(server)
    with pytest.raises(openai.APIStatusError) as refused:
        api.chat.completions.create(model="deep-researcher", messages=[{"role": "user", "content": "Solar power"}])
    assert refused.value.status_code == 502 and "HTTP 401" in str(refused.value.message)
    with pytest.raises(openai.APIError) as in_stream:  # the head went out at once: the error comes in the stream
        stream_text(api.chat.completions.create(
            model="deep-researcher", stream=True, messages=[{"role": "user", "content": "Wind power"}]
        ))  # fmt: skip
    assert "HTTP 401" in str(in_stream.value.message)

    nothing = serve("http://127.0.0.1:9/v1", folder=server.folder.parent / "other")  # nothing listens there
    with pytest.raises(openai.APIStatusError) as unreachable:
        stream_text(client(nothing).chat.completions.create(
            model="deep-researcher", stream=True, messages=[{"role": "user", "content": "Tides"}]
        ))  # fmt: skip
    assert unreachable.value.status_code == 502 and "cannot reach the model endpoint" in str(unreachable.value.message)
    assert nothing.workspaces() == []


def test_beyond_jobs_a_request_gets_429_and_keep_alive_lines_flow_while_the_model_works(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    script = Gated()
    server = serve(endpoint(script).url, "--jobs", "1", env={"DEEP_RESEARCHER_SERVE_KEEP_ALIVE": "0.2"})
    lines: list[str] = []
    body = {"model": "deep-researcher", "stream": True, "messages": [{"role": "user", "content": "Solar power"}]}

    def first() -> None:
        with httpx.stream(
            "POST", f"{server.base_url}/chat/completions", json=body,
            headers={"Authorization": f"Bearer {server.key}"}, timeout=120,
        ) as response:  # fmt: skip
            for line in response.iter_lines():
                lines.append(line)

    reader = threading.Thread(target=first)
    reader.start()
    try:
        assert script.waiting.wait(60)
        with pytest.raises(openai.RateLimitError) as refused:
            client(server).chat.completions.create(
                model="deep-researcher", messages=[{"role": "user", "content": "Wind power"}]
            )
        assert refused.value.status_code == 429 and refused.value.response.headers["retry-after"] == "30"
        wait_for(lambda: ": keep-alive" in lines)  # the stream says something while the model is held
    finally:
        script.gate.set()
        reader.join(60)
    assert lines[-1] == "data: [DONE]" or lines[-2] == "data: [DONE]"
    assert server.workspaces() == ["solar-power"]  # the refused request made no workspace


def test_a_disconnect_stops_the_run_resumably_and_the_next_message_resumes_it(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    script = Gated()
    server = serve(endpoint(script).url, "--jobs", "1")
    api = client(server)
    stream = api.chat.completions.create(
        model="deep-researcher", stream=True, messages=[{"role": "user", "content": "Solar power efficiency"}]
    )
    kept = ""  # what a chat app keeps of the answer it got before the connection went
    for piece in stream:
        kept += piece.choices[0].delta.content or ""
        if script.waiting.is_set():
            break
    stream.close()
    wait_for(lambda: server.run_json("solar-power-efficiency")["status"] == "interrupted")
    script.gate.set()

    again = api.chat.completions.create(
        model="deep-researcher",
        messages=[
            {"role": "user", "content": "Solar power efficiency"},
            {"role": "assistant", "content": kept},
            {"role": "user", "content": "continue"},
        ],
    )  # with --jobs 1: the stopped run's slot is free again
    answer = again.choices[0].message.content or ""
    assert answer.startswith(MARKER + "solar-power-efficiency)") and "22 percent" in answer
    run = server.run_json("solar-power-efficiency")
    assert run["status"] == "finished" and run["resumes"] == 1
    assert server.workspaces() == ["solar-power-efficiency"]  # resumed, not started again


def test_a_later_message_after_a_finished_answer_is_a_follow_up(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    server = serve(endpoint(demo_script).url)
    api = client(server)
    first = api.chat.completions.create(
        model="deep-researcher", messages=[{"role": "user", "content": "Solar power efficiency"}]
    )
    then = api.chat.completions.create(
        model="deep-researcher",
        messages=[
            {"role": "user", "content": "Solar power efficiency"},
            {"role": "assistant", "content": first.choices[0].message.content},
            {"role": "user", "content": "Solar panels in 2025"},
        ],
    )
    answer = then.choices[0].message.content or ""
    assert answer.startswith(MARKER + "solar-panels-in-2025)")
    follow = server.run_json("solar-panels-in-2025")
    assert follow["title"] == "Solar panels in 2025" and follow["status"] == "finished"
    # a follow-up (deep-researcher follow-up): it begins from the earlier report and names it
    new = server.folder / "solar-panels-in-2025"
    assert [p.name for p in parents(new)] == ["solar-power-efficiency"]
    assert (new / "earlier_report.md").read_text("utf-8") == (server.folder / "solar-power-efficiency" / "report.md").read_text("utf-8")
    assert server.run_json("solar-power-efficiency")["resumes"] == 0  # the earlier research is untouched


def test_sigterm_stops_every_run_resumably(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    script = Gated()
    server = serve(endpoint(script).url)
    chunks: list[str] = []

    def read() -> None:
        stream = client(server).chat.completions.create(
            model="deep-researcher", stream=True, messages=[{"role": "user", "content": "Solar power"}]
        )
        chunks.append(stream_text(stream)[1])

    reader = threading.Thread(target=read)
    reader.start()
    assert script.waiting.wait(60)
    assert server.stop() == 0
    reader.join(60)
    script.gate.set()
    assert server.run_json("solar-power")["status"] == "interrupted"
    assert "interrupted" in chunks[0] and "“continue”" in chunks[0]  # the stream ended saying so


def test_another_host_without_a_key_is_refused_at_start(tmp_path: Path) -> None:
    refused = run_cli(["serve", "--folder", str(tmp_path), "--host", "0.0.0.0", "--port", "0"], cli_env())
    assert refused.code == 2 and "DEEP_RESEARCHER_SERVE_KEY" in refused.stderr and "Base URL" not in refused.stdout


def test_the_help_lists_serve() -> None:
    shown = run_cli(["serve", "--help"], cli_env())
    assert shown.code == 0 and "--jobs" in shown.stdout and "--host" in shown.stdout and "--max-steps" in shown.stdout


def test_a_client_that_leaves_a_whole_answer_stops_its_run_and_the_runs_see_no_server_key(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    script = Gated()
    own_key = "my-own-serve-key-0123456789"
    server = serve(endpoint(script).url, env={"DEEP_RESEARCHER_SERVE_KEY": own_key})
    assert server.key == own_key and not any(own_key in line for line in server.printed)
    host, port = server.base_url.removeprefix("http://").removesuffix("/v1").split(":")
    body = json.dumps({"model": "deep-researcher", "messages": [{"role": "user", "content": "Solar power"}]})
    with socket.create_connection((host, int(port))) as raw:  # a client that goes away mid-answer
        raw.sendall(
            f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {own_key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode()
        )
        assert script.waiting.wait(60)
        pid = lock_state(server.folder / "solar-power").pid
        assert pid is not None
        environment = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"OPENAI_BASE_URL" in environment and own_key.encode() not in environment
    wait_for(lambda: server.run_json("solar-power")["status"] == "interrupted")
    script.gate.set()
    assert files_holding(server.folder, own_key) == []
    assert server.stop() == 0 and "not a setting" not in server.errors  # its variables are known


def test_a_budget_stop_shows_the_chapters_so_far_and_the_next_message_goes_on_with_more(
    serve: Callable[..., Served], endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    server = serve(endpoint(demo_script).url, "--max-steps", "2")
    api = client(server)
    stopped = api.chat.completions.create(
        model="deep-researcher", messages=[{"role": "user", "content": "Solar power efficiency"}]
    )
    answer = stopped.choices[0].message.content or ""
    assert stopped.choices[0].finish_reason == "length"
    assert "stopped before its report" in answer and "“continue”" in answer
    assert server.run_json("solar-power-efficiency")["status"] == "stopped"
    conversation = [{"role": "user", "content": "Solar power efficiency"}, {"role": "assistant", "content": answer}]
    budgets = []
    for _ in range(3):  # "continue" until it finishes: each resume doubles the budget that stopped it
        went_on = api.chat.completions.create(
            model="deep-researcher", messages=[*conversation, {"role": "user", "content": "continue"}]
        )
        budgets.append(server.run_json("solar-power-efficiency")["settings"]["max_steps"])
        if went_on.choices[0].finish_reason == "stop":
            break
        conversation += [{"role": "user", "content": "continue"}, {"role": "assistant", "content": went_on.choices[0].message.content}]
    assert "22 percent" in (went_on.choices[0].message.content or "")
    assert budgets[:2] == [4, 8] and server.run_json("solar-power-efficiency")["status"] == "finished"
    assert server.workspaces() == ["solar-power-efficiency"]
