"""`deep-researcher serve`: the research as an OpenAI-compatible model, a Starlette app served by
uvicorn (as the live view is), so that any chat app (Open WebUI, LibreChat, Chatbox, LobeChat) can
add it as a model called `deep-researcher`.

- `GET /v1/models` lists the model; `POST /v1/chat/completions` runs a research per request
  (jobs.py), streamed (SSE chunks: progress as `reasoning_content`, the report as `content`, the
  usage in the last chunk, a comment line while the model works) or as one answer.
- Every request needs `Authorization: Bearer KEY` (DEEP_RESEARCHER_SERVE_KEY, or a key generated and
  printed once at start); the key is never written to a file or a log. The server listens on
  127.0.0.1 unless `--host` says otherwise, and refuses another host without a key set by the person.
- Errors are OpenAI's shape (protocol.OpenAIError). A streamed answer's head goes out at once (the
  first byte in milliseconds: the run itself takes seconds to start), so a model endpoint that
  refuses the run is told in the stream as an OpenAI error event (the `openai` client raises it);
  not streamed, it is a 502 with the reason. Nothing listening at the endpoint is found before the
  run starts, and is a 502 in both.
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import json
import os
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from agent_runtime.app.run_state import EventTail
from agent_runtime.app.serve.jobs import KEY_VARIABLE, STOP_GRACE, Job, Jobs
from agent_runtime.app.serve.progress import (
    PlanWatch,
    answer_text,
    lines_for,
    marker_line,
    read_report,
    words,
)
from agent_runtime.app.serve.protocol import (
    DONE,
    KEEP_ALIVE,
    MODEL,
    Ask,
    OpenAIError,
    chunk,
    completion,
    completion_id,
    parse_request,
    sse,
    usage,
)
from agent_runtime.domain.report_record import report_record
from agent_runtime.engine.model import check_endpoint_reachable  # at start: not in the first request
from agent_runtime.engine.workspace import Workspace
from agent_runtime.errors import ConfigError, DeepResearcherError, SettingValueError
from sandbox.redaction import print_unmasked, redact, register_secrets

KEEP_ALIVE_SECONDS = 10.0  # proxies and apps drop a silent connection after 30-100 s
POLL_SECONDS = 0.25
MAX_BODY_BYTES = 8_000_000  # a long conversation with its reports; more is refused unread
MAX_HEAD_BYTES = 65_536
MAX_CONNECTIONS = 200
CONTENT_PIECE = 4_000  # characters of the report per content delta


def _answer(error: OpenAIError) -> JSONResponse:
    return JSONResponse(error.body(), error.status, headers=error.headers)


class _Auth:
    """ASGI middleware: every request but a browser's CORS preflight needs the key as a bearer token."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app = app
        self.key = key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no websockets, no lifespan
        given = b""
        for name, value in scope["headers"]:
            if name.lower() == b"authorization" and value[:7].lower() == b"bearer ":
                given = value[7:].strip()
        if not hmac.compare_digest(given, self.key):
            refusal = _answer(OpenAIError(
                401, "a valid key is needed: send the header Authorization: Bearer KEY (the key `deep-researcher "
                "serve` printed at start, or DEEP_RESEARCHER_SERVE_KEY)", code="invalid_api_key",
                headers={"WWW-Authenticate": "Bearer", "Connection": "close"},
            ))  # fmt: skip
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


class _Stream(StreamingResponse):
    """A streamed answer that stops its research when the client goes away before its end."""

    def __init__(self, body: AsyncIterator[str], job: Job, done: list[bool]) -> None:
        super().__init__(
            body, media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )  # fmt: skip
        self.job = job
        self.done = done

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if not self.done[0]:
                self.job.stop()  # resumably: the next message of the conversation resumes it


@dataclass
class _Outcome:
    content: str
    finish: str
    used: dict[str, int]
    error: OpenAIError | None = None


