"""Text written once: a chapter attached to file_operation is written by write_attached without
the File agent repeating it, a simple write and finish go in one reply, and all_finished(chapters=…)
assembles the report from the Notebook files by code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.testing import Reply, call, reply
from tests.support.runs import events, start_run

FILE_AGENT = "You are the File agent"
CHAPTER = "## Costs\n\n" + "".join(
    f"Line {n}: sodium-ion cells are cheaper than before [S1].\n" for n in range(1, 400)
)


def is_file_agent(messages: list[dict[str, Any]]) -> bool:
    return str(messages[0]["content"]).startswith(FILE_AGENT)


def tool_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


def register_source(ws: Path) -> None:
    Ledger.load(ws / "sources").register("https://example.org/cells", "Cells", via="search")


async def test_attached_text_is_written_once_exactly_in_one_file_agent_call(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    file_requests: list[list[dict[str, Any]]] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if is_file_agent(messages):
            file_requests.append(messages)
            return reply(
                call("write_attached", file_path="Notebook/01_costs.md"),
                call("finish", answer="Wrote Notebook/01_costs.md."),
            )
        if not tool_texts(messages):
            return reply(
                call("file_operation", operation_description="Write the attached chapter to Notebook/01_costs.md",
                     content=CHAPTER)
            )  # fmt: skip
        register_source(ws)
        return reply(call("all_finished", result="done", chapters=["Notebook/01_costs.md"]))

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished", result.reason
    assert (ws / "Notebook/01_costs.md").read_text() == CHAPTER  # byte for byte
    assert len(file_requests) == 1  # the write and finish in one reply: one File-agent call
    shown = str(file_requests[0][1]["content"])
    assert f"Attached text: {len(CHAPTER):,} characters" in shown and "Line 1:" in shown
    assert "Line 300:" not in shown  # its opening, not all of it
    report = (ws / "report.md").read_text()
    assert report.startswith("# Test research\n\n## Costs\n") and "cheaper than before [1]." in report


async def test_write_attached_without_an_attachment_and_finish_after_a_failure(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    file_observations: list[list[str]] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if is_file_agent(messages):
            seen = tool_texts(messages)
            file_observations.append(seen)
            if not seen:  # nothing attached, and a finish that must wait for the failed write
                return reply(call("write_attached", file_path="Notebook/x.md"), call("finish", answer="done"))
            return reply(
                call("write_file", file_path="Notebook/x.md", content="x\n"), call("finish", answer="ok")
            )
        if not tool_texts(messages):
            return reply(call("file_operation", operation_description="Write x to Notebook/x.md"))
        register_source(ws)
        (ws / "Notebook/01.md").write_text("## One\n\nCells are cheaper [S1].\n")
        return reply(call("all_finished", result="done", chapters=["Notebook/01.md"]))

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished", result.reason
    first, second = file_observations[1]
    assert "no text is attached to this operation" in first
    assert second.startswith("finish was not run: an action before it in this reply failed")
    assert (ws / "Notebook/x.md").read_text() == "x\n"


async def test_all_finished_assembles_chapters_in_order_and_refuses_what_it_cannot_use(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    told: list[str] = []
    attempts = iter(
        [
            call("all_finished", result="r"),  # neither
            call("all_finished", result="r", report_path="x.md", chapters=["Notebook/01.md"]),  # both
            call("all_finished", result="r", chapters=["Notebook/01.md", "Notebook/09_missing.md"]),
            call("all_finished", result="r", chapters=["Notebook/02.md", "Notebook/01.md"]),
        ]
    )

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        told.extend(tool_texts(messages)[-1:])
        if not (ws / "Notebook/01.md").exists():
            register_source(ws)
            (ws / "Notebook/01.md").write_text(
                "# Intro\n\nCells are cheaper [S1].\n\n## Detail\nMore [S1].\n"
            )
            (ws / "Notebook/02.md").write_text("## Summary\n\nIn short, cheaper [S1].\n")
        return reply(next(attempts))

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished", result.reason
    assert "give exactly one of chapters" in told[0] and "give exactly one of chapters" in told[1]
    assert "Notebook/09_missing.md" in told[2] and "do not exist" in told[2]
    report = (ws / "report.md").read_text()
    body = report.split("## References")[0]
    # One title; chapter 02 first as asked; chapter 01's own title moved one level down.
    assert body.startswith("# Test research\n\n## Summary\n\nIn short, cheaper [1].\n\n## Intro\n")
    assert "### Detail\nMore [1]." in body
    assert (ws / "report.draft.md").read_text().count("[S1]") == 3
    actions = [e for e in events(ws) if e.get("action") == "all_finished"]
    assert len(actions) == 4 and json.dumps(actions[-1]["arguments"]).count("Notebook") == 2
    assert not re.search(r"\[S\d+\]", report)


async def test_replace_text_changes_one_passage_of_a_long_chapter(tmp_path: Path) -> None:
    from actions.files.write import attached_text, replace_text
    from agent_runtime.testing import scratch_context

    ctx = scratch_context(tmp_path / "ws")
    chapter = (
        "".join(f"Paragraph {n} about cells.\n" for n in range(1, 2000))
        + "[NEEDS RESEARCH: cost in 2026]\nEnd.\n"
    )
    (ctx.workspace.root / "Notebook/03.md").write_text(chapter)
    marker = "[NEEDS RESEARCH: cost in 2026]"
    done = await replace_text.run(
        ctx, {"file_path": "Notebook/03.md", "old_text": marker, "new_text": "Cells cost less [S1]."}
    )
    assert not done.error, done.text
    assert (ctx.workspace.root / "Notebook/03.md").read_text() == chapter.replace(
        marker, "Cells cost less [S1]."
    )
    twice = await replace_text.run(
        ctx, {"file_path": "Notebook/03.md", "old_text": "about cells.", "new_text": "x"}
    )
    assert twice.error and "appears 1,999 times" in twice.text
    attached_text(ctx).text = "An attached paragraph.\n"
    used = await replace_text.run(
        ctx, {"file_path": "Notebook/03.md", "old_text": "End.\n", "attached": True}
    )
    assert not used.error and (ctx.workspace.root / "Notebook/03.md").read_text().endswith(
        "An attached paragraph.\n"
    )
    await ctx.services.aclose()


async def test_empty_content_is_no_attachment(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shown: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if is_file_agent(messages):
            shown.append(str(messages[1]["content"]))
            return reply(call("finish", answer="nothing to do"))
        if not tool_texts(messages):
            return reply(call("file_operation", operation_description="List Notebook/", content=""))
        register_source(ws)
        (ws / "Notebook/01.md").write_text("## One\n\nCells are cheaper [S1].\n")
        return reply(call("all_finished", result="done", chapters=["Notebook/01.md"], report_path=""))

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished", result.reason  # report_path="" counts as not given
    assert "Attached text" not in shown[0]
