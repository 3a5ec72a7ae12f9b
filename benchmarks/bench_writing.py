"""Writing a long report the old way and the new way: the same scripted research (12 chapters of
8,000-12,000 characters, one research marker each), run in-process with the real runtime.

- old: the chapter text inside file_operation's description, copied by the File agent into
  write_file; each marker filled by rewriting the chapter; the report assembled by the File agent
  (it reads the chapters and writes them again in one write_file); all_finished(report_path=…).
- new: the chapter attached as content and written by write_attached; each marker replaced as one
  passage (replace_text); the report assembled by code with all_finished(chapters=…).

Prints the completion tokens of the main agent and of the File agent, the model calls, and the
ratio of all completion tokens to the report's tokens (four characters a token, the test doubles'
measure). Target: new ≤ 1.15, and at least 2.5x fewer completion tokens than old.

    python benchmarks/bench_writing.py
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime.app.researcher import Researcher
from agent_runtime.config import load_settings
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_record import read_events
from agent_runtime.testing import Reply, ScriptedModel, call, reply
from tests.support.writing import CHAPTERS, chapter_text, fact

FILE_AGENT = "You are the File agent"


def old_way(ids: list[str]) -> Any:
    step = {"n": 0}

    def main(messages: list[dict[str, Any]]) -> Reply:
        step["n"] += 1
        n = step["n"]
        if n <= CHAPTERS:
            return reply(call("file_operation", operation_description=(
                f"Create Notebook/{n:02d}.md with exactly this text:\n{chapter_text(n, ids)}")))  # fmt: skip
        if n <= 2 * CHAPTERS:
            k = n - CHAPTERS
            return reply(call("file_operation", operation_description=(
                f"In Notebook/{k:02d}.md replace the research marker with: {fact(k, ids)}")))  # fmt: skip
        if n == 2 * CHAPTERS + 1:
            return reply(call("file_operation", operation_description=(
                "Assemble the report: the chapters Notebook/01.md to 12.md in order into report.draft.md")))  # fmt: skip
        return reply(call("all_finished", result="done", report_path="report.draft.md"))

    def file_agent(messages: list[dict[str, Any]]) -> Reply:
        task = str(messages[1]["content"])
        done = sum(1 for m in messages if m["role"] == "tool")
        if task.startswith("Create"):
            path, text = re.match(r"Create (\S+) with exactly this text:\n(.*)", task, re.S).groups()  # type: ignore[union-attr]
            return (
                reply(call("write_file", file_path=path, content=text))
                if not done
                else reply(call("finish", answer="ok"))
            )
        if task.startswith("In "):
            k = int(re.search(r"Notebook/(\d+)", task).group(1))  # type: ignore[union-attr]
            final = chapter_text(k, ids).replace(
                f"[NEEDS RESEARCH: the cost figure for chapter {k}]", fact(k, ids)
            )
            steps = [call("read_file", file_path=f"Notebook/{k:02d}.md"),
                     call("write_file", file_path=f"Notebook/{k:02d}.md", content=final)]  # fmt: skip
            return reply(steps[done]) if done < 2 else reply(call("finish", answer="ok"))
        if done < CHAPTERS:
            return reply(
                call("read_file", file_path=f"Notebook/{done + 1:02d}.md", mode="lines", lines="1-400")
            )
        if done == CHAPTERS:
            chapters = [
                chapter_text(k, ids)
                .replace(f"[NEEDS RESEARCH: the cost figure for chapter {k}]", fact(k, ids))
                .strip()
                for k in range(1, CHAPTERS + 1)
            ]
            return reply(
                call(
                    "write_file",
                    file_path="report.draft.md",
                    content="# Storage economics\n\n" + "\n\n".join(chapters) + "\n",
                )
            )
        return reply(call("finish", answer="ok"))

    return main, file_agent


def new_way(ids: list[str]) -> Any:
    step = {"n": 0}

    def main(messages: list[dict[str, Any]]) -> Reply:
        step["n"] += 1
        n = step["n"]
        if n <= CHAPTERS:
            return reply(call("file_operation", operation_description=f"Write the attached chapter to Notebook/{n:02d}.md",
                              content=chapter_text(n, ids)))  # fmt: skip
        if n <= 2 * CHAPTERS:
            k = n - CHAPTERS
            return reply(
                call("file_operation", operation_description=f"Fill the marker of Notebook/{k:02d}.md")
            )
        return reply(
            call(
                "all_finished",
                result="done",
                chapters=[f"Notebook/{k:02d}.md" for k in range(1, CHAPTERS + 1)],
            )
        )

    def file_agent(messages: list[dict[str, Any]]) -> Reply:
        task = str(messages[1]["content"])
        path = re.search(r"Notebook/\d+\.md", task).group(0)  # type: ignore[union-attr]
        if task.startswith("Write"):
            return reply(call("write_attached", file_path=path), call("finish", answer=f"Wrote {path}."))
        k = int(path[9:11])
        return reply(
            call("replace_text", file_path=path, old_text=f"[NEEDS RESEARCH: the cost figure for chapter {k}]",
                 new_text=fact(k, ids)),
            call("finish", answer="Replaced."),
        )  # fmt: skip

    return main, file_agent


async def measure(way: Any, root: Path) -> dict[str, float]:
    ws = root / "ws"
    ids_holder: list[str] = []
    settings = load_settings(
        {"max_steps": 60, "file_max_steps": 20, "context_window": 256_000, "max_output_tokens": 64_000},
        env={},
    )  # the old way needs room: a 30,000-token reply, fourteen File-agent steps to assemble
    main, file_agent = way(ids_holder)

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(FILE_AGENT):
            return file_agent(messages)
        return main(messages)

    researcher = Researcher.start(
        "Storage economics", workspace=ws, settings=settings, model=ScriptedModel(script)
    )
    sources = Ledger.load(ws / "sources")
    ids_holder.extend(sources.register(f"https://example.org/{n}", f"Source {n}").id for n in range(1, 7))
    result = await researcher.run()
    if result.status != "finished":
        refusals = [
            e for e in read_events(ws / ".runtime" / "events.jsonl") if e.get("action") == "all_finished"
        ]
        raise SystemExit(f"{result.reason}: {refusals[-1:]}")
    calls = [e for e in read_events(ws / ".runtime" / "events.jsonl") if e["event"] == "model_call"]
    report_tokens = len((ws / "report.md").read_text()) // 4
    main_tokens = sum(e["completion_tokens"] for e in calls if e["agent"] == "main")
    file_tokens = sum(e["completion_tokens"] for e in calls if e["agent"] == "file")
    return {"main": main_tokens, "file": file_tokens, "calls": len(calls), "report": report_tokens,
            "ratio": (main_tokens + file_tokens) / report_tokens}  # fmt: skip


async def main() -> None:
    figures = {}
    for name, way in (("old", old_way), ("new", new_way)):
        with tempfile.TemporaryDirectory() as scratch:
            figures[name] = await measure(way, Path(scratch))
    for name, f in figures.items():
        print(
            f"{name}: completion tokens main {f['main']:,.0f}, File agent {f['file']:,.0f}; model calls "
            f"{f['calls']:.0f}; report {f['report']:,.0f} tokens; completion / report {f['ratio']:.2f}"
        )
    old, new = figures["old"], figures["new"]
    print(
        f"new way: {(old['main'] + old['file']) / (new['main'] + new['file']):.1f}x fewer completion tokens"
    )


if __name__ == "__main__":
    asyncio.run(main())
