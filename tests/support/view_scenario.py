"""A small research the live-view tests watch: a scripted model reads three pages served on
127.0.0.1 (one of them a forum post carrying a script), plans in the overall dashboard, writes two
chapters through the File agent, keeps reading until the test lets it finish, and finishes with a
report assembled from the chapters, its citations checked by the audit.

The model's replies are slowed (`delay`) so that the run lasts as long as the test needs to watch
it; every request is recorded by the ScriptedEndpoint (`endpoint.requests`)."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from agent_runtime.testing import Reply, call, reply
from tests.support.loopback import Handler, LoopbackServer, send

TITLE = "Solid-state batteries in 2026"
PURPOSE = "an investment memo"
CHAPTERS = ["Notebook/01_costs.md", "Notebook/02_automakers.md"]
SCRIPT_MARK = "window.pwned"

PAGES: dict[str, tuple[str, str]] = {
    "/ssb-costs": (
        "text/html; charset=utf-8",
        "<html><head><title>Solid-state battery costs in 2026</title></head><body><article>"
        "<h1>Solid-state battery costs in 2026</h1>"
        "<p>Pilot lines for solid-state cells reached 2 GWh of annual capacity in 2026, according to the "
        "industry survey published in March.</p>"
        "<p>The cost of solid-state cells fell to 180 dollars per kWh in 2026, down 14% from 2025, as "
        "sulfide electrolyte yields improved.</p>"
        "<p>Conventional lithium-ion packs still cost less than 100 dollars per kWh, so solid-state cells "
        "remain a premium product for now.</p></article></body></html>",
    ),
    "/ssb-automakers": (
        "text/html; charset=utf-8",
        "<html><head><title>Automakers' solid-state battery plans</title></head><body><article>"
        "<h1>Automakers' solid-state battery plans</h1>"
        "<p>Toyota plans to launch its first solid-state battery vehicle in 2027, with a range of about "
        "1,000 kilometres.</p>"
        "<p>Samsung SDI started sample production of solid-state cells for premium cars in 2026.</p>"
        "<p>Volkswagen's partner QuantumScape shipped B-sample cells to carmakers for testing.</p>"
        "</article></body></html>",
    ),
    # Markdown stays as it is in the snapshot: the script below reaches the view verbatim.
    "/ssb-forum": (
        "text/markdown; charset=utf-8",
        "# Forum: are solid-state batteries hype?\n\n"
        "A reader wrote: <script>window.pwned = 1</script> solid-state cells are years away.\n\n"
        '<img src="x" onerror="window.pwned = 2">\n\n'
        "Another reader answered that pilot lines exist today.\n",
    ),
}

OVERALL = f"""# {TITLE}

**Purpose:** {PURPOSE}

## Questions
1. What do solid-state cells cost in 2026, and how fast is the cost falling?
2. Which carmakers will ship solid-state batteries, and when?

## Outline
1. Costs and capacity (Notebook/01_costs.md)
2. Automakers' plans (Notebook/02_automakers.md)

## A complete answer needs
- cost per kWh with its trend, capacity figures, launch dates, each cited
"""

CHAPTER_COSTS = """## Costs and capacity

The cost of solid-state cells fell to 180 dollars per kWh in 2026, down 14% from 2025 [{costs}].
Pilot lines for solid-state cells reached 2 GWh of annual capacity in 2026 [{costs}].
"""

CHAPTER_AUTOMAKERS = """## Automakers' plans

Toyota plans to launch its first solid-state battery vehicle in 2027 [{makers}].
Samsung SDI started sample production of solid-state cells for premium cars in 2026 [{makers}].
"""


def answer(handler: Handler) -> None:
    path = handler.path.split("?", 1)[0]
    if path in PAGES:
        content_type, body = PAGES[path]
    elif path.startswith("/ssb-note-"):
        content_type = "text/html; charset=utf-8"
        body = (
            f"<html><head><title>Market note {path[10:]}</title></head><body><article><h1>Market note "
            f"{path[10:]}</h1><p>Analysts expect more solid-state pilot lines to open in 2027.</p>"
            "</article></body></html>"
        )
    else:
        send(handler, b"not found", status=404, content_type="text/plain")
        return
    send(handler, body.encode("utf-8"), content_type=content_type)


def page_server() -> LoopbackServer:
    return LoopbackServer(answer)


class Research:
    """The scripted model. Main-agent replies wait `delay` seconds; after the planned steps it
    keeps reading one more page a step until `finish` is set (or `fillers` pages were read)."""

    def __init__(self, base_url: str, delay: float, fillers: int | None = None) -> None:
        self.base = base_url.rstrip("/")
        self.delay = delay
        self.fillers = fillers
        self.finish = threading.Event()
        self.ids: dict[str, str] = {}  # page path -> source id
        self.main_requests = 0
        self._lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> Reply:
        system = str(messages[0]["content"])
        if system.startswith("You are the File agent"):
            wanted = re.search(r"Notebook/\S+?\.md", str(messages[1].get("content")))
            target = wanted.group(0) if wanted else CHAPTERS[0]
            return reply(call("write_attached", file_path=target), call("finish", answer=f"Wrote {target}."))
        with self._lock:
            self.main_requests += 1
            n = self.main_requests
        for message in messages:
            for source_id, url in re.findall(r"## \[(S\d+)\] (\S+)", str(message.get("content") or "")):
                self.ids[url.removeprefix(self.base)] = source_id
        time.sleep(self.delay)
        return self._step(n)

    def _step(self, n: int) -> Reply:
        base = self.base
        if "/ssb-costs" not in self.ids:
            return reply(call("visit_url", url=[f"{base}/ssb-costs", f"{base}/ssb-automakers"]))
        if "/ssb-forum" not in self.ids:
            return reply(call("visit_url", url=f"{base}/ssb-forum", goal="what readers think"))
        costs, makers = self.ids["/ssb-costs"], self.ids["/ssb-automakers"]
        planned = [
            call("update_overall_dashboard", content=OVERALL),
            call(
                "file_operation", operation_description=f"Write the attached chapter to {CHAPTERS[0]}",
                content=CHAPTER_COSTS.format(costs=costs),
            ),
            call(
                "file_operation", operation_description=f"Write the attached chapter to {CHAPTERS[1]}",
                content=CHAPTER_AUTOMAKERS.format(makers=makers),
            ),
            call(
                "update_current_dashboard",
                content=(
                    "# Current dashboard\n\n## Task\nCheck the launch dates against a second source.\n\n"
                    f"## Findings\n- cells cost 180 $/kWh in 2026, down 14% [{costs}]\n"
                    f"- Toyota: first vehicle in 2027 [{makers}]\n\n## Next steps\n- read market notes\n"
                ),
            ),
        ]
        done = len([path for path in self.ids if path.startswith("/ssb-note-")])
        step = n - 3  # the two visits came first
        if step < len(planned) and done == 0:
            return reply(planned[step])
        if self.finish.is_set() or (self.fillers is not None and done >= self.fillers):
            return reply(call("all_finished", result="The memo is written.", chapters=CHAPTERS))
        return reply(call("visit_url", url=f"{base}/ssb-note-{n}", goal="pilot lines"))
