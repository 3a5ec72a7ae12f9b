"""A long research run end to end: the real CLI process, the real `openai` client, the offline
`local` search provider over a small corpus (tests/data/long_run/corpus: Markdown, text, HTML and
a PDF about a made-up fen restoration, with two distractors), and a scripted endpoint on 127.0.0.1
that plays both the main agent and the File micro agent (told apart by each request's system prompt).

The main agent follows the method of prompts/main_system.j2:
  1. it writes the research blueprint (three chapters) into the overall dashboard;
  2. it drafts each chapter into Notebook/ with [NEEDS RESEARCH: …] markers (File agent: write_file);
  3. it lists the markers (File agent: grep_files) and records them as open gaps in the current
     dashboard;
  4. for each gap: web_search, with max_results chosen for the kind of question; for a quick fact
     the answer comes from a snippet, otherwise visit_url reads the top two results in one call;
     the marker is replaced by the sentence that answers it, cited with the [S<n>] id the
     observation showed (File agent: read_file, then write_file); then the current dashboard is
     updated, which clears the history;
  5. it marks the plan done in the overall dashboard, has the File agent assemble the chapters
     into Notebook/report.md, checks it for markers, and calls all_finished.

Every dashboard update clears the history, so the script keeps no state of its own: each decision
is taken from the request it is sent (the two dashboards and the observations since the last
update). A retried request gets the same answer, and every id it cites is parsed from an
observation, never guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.messages import Message
from agent_runtime.engine.run_record import read_events
from agent_runtime.testing import Reply, ScriptedEndpoint, call, count_tokens, reply
from tests.support.cli import cli_env, run_cli

CORPUS = Path(__file__).parent / "data" / "long_run" / "corpus"
TITLE = "The Aurelian Fen eel-grass restoration"
MAIN_AGENT = "You are Deep Researcher"
FILE_AGENT = "You are the File agent"
# The requests are checked against the window. The largest is about 4,300 tokens: 12,000 keeps them
# under the guard's soft limit (60%), so this script is never nudged and never sent a compaction.
CONTEXT_WINDOW = 12_000
REPORT_DRAFT = "Notebook/report.md"
MARKER = re.compile(r"\[NEEDS RESEARCH: ([^\]]+)\]")

# --------------------------------------------------------------------------------------------------
# What the scripted researcher "knows": the plan, the drafts, and how to research each gap
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chapter:
    path: str
    summary: str
    draft: str


CHAPTERS = [
    Chapter(
        "Notebook/01_origins.md",
        "Origins: the fen, the die-off and the founding of the project",
        "## 1. Origins\n\n"
        "[NEEDS RESEARCH: where the Aurelian Fen lies and how large it is]\n\n"
        "Eel-grass meadows are underwater grasslands that shelter young fish and hold the seabed.\n\n"
        "### The die-off\n\n"
        "[NEEDS RESEARCH: what caused the eel-grass die-off in the Aurelian Fen]\n\n"
        "### The founding of the project\n\n"
        "[NEEDS RESEARCH: when the restoration project began and who founded it]\n",
    ),
    Chapter(
        "Notebook/02_methods.md",
        "Methods: how the meadows are replanted",
        "## 2. Methods\n\n"
        "Restoring a meadow means putting living eel-grass back where it has gone.\n\n"
        "[NEEDS RESEARCH: the planting technique the volunteers use]\n\n"
        "[NEEDS RESEARCH: how many shoots are planted each year]\n",
    ),
    Chapter(
        "Notebook/03_outcomes.md",
        "Outcomes: the area restored and the effect on fish",
        "## 3. Outcomes\n\n"
        "[NEEDS RESEARCH: the area of meadow restored by 2023]\n\n"
        "[NEEDS RESEARCH: the effect of the restoration on the fen's fish]\n",
    ),
]


@dataclass(frozen=True)
class Plan:
    """How to research one gap: the query, how many results, and what the answer says."""

    query: str
    max_results: int
    answer: str  # a regular expression that the answering sentence matches
    quick: bool = False  # a quick fact: few results, cited from a snippet when one holds it


PLANS = {
    "where the Aurelian Fen lies and how large it is": Plan(
        "Aurelian Fen gazetteer location size", 3, r"tidal fen of [\d,]+ hectares", quick=True
    ),
    "what caused the eel-grass die-off in the Aurelian Fen": Plan(
        "Aurelian Fen eel-grass die-off cause", 8, r"die-off was caused by"
    ),
    "when the restoration project began and who founded it": Plan(
        "Aurelian Fen restoration project began founder", 8, r"project began in \d{4}"
    ),
    "the planting technique the volunteers use": Plan(
        "Aurelian Fen replanting technique volunteers shoots", 8, r"plant shoots using"
    ),
    "how many shoots are planted each year": Plan(
        "eel-grass shoots planted each spring Aurelian Fen", 8, r"shoots are planted"
    ),
    "the area of meadow restored by 2023": Plan(
        "area of restored eel-grass meadow 2023", 8, r"restored meadow covered"
    ),
    "the effect of the restoration on the fen's fish": Plan(
        "Aurelian Fen fish survey juvenile counts", 10, r"counts rose"
    ),
}

# The sentences of the corpus that answer the gaps: each must end up cited in the report.
FACTS = [
    "The Aurelian Fen is a tidal fen of 640 hectares at the mouth of Morrow Creek",
    "The die-off was caused by the Morrow Creek fertiliser spill of 1994",
    "The Aurelian Fen restoration project began in 1998, founded by the marine botanist Ilse Varga",
    "Volunteers plant shoots using buoy-anchored seed mats",
    "Each spring about 42,000 eel-grass shoots are planted in the Aurelian Fen",
    "By 2023 the restored meadow covered 310 hectares of the fen",
    "Juvenile pipefish counts rose fourfold between 2005 and 2022",
]

# --------------------------------------------------------------------------------------------------
# Reading a request: the dashboards, the tool calls since the last reset, their observations
# --------------------------------------------------------------------------------------------------


@dataclass
class Done:
    """One tool call in the request's history and the observation it got."""

    name: str
    args: dict[str, Any]
    result: str


