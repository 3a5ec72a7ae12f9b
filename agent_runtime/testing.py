"""Test doubles, shipped so that anyone can exercise the runtime without a model API.

- `ScriptedModel(script)`: a model that is a function of (messages, tools) → `Reply`, in-process.
- `ScriptedEndpoint(script)`: the same function served as a real OpenAI-compatible HTTP endpoint
  on 127.0.0.1 (`/v1/chat/completions` with tool calls, `/v1/models`), so tests drive the real
  CLI process through the real `openai` client. A script may also answer with a `Fault`
  (an HTTP error status, a hang past the client's timeout, a body cut short, an HTML page, a
  connection reset) to exercise the retries. Given a `context_window`, it refuses every longer
  request (by `count_tokens`) with the HTTP 400 a real server sends (`overflow_style`). Given
  `refuses`, it answers requests carrying those parameters (`tool_choice`, `response_format`)
  with the 400 of a server that does not support them; a script with a third parameter sees the
  request body, to behave as a server that honours them.

    with ScriptedEndpoint(lambda messages, tools: reply(call("all_finished", result="…", report_path="r.md"))) as ep:
        subprocess.run(["deep-researcher", "run", "T"], env={**os.environ, "OPENAI_BASE_URL": ep.url, ...})

`python -m agent_runtime.testing [--script package.module:function]` serves a script from the shell
(by default `demo_script`, a whole research in three steps) and prints its OPENAI_BASE_URL.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import importlib
import inspect
import json
import re
import socket
import struct
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agent_runtime.config import Settings
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.commands import command
from agent_runtime.engine.messages import Message, ToolSchema
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.replies import RawReply
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import EventLog, RunMeta


@dataclass
class Reply:
    """What the scripted model says: text, tool calls in the wire format, optional usage figures
    and finish reason (by default "tool_calls" or "stop", as a server says)."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None

    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


@dataclass
class Fault:
    """Answer with an HTTP error (`status`), or stay silent for `hang` seconds first.

    What real servers and proxies also do: `body` sends that text as the whole body instead of a
    JSON error (`Fault(200, body='{"id": "x", "choices": [')` is a completion cut short,
    `Fault(200, body="<html>…", content_type="text/html")` a proxy's page); `missing_bytes`
    announces that many more bytes in Content-Length than are sent, then closes the connection
    (a body cut in transfer); `reset` drops the connection with a TCP reset instead of answering."""

    status: int = 500
    message: str = "scripted fault"
    retry_after: float | None = None
    hang: float = 0.0
    body: str | None = None
    content_type: str = "application/json"
    missing_bytes: int = 0
    reset: bool = False


