"""The live view at scale: the latency of the workspace list and of one workspace's summary in a
folder of 1, 100 and 1,000 workspaces, over real HTTP (uvicorn on 127.0.0.1, one keep-alive
connection, as a browser tab has), against a bare Starlette endpoint served the same way in the
same run (the floor: what any request costs through uvicorn, the view's guard excepted).

- "list": GET /api/workspaces once the rows are kept (workspaces.py keeps what it read of a
  workspace until its files change): what a page costs in the steady state.
- "list cold": the same with every kept row and folder listing dropped before each request: what
  each request cost before (every run.json parsed, every folder scanned), and what the first
  request after the view starts costs.
- "summary": GET /api/summary for one workspace: flat, whatever the folder holds.
- "stream CPU": the CPU the list stream spends for one open page, as a share of one core: it looks
  for changes once a second, or less often when a look takes more than LIST_SHARE of that time.

The workspaces are those of finished runs (their files an hour old), each with its run.json,
dashboards and report. Medians of `--repeat` requests (p95 in brackets).

    python benchmarks/bench_scale_view.py [--sizes 1,100,1000] [--repeat 100]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from agent_runtime.app.view import workspaces
from agent_runtime.app.view.events import LIST_SECONDS, LIST_SHARE
from agent_runtime.app.view.server import ViewApp, create_app
from agent_runtime.app.view.workspaces import Folder
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.run_record import RunMeta, Totals, save_meta

TOKEN = "bench-token"
HOUR_AGO = time.time() - 3600


def make_folder(root: Path, count: int) -> Path:
    root.mkdir(parents=True)
    for n in range(count):
        path = root / f"run-{n:04d}"
        space = ResearchWorkspace(path)
        space.create(f"Research question number {n}", "a memo")
        meta = RunMeta(
            title=f"Research question number {n}", purpose="a memo", status="finished",
            settings={"max_steps": 200, "model": "some-model"},
            totals=Totals(steps=40 + n % 50, model_calls=60, prompt_tokens=400_000, completion_tokens=20_000),
        )  # fmt: skip
        save_meta(space.run_file, meta)
        (path / "report.md").write_text(f"# Research question number {n}\n\nThe answer [1].\n")
        for name in (space.run_file, path / "overall_dashboard.md", path / "report.md"):
            os.utime(name, (HOUR_AGO, HOUR_AGO))
    return root


class Served:
    """An ASGI app served by uvicorn on 127.0.0.1 in a thread of this process."""

    def __init__(self, app: Callable[[int], ASGIApp]) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as serve() does
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(
            app(self.port), log_level="warning", access_log=False, lifespan="off", http="h11"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def bare_app(port: int) -> ASGIApp:
    async def hello(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route("/", hello)])


def timed(
    client: httpx.Client, path: str, repeat: int, before: Callable[[], None] = lambda: None
) -> list[float]:
    client.get(path).raise_for_status()  # warm: the connection, the kept rows
    times = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        client.get(path).raise_for_status()
        times.append((time.perf_counter() - start) * 1000)
    return times


def shown(times: list[float]) -> str:
    p95 = sorted(times)[max(0, int(len(times) * 0.95) - 1)]
    return f"{statistics.median(times):7.2f} ms ({p95:6.2f})"


def stream_cpu(view: ViewApp, seconds: float = 2.0) -> float:
    """The share of a core the list stream's looks cost (listing() is what each look runs), paced
    as events.list_stream paces them."""
    view.listing()
    cpu, wall, runs = time.process_time(), time.perf_counter(), 0
    while time.perf_counter() < wall + seconds:
        view.listing()
        runs += 1
    per_look, look_wall = (time.process_time() - cpu) / runs, (time.perf_counter() - wall) / runs
    return per_look / max(LIST_SECONDS, look_wall / LIST_SHARE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,100,1000")
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    bare = Served(bare_app)
    rows: list[tuple[Any, ...]] = []
    with (
        tempfile.TemporaryDirectory() as scratch,
        httpx.Client(base_url=f"http://127.0.0.1:{bare.port}") as plain,
    ):
        for size in sizes:
            folder = Folder(make_folder(Path(scratch) / f"runs-{size}", size))
            view = Served(lambda port, folder=folder: create_app(folder, TOKEN, port))
            headers = {"X-Token": TOKEN}
            with httpx.Client(
                base_url=f"http://127.0.0.1:{view.port}", headers=headers, timeout=60
            ) as client:

                def cold(folder: Folder = folder) -> None:
                    workspaces._READ.clear()
                    folder._names = None

                floor = timed(plain, "/", args.repeat)
                listed = timed(client, "/api/workspaces", args.repeat)
                listed_cold = timed(
                    client, "/api/workspaces", max(5, args.repeat // (10 if size >= 1000 else 2)), cold
                )
                one = timed(client, f"/api/summary?ws=run-{size // 2:04d}", args.repeat)
            cpu = stream_cpu(ViewApp(folder, threading.Event()))
            view.close()
            rows.append((size, floor, listed, listed_cold, one, cpu))
    bare.close()
    print(f"{'workspaces':>10}  {'bare Starlette':>20}  {'list':>20}  {'list cold':>20}  {'summary':>20}  "
          f"{'list/bare':>9}  {'summary/bare':>12}  {'stream CPU':>10}")  # fmt: skip
    for size, floor, listed, listed_cold, one, cpu in rows:
        base = statistics.median(floor)
        print(
            f"{size:>10,}  {shown(floor):>20}  {shown(listed):>20}  {shown(listed_cold):>20}  {shown(one):>20}  "
            f"{statistics.median(listed) / base:>8.1f}x  {statistics.median(one) / base:>11.1f}x  {cpu * 100:>9.2f}%"
        )
    print("median ms (p95); stream CPU: share of one core while one page is open (one look a second)")


if __name__ == "__main__":
    main()