def calls_in(messages: list[Message]) -> list[Done]:
    results = {m["tool_call_id"]: str(m["content"]) for m in messages if m["role"] == "tool"}
    return [
        Done(c["function"]["name"], json.loads(c["function"]["arguments"]), results.get(c["id"], ""))
        for m in messages
        for c in m.get("tool_calls") or []
    ]


@dataclass
class View:
    """What the main agent sees in one request."""

    overall: str
    current: str
    calls: list[Done]

    @classmethod
    def of(cls, messages: list[Message]) -> View:
        dashboards = str(messages[1]["content"])  # [system, dashboards, …] after every reset
        overall, current = dashboards.split("<<< current_dashboard.md >>>", 1)
        return cls(overall, current, calls_in(messages))

    def operations(self, start: str) -> list[Done]:
        """The file operations since the last reset whose description starts with `start`."""
        return [
            c
            for c in self.calls
            if c.name == "file_operation" and c.args["operation_description"].startswith(start)
        ]


def sections(markdown: str) -> dict[str, list[str]]:
    """The non-empty lines under each `## ` heading."""
    found: dict[str, list[str]] = {}
    name = ""
    for line in markdown.splitlines():
        if line.startswith("## "):
            name = line[3:].strip()
            found[name] = []
        elif line.strip() and name:
            found[name].append(line)
    return found


@dataclass
class Gap:
    path: str
    text: str  # what the marker says is missing
    done: bool

    @property
    def marker(self) -> str:
        return f"[NEEDS RESEARCH: {self.text}]"


GAP_LINE = re.compile(r"^- \[( |x)\] (\S+): (.+)$")


def gaps_in(current: str) -> list[Gap] | None:
    """The gaps the current dashboard lists (None before the markers were listed)."""
    lines = sections(current).get("Open gaps")
    if lines is None:
        return None
    return [Gap(m[2], m[3], m[1] == "x") for m in map(GAP_LINE.match, lines) if m]


@dataclass
class Result:
    source_id: str
    title: str
    url: str
    snippet: str


SEARCH_FENCE = re.compile(r"<<<SEARCH RESULTS (\w+)>>>\n(.*?)\n<<<END SEARCH RESULTS \1>>>", re.S)
RESULT_LINE = re.compile(r"^\[(S\d+)\] (.*?) — (\S+)(?: — (.*?))?(?: \(already read: \S+\))?$")
PAGE_FENCE = re.compile(r"<<<PAGE CONTENT (S\d+) (\w+)>>>\n(.*?)\n<<<END PAGE CONTENT \1 \2>>>", re.S)


def search_results(observation: str) -> list[Result]:
    fenced = SEARCH_FENCE.search(observation)
    assert fenced, observation
    return [Result(*m.groups(default="")) for m in map(RESULT_LINE.match, fenced[2].splitlines()) if m]


