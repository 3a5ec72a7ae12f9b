"""Where the tests find the official MCP reference servers (mcp-server-time, mcp-server-fetch).

They live in a venv of their own, `.venv-mcp` at the project's root (the README's set-up makes it),
as `uvx mcp-server-time` would give a user: the releases that work need mcp>=2.3, which the
[browser] extra's exact pin (browser-use 0.13.14: mcp==2.1.1) keeps out of the project's venv. So
they also prove what matters to a user: our client talks to a server built on another SDK release.
DEEP_RESEARCHER_MCP_PYTHON names another interpreter that has them.
"""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path(os.environ.get("DEEP_RESEARCHER_MCP_PYTHON") or ROOT / ".venv-mcp" / "bin" / "python")


@cache
def _installed() -> bool:
    if not PYTHON.exists():
        return False
    probe = [str(PYTHON), "-c", "import mcp_server_time, mcp_server_fetch"]
    return subprocess.run(probe, capture_output=True, timeout=60).returncode == 0


needs_reference_servers = pytest.mark.skipif(
    not _installed(),
    reason=f"the MCP reference servers are not installed in {PYTHON} (see the README's set-up)",
)


def reference_server(module: str, *args: str, **entry: object) -> dict[str, object]:
    """A config entry that starts the reference server `module` (mcp_server_time, mcp_server_fetch)."""
    return {"command": str(PYTHON), "args": ["-m", module, *args], **entry}


HELPER = str(Path(__file__).with_name("mcp_helper_server.py"))


PAGE = (
    "<html><head><title>Tides of Lyme</title></head><body><article><h1>Tides of Lyme</h1>"
    "<p>The spring tide at Lyme Regis reached 4.2 metres on 3 March, the highest this year, according "
    "to the harbour master.</p><p>Fishing boats stayed in port for two days while the water was high.</p>"
    "</article></body></html>"
)


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def marked_pids(marker: str) -> list[int]:
    """The processes whose environment holds `marker` (the servers of this test's config)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found
