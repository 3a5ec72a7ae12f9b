"""The page ships inside the wheel: a non-editable install serves the same files."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from agent_runtime.app.view.server import STATIC

ROOT = Path(__file__).resolve().parents[4]


def test_the_wheel_carries_the_page(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    names = set(zipfile.ZipFile(next(tmp_path.glob("deep_researcher-*.whl"))).namelist())
    for name in [*STATIC, "index.html"]:
        assert f"agent_runtime/app/view/static/{name}" in names, name