def pages(observation: str) -> list[tuple[str, str]]:
    """(source id, the digest's text) of each page a visit_url observation shows."""
    return [(m[1], m[3]) for m in PAGE_FENCE.finditer(observation)]


def sentence_matching(text: str, answer: str) -> str | None:
    """The first whole sentence of `text` that matches `answer` (none cut by a snippet's "…")."""
    for line in text.splitlines():
        for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
            if re.search(answer, sentence) and sentence.endswith(".") and "…" not in sentence:
                return sentence
    return None


def find_answer(plan: Plan, results: list[Result], visits: list[Done]) -> tuple[str, str] | None:
    """(the answering sentence, the id the observation gave its source), from the pages read or,
    for a quick fact, from a search snippet."""
    for visit in visits:
        for source_id, text in pages(visit.result):
            sentence = sentence_matching(text, plan.answer)
            if sentence:
                return sentence, source_id
    if plan.quick:
        for result in results:
            # A snippet starts with the document's title run into its first sentence: drop it.
            text = re.sub(rf"^(# )?{re.escape(result.title)}\s*", "", result.snippet)
            sentence = sentence_matching(text, plan.answer)
            if sentence:
                return sentence, result.source_id
    return None


def cite(sentence: str, source_id: str) -> str:
    return f"{sentence.removesuffix('.')} [{source_id}]."


# --------------------------------------------------------------------------------------------------
# The main agent, phase by phase
# --------------------------------------------------------------------------------------------------

PLAN_DONE = "All chapters researched"


def file_operation(description: str) -> Reply:
    return reply(call("file_operation", operation_description=description))


def blueprint(status: str) -> Reply:
    outline = "\n".join(f"{n}. {c.path} — {c.summary}" for n, c in enumerate(CHAPTERS, 1))
    content = (
        f"# {TITLE}\n\n## Research questions\n1. Where is the fen, why and when did its restoration "
        "begin, and who began it?\n2. How is the fen replanted?\n3. What has the restoration achieved?\n\n"
        f"## Outline\n{outline}\n\n## What a complete answer needs\n"
        "Dates, names and figures for each chapter, each cited to a retrieved source.\n\n"
        f"## Status\n{status}\n"
    )
    return reply(call("update_overall_dashboard", content=content))


def current_dashboard(gaps: list[Gap], findings: list[str], lessons: list[str]) -> Reply:
    """The whole current dashboard: everything the next step needs once the history is cleared."""
    open_gaps = [g for g in gaps if not g.done]
    steps = [f"- Research: {g.text} ({g.path})" for g in open_gaps[:2]] or [
        f"- Assemble the chapters into {REPORT_DRAFT} and finish"
    ]
    content = "\n\n".join(
        [
            "# Current dashboard",
            "## Task at hand\nFill the research gaps of the drafts, one at a time.",
            "## Open gaps\n" + "\n".join(f"- [{'x' if g.done else ' '}] {g.path}: {g.text}" for g in gaps),
            "## Findings so far\n" + ("\n".join(findings) or "_None yet._"),
            "## Next steps\n" + "\n".join(steps),
            "## Lessons\n" + ("\n".join(lessons) or "_None yet._"),
        ]
    )
    return reply(call("update_current_dashboard", content=content + "\n"))


def draft_chapters(view: View) -> Reply:
    """Phases 2 and 3: one draft per chapter, then the markers listed into the current dashboard."""
    for chapter in CHAPTERS:
        if not view.operations(f"Write {chapter.path} "):
            return file_operation(
                f"Write {chapter.path} (replace it if it exists) with exactly this text:\n\n{chapter.draft}"
            )
    listed = view.operations("List every line")
    if not listed:
        return file_operation(
            "List every line containing NEEDS RESEARCH or SOURCE NEEDED in Notebook/, with file and line number."
        )
    # The File agent answers with grep's "path:line: text" lines: each marker becomes a gap.
    gaps = [
        Gap(path, text, done=False)
        for path, line in re.findall(r"^(Notebook/\S+?):\d+: (.*)$", listed[-1].result, re.M)
        for text in MARKER.findall(line)
    ]
    assert len(gaps) == len(PLANS), listed[-1].result
    return current_dashboard(gaps, [], [])


