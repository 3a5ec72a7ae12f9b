"""`deep-researcher batch` on this machine: the real CLI process, its real child processes, one
loopback scripted endpoint that every run shares."""

from __future__ import annotations

import csv
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import ScriptedEndpoint
from tests.support.batch_script import BatchScript, progress_writes, results, write_jsonl
from tests.support.cli import cli_env, run_cli

FLAGS = ["--verify-citations", "lexical"]


def bench_tasks(n: int, first: int = 1) -> list[dict[str, Any]]:
    """Tasks as DeepResearch Bench's query.jsonl gives them: a numeric id, a topic, a language."""
    tasks = []
    for i in range(first, first + n):
        if i % 2:
            tasks.append(
                {
                    "id": i,
                    "topic": "Finance",
                    "language": "en",
                    "prompt": f"Research topic {i}: battery costs",
                }
            )
        else:
            tasks.append(
                {"id": i, "topic": "能源", "language": "zh", "prompt": f"研究课题 {i}：固态电池的产业化进展"}
            )
    return tasks


def titles_of(tasks: list[dict[str, Any]]) -> dict[str, str]:
    return {str(t.get("prompt") or t["title"]): str(t["id"]) for t in tasks}


@pytest.mark.slow
def test_a_bench_query_file_runs_every_task_once(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = bench_tasks(5)
    out = tmp_path / "out"
    script = BatchScript(out, titles_of(tasks), steps=2, delay=0.05)
    server = endpoint(script)
    query = write_jsonl(tmp_path / "query.jsonl", tasks)
    # --language en: each task's own language goes over it (README: the task's language wins)
    command = ["batch", str(query), "--out", str(out), "--jobs", "3", "--language", "en", *FLAGS]

    result = run_cli(command, cli_env(server.url), timeout=300)

    assert result.code == 0, result.stderr
    rows = results(out)
    assert list(rows) == ["1", "2", "3", "4", "5"]  # the file's order
    for task in tasks:
        row = rows[str(task["id"])]
        assert row["status"] == "finished" and row["error"] is None, row
        assert row["title"] == task["prompt"] and row["workspace"] == str(task["id"])
        assert (out / row["report"]).is_file() and row["report"] == f"{task['id']}/report.md"
        assert row["words"] > 0 and row["sources"] == 1 and row["citations"] == 1
        assert row["prompt_tokens"] > 0 and row["completion_tokens"] > 0 and row["seconds"] >= 0
        meta = json.loads((out / str(task["id"]) / ".runtime" / "run.json").read_text())
        assert meta["settings"]["language"] == task["language"]  # the task's language reached its run
    report = (out / "2" / "report.md").read_text(encoding="utf-8")
    assert "固态" in (out / "2" / ".runtime" / "run.json").read_text(encoding="utf-8") and report
    with (out / "results.csv").open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [r["id"] for r in table] == ["1", "2", "3", "4", "5"] and table[1]["title"] == tasks[1]["prompt"]
    assert all(n == 1 for n in script.most_at_once.values())  # no run worked in two processes
    # Not a terminal: one plain line per run, then the outcome
    ended = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert len(ended) == 5 and all(" finished · " in line for line in ended), result.stderr
    assert "Batch: 5 finished of 5 · cost unknown (set DEEP_RESEARCHER_PRICE_INPUT" in result.stdout
    assert "$0.0000" not in result.stdout + result.stderr  # no prices: never a cost that claims "free"
    assert "test-key" not in (out / "results.jsonl").read_text() + result.stdout + result.stderr

    asked = sum(script.requests.values())
    again = run_cli(command, cli_env(server.url), timeout=120)
    assert again.code == 0, again.stderr
    assert sum(script.requests.values()) == asked  # nothing finished is redone
    assert results(out) == rows


@pytest.mark.slow
def test_kill_9_of_the_batch_then_the_same_command_finishes_the_rest(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = bench_tasks(4)
    out = tmp_path / "out"
    script = BatchScript(out, titles_of(tasks), steps=4, delay=0.3)
    server = endpoint(script)
    query = write_jsonl(tmp_path / "query.jsonl", tasks)
    command = [
        sys.executable,
        "-m",
        "agent_runtime.app.cli",
        "batch",
        str(query),
        "--out",
        str(out),
        "--jobs",
        "2",
    ]
    batch = subprocess.Popen(
        [*command, *FLAGS], env=cli_env(server.url), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while not any(len(progress_writes(out / str(t["id"]))) >= 2 for t in tasks):
            assert time.monotonic() < deadline and batch.poll() is None, "no run got going"
            time.sleep(0.05)
    finally:
        batch.send_signal(signal.SIGKILL)
        batch.wait(30)
    started = [str(t["id"]) for t in tasks if (out / str(t["id"]) / ".runtime" / "run.json").exists()]
    assert started and len(started) < len(tasks)

    result = run_cli(
        ["batch", str(query), "--out", str(out), "--jobs", "2", *FLAGS], cli_env(server.url), timeout=300
    )

    assert result.code == 0, result.stderr
    assert all(row["status"] == "finished" for row in results(out).values())
    for task_id in started:
        writes = progress_writes(out / task_id)
        assert writes.count(1) == 1, writes  # resumed where it was, not redone from the start
        assert json.loads((out / task_id / ".runtime" / "run.json").read_text())["resumes"] >= 1
    assert all(n == 1 for n in script.most_at_once.values())


@pytest.mark.slow
def test_the_batch_budget_stops_new_runs_and_the_same_command_continues(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = [{"id": f"t{i}", "title": f"Research topic {i}: grid storage"} for i in range(1, 4)]
    out = tmp_path / "out"
    script = BatchScript(out, titles_of(tasks), steps=1)
    server = endpoint(script)
    query = write_jsonl(tmp_path / "tasks.jsonl", tasks)
    env = cli_env(server.url, DEEP_RESEARCHER_PRICE_INPUT="1000", DEEP_RESEARCHER_PRICE_OUTPUT="1000")
    command = ["batch", str(query), "--out", str(out), "--jobs", "1", *FLAGS]

    result = run_cli([*command, "--batch-max-cost", "0.001"], env, timeout=300)

    assert result.code == 3, result.stderr
    rows = results(out)
    assert rows["t1"]["status"] == "finished" and rows["t1"]["cost"] > 0.001
    for later in ("t2", "t3"):
        assert rows[later]["status"] == "pending" and not (out / later).exists()
        assert "--batch-max-cost $0.001" in rows[later]["error"]
    assert "no new run started" in result.stderr
    # The command to continue is the one typed, as a line that pastes into a shell.
    printed = result.stderr.split("Continue with: ", 1)[1].splitlines()[0]
    typed = ["deep-researcher", *command, "--batch-max-cost", "0.001"]
    assert shlex.split(printed, comments=True) == typed
    assert printed.endswith("# the same command: finished runs are skipped, the others resume")
    assert subprocess.run(["bash", "-n", "-c", printed]).returncode == 0
    assert f"of 3 · ${rows['t1']['cost']:.4f} · results:" in result.stdout

    asked = script.requests["t1"]
    again = run_cli(command, env, timeout=300)
    assert again.code == 0, again.stderr
    assert script.requests["t1"] == asked
    assert [row["status"] for row in results(out).values()] == ["finished"] * 3


@pytest.mark.slow
def test_a_task_that_cannot_run_fails_alone_and_is_listed(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    tasks = [
        {"id": "ok", "title": "Research topic 1: tidal power"},
        {"id": "taken", "title": "Research topic 2: wind"},
    ]
    out = tmp_path / "out"
    (out / "taken").mkdir(parents=True)
    (out / "taken" / "notes.txt").write_text("someone's files")  # a folder that is not a workspace
    server = endpoint(BatchScript(out, titles_of(tasks), steps=1))

    result = run_cli(
        ["batch", str(write_jsonl(tmp_path / "t.jsonl", tasks)), "--out", str(out), *FLAGS],
        cli_env(server.url),
    )

    assert result.code == 1, result.stderr
    rows = results(out)
    assert rows["ok"]["status"] == "finished"
    assert rows["taken"]["status"] == "failed" and "holds no run" in rows["taken"]["error"]
    assert "Failed (1):" in result.stderr and "- taken failed:" in result.stderr
    assert (out / "taken" / "notes.txt").read_text() == "someone's files"


@pytest.mark.slow
def test_bad_input_names_the_line_and_starts_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = cli_env("http://127.0.0.1:9/v1")  # nothing listens: nothing may be asked
    cases = {
        "bad.jsonl": (
            '{"id": 1, "prompt": "a"}\n{"id": 2, "prompt": "b"\n',
            "bad.jsonl, line 2: not valid JSON",
        ),
        "dup.jsonl": (
            '{"id": "x", "title": "a"}\n\n{"id": "x", "title": "b"}\n',
            "line 3: the id 'x' is also on line 1",
        ),
        "empty.csv": ("id,title\n1,电池\n2,  \n", "empty.csv, line 3: the title is empty"),
        "notitle.csv": ("id,name\n1,a\n", "notitle.csv, line 1: the header has no title column"),
        "lang.jsonl": ('{"title": "a", "language": "klingon!"}\n', "lang.jsonl, line 1: unknown language"),
        "badid.jsonl": ('{"id": "../up", "title": "a"}\n', "line 1: the id '../up' cannot name a folder"),
        "long.jsonl": (
            '{"title": "a"}\n' + json.dumps({"prompt": "长" * 1001}, ensure_ascii=False) + "\n",
            "long.jsonl, line 2: the title is 1,001 characters long",
        ),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = run_cli(["batch", str(path), "--out", str(out)], env)
        assert result.code == 2 and message in result.stderr, (name, result.stderr)
        assert "Traceback" not in result.stderr
    assert not out.exists()  # no run started, not even the folder

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    good = write_jsonl(tmp_path / "good.jsonl", [{"title": "a"}])
    result = run_cli(["batch", str(good), "--out", str(blocker / "out")], env)
    assert result.code == 2 and f"cannot use --out {blocker / 'out'}" in result.stderr
    result = run_cli(["batch", str(tmp_path / "missing.jsonl"), "--out", str(out)], env)
    assert result.code == 2 and "no task file" in result.stderr
    result = run_cli(["batch", str(good), "--out", str(out), "--jobs", "0"], env)
    assert result.code == 2 and "--jobs must be 1 or more" in result.stderr
    assert os.listdir(tmp_path / "out") == [] if (tmp_path / "out").exists() else True


@pytest.mark.slow
def test_a_budget_or_mcp_config_no_run_could_use_is_refused_before_any_starts(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = cli_env("http://127.0.0.1:9/v1")  # nothing listens: nothing may be asked
    good = write_jsonl(tmp_path / "good.jsonl", [{"title": "a"}, {"title": "b"}])
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"x": {"command": ""}}}', encoding="utf-8")
    cases = [
        (["--max-cost", "1"], "--max-cost 1 needs the prices of the model"),
        (["--batch-max-cost", "5"], "--batch-max-cost 5 needs the prices of the model"),
        (["--mcp-config", str(tmp_path / "missing.json")], "MCP config file not found"),
        (["--mcp-config", str(tmp_path / "mcp.json")], '"command" must be a non-empty string'),
    ]
    for extra, message in cases:
        result = run_cli(["batch", str(good), "--out", str(out), *extra], env)
        assert result.code == 2 and message in result.stderr, (extra, result.stderr)
        assert result.stderr.count("deep-researcher: error:") == 1 and "Traceback" not in result.stderr
        assert not out.exists()  # refused once, before any run: not once per task