class ServeApp:
    def __init__(self, folder: Path, jobs: Jobs, keep_alive: float = KEEP_ALIVE_SECONDS) -> None:
        self.folder = folder
        self.jobs = jobs
        self.keep_alive = keep_alive

    def routes(self) -> list[Route]:
        return [
            Route("/v1/models", self.models),
            Route("/v1/models/{name:path}", self.model),
            Route("/v1/chat/completions", self.chat, methods=["POST"]),
        ]

    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [self._model()]})

    async def model(self, request: Request) -> Response:
        if request.path_params["name"] != MODEL:
            return _answer(OpenAIError(404, f"no model {request.path_params['name'][:100]!r}; the model is {MODEL!r}",
                                       code="model_not_found"))  # fmt: skip
        return JSONResponse(self._model())

    @staticmethod
    def _model() -> dict[str, Any]:
        return {"id": MODEL, "object": "model", "created": 0, "owned_by": "deep-researcher"}

    async def chat(self, request: Request) -> Response:
        try:
            ask = parse_request(await _json_body(request))
            await asyncio.to_thread(self._endpoint_listens)
            job = await self.jobs.begin(ask)
        except OpenAIError as error:
            return _answer(error)
        ident = completion_id()
        if ask.stream:
            done = [False]
            return _Stream(self._streamed(ask, job, ident, done), job, done)
        return await self._whole(request, ask, job, ident)

    def _endpoint_listens(self) -> None:
        """502 at once when nothing listens at the model endpoint (the run would say so only after
        its start, seconds later)."""
        try:
            check_endpoint_reachable(self.jobs.base_url, timeout=3.0)
        except DeepResearcherError as exc:
            raise OpenAIError(502, str(exc), kind="api_error", code="model_endpoint_unreachable") from None

    async def _streamed(self, ask: Ask, job: Job, ident: str, done: list[bool]) -> AsyncIterator[str]:
        w = words(ask.language)
        yield chunk(ident, {"role": "assistant", "content": marker_line(job.name)})
        yield chunk(ident, {"reasoning_content": w["begin"].format(title=ask.title, name=job.name) + "\n"})
        tail = EventTail(Workspace(job.workspace).events_file, job.offset)
        plan = PlanWatch(job.workspace, ask.language)
        ended: dict[str, Any] | None = None
        quiet_since = time.monotonic()
        while True:
            over = not job.alive()
            events, text = await asyncio.to_thread(_progress, tail, plan, ask.language)
            ended = next((e for e in reversed(events) if e.get("event") == "run_ended"), ended)
            if text:
                yield chunk(ident, {"reasoning_content": text})
                quiet_since = time.monotonic()
            if over and not tail.more:
                break
            if time.monotonic() - quiet_since >= self.keep_alive:
                yield KEEP_ALIVE
                quiet_since = time.monotonic()
            if not tail.more:
                await asyncio.sleep(POLL_SECONDS)
        outcome = await asyncio.to_thread(self._outcome, ask, job, ended)
        done[0] = True
        if outcome.error is not None:
            yield sse(outcome.error.body())
            return
        for start in range(0, len(outcome.content), CONTENT_PIECE):
            yield chunk(ident, {"content": outcome.content[start : start + CONTENT_PIECE]})
        yield chunk(ident, {}, outcome.finish, outcome.used)
        if ask.include_usage:
            yield chunk(ident, {}, used=outcome.used, empty=True)
        yield DONE

    async def _whole(self, request: Request, ask: Ask, job: Job, ident: str) -> Response:
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            while job.alive():
                if gone.done():
                    job.stop()  # resumably: the next message of the conversation resumes it
                    return Response(status_code=499)  # nobody reads it
                await asyncio.sleep(POLL_SECONDS)
        finally:
            gone.cancel()
        outcome = await asyncio.to_thread(self._outcome, ask, job, _run_ended(job))
        if outcome.error is not None:
            return _answer(outcome.error)
        content = marker_line(job.name) + outcome.content
        return JSONResponse(completion(ident, content, outcome.finish, outcome.used))

    def _outcome(self, ask: Ask, job: Job, ended: dict[str, Any] | None) -> _Outcome:
        """The answer once the run has ended: from its run_ended event and its files."""
        if ended is None:  # the child ended before a run started: a usage error, an unreachable endpoint
            said = self.jobs.log_tail(job)
            return _Outcome("", "stop", usage(0, 0), _failure(f"the research could not start: {said}"))
        status, reason = str(ended.get("status")), ended.get("reason")
        totals = ended.get("totals") or {}
        prompt = max(0, int(totals.get("prompt_tokens", 0)) - job.before[0])
        completion_tokens = max(0, int(totals.get("completion_tokens", 0)) - job.before[1])
        used = usage(prompt, completion_tokens)
        if status == "error":
            return _Outcome("", "stop", used, _failure(str(reason or "the research failed")))
        meta = job.meta()
        report = read_report(job.workspace, report_record(meta).report_path if meta else None)
        summary = meta.summary if meta else {}
        figures = {
            "steps": int(totals.get("steps", 0)), "cited": summary.get("sources_cited") or 0,
            "seconds": float(totals.get("elapsed_seconds", 0.0)),
        }  # fmt: skip
        content = answer_text(job.name, self.folder, status, reason, report, ask.language, figures)
        return _Outcome(content, "stop" if status in ("finished", "interrupted") else "length", used)


