"""A person who saves the dashboards in place, pausing in the middle of each save, beside a real CLI
run whose model is scripted (issue 34, item 5). Shared by tests/agent_runtime/app/test_half_saves.py
and benchmarks/bench_half_saves.py.

Each save is what some editors and sync tools do: load the file, truncate it, write up to the middle
of a new marker line, pause 0.1–0.6 s, write the rest, close. The scripted model updates a dashboard
at every step from the text it was last shown, so the runtime reads and writes the dashboards as
often as it can while the person saves. Every dashboard text the model is given (at the head of the
conversation, in an observation, in a note) is collected, with when it first carried each marker.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import CliResult, cli_env, run_cli, write_cited_report

DASHBOARDS = ("overall_dashboard.md", "current_dashboard.md")
MARKER = re.compile(r"^- marker (\d{3}) end$")
FRAMED = re.compile(r"<<< ((?:overall|current)_dashboard\.md) >>>\n(.*?)\n<<< end of \1 >>>", re.DOTALL)
PLAN = (
    "# {title}\n\n## Research questions\n1. What changed in the field?\n\n## Outline\n"
    "1. Notebook/01_changes.md: what changed\n\n## What a complete answer needs\n- the changes, cited\n"
)


_BOUNDED = re.compile(r"\n\[… [\d,]+ more characters; [^\]]*\]$")


def shown_texts(content: str) -> list[str]:
    """The dashboard texts a message gives the model. A text an observation or a note shows only in
    part (`workspace.framed` cuts it at EDITED_TEXT_CHARS, maybe inside a line) loses its last, cut
    line here: that line is the runtime's bound, not a save cut in the middle."""
    texts = []
    for _, text in FRAMED.findall(content):
        bounded = _BOUNDED.search(text)
        texts.append(text[: text.rfind("\n", 0, bounded.start())] if bounded else text)
    return texts


class HalfSaver(threading.Thread):
    """Saves the two dashboards in turn, `saves` times, each in place with a pause mid-write."""

    def __init__(self, ws: Path, saves: int, seed: int = 34, pause: tuple[float, float] = (0.1, 0.6)) -> None:
        super().__init__(daemon=True, name="half-saver")
        self.ws, self.saves, self.pause = ws, saves, pause
        self.rng = random.Random(seed)
        self.closed_at: dict[str, float] = {}  # marker → when its save was complete (monotonic)
        self.failure: BaseException | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            for n in range(self.saves):
                if self.stop.is_set():
                    return
                path = self.ws / DASHBOARDS[n % 2]
                marker = f"- marker {n:03d} end"
                text = path.read_text("utf-8").rstrip("\n") + f"\n{marker}\n"
                cut = len(text) - len(marker) // 2
                with path.open("w", encoding="utf-8") as editor:  # truncates: the save has begun
                    editor.write(text[:cut])
                    editor.flush()
                    time.sleep(self.rng.uniform(*self.pause))
                    editor.write(text[cut:])
                self.closed_at[marker] = time.monotonic()
                time.sleep(self.rng.uniform(0.05, 0.4))
        except BaseException as exc:
            self.failure = exc


@dataclass
class Outcome:
    cli: CliResult
    saves: int
    lost: list[str]  # markers neither shown to the model nor kept in .trash/
    unseen: list[str]  # markers kept in .trash/ that the model was never shown
    half: list[str]  # lines of a save cut in the middle that the model was given as final
    delays: list[float]  # seconds from a save's close to the first request that showed it
    requests: int
    events: list[dict[str, Any]] = field(default_factory=list)


def run_with_half_saves(base: Path, saves: int, *, title: str = "Dashboards edited while the run works",
                        seed: int = 34, timeout: float = 300) -> Outcome:  # fmt: skip
    """One `deep-researcher run` in `base/ws` with a HalfSaver beside it; what reached the model."""
    ws = base / "ws"
    person = HalfSaver(ws, saves, seed)
    first_shown: dict[str, float] = {}
    shown: list[str] = []
    state = {"requests": 0, "done_at": 0}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        now = time.monotonic()
        state["requests"] += 1
        n = state["requests"]
        for message in messages:
            for text in shown_texts(str(message.get("content") or "")):
                shown.append(text)
                for line in text.splitlines():
                    if MARKER.fullmatch(line):
                        first_shown.setdefault(line, now)
        dashboards = dict(FRAMED.findall(str(messages[1]["content"])))  # [system, dashboards, …]
        if n == 1:
            return reply(call("update_overall_dashboard", content=PLAN.format(title=title)))
        if n == 2:
            person.start()
        if state["done_at"] and n > state["done_at"]:
            # This request was built after the last save had closed: all of them have had their chance.
            return reply(call("all_finished", result="done", report_path=write_cited_report(ws, "draft.md")))
        if n > 2 and not person.is_alive():
            state["done_at"] = n
        # The model keeps what it was shown and adds a line of its own: a dashboard write each step.
        name = DASHBOARDS[n % 2]
        update = "update_overall_dashboard" if name == DASHBOARDS[0] else "update_current_dashboard"
        return reply(call(update, content=f"{dashboards[name]}\n- agent {n}"))

    with ScriptedEndpoint(script) as server:
        try:
            cli = run_cli(
                ["run", title, "--workspace", str(ws), "--max-steps", "5000"],
                cli_env(server.url), timeout=timeout,
            )  # fmt: skip
        finally:
            person.stop.set()
            person.join(10)
    if person.failure is not None:
        raise person.failure
    trash = ws / ".trash"
    trashed = "\n".join(p.read_text("utf-8") for p in trash.iterdir()) if trash.is_dir() else ""
    merged = "\n".join(shown)
    written = list(person.closed_at)
    events_file = ws / ".runtime" / "events.jsonl"
    events = [json.loads(line) for line in events_file.read_text("utf-8").splitlines() if line.strip()]
    return Outcome(
        cli=cli,
        saves=len(written),
        lost=[m for m in written if m not in merged and m not in trashed],
        unseen=[m for m in written if m not in merged and m in trashed],
        half=[line for line in merged.splitlines() if "marker" in line and not MARKER.fullmatch(line)],
        delays=[first_shown[m] - person.closed_at[m] for m in written if m in first_shown],
        requests=state["requests"],
        events=events,
    )