def research_gap(view: View, gaps: list[Gap], gap: Gap) -> Reply:
    """Phase 4 for one gap: search → read → replace the marker → record it in the dashboard."""
    plan = PLANS[gap.text]
    edits = view.operations("In ")
    if edits:
        return record_finding(view, gaps, gap, edits[-1])
    searches = [c for c in view.calls if c.name == "web_search"]
    if not searches:
        return reply(call("web_search", query=plan.query, max_results=plan.max_results))
    results = search_results(searches[-1].result)
    visits = [c for c in view.calls if c.name == "visit_url"]
    found = find_answer(plan, results, visits)
    if found is not None:
        sentence, source_id = found
        return file_operation(
            f"In {gap.path}, replace the marker\n{gap.marker}\nwith exactly this text:\n{cite(sentence, source_id)}"
        )
    # Not answered yet: read the next results (one for a quick fact, else two in one call).
    read = {u for c in visits for u in ([c.args["url"]] if isinstance(c.args["url"], str) else c.args["url"])}
    unread = [r.url for r in results if r.url not in read]
    assert unread, f"no result answers {gap.text!r}: {searches[-1].result}"
    url = unread[0] if plan.quick else unread[:2]
    return reply(call("visit_url", url=url, goal=gap.text))


def record_finding(view: View, gaps: list[Gap], gap: Gap, edit: Done) -> Reply:
    """The marker was replaced: the finding goes into the current dashboard with its id, and so do
    the pages that did not answer (a lesson), since the update clears the history."""
    assert edit.result.startswith("Wrote "), edit.result
    fact = edit.args["operation_description"].split("with exactly this text:\n", 1)[1].strip()
    old = sections(view.current)
    findings = [line for line in old.get("Findings so far", []) if line.startswith("- ")]
    lessons = [line for line in old.get("Lessons", []) if line.startswith("- ")]
    for visit in (c for c in view.calls if c.name == "visit_url"):
        for source_id, text in pages(visit.result):
            if sentence_matching(text, PLANS[gap.text].answer) is None:
                url = re.search(rf"^## \[{source_id}\] (\S+)$", visit.result, re.M)
                lessons.append(f"- {url[1] if url else source_id} ({source_id}) does not say {gap.text}")
    gap.done = True
    return current_dashboard(gaps, [*findings, f"- {fact} ({gap.path})"], lessons)


def assemble_and_finish(view: View) -> Reply:
    """Phase 5: the plan marked done, the report assembled by the File agent, checked, finished."""
    if PLAN_DONE not in view.overall:
        return blueprint(f"{PLAN_DONE}; assembling the report.")
    if not view.operations("Assemble "):
        chapters = ", ".join(c.path for c in CHAPTERS)
        return file_operation(
            f"Assemble {REPORT_DRAFT}: the line '# {TITLE}', a blank line, then the full text of "
            f"{chapters}, in this order, separated by blank lines. Change nothing in the chapters."
        )
    checked = view.operations("Check ")
    if not checked:
        return file_operation(
            f"Check {REPORT_DRAFT}: list every line containing NEEDS RESEARCH or SOURCE NEEDED."
        )
    assert checked[-1].result.startswith("No line"), checked[-1].result
    summary = (
        "The Aurelian Fen restoration: where and why it began, how the fen is replanted, what it achieved."
    )
    return reply(call("all_finished", result=summary, report_path=REPORT_DRAFT))


def main_agent(messages: list[Message]) -> Reply:
    view = View.of(messages)
    if f"1. {CHAPTERS[0].path}" not in view.overall:  # the template: no blueprint yet
        return blueprint("Drafting the chapters.")
    gaps = gaps_in(view.current)
    if gaps is None:
        return draft_chapters(view)
    open_gaps = [g for g in gaps if not g.done]
    if open_gaps:
        return research_gap(view, gaps, open_gaps[0])
    return assemble_and_finish(view)


# --------------------------------------------------------------------------------------------------
# The File agent: each kind of operation in as few steps as its prompt asks
# --------------------------------------------------------------------------------------------------

READ_HEADER = re.compile(r"^\[[^\]\n]+ · [^\]\n]+\]\n")  # "[Notebook/x.md · 312 B · 9 lines]"
SCAN = "NEEDS RESEARCH|SOURCE NEEDED"


def file_text(observation: str) -> str:
    """The file's content from a read_file observation of a whole (small) file."""
    header = READ_HEADER.match(observation)
    assert header, observation
    return observation[header.end() :]


def parse(pattern: str, task: str) -> tuple[str, ...]:
    found = re.match(pattern, task, re.S)
    assert found, task
    return found.groups()


