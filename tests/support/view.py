"""The live view's test kit: a finished-looking workspace, the view as a process, its token and
origin, a long event log, the server-sent events of a stream, and waiting for a page's JavaScript."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.domain.sources.front_matter import render_front_matter
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_record import RunMeta, Totals, save_meta

TOKEN = "test-token-0123456789"


PORT = 8765


ORIGIN = f"http://127.0.0.1:{PORT}"


AUTH = {"X-Token": TOKEN}


EVIL = '<script>window.pwned = 1</script> and <img src="x" onerror="window.pwned = 2">'


def make_workspace(root: Path, title: str = "Solid-state batteries") -> Path:
    """A stopped run's workspace: dashboards, a note, two sources (one snapshot carries a script),
    a report with two citations and the audit's record of the first."""
    space = ResearchWorkspace(root)
    space.create(title, "a memo")
    meta = RunMeta(title=title, purpose="a memo", status="stopped", stop_reason="max_steps: 5 of 5 steps used",
                   settings={"max_steps": 5, "model": "scripted"},
                   totals=Totals(steps=5, model_calls=6, prompt_tokens=1200, completion_tokens=300))  # fmt: skip
    save_meta(space.run_file, meta)
    ledger = Ledger.load(root / "sources")
    for n, (path, body) in enumerate(
        [("costs", "Cells cost 180 dollars per kWh in 2026.\n\nThe second paragraph."), ("forum", EVIL)], 1
    ):
        record = ledger.register(f"https://example.org/{path}", f"Page {path}", via="visit")
        front = render_front_matter({"id": record.id, "url": record.url, "title": f"Page {path}"})
        (root / "sources" / f"S{n}.md").write_text(front + "\n" + body + "\n")
        ledger.mark_fetched(record.id, final_url=record.url, title=f"Page {path}", content_type="text/html",
                            sha256="0" * 64, snapshot=f"sources/S{n}.md")  # fmt: skip
    (root / "Notebook" / "01_costs.md").write_text("## Costs\n\nCells cost 180 dollars [S1].\n")
    (root / "report.md").write_text(
        f"# {title}\n\nCells cost 180 dollars per kWh in 2026 [1]. Readers doubt it [2].\n\n## References\n\n"
        "1. Page costs. https://example.org/costs (accessed 2026-01-01)\n"
        "2. Page forum. https://example.org/forum (accessed 2026-01-01)\n"
    )
    audit = {"citation": 1, "source": "S1", "statement": "Cells cost 180 dollars per kWh in 2026.",
             "passage": "Cells cost 180 dollars per kWh in 2026.", "file": "sources/S1.md", "lines": [5, 5],
             "score": 1.0, "verdict": "supported", "judged_by": "lexical"}  # fmt: skip
    (root / "report.citations.json").write_text(json.dumps({"citations": [audit]}))
    return root


@dataclass
class RunningView:
    process: subprocess.Popen[str]
    url: str  # as printed, with the token

    @property
    def base(self) -> str:
        return self.url.split("/?", 1)[0]

    @property
    def token(self) -> str:
        return self.url.split("token=", 1)[1]


def start_view(folder: Path, env: dict[str, str], *extra: str) -> RunningView:
    """`deep-researcher view FOLDER --port 0` as a process; returns once it printed its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "view", str(folder), "--port", "0", *extra],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        printed = process.stdout.readline()
        if not printed:
            break
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", printed)
        if found:
            return RunningView(process, found.group(0))
    process.kill()
    raise AssertionError(f"the view printed no URL: {process.communicate(timeout=10)}")


def line(**fields: object) -> bytes:
    return (json.dumps(fields) + "\n").encode()


def big_log(path: Path, megabytes: int) -> int:
    """An event log of about `megabytes` MB: steps of a model call and an action each; its size."""
    with path.open("wb") as handle:
        step = 0
        while handle.tell() < megabytes * 1_000_000:
            step += 1
            handle.write(line(event="model_call", agent="main", step=step, calls=["web_search"]))
            handle.write(line(event="action", agent="main", step=step, action="web_search", arguments={"query": "q" * 400}))
    return path.stat().st_size


def sse_messages(lines: Iterator[str]) -> Iterator[dict[str, str]]:
    message: dict[str, str] = {}
    for text in lines:
        if text == "":
            if message:
                yield message
            message = {}
        elif not text.startswith(":"):
            key, _, value = text.partition(": ")
            message[key] = value


CHROMIUM = "/usr/bin/chromium"


def wait_until(condition: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def wait_js(page: Any, expression: str, seconds: float = 30) -> Any:
    """Poll a JavaScript expression (page.wait_for_function evaluates strings with eval, which the
    view's Content-Security-Policy forbids, as it should)."""
    return wait_until(lambda: page.evaluate(expression), seconds, expression)
