"""`python -P -m agent_runtime.app.die_with_parent PARENT_PID run|resume …`: the CLI, in a process that ends
with its parent (agent_runtime/app/background_runs.py starts it so, and says why).

On Linux the process asks the kernel for SIGTERM when the thread that started it dies
(PR_SET_PDEATHSIG), then runs the CLI in this same process. SIGTERM stops a run resumably, as
Ctrl-C does. The parent's pid is checked after the request: a parent that died before it leaves no
signal to wait for. A module of its own, apart from background_runs.py: it imports the CLI, which imports
the commands that import background_runs.py.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

from agent_runtime.errors import EXIT_INTERRUPTED

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> bool:
    """Ask for SIGTERM when the parent dies; False if it is already gone (no signal would come)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl (an unusual libc): the lock still guards the run
            pass
    return os.getppid() == parent


def main(argv: list[str]) -> int:
    if not argv or not argv[0].isdigit():
        print(
            "usage: python -P -m agent_runtime.app.die_with_parent PARENT_PID run|resume …", file=sys.stderr
        )
        return 2
    if not _die_with_parent(int(argv[0])):
        return EXIT_INTERRUPTED
    from agent_runtime.app.cli import main as cli_main

    return cli_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
