"""A person's save of a dashboard is never lost (issue 22, item 6).

A dashboard that changed is read only once no one is writing it any more (an editor that saves in
place truncates the file, then writes it, maybe in parts, with pauses): on Linux once its writer
closed it (inotify, agent_runtime/engine/writers.py), elsewhere once it has not changed for a
while; the runtime also waits before it replaces a dashboard. An update is refused when the file
changed since the version the model was shown; whatever version of a person's the runtime replaces
is kept in `.trash/`, and the model is told of one it never saw (issue 34, item 5). The settle-time
tests wait on a fake clock; the others use real writers and assert no timing, only that every save
reached the model or the trash, and no half save reached the model."""

from __future__ import annotations

import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import agent_runtime.engine.state_files as state_files_module
import agent_runtime.engine.writers as writers_module
from actions.dashboards import update_current_dashboard
from agent_runtime.app.researcher import Researcher
from agent_runtime.domain.layout import CURRENT_DASHBOARD, OVERALL_DASHBOARD, ResearchWorkspace
from agent_runtime.engine.file_exchange import exchange_files
from agent_runtime.engine.registry import action
from agent_runtime.engine.state_files import EDITED_TEXT_CHARS, kept_edit_note, settled_read
from agent_runtime.engine.writers import LOOK, QUIET, WAIT_LIMIT, Writers
from agent_runtime.errors import StateEditedError
from agent_runtime.language import dashboard_words, detect
from agent_runtime.testing import Reply, ScriptedModel, call, reply, scratch_context
from tests.support.half_saves import shown_texts
from tests.support.runs import (
    events,
    finish_with_report,
    is_summary_request,
    read_fixture,
    settings,
    start_run,
)

USER_TEXT = "# Current\n- the user's plan: costs first\n"


