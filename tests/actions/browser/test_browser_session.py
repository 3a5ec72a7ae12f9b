"""The run's Chromium: started on first use, reused, started again if it died, closed with the run
— at its normal end, when the run crashes, and when the whole process is killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from actions.browser.session import Browser
from actions.web.visit import visit_url
from agent_runtime.app.researcher import Researcher
from agent_runtime.config import Settings
from agent_runtime.testing import ScriptedModel, call, reply
from tests.support.browser_kit import Contexts, Page, Site, html, needs_chromium, site_factory

APP = html(
    "<div id='app'>…</div><script>document.getElementById('app').innerHTML = '<p>Rendered text, 412 Wh/kg.</p>';</script>"
)


@pytest.fixture
def make_site() -> Iterator[Callable[[], Site]]:
    yield from site_factory()


def gone(pid: int, within: float = 10.0) -> bool:
    """True once the process has ended (a zombie waiting for its parent counts as ended)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "\nState:\tZ" in status:
            return True
        time.sleep(0.05)
    return False


@pytest_asyncio.fixture
async def contexts(tmp_path: Path) -> AsyncIterator[Contexts]:
    made = Contexts(tmp_path)
    yield made
    await made.close()


@pytest.fixture
def site(make_site: Callable[[], Site]) -> Site:
    site = make_site()
    site.routes["/app"] = Page(APP)
    site.routes["/other"] = Page(APP)
    return site


@pytest.mark.slow
@needs_chromium
async def test_the_browser_starts_on_first_use_is_reused_and_closes_with_the_run(
    contexts: Contexts, site: Site
) -> None:
    ctx = contexts(allow_private_urls=True)
    assert ctx.services.peek(Browser) is None

    first = await visit_url.run(ctx, {"url": f"http://127.0.0.1:{site.port}/app", "mode": "browser"})
    browser = ctx.services.peek(Browser)
    assert browser is not None
    assert isinstance(browser, Browser) and "412 Wh/kg" in first.text
    pid, folder = browser.pid, browser.folder
    assert pid is not None and folder is not None and folder.is_dir()

    second = await visit_url.run(ctx, {"url": f"http://127.0.0.1:{site.port}/other", "mode": "browser"})
    assert "412 Wh/kg" in second.text and browser.starts == 1 and browser.pid == pid

    await ctx.services.aclose()
    assert ctx.services.peek(Browser) is None
    assert gone(pid) and not folder.exists()


@pytest.mark.slow
@needs_chromium
async def test_a_browser_that_died_is_started_again(contexts: Contexts, site: Site) -> None:
    ctx = contexts(allow_private_urls=True)
    await visit_url.run(ctx, {"url": f"http://127.0.0.1:{site.port}/app", "mode": "browser"})
    browser = ctx.services.peek(Browser)
    assert browser is not None
    first_pid = browser.pid
    os.kill(first_pid, signal.SIGKILL)  # the Chromium this test started
    assert gone(first_pid)

    obs = await visit_url.run(ctx, {"url": f"http://127.0.0.1:{site.port}/other", "mode": "browser"})

    assert "412 Wh/kg" in obs.text
    assert browser.starts == 2 and browser.pid not in (None, first_pid)


@pytest.mark.slow
@needs_chromium
async def test_a_crash_of_the_run_closes_the_browser(tmp_path: Path, site: Site) -> None:
    seen: dict[str, Any] = {}
    url = f"http://127.0.0.1:{site.port}/app"

    def script(messages: list[Any], tools: list[Any]) -> Any:
        if not seen:
            seen["step"] = 1
            return reply(call("visit_url", url=url, mode="browser"))
        browser = researcher.ctx.services.peek(Browser)
        seen["pid"] = browser.pid if browser else None
        raise RuntimeError("the model client exploded")  # not an error the run knows: a crash

    researcher = Researcher.start(
        "Crash test",
        workspace=tmp_path / "ws",
        settings=Settings(allow_private_urls=True),
        model=ScriptedModel(script),
    )
    result = await researcher.run()  # a crash is recorded, resumably, and the browser still closed
    assert result.status == "error" and "crashed: RuntimeError: the model client exploded" in (
        result.reason or ""
    )

    assert seen["pid"] is not None and gone(seen["pid"])
    assert researcher.ctx.services.peek(Browser) is None


@pytest.mark.slow
@needs_chromium
def test_chromium_ends_when_the_process_that_started_it_is_killed(tmp_path: Path) -> None:
    code = textwrap.dedent(
        """
        import asyncio, sys
        from actions.browser.session import Browser
        from agent_runtime.config import Settings

        async def main():
            browser = Browser(Settings())
            await browser.start()
            print(browser.pid, browser.folder, flush=True)
            await asyncio.sleep(60)

        asyncio.run(main())
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[3]
    )
    try:
        assert child.stdout is not None
        pid_text, folder = child.stdout.readline().split()
        pid = int(pid_text)
        assert not gone(pid, within=0.2)
    finally:
        child.kill()  # SIGKILL: no finally, no atexit in the child
        child.wait(timeout=10)
    assert gone(pid)
    # The killed child could not remove its temporary folder; Chromium's helpers may still be
    # writing in it for a moment.
    for _attempt in range(20):
        shutil.rmtree(folder, ignore_errors=True)
        time.sleep(0.1)
        if not Path(folder).exists():
            break


def test_starting_the_cli_does_not_import_browser_use() -> None:
    code = "import sys, agent_runtime.app.cli; print(any(m.split('.')[0] in ('browser_use', 'websockets') for m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[3],
    )
    assert out.stdout.strip() == "False"
