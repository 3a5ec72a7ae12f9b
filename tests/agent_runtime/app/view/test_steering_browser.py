"""Continue and Follow up in a real browser (Debian's Chromium driven by Playwright), at a phone's
width and a desktop's: a run paused for the review of its plan (the real CLI with --review-plan)
shows its plan in an editor; the person adds a question and presses Continue; the run resumes with
the edited plan and finishes; Follow up on it starts a new run beside it, which finishes too."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import cli_env, run_cli, write_cited_report
from tests.support.view import CHROMIUM, RunningView, wait_js, wait_until

playwright_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"Chromium is not installed at {CHROMIUM}"),
]

PLAN = "# Batteries\n\n## Research questions\n1. Q1: cost per kWh\n\n## Outline\n1. Notebook/01_costs.md: costs\n"
ADDED = "2. Q2: recycling, added in the page"


def script_for(runs: Path) -> Callable[[list[dict[str, Any]], list[dict[str, Any]]], Reply]:
    """Plan → (pause) → current dashboard → report → finish, in the one run working now."""

    def working() -> Path:
        unfinished = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".") and not (p / "report.md").exists()]
        return max(unfinished, key=lambda p: (p / ".runtime" / "run.json").stat().st_mtime)

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen = json.dumps(messages, ensure_ascii=False)
        if "phase: writing" in seen:
            write_cited_report(working())
            return reply(call("all_finished", result="done", report_path="draft.md"))
        if "Q1: cost per kWh" in seen and "[follow-up]" not in seen:
            return reply(call("update_current_dashboard", content="# Current\n\nphase: writing\n"))
        return reply(call("update_overall_dashboard", content=PLAN))

    return script


def status_of(workspace: Path) -> str:
    try:
        return str(json.loads((workspace / ".runtime" / "run.json").read_text())["status"])
    except (OSError, ValueError, KeyError):
        return ""


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)], ids=["phone", "desktop"])
def test_continue_and_follow_up_from_the_page(
    tmp_path: Path, width: int, height: int,
    endpoint: Callable[[Any], ScriptedEndpoint], view_process: Callable[..., RunningView],
) -> None:  # fmt: skip
    runs = tmp_path / "runs"
    runs.mkdir()
    server = endpoint(script_for(runs))
    env = cli_env(server.url)
    paused = run_cli(["run", "Batteries", "--review-plan", "--workspace", str(runs / "batteries")], env)
    assert paused.code == 3 and status_of(runs / "batteries") == "awaiting_review", paused.stderr
    view = view_process(runs, env)
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(view.url + "#ws=batteries")
            wait_js(page, "!document.querySelector('#waiting').hidden")
            wait_js(page, "document.querySelector('#waiting-text').value.includes('Q1: cost per kWh')")
            assert page.is_visible("#continue") and not page.is_visible("#resume")
            editor = page.locator("#waiting-text")
            editor.fill(editor.input_value() + f"{ADDED}\n")
            before = len(server.requests)
            page.click("#continue")
            wait_until(lambda: status_of(runs / "batteries") == "finished", 60, "the continued run to finish")
            resumed = json.dumps(server.requests[before]["messages"], ensure_ascii=False)
            assert ADDED in resumed and "[plan reviewed]" in resumed

            wait_js(page, "!document.querySelector('#follow-up-button').hidden", 30)
            page.click("#follow-up-button")
            page.fill("#follow-up-question", "What changed since?")
            page.click("#follow-up-start")
            follow = runs / "batteries-follow-up"
            wait_until(lambda: status_of(follow) == "finished", 90, "the follow-up to finish")
            wait_js(page, "location.hash.includes('batteries-follow-up')")
            assert any("[follow-up]" in json.dumps(r["messages"]) for r in server.requests[before:])
            # Nothing wider than the window, at either width.
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
            page.screenshot(path=str(tmp_path / f"steering-{width}.png"), full_page=True)
        finally:
            browser.close()