@dataclass
class Response:
    """One HTTP answer of the endpoint, as the handler sends it."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    hang: float = 0.0
    missing_bytes: int = 0
    reset: bool = False

    @classmethod
    def json(cls, status: int, payload: Any, **options: Any) -> Response:
        return cls(status, json.dumps(payload).encode(), **options)

    @classmethod
    def of_fault(cls, fault: Fault) -> Response:
        headers = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
        if fault.body is not None:
            body = fault.body.encode()
        else:
            error = {"error": {"message": fault.message, "type": "scripted_fault", "code": fault.status}}
            body = json.dumps(error).encode()
        return cls(
            fault.status, body, fault.content_type, headers, fault.hang, fault.missing_bytes, fault.reset
        )


# A script answers (messages, tools); one that takes a third parameter also gets the whole request
# body, to answer as a server that honours `tool_choice` or `response_format` does.
Script = Callable[..., "Reply | Fault | Awaitable[Reply | Fault]"]


def call(name: str, /, **arguments: Any) -> dict[str, Any]:
    """A tool call in the OpenAI wire format."""
    return raw_call(name, json.dumps(arguments, ensure_ascii=False))


def raw_call(name: str, arguments: str) -> dict[str, Any]:
    """A tool call whose arguments text is sent as is (to test malformed JSON)."""
    return {
        "id": "call_" + uuid.uuid4().hex[:10],
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def reply(*calls: dict[str, Any], content: str | None = None) -> Reply:
    return Reply(content=content, tool_calls=list(calls))


def capped(reply: Reply, max_tokens: int) -> Reply:
    """The reply as a server with an output cap sends it: generation stops after `max_tokens`
    (four characters a token here), mid-word or mid-JSON, with finish_reason "length"."""
    budget = max_tokens * 4
    content = reply.content or ""
    if len(content) > budget:
        return dataclasses.replace(
            reply,
            content=content[:budget],
            tool_calls=[],
            finish_reason="length",
            completion_tokens=max_tokens,
        )
    budget -= len(content)
    calls: list[dict[str, Any]] = []
    for tool_call in reply.tool_calls:
        arguments = str(tool_call["function"]["arguments"])
        if len(arguments) > budget:
            cut = {**tool_call, "function": {**tool_call["function"], "arguments": arguments[:budget]}}
            return dataclasses.replace(
                reply, tool_calls=[*calls, cut], finish_reason="length", completion_tokens=max_tokens
            )
        budget -= len(arguments)
        calls.append(tool_call)
    return reply


def reply_tokens(reply: Reply) -> int:
    """The double's count of what a reply generated: four characters a token, text and calls."""
    generated = (reply.content or "") + "".join(
        str(c["function"]["name"]) + str(c["function"]["arguments"]) for c in reply.tool_calls
    )
    return max(1, len(generated) // 4)


def count_tokens(messages: Sequence[Message], tools: Sequence[ToolSchema] = ()) -> int:
    """The double's own token count: four characters of the request's JSON a token."""
    return (
        len(json.dumps(list(messages), ensure_ascii=False)) + len(json.dumps(list(tools), ensure_ascii=False))
    ) // 4


# How real servers refuse a request longer than their window (HTTP 400), from their sources:
# OpenAI (and DeepSeek, OpenRouter alike); vLLM's current and its 0.x wording; llama.cpp's server
# with the figures in the error object, and its older wording without them.
OVERFLOW_STYLES = ("openai", "vllm", "vllm-v0", "llama.cpp", "llama.cpp-old")


def context_overflow_body(style: str, window: int, tokens: int, completion: int = 16) -> dict[str, Any]:
    """The body `style`'s server sends for a request of `tokens` tokens (and `completion` asked for
    the reply) over a `window`."""
    if style == "openai":
        return {
            "error": {
                "message": f"This model's maximum context length is {window} tokens. However, your messages "
                f"resulted in {tokens} tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        }
    if style == "vllm":
        message = (
            f"This model's maximum context length is {window} tokens. However, your request has {tokens} "
            "input tokens. Please reduce the length of the input messages."
        )
        return {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}
    if style == "vllm-v0":  # no "error" wrapper; the completion counted in
        message = (
            f"This model's maximum context length is {window} tokens. However, you requested {tokens + completion} "
            f"tokens ({tokens} in the messages, {completion} in the completion). Please reduce the length of the "
            "messages or completion."
        )
        return {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}
    if style == "llama.cpp":
        message = f"request ({tokens} tokens) exceeds the available context size ({window} tokens), try increasing it"
        error = {"code": 400, "message": message, "type": "exceed_context_size_error"}
        return {"error": {**error, "n_prompt_tokens": tokens, "n_ctx": window}}
    if style == "llama.cpp-old":
        message = "the request exceeds the available context size, try increasing it"
        return {"error": {"code": 400, "message": message, "type": "invalid_request_error"}}
    raise ValueError(f"unknown overflow style {style!r}; one of {', '.join(OVERFLOW_STYLES)}")


def _wants_request(script: Script) -> bool:
    try:
        parameters = inspect.signature(script).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.kind == p.VAR_POSITIONAL for p in parameters)


async def _answer(
    script: Script, messages: list[Message], tools: list[ToolSchema], request: dict[str, Any]
) -> Reply | Fault:
    answer = script(messages, tools, request) if _wants_request(script) else script(messages, tools)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


class ScriptedModel:
    """An in-process model whose replies a function decides (faults are an HTTP matter: see
    ScriptedEndpoint). Records every request it was sent."""

    def __init__(self, script: Script, name: str = "scripted") -> None:
        self.script = script
        self.name = name
        self.requests: list[tuple[list[Message], list[ToolSchema]]] = []
        self.reply_schemas: list[dict[str, Any] | None] = []  # the json-mode schema of each request

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSchema],
        *,
        reply_schema: dict[str, Any] | None = None,
        max_output_tokens: int | None = None,
    ) -> RawReply:
        messages_copy = json.loads(json.dumps(list(messages)))
        tools_copy = json.loads(json.dumps(list(tools)))
        self.requests.append((messages_copy, tools_copy))
        self.reply_schemas.append(reply_schema)
        request = {
            "messages": messages_copy, "tools": tools_copy, "reply_schema": reply_schema,
            "max_tokens": max_output_tokens,
        }  # fmt: skip
        answer = await _answer(self.script, messages_copy, tools_copy, request)
        if isinstance(answer, Fault):
            raise RuntimeError("ScriptedModel cannot send HTTP faults; use ScriptedEndpoint")
        if max_output_tokens is not None:  # as a server cuts a reply at the cap it was sent
            answer = capped(answer, max_output_tokens)
        return RawReply(
            content=answer.content,
            tool_calls=[
                (c["id"], c["function"]["name"], c["function"]["arguments"]) for c in answer.tool_calls
            ],
            prompt_tokens=answer.prompt_tokens
            if answer.prompt_tokens is not None
            else count_tokens(messages_copy, tools_copy),
            completion_tokens=answer.completion_tokens
            if answer.completion_tokens is not None
            else reply_tokens(answer),
            finish_reason=answer.finish(),
        )


