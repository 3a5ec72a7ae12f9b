"""What each run's process is given: its command line (flags through, the key never on it) and
its environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_runtime.app.batch import child_env, child_flags
from agent_runtime.app.batch.runner import RunSpec, child_arguments, plan, run_task
from agent_runtime.app.batch.task_file import Task
from agent_runtime.app.cli import build_parser


def test_a_run_gets_every_flag_but_the_key_and_odd_titles_stay_text(tmp_path: Path) -> None:
    flags = {
        "model": "-odd-model",
        "corpus": Path("docs"),
        "offline": True,
        "max_steps": 7,
        "api_key": "sk-secret",
    }
    spec = RunSpec(
        Task("t1", "-a title that starts with a dash", "-purpose", "zh"),
        str(tmp_path),
        child_flags(flags, Path("c.toml"), debug=False),
        child_env(flags, cluster=False),
    )
    for action in ("start", "resume"):
        command = child_arguments(spec, action)
        assert "sk-secret" not in " ".join(command)
        args = build_parser().parse_args(command)
        assert args.model == "-odd-model" and args.offline and args.max_steps == 7 and args.quiet
        assert args.corpus == Path.cwd() / "docs" and args.config == Path.cwd() / "c.toml"
        assert args.language == "zh" and args.api_key is None
        if action == "start":
            assert args.title == "-a title that starts with a dash" and args.purpose == "-purpose"
            assert args.workspace == tmp_path / "t1"
        else:
            assert args.workspace == tmp_path / "t1"
    assert spec.env == {"OPENAI_API_KEY": "sk-secret"} and "sk-secret" not in repr(spec)


def test_on_a_cluster_the_settings_variables_travel_with_the_task(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.5:8000/v1")
    monkeypatch.setenv("DEEP_RESEARCHER_MODEL", "qwen")
    monkeypatch.setenv("TAVILY_API_KEY", "tv")
    monkeypatch.setenv("HOME_UNRELATED", "x")
    env = child_env({}, cluster=True)
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("DEEP_RESEARCHER_MODEL")
    assert env["OPENAI_BASE_URL"] == "http://10.0.0.5:8000/v1" and env["DEEP_RESEARCHER_MODEL"] == "qwen"
    assert env["TAVILY_API_KEY"] == "tv" and "HOME_UNRELATED" not in env
    assert child_env({}, cluster=False) == {}


def test_the_task_language_overrides_the_batch_language(tmp_path: Path) -> None:
    flags = child_flags({"language": "en", "max_steps": 5}, None, debug=False)
    for task, expected in ((Task("t1", "固态电池", language="zh"), "zh"), (Task("t2", "Batteries"), "en")):
        spec = RunSpec(task, str(tmp_path), flags)
        for action in ("start", "resume"):
            args = build_parser().parse_args(child_arguments(spec, action))
            assert args.language == expected and args.max_steps == 5


def test_a_workspace_of_another_title_is_refused_not_reused(tmp_path: Path) -> None:
    from agent_runtime.domain.layout import ResearchWorkspace
    from agent_runtime.engine.run_record import RunMeta, save_meta

    for status in ("finished", "stopped"):
        space = ResearchWorkspace(tmp_path / status)
        space.create("Old title", None)
        save_meta(space.run_file, RunMeta(title="Old title", status=status))
        assert plan(Task(status, "Old title"), tmp_path)[0] == ("skip" if status == "finished" else "resume")
        action, reason = plan(Task(status, "A new title"), tmp_path)
        assert action == "refuse" and reason is not None
        assert "holds the research 'Old title', not this task's title 'A new title'" in reason
        assert "give the task another id" in reason
    # The task fails with that reason (the batch goes on with the others), the workspace untouched.
    row = run_task(RunSpec(Task("stopped", "A new title"), str(tmp_path), ()))
    assert row["status"] == "failed" and "not this task's title 'A new title'" in row["error"]
    assert json.loads((tmp_path / "stopped" / ".runtime" / "run.json").read_text())["title"] == "Old title"