def _progress(tail: EventTail, plan: PlanWatch, language: str) -> tuple[list[dict[str, Any]], str]:
    """The events appended since the last read, and their progress lines (a worker thread's work:
    it reads the log, and the plan when it changed)."""
    events, _ = tail.read()
    lines = [line for event in events for line in (*lines_for(event, language), *plan.lines(event))]
    return events, "".join(line + "\n" for line in lines)


def _failure(reason: str) -> OpenAIError:
    """A run that failed: 502 when the model endpoint refused or could not be reached, else 500."""
    reason = redact(reason)
    if "endpoint" in reason.lower():
        return OpenAIError(502, f"the model endpoint refused the research: {reason}", "api_error", "model_endpoint_error")
    return OpenAIError(500, f"the research failed: {reason}", "server_error", "research_failed")


def _run_ended(job: Job) -> dict[str, Any] | None:
    """The run_ended event the job's run wrote (after the job's start), if any."""
    tail = EventTail(Workspace(job.workspace).events_file, job.offset)
    ended = None
    while True:
        events, _ = tail.read()
        ended = next((e for e in reversed(events) if e.get("event") == "run_ended"), ended)
        if not tail.more:
            return ended


async def _disconnected(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _json_body(request: Request) -> object:
    """The body as JSON, read up to MAX_BODY_BYTES (a longer one is refused without reading on)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise OpenAIError(413, f"the body is over {MAX_BODY_BYTES:,} bytes", code="body_too_large")
    data = bytearray()
    async for piece in request.stream():
        data += piece
        if len(data) > MAX_BODY_BYTES:
            raise OpenAIError(413, f"the body is over {MAX_BODY_BYTES:,} bytes", code="body_too_large")
    try:
        return json.loads(bytes(data))
    except ValueError:
        raise OpenAIError(
            400, 'the body is not JSON: send {"model": "deep-researcher", "messages": [...]}', code="invalid_json"
        ) from None


async def _not_found(request: Request, exc: Exception) -> Response:
    return _answer(OpenAIError(404, f"no route {request.method} {request.url.path}; the API is under /v1",
                               code="not_found"))  # fmt: skip


async def _failed(request: Request, exc: Exception) -> Response:
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    print(redact(f"deep-researcher serve: {request.method} {request.url.path}: {reason}"), file=sys.stderr)
    return _answer(OpenAIError(500, "the server failed to answer this request (see its terminal)", "server_error"))


def create_app(folder: Path, key: str, jobs: Jobs, keep_alive: float = KEEP_ALIVE_SECONDS) -> ASGIApp:
    """The whole server as an ASGI app."""
    serve_app = ServeApp(folder, jobs, keep_alive)
    app = Starlette(
        routes=serve_app.routes(),
        exception_handlers={404: _not_found, 405: _not_found, Exception: _failed},
    )
    # Browser-based apps (LobeChat, Chatbox on the web) call from a page: CORS lets them, and the key
    # still guards every request (a preflight carries no key and gets no data).
    return CORSMiddleware(
        _Auth(app, key), allow_origins=["*"], allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type"],
    )  # fmt: skip


# -- the process ---------------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _listen(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise SettingValueError(f"--port {port} is not a port (0 to 65535; 0 picks a free one)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ConfigError(f"--host {host!r} is no address of this machine ({exc.strerror})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a chunk goes out when it is written
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"port {port} on {host} is in use; choose another with --port N, or --port 0") from None
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; try --port 0") from None
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server; Ctrl-C or SIGTERM first stops every research (resumably), whose streams then
    end with a note that the next message resumes it."""

    def __init__(self, config: uvicorn.Config, jobs: Jobs, stopping: threading.Event) -> None:
        super().__init__(config)
        self.jobs = jobs
        self.stopping = stopping

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.stopping.set()
        self.jobs.terminate_all()
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True  # a second Ctrl-C: stop now
        self.should_exit = True


def server_key(host: str) -> tuple[str, bool]:
    """The key and whether it was generated here. A generated key is refused for a host other than
    loopback: it would be the only guard of a server reachable from the network, and nobody chose it."""
    given = (os.environ.get(KEY_VARIABLE) or "").strip()
    if given:
        return given, False
    if not is_loopback(host):
        raise SettingValueError(
            f"--host {host} makes the server reachable from other machines: set its key first, e.g. "
            f"export {KEY_VARIABLE}=$(python3 -c 'import secrets; print(secrets.token_hex(24))')"
        )
    return "dr-" + secrets.token_hex(24), True


def _keep_alive() -> float:
    """DEEP_RESEARCHER_SERVE_KEEP_ALIVE: seconds of silence before a comment line keeps a stream
    open (default 10; lower it for a proxy that drops a connection idle for less)."""
    given = os.environ.get("DEEP_RESEARCHER_SERVE_KEEP_ALIVE", "").strip()
    if not given:
        return KEEP_ALIVE_SECONDS
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0.05 <= seconds <= 300:
        raise SettingValueError(f"DEEP_RESEARCHER_SERVE_KEEP_ALIVE={given!r}: give seconds from 0.05 to 300")
    return seconds


def serve_openai(
    folder: Path, host: str, port: int, jobs: int, options: list[str], api_key: str | None, base_url: str | None
) -> int:
    """Serve until Ctrl-C or SIGTERM; then stop every research resumably and return 0."""
    folder = folder.expanduser().resolve()
    if not folder.is_dir():
        raise SettingValueError(f"--folder {folder} is not a folder; create it or give another")
    if jobs < 1:
        raise SettingValueError(f"--jobs {jobs}: give at least 1 research at once")
    keep_alive = _keep_alive()
    key, generated = server_key(host)
    register_secrets([key])  # whoever prints it later, it is masked
    sock = _listen(host, port)
    real_port = sock.getsockname()[1]
    runs = Jobs(folder, jobs, [*options, "-q"], api_key=api_key, base_url=base_url)
    stopping = threading.Event()
    config = uvicorn.Config(
        create_app(folder, key, runs, keep_alive), log_level="warning", access_log=False, lifespan="off", ws="none",
        server_header=False, timeout_graceful_shutdown=int(STOP_GRACE) + 5, http="h11",
        h11_max_incomplete_event_size=MAX_HEAD_BYTES, limit_concurrency=MAX_CONNECTIONS,
    )  # fmt: skip
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    print(f"deep-researcher serve: researches in {folder}, {jobs} at once.", flush=True)
    print(f"    Base URL: http://{shown}:{real_port}/v1", flush=True)
    print(f"    Model:    {MODEL}", flush=True)
    if generated:
        print_unmasked(f"    API key:  {key}\n")
        print(f"(The key is shown only now; set {KEY_VARIABLE} to choose your own.)", flush=True)
    else:
        print(f"    API key:  the value of {KEY_VARIABLE}", flush=True)
    if not is_loopback(host):
        print(f"Reachable from other machines at port {real_port}: only with the key.", flush=True)
    print("Ctrl-C or SIGTERM stops the server; its researches stop resumably.", flush=True)
    try:
        _Server(config, runs, stopping).run(sockets=[sock])
    finally:
        sock.close()
        runs.stop_all()
    print("deep-researcher serve has stopped.", flush=True)
    return 0
