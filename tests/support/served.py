"""A `deep-researcher serve` process for tests (and the benchmark): started on a free port of
127.0.0.1 against a scripted endpoint, its base URL and key read from what it prints, stopped
with SIGTERM. And scripts for the endpoint: the demo research, held at a gate."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, demo_script
from tests.support.cli import cli_env

CORPUS = {
    "solar.md": "# Solar power\n\nSolar panels convert sunlight into electricity with an efficiency of about "
    "22 percent in 2025.\n",
    "电池.md": "# 固态电池\n\n固态电池的能量密度在2025年达到每公斤400瓦时。\n",
}


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in CORPUS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@dataclass
class Gated:
    """The demo research (search, one cited chapter, finish) whose main agent waits at `gate` after
    its search, so that a test can act while the run works."""

    gate: threading.Event = field(default_factory=threading.Event)
    waiting: threading.Event = field(default_factory=threading.Event)  # a run is held at the gate

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        names = {str(tool.get("function", {}).get("name")) for tool in tools}
        searched = any(m.get("role") == "tool" for m in messages)
        if "all_finished" in names and searched and not self.gate.is_set():
            self.waiting.set()
            self.gate.wait(60)
        return demo_script(messages, tools)


class Served:
    """The server process; `base_url`, `key`, `folder`."""

    def __init__(
        self, folder: Path, endpoint_url: str, corpus: Path, *flags: str, env: dict[str, str] | None = None
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        command = [
            sys.executable, "-m", "agent_runtime.app.cli", "serve", "--folder", str(folder), "--port", "0",
            "--search", "local", "--corpus", str(corpus), "--verify-citations", "lexical", *flags,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, env=cli_env(endpoint_url, **(env or {})), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        self.printed: list[str] = []
        self.errors = ""  # its stderr, once stopped
        self.base_url = self.key = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (self.base_url and self.key):
            line = self.process.stdout.readline() if self.process.stdout else ""
            if not line:
                raise AssertionError(f"serve ended: {self.process.wait()} {self.stderr()}")
            self.printed.append(line)
            if "Base URL:" in line:
                self.base_url = line.split("Base URL:")[1].strip()
            elif "API key:" in line:  # printed, or the one the environment set
                shown = line.split("API key:")[1].strip()
                self.key = (env or {})["DEEP_RESEARCHER_SERVE_KEY"] if "the value of" in shown else shown

    def stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None or self.process.stderr.closed:
            return ""
        return self.process.stderr.read()

    def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=60)
            self.errors += self.stderr()
            return code
        finally:
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()

    def run_json(self, name: str) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.folder / name / ".runtime" / "run.json").read_text("utf-8"))
        return loaded

    def workspaces(self) -> list[str]:
        return sorted(p.name for p in self.folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def wait_for(condition: Any, seconds: float = 60.0) -> None:
    """Poll until `condition()`; a bound for a test, not a speed assertion."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.1)


def files_holding(folder: Path, secret: str) -> list[str]:
    """Every file under `folder` whose bytes contain `secret`."""
    found = []
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            if secret.encode() in path.read_bytes():
                found.append(str(path))
    return found
