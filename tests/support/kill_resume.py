"""A CLI run killed at a chosen step and resumed: a gate the scripted model waits at, the script
that writes dashboard versions, and the process started on it."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, call, reply
from tests.support.cli import cli_env, write_cited_report

# A window and an output cap that let a 1 MB dashboard through one reply (the scripted endpoint cuts
# a reply at the cap, as real servers do).
LARGE = {"DEEP_RESEARCHER_CONTEXT_WINDOW": "4000000", "DEEP_RESEARCHER_MAX_OUTPUT_TOKENS": "500000"}
PAD = "filler line for a large dashboard\n" * 30_000  # ~1 MB: a write that takes a while


@dataclass
class Gate:
    """Holds the scripted model at its `at`-th request (so a test can act on the CLI meanwhile)
    until `release` is set."""

    at: int
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, n: int) -> None:
        if n == self.at:
            self.reached.set()
            self.release.wait(30)


def script_for(workspace: Path, versions: int, gate: Callable[[int], None]) -> Callable[..., Reply]:
    """Writes `versions` large current dashboards, then the report; stateless across restarts:
    it reads its progress from the current dashboard the model is shown."""
    served = {"n": 0}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        served["n"] += 1
        gate(served["n"])
        shown = "\n".join(str(m.get("content")) for m in messages)
        found = re.findall(r"# Current v(\d+)\n", shown)
        done = int(found[-1]) if found else 0
        if done >= versions:
            return reply(call("all_finished", result="ok", report_path=write_cited_report(workspace)))
        return reply(call("update_current_dashboard", content=versioned("Current", done + 1)))

    return script


def start_cli(ws: Path, url: str) -> subprocess.Popen[bytes]:
    env = cli_env(url, **LARGE)
    return subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli", "run", "Kill test", "--workspace", str(ws), "-q"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def resume_env(url: str) -> dict[str, str]:
    return cli_env(url, **LARGE)


def versioned(kind: str, n: int) -> str:
    return f"# {kind} v{n}\n\n{PAD}\nEND v{n}\n"