class ScriptedEndpoint:
    """A real OpenAI-compatible HTTP server on 127.0.0.1 answering with a script.

    `requests` holds every chat-completion body received, in order (faults and refusals included)."""

    def __init__(
        self,
        script: Script,
        model: str = "scripted-model",
        *,
        context_window: int | None = None,
        overflow_style: str = "openai",
        refuses: Sequence[str] = (),
    ) -> None:
        context_overflow_body(overflow_style, 0, 0)  # an unknown style fails here, not mid-test
        self.refuses = tuple(refuses)
        self.script = script
        self.model = model
        self.context_window = context_window
        self.overflow_style = overflow_style
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="scripted-endpoint", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, body: dict[str, Any]) -> Response:
        """The HTTP answer to one chat-completion request."""
        with self._lock:
            self.requests.append(body)
        messages, tools = body.get("messages", []), body.get("tools", [])
        tokens = count_tokens(messages, tools)
        reserved = body.get("max_tokens") or body.get("max_completion_tokens") or 0
        # As vLLM and OpenAI count it: the prompt and the room asked for the reply must both fit.
        if self.context_window is not None and tokens + int(reserved) > self.context_window:
            body_of = context_overflow_body(
                self.overflow_style, self.context_window, tokens, int(reserved) or 16
            )
            return Response.json(400, body_of)
        refused = self._refused(body)
        if refused is not None:
            return Response.json(400, refused)
        result = asyncio.run(_answer(self.script, messages, tools, body))
        if isinstance(result, Fault):
            return Response.of_fault(result)
        cap = body.get("max_tokens") or body.get("max_completion_tokens")
        if isinstance(cap, int) and cap > 0:
            result = capped(result, cap)
        prompt_tokens = result.prompt_tokens if result.prompt_tokens is not None else tokens
        completion_tokens = (
            result.completion_tokens if result.completion_tokens is not None else reply_tokens(result)
        )
        message: dict[str, Any] = {"role": "assistant", "content": result.content}
        if result.tool_calls:
            message["tool_calls"] = result.tool_calls
        completion = {
            "id": "chatcmpl-" + uuid.uuid4().hex[:12],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": result.finish(),
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return Response.json(200, completion)

    def _refused(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The 400 a server without support for a parameter sends, naming it (llama.cpp's and
        vLLM's wording). `refuses` holds names ("tool_choice", "response_format") or name=value
        pairs ("tool_choice=required", "response_format=json_schema")."""
        for entry in self.refuses:
            name, _, value = entry.partition("=")
            sent = body.get(name)
            if sent is None:
                continue
            kind = sent.get("type") if isinstance(sent, dict) else sent
            if value and kind != value:
                continue
            message = f"Unsupported param: {name}" + (f" {kind!r}" if value else "")
            return {
                "error": {"code": 400, "message": message, "type": "invalid_request_error", "param": name}
            }
        return None


def _handler_for(endpoint: ScriptedEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, response: Response) -> None:
            if response.reset:  # SO_LINGER 0: close() sends a TCP reset, as a crashing proxy does
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body) + response.missing_bytes))
            for key, value in response.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(response.body)
            if response.missing_bytes:  # the rest never comes: the connection ends mid-body
                self.close_connection = True

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            self._send(Response.json(status, payload))

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [{"id": endpoint.model, "object": "model"}]})
            else:
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send_json(400, {"error": {"message": "request body is not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                response = endpoint.answer(body)
            except Exception as exc:  # a broken script shows up as a 500 the test can see
                response = Response.json(500, {"error": {"message": f"script failed: {exc!r}"}})
            if response.hang:
                time.sleep(min(response.hang, 30.0))  # bounded: the server always stops by itself
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._send(response)  # the client may have given up waiting

    return Handler


def scratch_context(root: Path, title: str = "Test research", **settings: Any) -> ActionContext:
    """A fresh workspace at `root` and a run context on it, to call actions directly (tests,
    benchmarks); the model answers nothing. Close with `await ctx.services.aclose()`."""
    workspace = ResearchWorkspace(root)
    workspace.create(title, None, settings.get("language"))
    return ActionContext(
        workspace,
        Settings(**settings),
        ScriptedModel(lambda messages, tools: reply()),
        EventLog(workspace.events_file),
        RunMeta(title=title),
        Prompts(None),
    )


_RESULT = re.compile(r"^\[(S\d+)\] (.+?) — (\S+)(?: — (.+))?$", re.M)
_TITLE = re.compile(r"^# (.+)$", re.M)
DEMO_CHAPTER = "Notebook/01_findings.md"


def demo_script(messages: list[Message], tools: list[ToolSchema]) -> Reply:
    """The scripted researcher `python -m agent_runtime.testing` serves when given no script: it
    searches for the title, writes one chapter citing the first result (in that result's own
    words), and finishes. So a whole run, report and References included, can be watched without
    a model; with `--search local --corpus DIR` it needs no network either."""
    names = {str(tool.get("function", {}).get("name")) for tool in tools}
    if "write_attached" in names:  # the File agent, writing the chapter the main agent attached
        return reply(call("write_attached", file_path=DEMO_CHAPTER), call("finish", answer=f"Wrote {DEMO_CHAPTER}."))
    if "all_finished" not in names:  # the citation judge or the summarizer: nothing to add
        return Reply(content="")
    observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
    if not observations:
        heading = _TITLE.search(str(messages[1].get("content")) if len(messages) > 1 else "")
        query = heading.group(1).strip() if heading else "research"
        return reply(call("web_search", query=query, max_results=5))
    if len(observations) == 1:
        found = _RESULT.search(observations[0])
        if found:
            source, title, _, snippet = found.groups()
            # (a local corpus file's snippet opens with its "# Title": its text is quoted, not a heading)
            text = (snippet or title).strip()
            if text.startswith("#") and snippet:
                text = text.lstrip("# ").removeprefix(title).strip() or title
            sentence = text.rstrip("….。")
            chapter = f"## Findings\n\n{sentence} [{source}].\n"
        else:
            chapter = "## Findings\n\nThe search found no source on this question.\n"
        description = f"write the attached chapter to {DEMO_CHAPTER}"
        return reply(call("file_operation", operation_description=description, content=chapter))
    return reply(call("all_finished", result="A scripted demo run.", chapters=[DEMO_CHAPTER]))


def _load_script(spec: str) -> Script:
    module_name, _, attribute = spec.partition(":")
    script: Script = getattr(importlib.import_module(module_name), attribute)
    return script


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m agent_runtime.testing",
        description="Serve a scripted model as an OpenAI-compatible endpoint on 127.0.0.1 until Ctrl-C.",
    )
    parser.add_argument(
        "--script", help="module:function taking (messages, tools) → Reply (default: a demo research: "
        "search the title, write one cited chapter, finish)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        script = _load_script(args.script) if args.script else demo_script
    except (ImportError, AttributeError, ValueError) as exc:
        parser.error(f"--script {args.script!r}: {exc} (give module:function, e.g. mypackage.scripts:research)")
    with ScriptedEndpoint(script) as endpoint:
        print(f"OPENAI_BASE_URL={endpoint.url}", flush=True)
        print(
            "Then, in another shell (Ctrl-C here stops the endpoint):\n"
            + command("run", "TITLE", "--base-url", endpoint.url, "--api-key", "test", "--search", "local", "--corpus", "DIR"),
            flush=True,
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
