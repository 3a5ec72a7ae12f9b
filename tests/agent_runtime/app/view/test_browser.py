"""The live view in a real browser (Debian's Chromium driven by Playwright) on a live scripted run
through the real CLI: the timeline grows while the run works; a dashboard edited in the page is
saved and reaches the next request the model receives; Stop ends the run with exit 130 and Resume
continues it to the end; pointing at a citation of the report shows its passage and links to the
source; a snapshot carrying a script shows it as text without running it. The page is saved as a
screenshot (tmp_path/view.png; also to $DEEP_RESEARCHER_VIEW_SCREENSHOT when set)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import ScriptedEndpoint
from tests.support.cli import cli_env
from tests.support.view import CHROMIUM, RunningView, big_log, make_workspace, wait_js, wait_until
from tests.support.view_scenario import PURPOSE, TITLE, Research, page_server

playwright_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"Chromium is not installed at {CHROMIUM}")

MARK = "STEER-7: compare the cost per kWh with lithium-ion packs first"
STEERED = f"# Current dashboard\n\n## Task\n{MARK}\n\n## Next steps\n- read market notes\n"


def shown_in(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in request.get("messages", []))


@pytest.mark.slow
def test_watch_steer_stop_resume_and_read_a_live_run(
    tmp_path: Path,
    endpoint: Callable[[Any], ScriptedEndpoint],
    view_process: Callable[..., RunningView],
    browser: Any,
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    workspace = runs / "solid-state-batteries"
    with page_server() as pages:
        research = Research(f"http://127.0.0.1:{pages.port}", delay=0.6)
        server = endpoint(research)
        env = cli_env(server.url)
        run = subprocess.Popen(
            [sys.executable, "-m", "agent_runtime.app.cli", "run", TITLE, "--purpose", PURPOSE,
             "--workspace", str(workspace), "--allow-private-urls"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            view = view_process(runs, env)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            _drive(page, view, research, server, run, workspace, tmp_path)
            # Without the Content-Security-Policy too: the escaping alone keeps the script inert.
            bare = browser.new_context(bypass_csp=True).new_page()
            bare.goto(view.url)
            _open_forum_snapshot(bare)
        finally:
            if run.poll() is None:
                run.kill()
            run.communicate(timeout=30)
    assert view.process.poll() is None  # the view outlives the runs it shows


def _drive(
    page: Any, view: RunningView, research: Research, server: ScriptedEndpoint,
    run: subprocess.Popen[str], workspace: Path, tmp_path: Path,
) -> None:  # fmt: skip
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(view.url)
    assert page.url == view.base + "/"  # the token left the address bar
    assert page.context.cookies() == []  # and is no cookie, which every port of 127.0.0.1 would get

    # The one workspace opens by itself once the run has made it; the timeline grows as it works.
    page.wait_for_selector("#run:not([hidden])", timeout=30_000)
    page.wait_for_selector("#status-line .status-running", timeout=30_000)
    page.reload()  # the tab keeps the token (sessionStorage): a reload shows the run again
    page.wait_for_selector("#status-line .status-running", timeout=30_000)
    actions = "document.querySelectorAll('#timeline .event.action').length"
    wait_js(page, f"{actions} >= 2")
    seen = page.evaluate(actions)
    wait_js(page, f"{actions} > {seen}")
    # The File agent's steps are folded under the file_operation they served.
    page.wait_for_selector("#timeline .event.action .agent-group summary >> text=File agent", timeout=30_000)
    wait_js(
        page,
        "[...document.querySelectorAll('#timeline .event.action .name')]"
        ".some(n => n.textContent === 'update_current_dashboard')",
    )

    # Steering: edit the current dashboard in the page.
    page.click("#tabs button[data-tab=dashboards]")
    dashboard = page.locator('.dashboard[data-name="current_dashboard.md"]')
    dashboard.locator(".doc h2").first.wait_for()
    dashboard.locator("button.edit").click()
    dashboard.locator("textarea").fill(STEERED)
    before = len(server.requests)
    dashboard.locator("button.save").click()
    page.wait_for_selector("#message.ok >> text=Saved current_dashboard.md")
    assert (workspace / "current_dashboard.md").read_text() == STEERED
    # The next request carries the edited text (or the one after it, if a request was on its way
    # as the file was saved).
    carrying = wait_until(
        lambda: [n for n, r in enumerate(server.requests[before:], 1) if MARK in shown_in(r)],
        30, "the edited dashboard in a request",
    )  # fmt: skip
    assert carrying[0] <= 2, f"the edit reached the model only at request {carrying[0]} after it"
    page.click("#tabs button[data-tab=timeline]")
    page.wait_for_selector("#timeline .event.note.edited >> text=current_dashboard.md", timeout=30_000)
    page.screenshot(path=str(tmp_path / "view.png"))
    if os.environ.get("DEEP_RESEARCHER_VIEW_SCREENSHOT"):
        shutil.copy(tmp_path / "view.png", os.environ["DEEP_RESEARCHER_VIEW_SCREENSHOT"])

    # Stop: the run ends resumably with exit 130; Resume continues it to the end.
    page.click("#stop")
    assert run.wait(60) == 130
    page.wait_for_selector("#status-line .status-interrupted", timeout=30_000)
    assert json.loads((workspace / ".runtime" / "run.json").read_text())["status"] == "interrupted"
    research.finish.set()
    page.click("#resume")
    page.wait_for_selector("#message.ok >> text=Resumed", timeout=30_000)
    page.wait_for_selector("#status-line .status-finished", timeout=60_000)
    meta = json.loads((workspace / ".runtime" / "run.json").read_text())
    assert meta["status"] == "finished" and meta["resumes"] == 1
    page.wait_for_selector("#timeline .event.note >> text=Resumed (resume 1)")
    page.wait_for_selector("#timeline .event.note >> text=Run ended: finished")

    # The report: pointing at a citation shows the passage the audit found, and the source's link.
    page.click("#tabs button[data-tab=report]")
    cite = page.locator("#report-doc a.cite").first
    cite.wait_for()
    cite.hover()
    popover = page.locator("#popover")
    popover.wait_for(state="visible")
    assert "The cost of solid-state cells fell to 180 dollars per kWh in 2026" in popover.inner_text()
    assert "supported" in popover.inner_text()
    assert popover.locator("a.pop-link").get_attribute("href").endswith("/ssb-costs")
    assert popover.locator("a.pop-link").get_attribute("rel") == "noopener noreferrer"

    # Export: the button downloads the report as a file.
    with page.expect_download() as download:
        page.click("#exports button[data-format=html]")
    assert download.value.suggested_filename == "solid-state-batteries.html"
    exported = Path(download.value.path()).read_text("utf-8")
    assert TITLE in exported and "/ssb-costs" in exported
    page.wait_for_selector("#message.ok >> text=Exported solid-state-batteries.html")

    # A snapshot carrying a script: shown as text, never run (nor its onerror handler).
    _open_forum_snapshot(page)
    assert not errors, errors


def _open_forum_snapshot(page: Any) -> None:
    page.wait_for_selector("#run:not([hidden])")
    page.click("#tabs button[data-tab=sources]")
    page.locator("#source-list button >> text=Forum").click()
    page.wait_for_selector("#source-doc .snapshot >> text=window.pwned = 1")
    assert "<script>window.pwned = 1</script>" in page.locator("#source-doc .snapshot").inner_text()
    page.wait_for_timeout(300)  # time for an image's onerror, had the tag been made
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("#source-doc script, #source-doc img").count() == 0


@pytest.mark.slow
def test_parallel_research_agents_fold_under_the_task_each_served(
    tmp_path: Path, view_process: Callable[..., RunningView], browser: Any
) -> None:
    """Two research tasks of one reply run side by side and end in the other order: each agent's
    steps go under the research_task action that asked its question."""
    runs = tmp_path / "runs"
    workspace = make_workspace(runs / "ssb")
    cost, ships = "What do solid-state cells cost in 2026?", "Which carmaker ships first?"
    events = [
        {"event": "run_started", "model": "m"},
        {"event": "model_call", "agent": "main", "step": 6, "calls": ["research_task", "research_task"]},
        {"event": "agent_started", "agent": "research-1", "step": 6, "question": cost},
        {"event": "agent_started", "agent": "research-2", "step": 6, "question": ships},
        {"event": "model_call", "agent": "research-2", "step": 1, "calls": ["web_search"]},
        {"event": "action", "agent": "research-2", "step": 1, "action": "web_search", "arguments": {"query": "first solid-state car"}},
        {"event": "model_call", "agent": "research-1", "step": 1, "calls": ["visit_url"]},
        {"event": "action", "agent": "research-1", "step": 1, "action": "visit_url", "arguments": {"url": "https://example.org/costs"}},
        {"event": "model_call", "agent": "research-1", "step": 2, "calls": ["file_operation"]},
        # research-1's File operation: its events name the task as their parent.
        {"event": "model_call", "agent": "file", "parent": "research-1", "step": 1, "calls": ["write_file"]},
        {"event": "action", "agent": "file", "parent": "research-1", "step": 1, "action": "write_file", "arguments": {"file_path": "Notebook/scratch.md"}},
        {"event": "agent_ended", "agent": "file", "parent": "research-1", "step": 6, "outcome": "finished", "steps": 1},
        {"event": "action", "agent": "research-1", "step": 2, "action": "file_operation", "arguments": {"operation_description": "Create Notebook/scratch.md"}},
        {"event": "agent_ended", "agent": "research-2", "step": 6, "outcome": "finished", "steps": 1},
        {"event": "action", "agent": "main", "step": 6, "action": "research_task", "arguments": {"question": ships}},
        {"event": "agent_ended", "agent": "research-1", "step": 6, "outcome": "finished", "steps": 1},
        {"event": "action", "agent": "main", "step": 6, "action": "research_task", "arguments": {"question": cost}},
        {"event": "run_ended", "status": "stopped", "reason": "max_steps"},
    ]  # fmt: skip
    (workspace / ".runtime" / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    view = view_process(runs, cli_env())
    page = browser.new_page()
    page.goto(view.url)
    page.wait_for_selector("#timeline .event.note >> text=Run ended: stopped")
    rows = page.locator("#timeline .step > .step-body > .event.action")
    assert rows.count() == 2
    assert ships in rows.nth(0).inner_text() and "Research agent 2" in rows.nth(0).inner_text()
    assert cost in rows.nth(1).inner_text() and "Research agent 1" in rows.nth(1).inner_text()
    assert page.locator("#timeline .step > .step-body > .agent-group").count() == 0  # all folded
    # The File agent's steps fold under the research agent's file_operation, not the step.
    nested = rows.nth(1).locator(".agent-group li.event.action", has_text="file_operation")
    assert nested.count() == 1
    folded = nested.locator(".agent-group").text_content() or ""  # collapsed: read, not shown
    assert "File agent" in folded and "write_file" in folded
    # Another tab opened without the printed URL has no token: it shows nothing but how to
    # get in.
    other = browser.new_page()
    other.goto(view.base + "/")
    other.wait_for_selector("#empty >> text=needs its access token")
    assert other.locator("#workspace-list li").count() == 0


@pytest.mark.slow
def test_a_long_log_shows_its_last_part_and_the_timeline_keeps_its_last_2000_steps(
    tmp_path: Path, view_process: Callable[..., RunningView], browser: Any
) -> None:
    """A 6 MB log: the server sends its last 4 MB (about 6,000 steps here) and says so; the page
    keeps the last 2,000 step cards and says how many earlier ones it dropped."""
    runs = tmp_path / "runs"
    workspace = make_workspace(runs / "ssb")
    size = big_log(workspace / ".runtime" / "events.jsonl", 6)
    last_step = json.loads((workspace / ".runtime" / "events.jsonl").read_text().splitlines()[-1])["step"]
    view = view_process(runs, cli_env())
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    started = time.monotonic()
    page.goto(view.url)
    page.wait_for_selector(f"#timeline .step-number >> text='Step {last_step}'", timeout=60_000)
    shown_after = time.monotonic() - started
    assert page.locator("#timeline .step").count() == 2000
    head = page.locator("#timeline > li.note.skipped").first.inner_text()
    assert head.startswith(f"The first {(size - 4_000_000) / 1e6:.1f} MB of the event log are not shown")
    assert "earlier steps are not shown: the page keeps the last 2,000" in head
    assert page.locator("#timeline > li").first.inner_text() == head  # it stays at the top
    assert page.locator("#timeline .step-number").first.inner_text() == f"Step {last_step - 1999}"
    assert not errors, errors
    assert shown_after < 15, shown_after  # about 2 s; 29 s when each row scrolled the list


@pytest.mark.slow
def test_a_dashboard_too_long_to_show_whole_cannot_be_edited_in_the_page(
    tmp_path: Path, view_process: Callable[..., RunningView], browser: Any
) -> None:
    runs = tmp_path / "runs"
    workspace = make_workspace(runs / "ssb")
    (workspace / "current_dashboard.md").write_text("# Current\n\n" + "- a finding worth keeping\n" * 90_000)
    view = view_process(runs, cli_env())
    page = browser.new_page()
    page.goto(view.url)
    page.wait_for_selector("#run:not([hidden])")
    page.click("#tabs button[data-tab=dashboards]")
    current = page.locator('.dashboard[data-name="current_dashboard.md"]')
    current.locator(".cut-note").wait_for()
    assert current.locator("button.edit").is_disabled()
    assert "edit it in an editor" in (current.locator("button.edit").get_attribute("title") or "")
    assert page.locator('.dashboard[data-name="overall_dashboard.md"] button.edit').is_enabled()


@pytest.mark.slow
def test_the_page_gives_the_citation_figures_and_never_shows_a_closest_passage_as_support(
    tmp_path: Path, view_process: Callable[..., RunningView], browser: Any
) -> None:
    """A finished run whose report keeps one citation the audit could not verify (marked †): the
    status line gives the figures and says so; pointing at that citation shows the closest passage
    labelled "not verified" with its reason, pointing at the other shows its supporting passage."""
    runs = tmp_path / "runs"
    workspace = make_workspace(runs / "ssb")
    (workspace / "report.md").write_text(
        "# Solid-state batteries\n\nCells cost 180 dollars per kWh in 2026 [1].\n\n"
        "Readers say cells cost 90 dollars [2]†.\n\n## References\n\n"
        "1. Page costs. https://example.org/costs (accessed 2026-01-01)\n"
        "2. Page forum. https://example.org/forum (accessed 2026-01-01)\n"
    )
    supported = {
        "citation": 1, "source": "S1", "statement": "Cells cost 180 dollars per kWh in 2026.", "verdict": "supported",
        "judged_by": "lexical", "passage": "Cells cost 180 dollars per kWh in 2026.", "passage_is": "supporting",
        "file": "sources/S1.md", "lines": [5, 5], "score": 1.0, "reasons": [],
    }  # fmt: skip
    unsupported = {
        "citation": 2, "source": "S2", "statement": "Readers say cells cost 90 dollars.", "verdict": "unsupported",
        "judged_by": "lexical", "passage": "Another reader answered that pilot lines exist today.",
        "passage_is": "closest", "file": "sources/S2.md", "lines": [7, 7], "score": 0.1,
        "reasons": ["90 is not in the source's passage", "dollars is not in the source's passage"],
    }  # fmt: skip
    figures = {"checked": 2, "supported": 1, "weak": 0, "unsupported": 1, "citation_accuracy": 0.5,
               "effective_citations": 1, "unverified": 1, "checked_by": "lexical"}  # fmt: skip
    (workspace / "report.citations.json").write_text(
        json.dumps({"summary": {**figures, "judge": None}, "citations": [supported, unsupported]})
    )
    run_file = workspace / ".runtime" / "run.json"
    meta = json.loads(run_file.read_text())
    meta.update(status="finished", stop_reason=None, summary={"steps": 5, "citations": figures})
    run_file.write_text(json.dumps(meta))
    view = view_process(runs, cli_env())
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(view.url)
    page.wait_for_selector("#status-line .status-finished")
    line = page.locator("#status-line")
    assert line.locator(".citation-figures").inner_text() == "citations: 2 checked · accuracy 50% · 1 effective"
    note = "finished with 1 citation that could not be verified"
    assert line.locator(".unverified-note").inner_text() == note
    assert line.locator(".badge").get_attribute("title") == note
    assert page.locator("#workspace-list .badge").get_attribute("title") == note
    page.click("#tabs button[data-tab=report]")
    popover = page.locator("#popover")
    page.locator("#report-doc a.cite[data-cite='2']").hover()
    popover.wait_for(state="visible")
    shown = popover.inner_text()
    assert "closest passage — not verified" in shown and "90 is not in the source's passage" in shown
    assert "Another reader answered that pilot lines exist today." in shown
    assert "Supporting passage" not in shown and "dollars is not in" not in shown  # the first reason only
    assert popover.locator(".pop-passage.closest").count() == 1
    assert "†" in page.locator("#report-doc p", has_text="90 dollars").inner_text()
    page.mouse.move(5, 5)
    popover.wait_for(state="hidden")
    page.locator("#report-doc a.cite[data-cite='1']").hover()
    popover.wait_for(state="visible")
    shown = popover.inner_text()
    assert "Supporting passage (sources/S1.md, lines 5–5)" in shown and "not verified" not in shown
    assert "Cells cost 180 dollars per kWh in 2026." in shown
    assert not errors, errors
