"""The File agent end to end: the real CLI process, the real `openai` client, and a scripted
OpenAI-compatible endpoint on 127.0.0.1 that plays both agents (told apart by the system prompt).

Through `file_operation` the main agent creates a chapter, appends to it, inserts a line, greps
the Notebook, stream-reads a 5,000-line file to its end (over several operations: the stream
outlives each), deletes a file, tries every escape from the workspace, writes a report and
finishes. Every decision of the script is taken from the messages it is sent (never from a
counter of its own), so a retried request gets the same answer.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.config import load_settings
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.messages import Message
from agent_runtime.engine.run_record import RunMeta, save_meta
from agent_runtime.testing import Reply, call, reply
from tests.support.cli import cli_env, run_cli, snapshot_outside

FILE_AGENT = "You are the File agent"
CANARY = "canary: nothing may change me\n"
BIG = "".join(f"line {n:04d} of the big file, with some words to fill it\n" for n in range(1, 5001))
INTRO = "# Introduction\nInserted line.\nFirst paragraph.\nSecond paragraph.\n"

OPERATIONS = {
    "create": "Create Notebook/01_intro.md with '# Introduction' and 'First paragraph.'",
    "append": "Append 'Second paragraph.' to Notebook/01_intro.md",
    "insert": "Insert the line 'Inserted line.' before line 2 of Notebook/01_intro.md",
    "grep": "Find every line containing 'paragraph' in Notebook/",
    "stream": "Read Notebook/big.txt from its start to its end",
    "delete": "Delete Notebook/old.md",
    "escapes": "Try to read and write files outside the workspace",
    "report": "Write report.md",
}


def escape_calls(tmp: str) -> list[tuple[str, dict[str, Any], str]]:
    """(action, arguments, the refusal expected) for each way out that the File agent tries."""
    escape, invalid = "path escapes the workspace", "invalid path"
    return [
        ("read_file", {"file_path": "../../etc/passwd"}, escape),
        ("read_file", {"file_path": "/etc/passwd"}, escape),
        ("read_file", {"file_path": "~/.bashrc"}, escape),
        ("write_file", {"file_path": "~/.bashrc", "content": "pwned", "mode": "append"}, escape),
        ("read_file", {"file_path": "Notebook/../../outside/canary.txt"}, escape),
        ("list_directory", {"directory_path": "./.."}, escape),
        ("write_file", {"file_path": "../ws2/x", "content": "pwned"}, escape),
        ("create_file", {"file_path": "../ws-old/new.md"}, escape),
        ("read_file", {"file_path": "../ws2/x"}, escape),
        ("read_file", {"file_path": "Notebook/outside_file"}, escape),
        ("write_file", {"file_path": "Notebook/outside_file", "content": "pwned"}, escape),
        ("write_file", {"file_path": "Notebook/outside_dir/new.md", "content": "pwned"}, escape),
        ("list_directory", {"directory_path": "Notebook/outside_dir"}, escape),
        ("read_file", {"file_path": "chain1"}, escape),
        ("stream_read_file", {"file_path": "Notebook/outside_file"}, escape),
        ("search_in_file", {"file_path": "chain1", "pattern": "canary"}, escape),
        ("grep_files", {"pattern": "canary", "directory": ".."}, escape),
        ("grep_files", {"pattern": "canary", "directory": "Notebook/outside_dir"}, escape),
        ("file_search", {"directory": "/", "name_pattern": "passwd"}, escape),
        ("delete_file", {"file_path": "../outside/canary.txt"}, escape),
        ("create_directory", {"directory_path": "../evil"}, escape),
        ("create_file", {"file_path": f"{tmp}/evil.md"}, escape),
        # Control characters are removed where the model's reply is read: the NUL never reaches a path.
        ("read_file", {"file_path": "Notebook/a\x00b.md"}, "Notebook/ab.md does not exist"),
        ("read_file", {"file_path": ""}, invalid),
        ("create_file", {"file_path": "n" * 2000}, invalid),
        ("read_file", {"file_path": 42}, "invalid arguments"),
        ("write_file", {"file_path": "sources/S1.md", "content": "pwned"}, "read-only"),
    ]


def calls_and_results(messages: list[Message]) -> list[tuple[str, dict[str, Any], str | None, str]]:
    """(action, arguments, observation, call id) of every tool call in a request's history."""
    results = {m["tool_call_id"]: str(m["content"]) for m in messages if m["role"] == "tool"}
    found = []
    for message in messages:
        for tool_call in message.get("tool_calls") or []:
            function = tool_call["function"]
            found.append(
                (
                    function["name"],
                    json.loads(function["arguments"]),
                    results.get(tool_call["id"]),
                    tool_call["id"],
                )
            )
    return found


