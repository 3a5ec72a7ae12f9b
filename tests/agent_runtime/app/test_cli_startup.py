"""The CLI answers at once: `--help`, `--version`, usage errors and `inspect` import neither the
model client nor the extraction or browser stacks (they cost over a second of CPU at start)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import cli_env

HEAVY = ("openai", "trafilatura", "browser_use", "lxml", "pypdfium2", "ddgs", "httpx", "docx", "markdown_it", "starlette", "uvicorn")

# Runs the CLI's main() in a fresh interpreter, then reports what was imported and the exit code.
PROBE = """
import json, sys
from agent_runtime.app.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def imported_by(args: list[str], cwd: Path) -> tuple[int, set[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=cwd,
        timeout=60,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    top_level = {name.partition(".")[0] for name in report["modules"]}
    return report["code"], top_level, done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["run", "--help"],
        ["check", "--help"],
        ["export", "--help"],
        ["--version"],
        ["run"],
        ["frobnicate"],
    ],
    ids=["help", "run-help", "check-help", "export-help", "version", "usage-error", "unknown-command"],
)
def test_help_version_and_usage_errors_import_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    code, modules, _ = imported_by(args, tmp_path)
    assert code in (0, 2)
    assert not modules & set(HEAVY), f"{args} imported {sorted(modules & set(HEAVY))}"


def test_inspect_imports_nothing_heavy_and_still_shows_the_run(tmp_path: Path) -> None:
    from agent_runtime.domain.layout import ResearchWorkspace

    ResearchWorkspace(tmp_path / "ws").create("Solid-state batteries", "a memo")
    code, modules, out = imported_by(["inspect", str(tmp_path / "ws")], tmp_path)
    assert code == 0
    assert "# Solid-state batteries" in out
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_version_names_the_installed_version(tmp_path: Path) -> None:
    from importlib.metadata import version

    done = subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli", "--version"],
        capture_output=True, text=True, env=cli_env(), cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0
    assert done.stdout.strip() == f"deep-researcher {version('deep-researcher')}"
