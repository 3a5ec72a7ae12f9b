"""`deep-researcher view [FOLDER] [--port N]`: the live web view, a Starlette app served by uvicorn on
127.0.0.1 behind a token (see security.py).

The page (static/: one HTML file, its scripts (an ES module per view) and a style sheet, nothing from
the internet) asks this JSON API for what it shows; every text a run or a web page wrote comes back as HTML rendered here by
the shared safe renderer (agent_runtime.app.markdown_html: raw HTML off), or as JSON the page puts in
the DOM as text. Workspaces are named by `?ws=` (a folder name under FOLDER, or "." for FOLDER
itself), files by workspace-relative paths; both are checked in workspaces.py. A request's headers
and body are bounded before they are read (limits.py).
"""

from __future__ import annotations

import errno
import html
import posixpath
import re
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from agent_runtime.app.figure_images import FigureImages
from agent_runtime.app.markdown_html import render_markdown
from agent_runtime.app.view.control import (
    BadRequest,
    NewRun,
    RunDefaults,
    follow_up_run,
    resume_run,
    start_run,
    stop_run,
)
from agent_runtime.app.view.events import list_stream, stream
from agent_runtime.app.view.limits import MAX_CONNECTIONS, MAX_HEAD_BYTES, Limits
from agent_runtime.app.view.responses import Contained, JSONAnswer, answer, failed
from agent_runtime.app.view.security import Guard
from agent_runtime.app.view.workspaces import (
    MAX_DOCUMENT_BYTES,
    Folder,
    dashboard_text,
    list_files,
    read_text,
    sha256_text,
    snapshot,
    source_json,
    sources,
    summary,
)
from agent_runtime.app.view.workspaces import citations as report_citations
from agent_runtime.domain.layout import DASHBOARDS, NOTEBOOK, REPORT
from agent_runtime.errors import (
    ConfigError,
    DeepResearcherError,
    InvalidPathError,
    PathEscapeError,
    SandboxError,
    WorkspaceError,
)
from sandbox import atomic_write_text
from sandbox.redaction import print_unmasked

STATIC = {
    "i18n.js": "text/javascript",
    "timeline.js": "text/javascript",
    # ES modules, one per view of the page; app.js routes between them.
    "shared.js": "text/javascript",
    "runs-list.js": "text/javascript",
    "run-page.js": "text/javascript",
    "popover.js": "text/javascript",
    "new-run.js": "text/javascript",
    "steering.js": "text/javascript",
    "app.js": "text/javascript",
    "style.css": "text/css",
    "favicon.svg": "image/svg+xml",
}
EXPORT_TYPES = {
    "html": "text/html",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pdf": "application/pdf",
}
# A byte offset into the event log as the page sends it back (Last-Event-ID): ASCII digits only
# (str.isdigit would take "²", and int() refuses more than 4,300 digits), 18 at most (< 2**63).
_OFFSET = re.compile(r"[0-9]{1,18}")
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".txt")
# What a row of the list shows (the open workspace's status line gets the whole summary): a purpose
# of 10,000 characters or all the citation figures, 1,000 times over, would only slow the list; a
# finished run's accuracy and effective citations ("cited") are what runs of a batch are compared by.
LIST_FIELDS = (
    "id", "folder", "title", "status", "running", "stop_reason", "resumable", "steps", "max_steps", "tokens",
    "cost", "elapsed", "elapsed_text", "created_at", "updated_at", "has_report", "citation_note", "cited",
)  # fmt: skip


def _static(name: str) -> bytes:
    return resources.files("agent_runtime.app.view").joinpath("static", name).read_bytes()


def _refused(exc: DeepResearcherError) -> HTTPException:
    """A refused request, answered with its one-line reason: a path outside what the view shows is
    403, a missing file 404, a run in the wrong state for the request (stop a stopped run) 409."""
    if isinstance(exc, PathEscapeError | InvalidPathError):
        return HTTPException(403, str(exc))
    if isinstance(exc, SandboxError):
        return HTTPException(404, str(exc))
    return HTTPException(409 if isinstance(exc, WorkspaceError) else 500, str(exc))