class FakeClock:
    """Stands in for the `time` module of agent_runtime.engine.state_files and .writers: `sleep` advances a
    fake clock and runs what the test scheduled for that moment (an editor writing the rest of its save)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps = 0
        self.on_sleep: list[Callable[[], None]] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        self.now += seconds
        if self.on_sleep:
            self.on_sleep.pop(0)()

    def __getattr__(self, name: str) -> Any:  # strftime, gmtime: the real ones
        return getattr(time, name)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    """The fake clock, and no inotify: where the platform has none, the settle time decides."""
    fake = FakeClock()
    monkeypatch.setattr(state_files_module, "time", fake)
    monkeypatch.setattr(writers_module, "time", fake)
    # Patched by name until engine/workspace.py offers an injectable clock and watcher (issue 35's split of it).
    monkeypatch.setattr(writers_module, "_inotify", lambda: None)
    yield fake


def kernel_watch() -> None:
    if not Writers().kernel:
        pytest.skip("no inotify here: the settle time is tested with the fake clock")


def make_workspace(tmp_path: Path) -> ResearchWorkspace:
    ws = ResearchWorkspace(tmp_path / "ws")
    ws.create("Test research", None)
    return ws


def trash(ws: ResearchWorkspace) -> list[str]:
    folder = ws.root / ".trash"
    return sorted(p.read_text("utf-8") for p in folder.iterdir()) if folder.is_dir() else []


def rename_over(path: Path, text: str) -> None:
    """How many editors save: a new file beside it, renamed over it."""
    temp = path.with_name(f".{path.name}.editor~")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


# -- without inotify: the settle time ---------------------------------------------------------
def test_a_dashboard_saved_in_place_in_two_parts_is_read_once_the_save_is_complete(
    tmp_path: Path, clock: FakeClock
) -> None:
    ws = make_workspace(tmp_path)
    ws.state.read(CURRENT_DASHBOARD)
    path = ws.current_dashboard
    editor = path.open("w", encoding="utf-8")  # the editor truncates the file, writes half, pauses
    editor.write(USER_TEXT[:20])
    editor.flush()

    def rest() -> None:
        editor.write(USER_TEXT[20:])
        editor.close()

    clock.on_sleep[:] = [lambda: None] * 4 + [rest]  # the rest comes after a pause of 0.5 s
    assert ws.state.edited_since_read(CURRENT_DASHBOARD)
    assert ws.state.read(CURRENT_DASHBOARD) == USER_TEXT  # never the half
    assert clock.sleeps >= (0.5 + QUIET) / LOOK  # waited until it had not changed for QUIET seconds


def test_a_file_that_keeps_changing_is_read_as_it_is_after_the_limit(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "busy.md"
    path.write_text("x", encoding="utf-8")

    def grow() -> None:
        with path.open("a", encoding="utf-8") as handle:
            handle.write("x")
        clock.on_sleep.append(grow)

    clock.on_sleep.append(grow)
    text, _ = settled_read(path)
    assert set(text) == {"x"}
    assert clock.sleeps == pytest.approx(WAIT_LIMIT / LOOK, abs=1)  # bounded, then read


def test_a_version_already_read_or_written_is_read_without_waiting(tmp_path: Path, clock: FakeClock) -> None:
    ws = make_workspace(tmp_path)
    ws.state.read(OVERALL_DASHBOARD)
    ws.state.write(CURRENT_DASHBOARD, "# Current\n- the agent's note\n")
    assert not ws.state.edited()
    ws.state.read(OVERALL_DASHBOARD)
    assert ws.state.read(CURRENT_DASHBOARD) == "# Current\n- the agent's note\n"
    assert clock.sleeps == 0


def test_a_dashboard_saved_again_unchanged_is_no_edit(tmp_path: Path, clock: FakeClock) -> None:
    ws = make_workspace(tmp_path)
    text = ws.state.read(CURRENT_DASHBOARD)
    rename_over(ws.current_dashboard, text)
    assert not ws.state.edited_since_read(CURRENT_DASHBOARD)
    ws.state.write(CURRENT_DASHBOARD, "# Current\n- next\n", unless_edited=True)  # not refused


# -- never write over an edit the model did not see ---------------------------------------------
@pytest.mark.parametrize("save", ["rename", "in_place"])
def test_an_update_is_refused_when_the_file_changed_since_the_model_saw_it(
    tmp_path: Path, clock: FakeClock, save: str
) -> None:
    ws = make_workspace(tmp_path)
    ws.state.read(CURRENT_DASHBOARD)
    if save == "rename":
        rename_over(ws.current_dashboard, USER_TEXT)
    else:
        ws.current_dashboard.write_text(USER_TEXT, encoding="utf-8")
    with pytest.raises(StateEditedError) as refused:
        ws.state.write(CURRENT_DASHBOARD, "# Current\n- the agent's plan\n", unless_edited=True)
    assert refused.value.text == USER_TEXT
    assert ws.current_dashboard.read_text("utf-8") == USER_TEXT
    assert trash(ws) == []  # the refused update left nothing behind
    # Once the model was shown the edit, its merged update goes through; the user's version is kept.
    assert ws.state.edited() == [CURRENT_DASHBOARD]
    merged = ws.state.read(CURRENT_DASHBOARD) + "- the agent's plan, after the user's\n"
    replaced = ws.state.write(CURRENT_DASHBOARD, merged, unless_edited=True)
    assert replaced.kept is not None and replaced.unseen_text is None
    assert (ws.root / replaced.kept).read_text("utf-8") == USER_TEXT
    assert ws.current_dashboard.read_text("utf-8") == merged


async def test_the_action_refuses_with_the_users_text_bounded(tmp_path: Path, clock: FakeClock) -> None:
    ctx = scratch_context(tmp_path / "ws")
    try:
        ctx.workspace.state.read(CURRENT_DASHBOARD)
        long_text = "# Current\n" + "".join(f"- user line {n}\n" for n in range(2000))
        ctx.workspace.current_dashboard.write_text(long_text, encoding="utf-8")
        observation = await update_current_dashboard.run(ctx, {"content": "# Current\n- mine\n"})
        assert observation.error
        assert "the user edited it while you were working" in observation.text
        assert "- user line 0\n" in observation.text and "- user line 1999" not in observation.text
        assert len(observation.text) < EDITED_TEXT_CHARS + 1000
        assert ctx.workspace.current_dashboard.read_text("utf-8") == long_text
    finally:
        await ctx.services.aclose()


# -- keep what a person saved ------------------------------------------------------------------
def test_only_a_persons_versions_go_to_the_trash_also_after_a_restart(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    ws.state.read(CURRENT_DASHBOARD)
    assert ws.state.write(CURRENT_DASHBOARD, "# Current\n- one\n").kept is None  # the template was ours
    again = ResearchWorkspace(ws.root)  # another process (a resume): knows the runtime's own version too
    again.state.read(CURRENT_DASHBOARD)
    assert again.state.write(CURRENT_DASHBOARD, "# Current\n- two\n", unless_edited=True).kept is None
    assert trash(ws) == []
    ws.current_dashboard.write_text(USER_TEXT, encoding="utf-8")  # edited while the run was stopped
    third = ResearchWorkspace(ws.root)
    third.state.read(CURRENT_DASHBOARD)
    assert third.state.write(CURRENT_DASHBOARD, "# Current\n- three\n", unless_edited=True).kept
    assert trash(ws) == [USER_TEXT]


@pytest.fixture(params=["exchange", "link_then_replace"])
def swap(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of putting a dashboard in place: the atomic exchange, and (where the system or
    file system has none) keeping a hard link to the old file, then replacing it."""
    if request.param == "link_then_replace":
        monkeypatch.setattr(state_files_module, "exchange_files", lambda a, b: False)
    return str(request.param)


