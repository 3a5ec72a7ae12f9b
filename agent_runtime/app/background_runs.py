"""The one way the app starts a run in the background (`batch`, `mcp`, the live view's Start and
Resume): the installed CLI, `deep-researcher run|resume …`, as a child process.

- `python -P`: `python -m` would otherwise put the working folder first on sys.path, and a folder
  there named `agent_runtime` (a workspace of a research titled so, with files the agent wrote)
  would be imported in place of the package.
- The command line is built as `--name=value` options and `--` before the title or workspace: a
  title, purpose or model name that starts with "-" stays text instead of ending the child with
  a usage error.
- The API key is never on the command line (any local user can read a process's arguments): it
  goes in the child's environment as OPENAI_API_KEY.
- The child has a session (and process group) of its own: a Ctrl-C at the parent's terminal does
  not reach it; the parent decides (SIGTERM to the group stops the run resumably, and the browser
  it started with it).
- `die_with_parent`: the child runs `python -m agent_runtime.app.die_with_parent PARENT_PID …`, which asks
  Linux for SIGTERM when its parent dies (PR_SET_PDEATHSIG) and then runs the CLI in the same
  process. A `kill -9` of a batch, a Dask worker or the
  MCP server stops its runs within a step instead of leaving them working unseen. The kernel ties
  the signal to the *thread* that started the child: start it from a thread that lives as long as
  the child (batch: the task's thread, which waits for it; mcp: the event loop's thread).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

_NOT_PASSED = ("api_key", "quiet")  # the key goes by the environment; -q is the caller's choice


def flag_arguments(flags: Mapping[str, Any], config: Path | None = None, debug: bool = False) -> list[str]:
    """The CLI's run flags (as cli._flags gives them) as a child's arguments: `--name=value` (a
    value that starts with "-" stays a value), switches bare, paths absolute (the child's folder
    may differ), the key left out."""
    argv: list[str] = []
    for name, value in flags.items():
        if name in _NOT_PASSED or value is None or value is False:
            continue
        option = "--" + name.replace("_", "-")
        if value is True:
            argv.append(option)
        else:
            argv.append(f"{option}={value.expanduser().absolute() if isinstance(value, Path) else value}")
    if config is not None:
        argv.append(f"--config={config.expanduser().absolute()}")
    return [*argv, "--debug"] if debug else argv


def run_arguments(
    title: str, workspace: Path | str, options: Sequence[str] = (), purpose: str | None = None
) -> list[str]:
    """`run --workspace=W [--purpose=P] OPTIONS -- TITLE`."""
    argv = ["run", f"--workspace={workspace}"]
    if purpose:
        argv.append(f"--purpose={purpose}")
    return [*argv, *options, "--", title]


def resume_arguments(workspace: Path | str, options: Sequence[str] = ()) -> list[str]:
    """`resume OPTIONS -- WORKSPACE`."""
    return ["resume", *options, "--", str(workspace)]


def environment(api_key: str | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment, with `extra` over it and the key (given as a flag) over both."""
    env = {**os.environ, **(extra or {})}
    if api_key:
        env["OPENAI_API_KEY"] = api_key
    return env


def command(arguments: Sequence[str], die_with_parent: bool) -> list[str]:
    """The child's whole command line."""
    if die_with_parent:
        return [sys.executable, "-P", "-m", "agent_runtime.app.die_with_parent", str(os.getpid()), *arguments]
    return [sys.executable, "-P", "-m", "agent_runtime.app.cli", *arguments]


def launch(
    arguments: Sequence[str],
    *,
    env: Mapping[str, str],
    log: int | IO[bytes] | None,
    cwd: str | Path | None = None,
    die_with_parent: bool = True,
) -> subprocess.Popen[bytes]:
    """Start `deep-researcher ARGUMENTS` in the background. Its output goes to `log` (an open file
    or descriptor, stdout and stderr together); with None, stdout is dropped and stderr is piped to
    the caller, who reads the child's last word from it."""
    return subprocess.Popen(
        command(arguments, die_with_parent),
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,  # never the parent's: the MCP server's stdin carries its protocol
        stdout=subprocess.DEVNULL if log is None else log,
        stderr=subprocess.PIPE if log is None else subprocess.STDOUT,
        start_new_session=True,
    )


def working_folder() -> str | None:
    """The parent's working folder for the child, or None when it was removed since (the child
    then inherits it as it is)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def wait_or_kill(processes: Sequence[subprocess.Popen[bytes]], grace: float) -> None:
    """Wait up to `grace` seconds in all for runs asked to stop (they save their state first); kill
    any that hang past it."""
    deadline = time.monotonic() + grace
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