def replace_marker(task: str, done: list[Done]) -> Reply:
    """Read the chapter, then write it back with the marker replaced (there is no edit action)."""
    path, marker, new = parse(r"In (\S+), replace the marker\n(.*?)\nwith exactly this text:\n(.*)", task)
    if not done:
        return reply(call("read_file", file_path=path))
    text = file_text(done[-1].result)
    if text.count(marker) != 1:
        return reply(call("finish", answer=f"The marker {marker} is not in {path} exactly once."))
    return reply(
        call("write_file", file_path=path, content=text.replace(marker, new.strip()), mode="overwrite")
    )


def assemble(task: str, done: list[Done]) -> Reply:
    """Read every chapter (in one reply: the reads are independent), then write the report."""
    target, title = parse(r"Assemble (\S+): the line '(# [^']+)'", task)
    if not done:
        return reply(
            *(call("read_file", file_path=path) for path in re.findall(r"Notebook/\d\d_\w+\.md", task))
        )
    texts = [file_text(c.result).strip() for c in done if c.name == "read_file"]
    return reply(call("write_file", file_path=target, content="\n\n".join([title, *texts]) + "\n"))


def file_agent(messages: list[Message]) -> Reply:
    task = str(messages[1]["content"])  # [system, the operation description, …]
    done = calls_in(messages)
    if done and done[-1].name in ("write_file", "grep_files", "search_in_file"):
        return reply(call("finish", answer=done[-1].result))  # the answer: what the last action said
    if task.startswith("Write "):
        path, content = parse(r"Write (\S+) .*?exactly this text:\n\n(.*)", task)
        return reply(call("write_file", file_path=path, content=content, mode="overwrite"))
    if task.startswith("List every line"):
        return reply(call("grep_files", pattern=SCAN, directory="Notebook"))
    if task.startswith("Check "):
        (path,) = parse(r"Check (\S+):", task)
        return reply(call("search_in_file", file_path=path, pattern=SCAN))
    if task.startswith("In "):
        return replace_marker(task, done)
    if task.startswith("Assemble "):
        return assemble(task, done)
    raise AssertionError(f"the File agent script has no plan for: {task[:200]}")


def script(messages: list[Message], tools: Any) -> Reply:
    system_prompt = str(messages[0]["content"])
    if system_prompt.startswith(FILE_AGENT):
        return file_agent(messages)
    if system_prompt.startswith(MAIN_AGENT):
        return main_agent(messages)
    raise AssertionError(f"unexpected request (a compaction?): {system_prompt[:120]}")


# --------------------------------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------------------------------

REFERENCE = re.compile(r"^(\d+)\. (.+)\. (\S+) \((accessed|seen in search results) \d{4}-\d{2}-\d{2}\)$")


def source_text(workspace: Path, ledger: Ledger, source_id: str) -> str:
    """What a citation is checked against: the saved snapshot or, for a source only seen in search
    results, the corpus document itself."""
    record = ledger.get(source_id)
    assert record is not None, source_id
    if record.snapshot:
        text = (workspace / record.snapshot).read_text("utf-8")
    else:
        text = (CORPUS / record.url.removeprefix("corpus:")).read_text("utf-8")
    return " ".join(text.split())


