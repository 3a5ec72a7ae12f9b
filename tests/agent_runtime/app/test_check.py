"""`deep-researcher check` through the real CLI process: the scripted endpoint (a real
OpenAI-compatible server on 127.0.0.1) as a model that calls tools, one that only writes text, a
server that refuses the key, a dead port; the local corpus, a loopback SearXNG and a missing key;
Chromium present and absent."""

from __future__ import annotations

import io
import json
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, reply
from tests.support.check_cli import calls_tools, check, line
from tests.support.cli import cli_env, run_cli, write_cited_report

CHROMIUM = shutil.which("chromium")


def only_text_unless_asked_for_json(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
    if tools:  # a model whose server ignores the tool list
        return reply(content="Sure! I would report the word ready.")
    return reply(content='```json\n{"action": "report_word", "arguments": {"word": "ready"}}\n```')


def only_prose(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
    return reply(content="I am a helpful assistant.")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.md").write_text("# Notes\n\nResearch on sodium-ion cells.\n", "utf-8")
    return folder


@pytest.fixture
def json_server() -> Iterator[Callable[[int, dict[str, Any]], str]]:
    """`json_server(status, body)`: a server on 127.0.0.1 answering every request with that JSON."""
    servers: list[ThreadingHTTPServer] = []

    def start(status: int, body: dict[str, Any]) -> str:
        data = json.dumps(body).encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_a_working_setup_passes_every_check(endpoint: Any, corpus: Path, tmp_path: Path) -> None:
    server: ScriptedEndpoint = endpoint(calls_tools)
    result = check(
        server.url, "--model", "scripted-model", "--search", "local", "--corpus", str(corpus),
        "--browser-path", str(tmp_path / "no-chromium"), tmp_path=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result.stdout + result.stderr
    assert line(result, "endpoint").startswith("ok ") and "accepts the key" in line(result, "endpoint")
    assert line(result, "model").startswith("ok ") and "scripted-model is served" in line(result, "model")
    assert line(result, "tool calls").startswith("ok ") and "native tool call" in line(result, "tool calls")
    assert line(result, "search").startswith("ok ") and "local: answered (1 results" in line(result, "search")
    # Without Chromium the run still works (pages over HTTP): a note, not a failure.
    assert line(result, "browser").startswith("note ") and "--browser-path" in line(result, "browser")
    assert "Ready" in result.stdout
    # The tool-call request was a real one: the check's tool in the tool list.
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["report_word"]


@pytest.mark.slow
def test_a_model_that_only_writes_text_is_told_to_use_json_mode(
    endpoint: Any, corpus: Path, tmp_path: Path
) -> None:
    server = endpoint(only_text_unless_asked_for_json)
    flags = (
        "--model",
        "scripted-model",
        "--search",
        "local",
        "--corpus",
        str(corpus),
        "--browser-path",
        "/nonexistent",
    )
    result = check(server.url, *flags, "--tool-mode", "native", tmp_path=tmp_path)
    assert result.code == 1
    assert line(result, "tool calls").startswith("FAIL ")
    assert "use --tool-mode json" in line(result, "tool calls")
    assert "1 problem(s)" in result.stdout

    # With --tool-mode auto (the default) a run switches to json by itself: that is no problem.
    in_auto_mode = check(server.url, *flags, tmp_path=tmp_path)
    assert in_auto_mode.code == 0, in_auto_mode.stdout
    assert line(in_auto_mode, "tool calls").startswith("ok ")
    assert "start in json" in line(in_auto_mode, "tool calls")

    in_json_mode = check(server.url, *flags, "--tool-mode", "json", tmp_path=tmp_path)
    assert in_json_mode.code == 0, in_json_mode.stdout
    assert "a json tool call came back" in line(in_json_mode, "tool calls")
    # json mode describes the action in the system prompt instead of sending a tool list.
    assert "report_word" in server.requests[-1]["messages"][0]["content"]
    assert "tools" not in server.requests[-1]


@pytest.mark.slow
def test_a_model_that_never_calls_a_tool_fails_with_advice(
    endpoint: Any, corpus: Path, tmp_path: Path
) -> None:
    server = endpoint(only_prose)
    result = check(
        server.url, "--search", "local", "--corpus", str(corpus), "--browser-path", "/x", tmp_path=tmp_path
    )
    assert result.code == 1
    assert "no tool call in either mode" in line(result, "tool calls")
    # The model answered under a name the endpoint does not list: that is fine (llama.cpp does it).
    assert line(result, "model").startswith("ok ") and "gpt-4o-mini answers" in line(result, "model")


@pytest.mark.slow
def test_a_refused_key_is_named(json_server: Any, corpus: Path, tmp_path: Path) -> None:
    url = json_server(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
    result = check(
        url + "/v1", "--search", "local", "--corpus", str(corpus), "--browser-path", "/x", tmp_path=tmp_path
    )
    assert result.code == 1
    assert line(result, "endpoint").startswith("FAIL ")
    assert "key was refused" in line(result, "endpoint") and "OPENAI_API_KEY" in line(result, "endpoint")
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_dead_port_fails_in_seconds(corpus: Path, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = check(
        f"http://127.0.0.1:{port}/v1", "--search", "local", "--corpus", str(corpus), "--browser-path", "/x",
        tmp_path=tmp_path,
    )  # fmt: skip
    assert result.code == 1
    assert line(result, "endpoint").startswith("FAIL ") and "cannot reach" in line(result, "endpoint")
    assert "that the server is running" in line(result, "endpoint")
    # The other checks still ran: one command shows every problem at once.
    assert line(result, "search").startswith("ok ")


@pytest.mark.slow
def test_search_providers_each_answer_or_say_what_is_missing(
    endpoint: Any, json_server: Any, tmp_path: Path
) -> None:
    searxng = json_server(200, {"results": [{"title": "A", "url": "https://example.org/a", "content": "x"}]})
    server = endpoint(calls_tools)
    result = check(
        server.url, "--model", "scripted-model", "--search", "searxng,tavily", "--browser-path", "/x",
        tmp_path=tmp_path, SEARXNG_URL=searxng,
    )  # fmt: skip
    assert result.code == 1
    searches = [text for text in result.stdout.splitlines() if text[6:].startswith("search")]
    assert searches[0].startswith("ok ") and "searxng: answered (1 results" in searches[0]
    assert searches[1].startswith("FAIL ") and "TAVILY_API_KEY" in searches[1]


@pytest.mark.slow
def test_a_searxng_that_refuses_json_is_a_problem(endpoint: Any, json_server: Any, tmp_path: Path) -> None:
    searxng = json_server(403, {"error": "forbidden"})
    server = endpoint(calls_tools)
    result = check(
        server.url, "--model", "scripted-model", "--search", "searxng", "--browser-path", "/x",
        tmp_path=tmp_path, SEARXNG_URL=searxng,
    )  # fmt: skip
    assert result.code == 1
    assert "search.formats" in line(result, "search")


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_chromium_present_is_started(endpoint: Any, corpus: Path, tmp_path: Path) -> None:
    server = endpoint(calls_tools)
    result = check(
        server.url, "--model", "scripted-model", "--search", "local", "--corpus", str(corpus),
        "--browser-path", str(CHROMIUM), tmp_path=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result.stdout + result.stderr
    assert line(result, "browser").startswith("ok ") and "starts" in line(result, "browser")


@pytest.mark.slow
def test_a_browser_that_will_not_start_is_a_problem(endpoint: Any, corpus: Path, tmp_path: Path) -> None:
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\necho 'error while loading shared libraries: libnss3.so' >&2\nexit 127\n")
    fake.chmod(0o755)
    server = endpoint(calls_tools)
    result = check(
        server.url, "--model", "scripted-model", "--search", "local", "--corpus", str(corpus),
        "--browser-path", str(fake), tmp_path=tmp_path,
    )  # fmt: skip
    if "the [browser] extra is missing" in result.stdout:
        pytest.skip("the [browser] extra is not installed")
    assert result.code == 1
    assert line(result, "browser").startswith("FAIL ") and "did not start" in line(result, "browser")


@pytest.mark.slow
def test_offline_says_what_it_means_and_starts_no_browser(
    endpoint: Any, corpus: Path, tmp_path: Path
) -> None:
    fake = tmp_path / "chromium"  # a browser the check would run, leaving a mark, if it started one
    fake.write_text(f"#!/bin/sh\ntouch {tmp_path / 'browser-started'}\nexit 1\n")
    fake.chmod(0o755)
    server = endpoint(calls_tools)
    result = check(
        server.url, "--model", "scripted-model", "--search", "local", "--corpus", str(corpus),
        "--browser-path", str(fake), "--offline", tmp_path=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result.stdout + result.stderr
    offline = line(result, "offline")
    assert offline.startswith("ok ")
    assert f"nothing leaves this machine except the requests to the model endpoint {server.url}" in offline
    assert "browse is off" in offline and "--search local --corpus DIR" in offline
    assert line(result, "search").startswith("ok ")
    assert "browser" not in result.stdout and not (tmp_path / "browser-started").exists()


@pytest.mark.slow
def test_offline_with_a_web_search_provider_is_a_problem(endpoint: Any, tmp_path: Path) -> None:
    server = endpoint(calls_tools)
    result = check(
        server.url, "--model", "scripted-model", "--search", "duckduckgo", "--offline", tmp_path=tmp_path
    )
    assert result.code == 1
    search = line(result, "search")
    assert search.startswith("FAIL ") and "--offline allows only --search local --corpus DIR" in search


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://8.8.8.8/v1", False),
    ],
)
def test_offline_notes_an_endpoint_that_may_be_elsewhere(url: str, local: bool) -> None:
    from agent_runtime.app.check import SetupCheck
    from agent_runtime.config import Settings

    out = io.StringIO()
    SetupCheck(Settings(base_url=url, offline=True), out, env={}).check_offline()
    verdict = out.getvalue().split()[0]
    assert verdict == ("ok" if local else "note"), out.getvalue()
    if not local:
        assert "the documents' text, goes there" in out.getvalue()


@pytest.mark.slow
def test_a_run_after_check_starts_in_the_mode_check_found(
    endpoint: Any, corpus: Path, tmp_path: Path
) -> None:
    """On a CPU each wasted reply costs minutes: what check proved, the run does not learn again."""
    ws = tmp_path / "ws"
    cache = str(tmp_path / "cache")

    def json_only_researcher(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        if "report_word" in json.dumps(messages):  # check's probe
            return only_text_unless_asked_for_json(messages, tools)
        if tools:
            return reply(content="Sure! I would research this.")
        arguments = {"result": "done", "report_path": write_cited_report(ws)}
        return reply(content=json.dumps({"action": "all_finished", "arguments": arguments}))

    server = endpoint(json_only_researcher)
    flags = (
        "--model",
        "scripted-model",
        "--search",
        "local",
        "--corpus",
        str(corpus),
        "--browser-path",
        "/x",
    )
    checked = check(server.url, *flags, tmp_path=tmp_path, XDG_CACHE_HOME=cache)
    assert checked.code == 0 and "start in json" in line(checked, "tool calls")
    assert json.loads((Path(cache) / "deep-researcher" / "endpoints.json").read_text()) == {
        f"{server.url} scripted-model": {"tool_mode": "json"}
    }
    probes = len(server.requests)
    result = run_cli(
        ["run", "T", "--workspace", str(ws), "-q", "--model", "scripted-model", "--search", "local",
         "--corpus", str(corpus)],
        cli_env(server.url, XDG_CACHE_HOME=cache),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert "tools" not in server.requests[probes]  # the first request of the run is already json
    assert json.loads((ws / ".runtime" / "run.json").read_text())["tool_mode"] == "json"


@pytest.mark.slow
def test_a_server_refusing_tool_lists_passes_in_auto_mode_and_is_noted(
    endpoint: Any, corpus: Path, tmp_path: Path
) -> None:
    """llama-server without --jinja answers any tool list with a 500: json mode is what works."""
    from agent_runtime.testing import Fault

    def no_jinja(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply | Fault:
        if tools:
            return Fault(500, message="tools param requires --jinja flag")
        return only_text_unless_asked_for_json(messages, tools)

    server = endpoint(no_jinja)
    cache = tmp_path / "cache"
    flags = (
        "--model",
        "scripted-model",
        "--search",
        "local",
        "--corpus",
        str(corpus),
        "--browser-path",
        "/x",
    )
    result = check(server.url, *flags, tmp_path=tmp_path, XDG_CACHE_HOME=str(cache))
    assert result.code == 0, result.stdout
    assert "json mode works" in line(result, "tool calls")
    assert "json" in (cache / "deep-researcher" / "endpoints.json").read_text()

    native = check(server.url, *flags, "--tool-mode", "native", tmp_path=tmp_path)
    assert native.code == 1 and "takes no tool list" in line(native, "tool calls")