def file_agent(messages: list[Message], tmp: str) -> Reply:
    description = str(messages[1]["content"])
    done = [result or "" for _, _, result, _ in calls_and_results(messages)]
    steps = sum(1 for m in messages if m["role"] == "assistant")
    op = re.match(r"\[op:([\w-]+)\]", description)
    assert op, description
    name = op.group(1)
    if name in ("stream", "stream-continue"):
        stream = re.search(r"stream (s\d+)", done[0] if done else description)
        if done and "[end of file" in done[-1]:
            return reply(
                call("finish", answer=f"END OF FILE: stream {stream.group(1) if stream else '?'} is finished")
            )
        if done and steps >= 8:  # leave steps to answer: the main agent will ask to continue
            return reply(call("finish", answer=f"stream {stream.group(1) if stream else '?'}: more remains"))
        if not done and name == "stream":
            return reply(call("stream_read_file", file_path="Notebook/big.txt", chunk_size=1000))
        assert stream, description
        return reply(call("continue_stream_read", stream_id=stream.group(1)))
    if done:  # one step of actions, then the answer: what they said
        return reply(call("finish", answer="\n".join(done)[:3000]))
    plans: dict[str, list[dict[str, Any]]] = {
        "create": [
            call(
                "create_file",
                file_path="Notebook/01_intro.md",
                initial_content="# Introduction\nFirst paragraph.\n",
            )
        ],
        "append": [
            call("write_file", file_path="Notebook/01_intro.md", content="Second paragraph.", mode="append")
        ],
        "insert": [
            call(
                "write_file",
                file_path="Notebook/01_intro.md",
                content="Inserted line.",
                mode="insert",
                line=2,
            )
        ],
        "grep": [call("grep_files", pattern="paragraph", directory="Notebook")],
        "delete": [call("delete_file", file_path="Notebook/old.md")],
        "escapes": [call(action, **arguments) for action, arguments, _ in escape_calls(tmp)],
        "report": [
            call(
                "create_file",
                file_path="report.md",
                initial_content="# File operations report\n\nAll done.\n",
            )
        ],
    }
    return reply(*plans[name])


def main_agent(messages: list[Message]) -> Reply:
    operations = [
        (args.get("operation_description", ""), result or "")
        for name, args, result, _ in calls_and_results(messages)
        if name == "file_operation"
    ]
    if operations:
        last, answer = operations[-1]
        if last.startswith(("[op:stream]", "[op:stream-continue]")) and "END OF FILE" not in answer:
            stream = re.search(r"stream (s\d+)", answer)
            assert stream, answer
            description = (
                f"[op:stream-continue] Continue reading stream {stream.group(1)} to the end of the file"
            )
            return reply(call("file_operation", operation_description=description))
    started = {
        re.sub(r"^\[op:([\w-]+)\].*", r"\1", description, flags=re.DOTALL) for description, _ in operations
    }
    for name, text in OPERATIONS.items():
        if name not in started:
            return reply(call("file_operation", operation_description=f"[op:{name}] {text}"))
    return reply(call("all_finished", result="file operations done", report_path="report.md"))