@pytest.mark.slow
def test_a_long_research_run_through_the_cli(
    tmp_path: Path, endpoint: Callable[[Any], ScriptedEndpoint]
) -> None:
    workspace = tmp_path / "ws"
    server = endpoint(script)
    args = [
        "run", TITLE, "--workspace", str(workspace), "--search", "local", "--corpus", str(CORPUS),
        "--max-steps", "80", "--context-window", str(CONTEXT_WINDOW), "-q",
    ]  # fmt: skip
    # No retries: a script that fails answers 500, and the run stops at once with its message.
    env = cli_env(server.url, HOME=str(tmp_path / "home"), DEEP_RESEARCHER_MAX_RETRIES="0")
    result = run_cli(args, env, timeout=120, cwd=tmp_path)
    assert result.code == 0, result.stderr + result.stdout
    assert "Finished: report.md" in result.stdout

    # The report: no marker and no [S<n>] left; its body is the draft with the ids renumbered by
    # first use; no appendix of problems.
    report = (workspace / "report.md").read_text("utf-8")
    draft = (workspace / REPORT_DRAFT).read_text("utf-8")
    assert "NEEDS RESEARCH" not in report and "SOURCE NEEDED" not in report
    assert not re.search(r"\[S\d", report)
    assert "Appendix" not in report
    body, _, references = report.partition("\n## References\n")
    assert references, report
    cited_ids = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", draft)))
    number = {source_id: n for n, source_id in enumerate(cited_ids, 1)}
    assert body.rstrip() == re.sub(r"\[(S\d+)\]", lambda m: f"[{number[m[1]]}]", draft).rstrip()
    used = [int(n) for group in re.findall(r"\[(\d+(?:, \d+)*)\]", body) for n in group.split(", ")]
    assert used and all(1 <= n <= len(cited_ids) for n in used)
    assert list(dict.fromkeys(used)) == list(range(1, len(cited_ids) + 1))
    for fact in FACTS:
        assert fact in body, fact

    # Every citation resolves: its sentence is in the source it cites; the References list exactly
    # the cited sources, in order of first use, with the ledger's title and URL.
    ledger = Ledger.load(workspace / "sources")
    citations = re.findall(r"([^\n.]+?) \[(S\d+)\]\.", draft)
    assert len(citations) == len(FACTS)
    for sentence, source_id in citations:
        assert sentence.strip() in source_text(workspace, ledger, source_id), (sentence, source_id)
    listed = [REFERENCE.match(line) for line in references.strip().splitlines() if line.strip()]
    assert all(listed), references
    expected = []
    for n, source_id in enumerate(cited_ids, 1):
        record = ledger.get(source_id)
        assert record is not None
        verb = "accessed" if record.fetched else "seen in search results"
        expected.append((str(n), record.title, record.final_url or record.url, verb))
    assert [m.groups() for m in listed if m] == expected
    assert {verb for *_, verb in expected} == {"accessed", "seen in search results"}  # the quick fact

    # The run's metadata: finished without problems after 30+ steps; the sources counted and printed.
    meta = json.loads((workspace / ".runtime" / "run.json").read_text("utf-8"))
    assert meta["status"] == "finished" and meta["report_problems"] == []
    assert meta["totals"]["steps"] >= 30 and meta["totals"]["compactions"] == 0
    summary = meta["summary"]
    assert summary["sources_seen"] >= summary["sources_fetched"] >= summary["sources_cited"] >= 3
    assert summary["sources_cited"] == len(cited_ids)
    counts = f"{summary['sources_seen']} seen, {summary['sources_fetched']} fetched, {len(cited_ids)} cited"
    assert counts in result.stdout

    # The event log: no failed action; the dashboards updated along the way; max_results chosen per
    # question; a visit_url that read two pages in one call.
    events = list(read_events(workspace / ".runtime" / "events.jsonl"))
    main_actions = [e for e in events if e["event"] == "action" and e["agent"] == "main"]
    assert [e for e in main_actions if e["error"]] == []
    assert len([e for e in events if e["event"] == "model_call" and e["agent"] == "main"]) >= 30
    updates = [e["action"] for e in main_actions if e["action"].startswith("update_")]
    assert updates.count("update_current_dashboard") >= 3 and updates.count("update_overall_dashboard") == 2
    assert {e["arguments"]["max_results"] for e in main_actions if e["action"] == "web_search"} == {3, 8, 10}
    visits = [e["arguments"]["url"] for e in main_actions if e["action"] == "visit_url"]
    assert any(isinstance(urls, list) and len(urls) == 2 for urls in visits), visits

    # The files: every gap ticked off in the current dashboard, no marker left in a chapter.
    current = (workspace / "current_dashboard.md").read_text("utf-8")
    assert "- [ ]" not in current and current.count("- [x]") == len(PLANS)
    for chapter in CHAPTERS:
        assert "NEEDS RESEARCH" not in (workspace / chapter.path).read_text("utf-8")

    # The requests: none larger than the context window; the File agent's messages never in the
    # main agent's; and every id the main agent cited had been shown to it in that same request.
    for sent in server.requests:
        messages = sent["messages"]
        assert count_tokens(messages, sent.get("tools", [])) <= CONTEXT_WINDOW
        if str(messages[0]["content"]).startswith(FILE_AGENT):
            continue
        assert FILE_AGENT not in json.dumps(messages)
        done = calls_in(messages)
        for index, step in enumerate(done):
            if step.name == "file_operation" and step.args["operation_description"].startswith("In "):
                (cited,) = re.findall(r"\[(S\d+)\]", step.args["operation_description"])
                shown = [d.result for d in done[:index] if d.name in ("web_search", "visit_url")]
                assert any(f"[{cited}]" in text for text in shown), (cited, shown)
