import io
from pathlib import Path

import pytest

from agent_runtime.app.terminal_status import LiveView
from agent_runtime.config import load_settings
from agent_runtime.engine.run_record import EventLog, RunMeta, load_meta, read_events, save_meta
from agent_runtime.errors import WorkspaceError
from sandbox import atomic_write_text


def test_a_torn_last_event_line_is_skipped(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    log.append("run_started", title="t")
    log.append("action", step=1, action="web_search")
    log.close()
    with (tmp_path / "events.jsonl").open("a") as handle:
        handle.write('{"event": "action", "step": 2, "acti')  # a process killed mid-line
    assert [e["event"] for e in read_events(tmp_path / "events.jsonl")] == ["run_started", "action"]


def test_run_metadata_round_trips_and_a_damaged_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    assert load_meta(path) is None
    save_meta(path, RunMeta(title="T", purpose="p"))
    assert load_meta(path) == RunMeta.model_validate_json(path.read_text())
    path.write_text("{not json")
    with pytest.raises(WorkspaceError, match="move it aside"):
        load_meta(path)


def test_atomic_write_leaves_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    path = tmp_path / "dashboard.md"
    atomic_write_text(path, "old\n")

    with pytest.raises(TypeError):
        atomic_write_text(path, 42)  # type: ignore[arg-type]
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dashboard.md"]  # no temp file left behind


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_live_view_is_one_updating_line_on_a_terminal_and_plain_lines_otherwise() -> None:
    settings = load_settings({}, env={})
    events = [
        {"event": "model_call", "agent": "main", "step": 1, "prompt_tokens": 1000, "completion_tokens": 50},
        {
            "event": "action",
            "agent": "main",
            "step": 1,
            "action": "web_search",
            "observation_chars": 900,
            "error": None,
        },
        {
            "event": "action",
            "agent": "file",
            "step": 1,
            "action": "grep_files",
            "observation_chars": 10,
            "error": "bad regex",
        },
    ]
    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        view = LiveView(stream, settings)
        for event in events:
            view(event)
    assert "\r\x1b[K" in terminal.getvalue() and "\n" not in terminal.getvalue()
    assert "1,050 tokens" in terminal.getvalue() and "file:grep_files" in terminal.getvalue()
    lines = pipe.getvalue().splitlines()
    assert lines == ["step 1 web_search (900 chars)", "step 1 file:grep_files (10 chars) — error: bad regex"]
