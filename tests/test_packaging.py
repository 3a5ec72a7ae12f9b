"""A non-editable install works: prompts and the workspace template ship inside the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

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


def test_wheel_carries_prompts_and_template_and_runs_from_a_plain_install(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("deep_researcher-*.whl"))
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
