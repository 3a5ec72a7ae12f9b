"""Every `deep-researcher …` command the program prints pastes into a shell as printed (issue 34,
item 4): after a budget stop, in `inspect`, in the live view's summary and for a finished run; a
workspace whose name holds a space and parentheses stays one word, and the explanation is a shell
comment, never part of the command."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.view.workspaces import summary
from agent_runtime.engine.commands import command, raised_budget, resume_command, with_note
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli, write_cited_report


def pastes(line: str) -> list[str]:
    """The words a shell makes of `line`, after checking that bash parses it as it is."""
    checked = subprocess.run(["bash", "-n", "-c", line], capture_output=True, text=True)
    assert checked.returncode == 0, f"{line!r}: {checked.stderr}"
    return shlex.split(line, comments=True)


def printed_after(prefix: str, text: str) -> str:
    return text.split(prefix, 1)[1].splitlines()[0]


@pytest.mark.slow
def test_a_stop_prints_a_resume_line_that_pastes_and_continues(tmp_path: Path) -> None:
    ws = tmp_path / "my notes (v2)"
    state = {"finish": False}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if state["finish"]:
            return reply(call("all_finished", result="done", report_path=write_cited_report(ws)))
        return reply(call("update_current_dashboard", content=f"# Current\n- step {len(messages)}\n"))

    with ScriptedEndpoint(script) as server:
        stopped = run_cli(["run", "Sodium-ion cells", "--workspace", str(ws), "--max-steps", "2", "-q"],
                          cli_env(server.url))  # fmt: skip
        assert stopped.code == 3, stopped.stderr
        line = printed_after("Continue with: ", stopped.stderr)
        words = pastes(line)
        assert words == ["deep-researcher", "resume", str(ws), "--max-steps", "4"]
        assert line.endswith("# budgets count the whole run, resumes included")

        inspected = run_cli(["inspect", str(ws)], cli_env())
        assert inspected.code == 0, inspected.stderr
        assert pastes(printed_after("continue:  ", inspected.stdout)) == words
        assert summary("ws", ws)["resume_command"] == resume_command(ws, "max_steps: x", {"max_steps": 2})

        state["finish"] = True
        resumed = run_cli([*words[1:], "-q"], cli_env(server.url))  # the printed words, as a shell gives them
    assert resumed.code == 0, resumed.stderr
    assert summary("ws", ws)["resume_command"] is None  # finished: nothing to continue

    done = run_cli(["resume", str(ws)], cli_env())
    assert done.code == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("deep-researcher ")]
    assert [pastes(line)[:2] for line in lines] == [
        ["deep-researcher", "inspect"], ["deep-researcher", "audit"], ["deep-researcher", "run"],
    ]  # fmt: skip
    assert all(str(ws) in pastes(line) for line in lines[:2])


@pytest.mark.parametrize(
    ("reason", "limits", "flags"),
    [
        ("max_steps: 10 of 10", {"max_steps": 10}, ["--max-steps", "20"]),
        ("max_cost: $0.50", {"max_cost": 0.25}, ["--max-cost", "0.5"]),
        ("max_time: 60 s", {"max_time": 60}, ["--max-time", "120"]),
        ("max_tokens: 9", {"max_tokens": None}, []),
        ("loop: the same call", {"max_steps": 10}, []),
    ],
)
def test_the_raised_budget_is_one_flag_and_its_value(reason: str, limits: dict[str, Any], flags: list[str]) -> None:
    assert raised_budget(reason, limits) == flags
    line = with_note(resume_command(Path("/tmp/a b'c"), reason, limits), "a note; with (parentheses)")
    assert pastes(line) == ["deep-researcher", "resume", "/tmp/a b'c", *flags]


def test_a_command_quotes_only_what_a_shell_needs() -> None:
    assert command("inspect", Path("/tmp/ws")) == "deep-researcher inspect /tmp/ws"
    assert pastes(command("run", "固态电池 (2026)", "--workspace", "./固态电池")) == [
        "deep-researcher", "run", "固态电池 (2026)", "--workspace", "./固态电池",
    ]  # fmt: skip
