"""A research run through the real CLI process with the browser: the main agent reads a page whose
text a script makes (visit_url, auto mode), has the Browser agent search a catalogue (browse),
cites both, and finishes. One scripted endpoint on 127.0.0.1 answers both agents: the main agent's
requests carry tools, the Browser agent's carry browser-use's JSON schema in the system prompt.
After the process exits, no Chromium of the run is left and its temporary folder is gone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.browser_kit import Page, Site, html, needs_chromium, site_factory

pytestmark = needs_chromium
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def make_site() -> Iterator[Callable[[], Site]]:
    yield from site_factory()


def browser_agent_step(messages: list[dict[str, Any]]) -> Reply:
    state = str(messages[-1]["content"])
    if "Results for" in state:
        action: list[dict[str, Any]] = [{"done": {"text": "Cell A: 412 Wh/kg", "success": True}}]
    else:
        box = re.search(r"\[(\d+)\]<input", state)
        button = re.search(r"\[(\d+)\]<button", state)
        assert box and button, state[-1500:]
        action = [
            {"input": {"index": int(box.group(1)), "text": "solid-state"}},
            {"click": {"index": int(button.group(1))}},
        ]
    return Reply(
        content=json.dumps({"memory": "", "next_goal": "", "evaluation_previous_goal": "", "action": action})
    )


@pytest.mark.slow
def test_a_run_reads_a_script_page_and_browses_then_leaves_no_browser(
    tmp_path: Path, make_site: Callable[[], Site]
) -> None:
    site = make_site()
    site.routes["/news"] = Page(
        html(
            "<div id='app'></div><script>document.getElementById('app').innerHTML = '<p>Pilot cells reach 412 Wh/kg, a laboratory confirmed.</p>';</script>"
        )
    )
    site.routes["/"] = Page(
        html("<form action='/results'><input name='q'><button type='submit'>Search</button></form>")
    )
    site.routes["/results"] = lambda path: Page(
        html("<h1>Results for solid-state</h1><p>Cell A: 412 Wh/kg</p>")
    )
    workspace = tmp_path / "ws"
    news, start = f"http://127.0.0.1:{site.port}/news", f"http://127.0.0.1:{site.port}/"
    observations: list[str] = []

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        if not tools:  # the Browser agent (browser-use) sends no tools
            return browser_agent_step(messages)
        observations[:] = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("visit_url", url=news))
        if len(observations) == 1:
            return reply(call("browse", task="Search the catalogue for solid-state.", start_url=start))
        ids = re.findall(r"\[(S\d+)\]", "\n".join(observations))
        (workspace / "report.md").write_text(f"# Report\n\nCells reach 412 Wh/kg [{ids[0]}] [{ids[-1]}].\n")
        return reply(call("all_finished", result="done", report_path="report.md"))

    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEP_RESEARCHER_", "OPENAI_"))}
    env.update(
        HOME=str(tmp_path / "home"), TMPDIR=str(temp), PYTHONPATH=str(REPO), DEEP_RESEARCHER_MAX_RETRIES="0"
    )
    with ScriptedEndpoint(script) as endpoint:
        completed = subprocess.run(
            [sys.executable, "-m", "agent_runtime.app.cli", "run", "Solid-state cells", "--workspace", str(workspace),
             "--base-url", endpoint.url, "--api-key", "test", "--max-steps", "6", "--allow-private-urls", "-q"],
            env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path,
        )  # fmt: skip

    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "loaded in the browser" in observations[0] and "412 Wh/kg" in observations[0]
    assert (
        observations[1].startswith("browse: the Browser agent finished")
        and "Cell A: 412 Wh/kg" in observations[1]
    )
    ledger = Ledger.load(workspace / "sources")
    assert ledger.lookup(news) is not None and ledger.lookup(start) is not None
    assert ledger.lookup(f"{start}results?q=solid-state") is not None
    assert "412 Wh/kg" in (workspace / "report.md").read_text()
    # The run's Chromium lived under TMPDIR: it is gone, and so is its folder.
    assert not [
        p
        for p in temp.iterdir()
        if p.name.startswith("deep-researcher-browser-") and p.name != "deep-researcher-browser-use-0"
    ]
    ps = subprocess.run(["ps", "-eo", "stat,args"], capture_output=True, text=True).stdout
    assert not [line for line in ps.splitlines() if str(temp) in line and not line.startswith("Z")]
