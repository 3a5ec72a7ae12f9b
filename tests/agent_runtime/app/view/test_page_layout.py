"""The page in a real browser (Debian's Chromium through Playwright) at a phone's width (420 px) and
a desktop's (1280 px): the New research form is visible and starts a real run (the CLI talking to a
scripted endpoint) that then shows live; nothing is wider than the window (no horizontal scroll),
on the form, the timeline or the dashboards; the page's words follow the browser's language
(English, or Chinese for zh-CN). Screenshots go to tmp_path (and $DEEP_RESEARCHER_VIEW_SCREENSHOTS,
a folder, when set)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import ScriptedEndpoint, demo_script
from tests.support.cli import cli_env
from tests.support.view import CHROMIUM, RunningView, make_workspace, wait_js

playwright_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"Chromium is not installed at {CHROMIUM}"
)

FITS = "document.documentElement.scrollWidth <= innerWidth"


def shoot(page: Any, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name), full_page=True)
    if os.environ.get("DEEP_RESEARCHER_VIEW_SCREENSHOTS"):
        shutil.copy(tmp_path / name, Path(os.environ["DEEP_RESEARCHER_VIEW_SCREENSHOTS"]) / name)


@pytest.mark.slow
@pytest.mark.parametrize(("width", "locale"), [(420, "en-US"), (1280, "zh-CN")])
def test_the_form_starts_a_run_and_the_page_fits_the_window(
    tmp_path: Path, width: int, locale: str,
    endpoint: Callable[[Any], ScriptedEndpoint], view_process: Callable[..., RunningView], browser: Any,
) -> None:  # fmt: skip
    runs = tmp_path / "runs"
    # Two runs of one title, one with a long unbroken title and a wide table in its dashboard.
    make_workspace(runs / "ssb")
    wide = make_workspace(runs / "ssb-2", title="Solid-state batteries " + "x" * 120)
    (wide / "current_dashboard.md").write_text(
        "# Current dashboard\n\n| " + " | ".join(f"column {n}" for n in range(14)) + " |\n|"
        + "---|" * 14 + "\n| " + " | ".join("180 $/kWh" for _ in range(14)) + " |\n\n"
        + "A long URL: https://example.org/" + "a" * 200 + "\n"
    )  # fmt: skip
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "zn.md").write_text("# Zinc-ion cells\n\nZinc-ion cells reached 120 Wh/kg in 2026.\n")
    server = endpoint(demo_script)
    view = view_process(runs, cli_env(), "--base-url", server.url, "--api-key", "test-key", "--search", "local",
                        "--corpus", str(corpus))  # fmt: skip
    zh = locale.startswith("zh")
    context = browser.new_context(viewport={"width": width, "height": 800}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.goto(view.url)
    wait_js(page, "document.querySelectorAll('#workspace-list li').length === 2")
    # Two runs of one title are told apart by their folder and start time.
    where = page.locator("#workspace-list .ws-where").all_inner_texts()
    assert [text.split(" · ")[0] for text in where] == ["ssb", "ssb-2"]
    assert all(("开始于" if zh else "started") in text for text in where)
    page.click("#new-run-button")
    form = page.locator("#new-run-form")
    form.wait_for(state="visible")
    assert page.locator("#new-run h1").inner_text() == ("新研究" if zh else "New research")
    assert page.locator("#new-run-start").is_visible() and page.locator("#new-title").is_visible()
    assert page.evaluate(FITS), page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    shoot(page, tmp_path, f"new-research-{width}.png")
    page.click("#new-run-start")  # with no title: the page says so, nothing is sent
    page.wait_for_selector("#new-run-message.error")
    assert page.locator("#new-run-message").inner_text() == (
        "标题为空。" if zh else "The title is empty."
    )
    page.fill("#new-title", "Zinc-ion cells in 2026")
    page.fill("#new-max-steps", "12")
    page.click("#new-run-start")
    page.wait_for_selector("#run:not([hidden])", timeout=30_000)
    page.wait_for_selector("#message.ok", timeout=30_000)
    assert "zinc-ion-cells-in-2026" in page.locator("#message").inner_text()
    assert page.locator("#run-title").inner_text() == "Zinc-ion cells in 2026"
    page.wait_for_selector("#status-line .status-finished", timeout=60_000)
    wait_js(page, "[...document.querySelectorAll('#workspace-list li')].map(i => i.dataset.ws)"
                  ".includes('zinc-ion-cells-in-2026')")  # fmt: skip
    assert page.evaluate(FITS)
    assert page.locator("#tabs button[data-tab=dashboards]").inner_text() == (
        "看板" if zh else "Dashboards"
    )
    page.evaluate("location.hash = 'ws=ssb-2&tab=dashboards'")
    page.wait_for_selector('.dashboard[data-name="current_dashboard.md"] .doc table')
    assert page.evaluate(FITS), page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    # The dashboards are readable: each as wide as the page allows, none squeezed to nothing.
    widths = page.evaluate(
        "[...document.querySelectorAll('.dashboard')].map(d => d.getBoundingClientRect().width)"
    )
    assert all(w >= min(360, width - 40) for w in widths), widths
    shoot(page, tmp_path, f"dashboards-{width}.png")
    assert not errors, errors