async def _as_json(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return answer(exc.status_code, str(exc.detail))


def _render(relative: str, text: str, citations: str | None, images: FigureImages | None = None) -> str:
    if relative.lower().endswith(_MARKDOWN_SUFFIXES):
        return render_markdown(text, citations=citations, images=images)
    return f"<pre>{html.escape(text)}</pre>"


def _shown_path(path: Path) -> str:
    """The folder as a person reads it: ~/research rather than /home/ann/research."""
    try:
        inside = path.relative_to(Path.home()).as_posix()
    except (ValueError, RuntimeError):  # not under the home folder, or no home folder
        return str(path)
    return "~" if inside == "." else f"~/{inside}"


def _utf8_size(text: str) -> int:
    """The bytes `text` takes in UTF-8; more than any limit for text that has no UTF-8 form (a lone
    surrogate from a JSON escape)."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return sys.maxsize


def _cut_note(cut: bool) -> str:
    return '<p class="cut-note">(The file is longer: only its beginning is shown.)</p>' if cut else ""


class ViewApp:
    """The routes, bound to the served folder."""

    def __init__(self, folder: Folder, stopping: threading.Event, defaults: RunDefaults | None = None) -> None:
        self.folder = folder
        self.stopping = stopping
        self.defaults = defaults or RunDefaults()
        self.page = _static("index.html")  # no token in it: the page takes it from its URL

    def routes(self) -> list[Route]:
        return [
            Route("/", self.index),
            Route("/static/{name}", self.static),
            Route("/favicon.ico", self.favicon),
            Route("/api/workspaces", self.workspaces),
            Route("/api/workspaces/stream", self.workspaces_stream),
            Route("/api/runs", self.start, methods=["POST"]),
            Route("/api/summary", self.summary),
            Route("/api/dashboards", self.dashboards),
            Route("/api/dashboards/{name}", self.save_dashboard, methods=["POST"]),
            Route("/api/notebook", self.notebook),
            Route("/api/file", self.file),
            Route("/api/sources", self.sources),
            Route("/api/source", self.source),
            Route("/api/report", self.report),
            Route("/api/events", self.events),
            Route("/api/stop", self.stop, methods=["POST"]),
            Route("/api/resume", self.resume, methods=["POST"]),
            Route("/api/follow-up", self.follow_up, methods=["POST"]),
            Route("/api/export/{fmt}", self.export),
        ]

    def _workspace(self, request: Request) -> tuple[str, Path]:
        ws_id = request.query_params.get("ws", "")
        try:
            return ws_id, self.folder.find(ws_id)
        except WorkspaceError as exc:
            raise HTTPException(404, str(exc)) from None

    # -- the page -----------------------------------------------------------------------------
    def index(self, request: Request) -> Response:
        return Response(self.page, media_type="text/html; charset=utf-8")

    def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return answer(404, "no such file")
        return Response(_static(name), media_type=STATIC[name])

    def favicon(self, request: Request) -> Response:
        return Response(_static("favicon.svg"), media_type=STATIC["favicon.svg"])

    # -- reading ------------------------------------------------------------------------------
    def listing(self) -> dict[str, Any]:
        """The list the page shows: each row from files only when they changed (workspaces.py)."""
        found = [
            {key: row[key] for key in LIST_FIELDS}
            for row in (summary(ws_id, path, False, probe=False) for ws_id, path in self.folder.workspaces())
        ]
        # can_start: a folder of workspaces takes new ones; a workspace served alone does not.
        return {"folder": _shown_path(self.folder.root), "can_start": not self.folder.is_single(), "workspaces": found}

    def workspaces(self, request: Request) -> Response:
        return JSONAnswer(self.listing())

    async def workspaces_stream(self, request: Request) -> Response:
        return StreamingResponse(
            list_stream(self.listing, self.stopping.is_set),
            media_type="text/event-stream",
            headers={"X-Accel-Buffering": "no"},
        )

    def summary(self, request: Request) -> Response:
        ws_id, path = self._workspace(request)
        return JSONAnswer(summary(ws_id, path))

    def dashboards(self, request: Request) -> Response:
        _, path = self._workspace(request)
        try:
            shown = {}
            for name in DASHBOARDS:
                text, cut = dashboard_text(path, name)
                shown[name] = {
                    "text": text, "sha": sha256_text(text), "cut": cut,  # cut: not editable, see _write_dashboard
                    "html": _render(name, text, "sources") + _cut_note(cut),
                }  # fmt: skip
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        return JSONAnswer(shown)

    def notebook(self, request: Request) -> Response:
        _, path = self._workspace(request)
        return JSONAnswer({"files": list_files(path, NOTEBOOK)})

    def file(self, request: Request) -> Response:
        relative = request.query_params.get("path", "")
        _, path = self._workspace(request)
        try:
            text, cut = read_text(path, relative)
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        figures = FigureImages(path, posixpath.dirname(relative))  # a chapter's charts, inline
        return JSONAnswer({"path": relative, "html": _render(relative, text, "sources", figures) + _cut_note(cut)})

    def sources(self, request: Request) -> Response:
        _, path = self._workspace(request)
        return JSONAnswer({"sources": [source_json(record) for record in sources(path)]})

    def source(self, request: Request) -> Response:
        wanted = request.query_params.get("id", "").strip().upper()
        _, path = self._workspace(request)
        try:
            record = next((r for r in sources(path) if r.id == wanted), None)
            if record is None:
                return answer(404, f"no source {wanted!r} in this workspace")
            fields, body, cut = snapshot(path, record)
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        # A snapshot is a web page's text: rendered with raw HTML off, no citation marks.
        body_html = render_markdown(body) if record.snapshot else f"<p>{html.escape(body)}</p>"
        return JSONAnswer(
            {"source": source_json(record), "front_matter": fields, "html": body_html + _cut_note(cut)}
        )

    def report(self, request: Request) -> Response:
        _, path = self._workspace(request)
        try:
            text, cut = read_text(path, REPORT)
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        return JSONAnswer(
            {
                "html": render_markdown(text, citations="numbered", images=FigureImages(path)) + _cut_note(cut),
                "citations": report_citations(path, text),
            }
        )

    async def events(self, request: Request) -> Response:
        ws_id, path = self._workspace(request)
        given = request.headers.get("last-event-id") or request.query_params.get("from") or "0"
        if not _OFFSET.fullmatch(given):
            return answer(400, "the event offset (from= or Last-Event-ID) must be a byte count: up to 18 digits 0-9")
        offset = int(given)
        return StreamingResponse(
            stream(ws_id, path, offset, self.stopping.is_set),
            media_type="text/event-stream",
            headers={"X-Accel-Buffering": "no"},
        )

    # -- steering -----------------------------------------------------------------------------
    async def save_dashboard(self, request: Request) -> Response:
        name = request.path_params["name"]
        _, path = self._workspace(request)
        try:
            body: Any = await request.json()
        except ValueError:
            return answer(400, "the body must be JSON: {\"content\": \"…\", \"base\": \"<sha256>\"}")
        if name not in DASHBOARDS:
            return answer(404, f"{name!r} is not a dashboard")
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, str) or not _utf8_size(content) <= MAX_DOCUMENT_BYTES:
            # Longer, it could be saved but never shown whole, nor edited again, in the page.
            return answer(400, f"content must be text of at most {MAX_DOCUMENT_BYTES:,} bytes (UTF-8)")
        return await run_in_threadpool(self._write_dashboard, path, name, content, body.get("base"))

    @staticmethod
    def _write_dashboard(path: Path, name: str, content: str, base: object) -> Response:
        try:
            current, cut = dashboard_text(path, name)
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        if cut:  # the page had only its beginning: saving would drop the rest
            return answer(
                409,
                f"{name} is longer than {MAX_DOCUMENT_BYTES:,} bytes: the view shows only its beginning and "
                "cannot save it without losing the rest; edit it in an editor",
            )
        if isinstance(base, str) and base and base != sha256_text(current):
            # The run updated the dashboard while the person was editing: saving would silently
            # drop the agent's update. The page shows this and can save again without `base`.
            return JSONAnswer(
                {
                    "error": f"the run changed {name} while you were editing it",
                    "current": current,
                    "sha": sha256_text(current),
                },
                409,
            )
        text = content if content.endswith("\n") else content + "\n"
        try:
            atomic_write_text(path / name, text)  # os.replace: a symlink planted there is replaced
        except (OSError, DeepResearcherError) as exc:
            return answer(500, f"cannot write {name}: {exc}")
        return JSONAnswer({"saved": name, "sha": sha256_text(text)})

    def stop(self, request: Request) -> Response:
        _, path = self._workspace(request)
        try:
            pid = stop_run(path)
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        return JSONAnswer({"stopping": pid})

    def resume(self, request: Request) -> Response:
        _, path = self._workspace(request)
        try:
            pid = resume_run(path, self.defaults)
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        return JSONAnswer({"resumed": pid})

    async def start(self, request: Request) -> Response:
        """New research: {"title", "purpose"?, "language"?, "max_steps"?, "max_cost"?} makes a
        workspace in the folder and starts its run (control.start_run)."""
        try:
            body: Any = await request.json()
        except ValueError:
            return answer(400, 'the body must be JSON: {"title": "…", "purpose": "…", "max_steps": 50}')
        try:
            wanted = NewRun.from_json(body)
        except BadRequest as exc:
            return answer(400, str(exc))
        if self.folder.is_single():
            return answer(
                409,
                "this view shows one workspace; to start research from the page, run "
                "`deep-researcher view FOLDER` on the folder that holds your workspaces",
            )
        try:
            name, pid = await run_in_threadpool(start_run, self.folder.root, wanted, self.defaults)
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        return JSONAnswer({"id": name, "folder": name, "pid": pid}, 201)

    async def follow_up(self, request: Request) -> Response:
        """Follow up on a finished run: {"question": "…"} starts `deep-researcher follow-up` in a new
        workspace beside it (control.follow_up_run)."""
        _, path = self._workspace(request)
        try:
            body: Any = await request.json()
        except ValueError:
            return answer(400, 'the body must be JSON: {"question": "What changed in 2026?"}')
        if self.folder.is_single():
            return answer(
                409,
                "this view shows one workspace; to follow up from the page, run `deep-researcher view FOLDER` "
                "on the folder that holds your workspaces",
            )
        question = body.get("question") if isinstance(body, dict) else None
        try:
            name, pid = await run_in_threadpool(follow_up_run, self.folder.root, path, question, self.defaults)
        except BadRequest as exc:
            return answer(400, str(exc))
        except DeepResearcherError as exc:
            raise _refused(exc) from None
        return JSONAnswer({"id": name, "folder": name, "pid": pid}, 201)

    def export(self, request: Request) -> Response:
        fmt = request.path_params["fmt"]
        if fmt not in EXPORT_TYPES:
            return answer(404, "the formats are html, docx and pdf")
        _, path = self._workspace(request)
        if not (path / REPORT).is_file():
            return answer(409, "this run has no report yet")
        try:  # imported when asked for: the exports bring their own libraries
            from agent_runtime.app.export import export_report
        except ImportError:
            return answer(501, "this installation cannot export reports (agent_runtime.app.export is missing)")
        folder = Path(tempfile.mkdtemp(prefix="deep-researcher-export-"))
        try:
            written = export_report(path, fmt, output=folder / f"report.{fmt}")
        except DeepResearcherError as exc:  # no Chromium for a PDF, an unreadable report: one line
            shutil.rmtree(folder, ignore_errors=True)
            return answer(409, str(exc))
        except Exception:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return FileResponse(
            written, media_type=EXPORT_TYPES[fmt], filename=f"{path.name}.{fmt}",
            background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True),
        )  # fmt: skip


def create_app(
    folder: Folder, token: str, port: int, stopping: threading.Event | None = None,
    defaults: RunDefaults | None = None,
) -> ASGIApp:  # fmt: skip
    """The whole view as an ASGI app (the tests use it without a server)."""
    view = ViewApp(folder, stopping or threading.Event(), defaults)
    handlers = {HTTPException: _as_json, Exception: failed}
    page = frozenset({"/", "/favicon.ico", *(f"/static/{name}" for name in STATIC)})
    app = Starlette(routes=view.routes(), exception_handlers=handlers)
    # Limits behind the Guard: only a request with the token has its body read.
    return Guard(Limits(Contained(app)), token, port, page)


def _listen(port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port {port} is not a port (0 to 65535; 0 picks a free one)")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # restart at once on the same port
    # Inherited by each accepted connection: uvicorn writes a response's head and body apart, and
    # with Nagle's algorithm the body then waits for the browser's delayed ACK (40 ms a request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {port} on 127.0.0.1 is in use (another view?); choose another with --port N, "
                "or --port 0 for a free one"
            ) from None
        raise ConfigError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}; try --port 0") from None
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, stopped by Ctrl-C or SIGTERM without re-raising the signal afterwards
    (uvicorn does, which would end the command in a KeyboardInterrupt): the view's end is normal."""

    def __init__(self, config: uvicorn.Config, stopping: threading.Event) -> None:
        super().__init__(config)
        self.stopping = stopping

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.stopping.set()  # the event streams end, so no open connection holds the shutdown
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True  # a second Ctrl-C: stop now
        self.should_exit = True


def serve(folder: Path, port: int = 8765, defaults: RunDefaults | None = None) -> int:
    """Serve the view until Ctrl-C; prints the page's URL with its token. `defaults`: the `run`
    flags for research started from the page."""
    served = Folder(folder)
    sock = _listen(port)
    real_port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    stopping = threading.Event()
    config = uvicorn.Config(
        create_app(served, token, real_port, stopping, defaults), log_level="warning", access_log=False,
        lifespan="off", ws="none", server_header=False, timeout_graceful_shutdown=3,
        # h11 by name: its bound on a request's head holds even where httptools is installed.
        http="h11", h11_max_incomplete_event_size=MAX_HEAD_BYTES, limit_concurrency=MAX_CONNECTIONS,
    )  # fmt: skip
    count = len(served.workspaces())
    print(f"Live view of {served.root} ({count} workspace{'s' if count != 1 else ''} now); open:\n", flush=True)
    print_unmasked(f"    http://127.0.0.1:{real_port}/?token={token}\n\n")
    print(
        "Only this machine can connect, with the token in that URL. Ctrl-C stops the view (not the runs).",
        flush=True,
    )
    try:
        _Server(config, stopping).run(sockets=[sock])
    finally:
        sock.close()
    print("The live view has stopped.", flush=True)
    return 0
