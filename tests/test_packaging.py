"""A non-editable install works: prompts and the workspace template ship inside the wheel."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, call, reply
from tests.support.cli import cli_env

ROOT = Path(__file__).resolve().parent.parent

RUN_FROM_THE_WHEEL = """
import asyncio, agent_runtime
from pathlib import Path
from agent_runtime import research
from agent_runtime.testing import ScriptedModel, call, reply

def script(messages, tools):
    Path("ws/r.md").write_text("# Report\\n")
    return reply(call("all_finished", result="ok", report_path="r.md"))

result = asyncio.run(research("Packaged", workspace="ws", model=ScriptedModel(script)))
print(agent_runtime.__file__)
print(result.status, Path("ws/overall_dashboard.md").read_text().splitlines()[0])
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once for the tests of this module (each installs it on its own)."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        check=True, capture_output=True,
    )  # fmt: skip
    return next(dist.glob("deep_researcher-*.whl"))


@pytest.mark.slow
def test_wheel_carries_prompts_and_template_and_runs_from_a_plain_install(tmp_path: Path, wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "prompts/main_system.j2" in names
    assert (
        "workspace_template/overall_dashboard.md" in names
        and "workspace_template/current_dashboard.md" in names
    )

    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    env = {k: v for k, v in env.items() if not k.startswith(("OPENAI_", "DEEP_RESEARCHER_"))}
    done = subprocess.run(
        [sys.executable, "-c", RUN_FROM_THE_WHEEL], cwd=work, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    module_file, outcome = done.stdout.strip().splitlines()
    assert module_file.startswith(str(target))  # the installed copy, not the source tree
    assert outcome == "finished # Packaged"


def _search_then_finish(workspace: Path) -> Any:
    """web_search over the corpus, then a report citing what it found, then all_finished."""

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query="sodium-ion cells", max_results=3))
        ids = sorted(set(re.findall(r"\[(S\d+)\]", observations[0])))
        report = "# Sodium-ion cells\n\n## Findings\n" + "".join(f"- Cells are cheaper [{i}].\n" for i in ids)
        (workspace / "report.draft.md").write_text(report, "utf-8")  # what the File agent would write
        return reply(call("all_finished", result="done", report_path="report.draft.md"))

    return script


@pytest.mark.slow
def test_the_wheel_installs_with_the_stock_pip_and_runs_from_its_entry_point(
    tmp_path: Path, endpoint: Any, wheel: Path
) -> None:
    """What a new user does: a fresh `python -m venv` (its bundled pip, not upgraded), `pip install`
    of the package with its dependencies, then the installed `deep-researcher` command."""
    venv = tmp_path / "venv"
    subprocess.run([sys._base_executable, "-m", "venv", str(venv)], check=True, capture_output=True)  # type: ignore[attr-defined]
    pip, command = venv / "bin" / "pip", venv / "bin" / "deep-researcher"
    installed = subprocess.run([pip, "install", "-q", str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    # pip 23.2 still warns that lxml lacks jusText's `html_clean` extra (lxml spells it `html-clean`);
    # lxml_html_clean, declared directly, is installed all the same: the run below imports it.
    checked = subprocess.run([pip, "check"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout

    env = cli_env(HOME=str(tmp_path / "home"))
    env.pop("PYTHONPATH", None)
    shown = subprocess.run([command, "--help"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert shown.returncode == 0 and "check" in shown.stdout and "inspect" in shown.stdout, shown.stderr
    version = subprocess.run([command, "--version"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert version.stdout.strip() == "deep-researcher 0.1.0", version.stderr

    # A short scripted research through the entry point, over a corpus with an HTML page: its
    # indexing runs the whole extraction stack (trafilatura, jusText, lxml.html.clean).
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cells.html").write_text(
        "<html><head><title>Sodium-ion cells</title></head><body><article><h1>Sodium-ion cells</h1>"
        + "<p>Sodium-ion cells cost less than lithium-ion cells, analysts said in 2026.</p>" * 5
        + "</article></body></html>",
        "utf-8",
    )
    workspace = tmp_path / "ws"
    server = endpoint(_search_then_finish(workspace))
    done = subprocess.run(
        [command, "run", "Sodium-ion cells", "--workspace", str(workspace), "--base-url", server.url,
         "--api-key", "test", "--search", "local", "--corpus", str(corpus), "--max-steps", "6", "-q"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Finished: report.md" in done.stdout
    report = (workspace / "report.md").read_text("utf-8")
    assert "Cells are cheaper [1]." in report and "corpus:cells.html" in report
