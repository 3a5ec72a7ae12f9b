"""The real CLI as a process, in a clean environment, and the files a test of it starts from."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from agent_runtime.domain.sources.ledger import Ledger


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def cli_env(endpoint_url: str | None = None, **extra: str) -> dict[str, str]:
    """A clean environment for the CLI: no keys or settings leak in from the machine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DEEP_RESEARCHER_"))}
    if endpoint_url is not None:
        env["OPENAI_BASE_URL"] = endpoint_url
        env["OPENAI_API_KEY"] = "test-key"
    env.update(extra)
    return env


def run_cli(args: list[str], env: dict[str, str], timeout: float = 120, cwd: Path | None = None) -> CliResult:
    proc = subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def write_cited_report(workspace: Path, name: str = "draft.md") -> str:
    """A draft that passes finalization: its one citation is a source the ledger knows.
    (Stands in for the web actions in tests of the core.)"""
    ledger = Ledger.load(workspace / "sources")
    source = ledger.register("https://example.org/solid-state", "Solid-state cells", via="search")
    (workspace / name).write_text(f"# Report\n\n## Findings\nSolid-state cells are near [{source.id}].\n")
    return name


def snapshot_outside(base: Path) -> dict[str, str]:
    """Every entry of the temp tree `base` outside its workspace `ws`, with file contents and link
    targets: equal before and after, nothing outside the workspace was touched."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(base):
        if Path(dirpath) == base:
            dirnames.remove("ws")
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(base))
            if path.is_symlink():
                seen[rel] = "-> " + os.readlink(path)
            elif path.is_file():
                seen[rel] = path.read_text()
            else:
                seen[rel] = "dir"
    return seen