def test_the_exchange_swaps_two_files_in_one_step(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("A")
    b.write_text("B")
    if not exchange_files(a, b):
        pytest.skip("this system or file system cannot exchange two names (the link fallback is tested)")
    assert (a.read_text(), b.read_text()) == ("B", "A")
    with pytest.raises(FileNotFoundError):
        exchange_files(a, tmp_path / "missing")


def test_a_writer_that_never_closes_delays_a_write_only_up_to_the_limit_and_is_logged(
    tmp_path: Path, swap: str
) -> None:
    ws = make_workspace(tmp_path)
    ws.state.writer_wait_limit = 0.2
    stuck: list[str] = []
    ws.state.on_stuck_writer = lambda name, seconds: stuck.append(name)
    ws.state.read(CURRENT_DASHBOARD)
    editor = ws.current_dashboard.open("w", encoding="utf-8")
    editor.write(USER_TEXT[:20])
    editor.flush()
    # A write that checks nothing (the summarizer's), made while the editor is stuck between two parts.
    replaced = ws.state.write(CURRENT_DASHBOARD, "# Current\n- summary\n")
    editor.write(USER_TEXT[20:])
    editor.close()
    assert CURRENT_DASHBOARD in stuck  # the run went on, and said so
    assert replaced.kept is not None
    assert (ws.root / replaced.kept).read_text("utf-8") == USER_TEXT  # the whole save, in the trash
    assert ws.current_dashboard.read_text("utf-8") == "# Current\n- summary\n"


class PausedEditor(threading.Thread):
    """Saves USER_TEXT in place: truncates, writes part, tells `begun`, waits for `go`, pauses, writes
    the rest, closes."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.begun, self.go = threading.Event(), threading.Event()

    def run(self) -> None:
        with self.path.open("w", encoding="utf-8") as editor:
            editor.write(USER_TEXT[:20])
            editor.flush()
            self.begun.set()
            self.go.wait(10)
            time.sleep(0.3)  # an editor's pause mid-save; nothing asserts how long anything took
            editor.write(USER_TEXT[20:])


def test_a_save_paused_mid_write_is_read_once_its_writer_closed_it(tmp_path: Path) -> None:
    kernel_watch()
    ws = make_workspace(tmp_path)
    ws.state.read(CURRENT_DASHBOARD)
    editor = PausedEditor(ws.current_dashboard)
    editor.start()
    editor.begun.wait(10)
    assert ws.state.writers().state(ws.current_dashboard) is True  # modified, not yet closed
    editor.go.set()
    assert ws.state.edited() == [CURRENT_DASHBOARD]
    assert ws.state.read(CURRENT_DASHBOARD) == USER_TEXT  # never the half
    assert ws.state.writers().state(ws.current_dashboard) is False
    editor.join(10)


@pytest.mark.parametrize("code", ["en", "zh"])
def test_the_runtime_waits_for_a_writer_before_it_replaces_a_dashboard_and_tells_the_model(
    tmp_path: Path, code: str
) -> None:
    ws = make_workspace(tmp_path)
    before = ws.state.read(CURRENT_DASHBOARD)
    editor = PausedEditor(ws.current_dashboard)
    editor.start()
    editor.begun.wait(10)
    editor.go.set()
    # The summarizer's write, made from the text it read before the person began to save.
    replaced = ws.state.write(CURRENT_DASHBOARD, "# Current\n- summary\n", based_on=before)
    editor.join(10)
    assert ws.current_dashboard.read_text("utf-8") == "# Current\n- summary\n"
    assert replaced.kept is not None and (ws.root / replaced.kept).read_text("utf-8") == USER_TEXT
    assert replaced.unseen_text == USER_TEXT  # whole: read once the editor had closed it
    note = kept_edit_note(code, CURRENT_DASHBOARD, replaced)
    assert note is not None and "- the user's plan: costs first" in note and replaced.kept in note
    assert ("用户" in note) == (code == "zh")
    # A version the model had been shown is no news to it.
    again = ws.state.write(CURRENT_DASHBOARD, "# Current\n- next\n")
    assert again.kept is None and kept_edit_note(code, CURRENT_DASHBOARD, again) is None


def test_a_save_landing_between_the_check_and_the_swap_is_kept_and_shown(
    tmp_path: Path, swap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = make_workspace(tmp_path)
    ws.state.read(CURRENT_DASHBOARD)
    checked = ws.state._unchanged

    def check_then_user_saves(name: str) -> Any:
        key = checked(name)
        rename_over(ws.current_dashboard, USER_TEXT)  # in the instant after the check
        return key

    # Patched by name: the user's save must land between the check and the swap (no hook there yet).
    monkeypatch.setattr(ws.state, "_unchanged", check_then_user_saves)
    replaced = ws.state.write(CURRENT_DASHBOARD, "# Current\n- the agent's\n", unless_edited=True)
    assert replaced.unseen_text == USER_TEXT  # the model is told, with the text
    assert replaced.kept is not None and (ws.root / replaced.kept).read_text("utf-8") == USER_TEXT


def test_a_deleted_dashboard_is_written_again(tmp_path: Path, swap: str) -> None:
    ws = make_workspace(tmp_path)
    ws.state.read(CURRENT_DASHBOARD)
    ws.current_dashboard.unlink()
    assert ws.state.write(CURRENT_DASHBOARD, "# Current\n- back\n").kept is None
    assert ws.current_dashboard.read_text("utf-8") == "# Current\n- back\n"
    assert not any((ws.root / ".trash").iterdir())


async def test_a_trash_that_is_a_link_refuses_the_update_and_changes_nothing(tmp_path: Path) -> None:
    ctx = scratch_context(tmp_path / "ws")
    try:
        (tmp_path / "elsewhere").mkdir()
        (ctx.workspace.root / ".trash").symlink_to(tmp_path / "elsewhere")
        before = ctx.workspace.current_dashboard.read_text("utf-8")
        observation = await update_current_dashboard.run(ctx, {"content": "# Current\n- mine\n"})
        assert observation.error and "the trash must be a real folder" in observation.text
        assert ctx.workspace.current_dashboard.read_text("utf-8") == before
        assert not any((tmp_path / "elsewhere").iterdir())
    finally:
        await ctx.services.aclose()


# -- a real run while a person keeps saving ----------------------------------------------------
MARKER = re.compile(r"^- marker (rename|rewrite|halves)-\d{3} end$")
FRAMED = re.compile(r"<<< ((?:overall|current)_dashboard\.md) >>>\n(.*?)\n<<< end of \1 >>>", re.DOTALL)
SAVES_PER_KIND = 20
HALVES_PAUSE = 0.01  # between the two parts of an in-place save (well under SETTLE_LOOK)


@action
async def note(n: int) -> str:
    """Note a thought (a step that changes no file).

    Args:
        n: which thought.
    """
    return f"thought {n}"


class Person(threading.Thread):
    """Edits both dashboards as an editor does: loads the file, adds a line with a marker of its
    own, saves; each kind of save SAVES_PER_KIND times, in a shuffled (seeded) order."""

    def __init__(self, ws: Path) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.written: list[str] = []
        self.stop = threading.Event()
        self.failure: BaseException | None = None

    def run(self) -> None:
        rng = random.Random(22)
        plan = [(kind, n) for kind in ("rename", "rewrite", "halves") for n in range(SAVES_PER_KIND)]
        rng.shuffle(plan)
        try:
            for index, (kind, n) in enumerate(plan):
                if self.stop.is_set():
                    return
                path = self.ws / (CURRENT_DASHBOARD if index % 2 else OVERALL_DASHBOARD)
                marker = f"- marker {kind}-{n:03d} end"
                text = path.read_text("utf-8").rstrip("\n") + f"\n{marker}\n"
                self.written.append(marker)
                if kind == "rename":
                    rename_over(path, text)
                elif kind == "rewrite":
                    path.write_text(text, encoding="utf-8")
                else:  # truncate, write up to the middle of the marker line, pause, write the rest
                    cut = len(text) - len(marker) // 2
                    with path.open("w", encoding="utf-8") as editor:
                        editor.write(text[:cut])
                        editor.flush()
                        time.sleep(HALVES_PAUSE)
                        editor.write(text[cut:])
                time.sleep(rng.uniform(0, 0.2))
        except BaseException as exc:
            self.failure = exc


@pytest.mark.slow
async def test_no_save_is_lost_and_no_half_save_is_merged_while_the_run_works(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    person = Person(ws)
    # Every dashboard text the model was given: with the dashboards, or in an observation or a note.
    shown: list[str] = []
    state = {"requests": 0, "done_at": 0}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        state["requests"] += 1
        n = state["requests"]
        for message in messages:
            shown.extend(shown_texts(str(message.get("content") or "")))
        dashboards = dict(FRAMED.findall(str(messages[1]["content"])))  # [system, dashboards, …]
        if n == 1:
            person.start()
        if person.is_alive():
            time.sleep(0.01)  # a model takes its time: 2,000 steps must outlast the person's saves on a busy machine
        if state["done_at"] and n > state["done_at"]:
            return finish_with_report(ws)  # this request was built after the last save
        if not person.is_alive() and n > 1:
            state["done_at"] = n
            return reply(call("note", n=n))
        # The model merges what it was shown: the dashboard as given, plus a line of its own.
        if n % 3 == 0:
            return reply(
                call("update_current_dashboard", content=f"{dashboards[CURRENT_DASHBOARD]}\n- agent {n}")
            )
        if n % 3 == 1:
            return reply(
                call("update_overall_dashboard", content=f"{dashboards[OVERALL_DASHBOARD]}\n- agent {n}")
            )
        return reply(call("note", n=n))

    try:
        result, _ = await start_run(tmp_path, script, extra=[note], max_steps=2000)
    finally:
        person.stop.set()
        person.join(10)
    assert person.failure is None, person.failure
    assert result.status == "finished", result.reason
    assert len(person.written) == 3 * SAVES_PER_KIND
    trashed = (
        "\n".join(p.read_text("utf-8") for p in (ws / ".trash").iterdir()) if (ws / ".trash").exists() else ""
    )
    merged = "\n".join(shown)
    lost = [m for m in person.written if m not in merged and m not in trashed]
    assert lost == []  # every save reached the model, or is kept in the trash
    half = [line for line in merged.splitlines() if "marker" in line and not MARKER.fullmatch(line)]
    assert half == []  # the model was never given a save cut in the middle


# -- a save during the runtime's summarizing call (the gap issue 22 left) -----------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    ("title", "told"), [("Solid-state batteries", "The user saved"), ("固态电池的产业化进展", "用户同时保存了它")]
)
async def test_a_save_during_the_summarizing_call_is_kept_and_the_model_is_told_in_the_runs_language(
    tmp_path: Path, title: str, told: str
) -> None:
    ws = tmp_path / "ws"
    state = {"main": 0, "saved": False}
    user_line = "- marker summarizing-call end"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if is_summary_request(messages):
            if not state["saved"]:  # the person saves while the summarizer works, once
                path = ws / CURRENT_DASHBOARD
                path.write_text(path.read_text("utf-8") + f"{user_line}\n", encoding="utf-8")
                state["saved"] = True
            words = dashboard_words(detect(title))
            return Reply(
                content=f"# {words['current']}\n\n## {words['task']}\nReading.\n\n## {words['findings']}\n"
                f"Read parts so far; nothing else.\n\n## {words['next']}\nRead on.\n\n## {words['lessons']}\n"
            )
        state["main"] += 1
        if state["saved"] and any(user_line in str(m.get("content")) for m in messages[-1:]):
            return finish_with_report(ws)
        if state["main"] > 60:
            return finish_with_report(ws)
        return reply(call("read_fixture", part=state["main"]))

    model = ScriptedModel(script)
    researcher = Researcher.start(
        title, purpose=None, workspace=ws, settings=settings(context_window=8_000), model=model,
        extra_actions=[read_fixture],
    )  # fmt: skip
    result = await researcher.run()
    assert result.status == "finished", result.reason
    assert state["saved"]
    # The request after the summary: the script finished on it, its last message telling of the save.
    note = str([m for m, _ in model.requests if not is_summary_request(m)][-1][-1]["content"])
    assert told in note and user_line in note and ".trash/" in note  # told, in the run's language
    kept = [e for e in events(ws) if e["event"] == "dashboard_edit_kept"]
    assert kept and user_line in (ws / kept[0]["kept"]).read_text("utf-8")