@pytest.mark.slow
def test_file_operations_through_the_real_cli(tmp_path: Path, endpoint: Any) -> None:
    ws = tmp_path / "ws"
    # A workspace made as `run` makes it, then filled with hostile files before the run resumes in it
    # (`run` itself takes only a new or empty folder).
    ResearchWorkspace(ws).create("T", None)
    save_meta(ws / ".runtime" / "run.json", RunMeta(title="T", settings=load_settings({}, env={}).stored()))
    (ws / "Notebook/big.txt").write_text(BIG)
    (ws / "Notebook/old.md").write_text("an old draft\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text(CANARY)
    for sibling in ("ws2", "ws-old"):
        (tmp_path / sibling).mkdir()
        (tmp_path / sibling / "x").write_text(CANARY)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(CANARY)
    (ws / "Notebook/outside_file").symlink_to(outside / "canary.txt")
    (ws / "Notebook/outside_dir").symlink_to(outside)
    (ws / "chain1").symlink_to("chain2")
    (ws / "chain2").symlink_to("Notebook/chain3")
    (ws / "Notebook/chain3").symlink_to("../../outside/canary.txt")
    before = snapshot_outside(tmp_path)
    passwd = hashlib.sha256(Path("/etc/passwd").read_bytes()).hexdigest()

    def script(messages: list[Message], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(FILE_AGENT):
            return file_agent(messages, str(tmp_path))
        return main_agent(messages)

    server = endpoint(script)
    args = [
        "resume",
        str(ws),
        "--base-url",
        server.url,
        "--api-key",
        "test",
        "--max-steps",
        "60",
        "-q",
    ]
    result = run_cli(args, cli_env(server.url, HOME=str(home)), timeout=300)
    assert result.code == 0, result.stderr + result.stdout

    # The workspace: the chapter as created, appended to and inserted into; the deleted file in the trash.
    assert (ws / "Notebook/01_intro.md").read_text() == INTRO
    assert not (ws / "Notebook/old.md").exists()
    trashed = list((ws / ".trash").iterdir())
    assert len(trashed) == 1 and re.fullmatch(r"\d{8}-\d{6}-Notebook__old\.md", trashed[0].name)
    assert trashed[0].read_text() == "an old draft\n"
    assert (ws / "report.md").read_text().startswith("# File operations report\n\nAll done.\n")
    assert (ws / "Notebook/big.txt").read_text() == BIG
    # Nothing outside the workspace changed, and nothing was created there.
    assert snapshot_outside(tmp_path) == before
    assert hashlib.sha256(Path("/etc/passwd").read_bytes()).hexdigest() == passwd

    file_requests = [
        b["messages"] for b in server.requests if str(b["messages"][0]["content"]).startswith(FILE_AGENT)
    ]
    main_requests = [
        b["messages"] for b in server.requests if not str(b["messages"][0]["content"]).startswith(FILE_AGENT)
    ]
    # Every escape reached the File agent as an observation that refused it.
    escapes = escape_calls(str(tmp_path))
    final_escape_request = next(
        m for m in reversed(file_requests) if str(m[1]["content"]).startswith("[op:escapes]") and len(m) > 2
    )
    observed = calls_and_results(final_escape_request)
    assert len(observed) == len(escapes)
    for (action, _, expected), (name, _, text, _) in zip(escapes, observed, strict=True):
        assert name == action and text is not None
        assert text.startswith(("Error in ", "Error: invalid arguments")) and expected in text, (action, text)
        assert CANARY.strip() not in text  # no outside content leaked
    # The grep answer reached the main agent; the File agent's own messages never did.
    grep_answers = [
        r
        for m in main_requests
        for n, a, r, _ in calls_and_results(m)
        if "[op:grep]" in a.get("operation_description", "")
    ]
    assert grep_answers and grep_answers[0].splitlines() == [
        "2 matching lines in 1 file for /paragraph/ (3 text files in Notebook/):",
        "Notebook/01_intro.md:3: First paragraph.",
        "Notebook/01_intro.md:4: Second paragraph.",
    ]
    for messages in main_requests:
        assert FILE_AGENT not in json.dumps(messages)
    # The stream went through all 5,000 lines, across several file operations.
    chunks: dict[str, str] = {}
    for messages in file_requests:
        for name, _, text, call_id in calls_and_results(messages):
            if name in ("stream_read_file", "continue_stream_read") and text and text.startswith("[stream "):
                chunks.setdefault(call_id, text)
    bodies = ["\n".join(text.split("\n")[1:-1]) + "\n" for text in chunks.values()]
    assert "".join(bodies) == BIG
    assert list(chunks.values())[-1].endswith("[end of file: stream s1 is finished]")
    stream_operations = [
        a["operation_description"]
        for _, a, _, _ in calls_and_results(main_requests[-1])
        if a.get("operation_description", "").startswith("[op:stream")
    ]
    assert len(stream_operations) >= 3  # the stream outlived several file operations
    assert all(d.startswith("[op:stream-continue] Continue reading stream s1") for d in stream_operations[1:])
    # The event log records the File agent's actions as its own, refusals included.
    log = [json.loads(line) for line in (ws / ".runtime/events.jsonl").read_text().splitlines()]
    file_actions = [e for e in log if e["event"] == "action" and e["agent"] == "file"]
    assert {e["action"] for e in file_actions} >= {
        "create_file", "write_file", "grep_files", "stream_read_file", "continue_stream_read",
        "delete_file", "read_file", "list_directory", "finish",
    }  # fmt: skip
    refused = [e for e in file_actions if e["error"]]
    assert len(refused) == len(escapes)
    assert all(
        e["action"] == "file_operation"
        for e in log
        if e["event"] == "action" and e["agent"] == "main" and e["action"] != "all_finished"
    )
