"""The engine runs an agent that is not a researcher: a word counter with two made-up actions and
one state file, `tally.md`, wired only through the engine's public pieces (a `Layout`, an
`AgentSpec`, an `ActionSet`). Nothing of the research layout is involved: no dashboard, no
Notebook, no report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_runtime.config import Settings
from agent_runtime.engine.loop import AgentLoop, AgentSpec
from agent_runtime.engine.messages import Message, system, user
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.registry import ActionSet, Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import EventLog, RunMeta
from agent_runtime.engine.workspace import Layout, Workspace
from agent_runtime.testing import Reply, ScriptedModel, call, reply

TALLY = "tally.md"
LAYOUT = Layout(state_files=(TALLY,), folders=("words",))


@action(concurrent=True)
async def count(ctx: ActionContext, word: str) -> str:
    """Count one word.

    Args:
        word: the word seen.
    """
    return f"{word}: counted"


@action
async def save_tally(ctx: ActionContext, content: str, done: bool = False) -> Observation:
    """Replace the tally (the agent's state); `done` ends the work.

    Args:
        content: the whole tally.
        done: True when nothing is left to count.
    """
    ctx.workspace.state.write(TALLY, content, unless_edited=True)
    if done:
        return Observation("tally saved; done", finished=True, result=content)
    return Observation("tally saved")


def counter(
    root: Path, script: Any, compresses: frozenset[str] = frozenset({"save_tally"})
) -> tuple[AgentLoop, ScriptedModel, Workspace]:
    workspace = Workspace(root, LAYOUT)
    workspace.lay_out({TALLY: "# Tally\n"})
    model = ScriptedModel(script)
    ctx = ActionContext(
        workspace, Settings(), model, EventLog(workspace.events_file), RunMeta(title="words"), Prompts(None)
    )

    def base_messages() -> list[Message]:
        return [system("You count words."), user(workspace.state.read(TALLY))]

    def edited() -> str | None:
        return "[note] A person edited the tally." if workspace.state.edited() else None

    spec = AgentSpec(
        name="counter",
        actions=ActionSet.of([count, save_tally]),
        base_messages=base_messages,
        model=model,
        tool_mode="native",
        max_steps=10,
        compresses=compresses,
        memory=TALLY,
        base_changed=edited,
    )
    return AgentLoop(spec, ctx), model, workspace


def texts(messages: list[Message]) -> list[str]:
    return [str(m.get("content") or "") for m in messages]


async def test_a_non_research_agent_runs_and_its_state_file_rebuilds_the_history(tmp_path: Path) -> None:
    def script(messages: list[Message], tools: Any) -> Reply:
        step = sum(1 for m in messages if m["role"] == "assistant") + 1
        if "apple 1" not in texts(messages)[1]:  # the tally is not saved yet
            if step == 1:
                return reply(call("count", word="apple"), call("count", word="pear"))
            return reply(call("save_tally", content="# Tally\napple 1\npear 1"))
        return reply(call("save_tally", content="# Tally\napple 1\npear 1\nplum 1", done=True))

    loop, model, workspace = counter(tmp_path / "ws", script)
    outcome = await loop.run()

    assert outcome.kind == "finished" and outcome.result is not None and "plum 1" in outcome.result
    assert (workspace.root / TALLY).read_text() == "# Tally\napple 1\npear 1\nplum 1\n"
    third = model.requests[2][0]
    # The save rebuilt the history from the state file: the counting steps are gone from it.
    assert texts(third)[1] == "# Tally\napple 1\npear 1\n"
    assert not any("apple: counted" in text for text in texts(third))
    assert [m["role"] for m in third] == ["system", "user", "user"]  # + the status: "[done] tally saved"
    # Only the engine's own files and the agent's layout: nothing of a research run.
    assert sorted(p.name for p in workspace.root.iterdir()) == [".runtime", ".trash", TALLY, "words"]


def counting_script() -> Any:
    """Count two words, save the tally, save it again and end (by request, whatever the history)."""
    replies = iter(
        [
            reply(call("count", word="apple"), call("count", word="pear")),
            reply(call("save_tally", content="# Tally\napple 1\npear 1")),
            reply(call("save_tally", content="# Tally\napple 1\npear 1\nplum 1", done=True)),
        ]
    )
    return lambda messages, tools: next(replies)


async def test_only_the_actions_the_spec_declares_compressing_rebuild_the_history(tmp_path: Path) -> None:
    """Whether an action compresses is the wiring's word (AgentSpec.compresses), not the action's:
    the same save, undeclared, leaves the history as it was."""
    declared, declared_model, _ = counter(tmp_path / "a", counting_script())
    undeclared, undeclared_model, _ = counter(tmp_path / "b", counting_script(), compresses=frozenset())
    assert (await declared.run()).kind == "finished" and (await undeclared.run()).kind == "finished"

    rebuilt, kept = declared_model.requests[2][0], undeclared_model.requests[2][0]
    assert not any("apple: counted" in text for text in texts(rebuilt))
    assert any("apple: counted" in text for text in texts(kept))  # the counting steps stay
    assert any("tally saved" in text for text in texts(kept)) and len(kept) > len(rebuilt)


async def test_a_compressing_action_that_fails_leaves_the_history(tmp_path: Path) -> None:
    """A declared action that fails (here: its arguments are not valid) changed no state file."""

    replies = iter(
        [
            reply(call("count", word="apple")),
            reply(call("save_tally", contents="# Tally\napple 1")),  # a misspelt argument
            reply(call("save_tally", content="# Tally\napple 1", done=True)),
        ]
    )

    def script(messages: list[Message], tools: Any) -> Reply:
        return next(replies)

    loop, model, _ = counter(tmp_path / "ws", script)
    assert (await loop.run()).kind == "finished"
    third = texts(model.requests[2][0])
    assert any("apple: counted" in text for text in third)  # nothing was rebuilt
    assert any("save_tally" in text and "content" in text for text in third)  # the error is shown


async def test_a_person_s_edit_of_the_state_file_reaches_the_agent_and_is_never_overwritten(
    tmp_path: Path,
) -> None:
    edited = "# Tally\nfig 7\n"

    def script(messages: list[Message], tools: Any) -> Reply:
        if len(model.requests) == 1:
            (tmp_path / "ws" / TALLY).write_text(edited)  # a person saves while the model thinks
            return reply(call("save_tally", content="# Tally\napple 1"))
        return reply(call("save_tally", content=texts(messages)[1] + "apple 1", done=True))

    loop, model, workspace = counter(tmp_path / "ws", script)
    outcome = await loop.run()

    assert outcome.kind == "finished"
    refused = model.requests[1][0]
    assert any("the user edited it" in text or "was edited" in text for text in texts(refused))
    assert texts(refused)[1] == edited.strip() or edited.strip() in texts(refused)[1]
    assert (workspace.root / TALLY).read_text() == "# Tally\nfig 7\napple 1\n"  # merged, not overwritten


def test_the_layout_is_what_the_domain_hands_the_engine(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws", LAYOUT)
    assert workspace.holds_nothing() and not workspace.exists()
    workspace.lay_out({TALLY: "# Tally\n"})
    assert workspace.exists() and not workspace.holds_nothing()
    with pytest.raises(ValueError, match="not a state file"):
        workspace.state.write("other.md", "x")
    (workspace.root / TALLY).write_text("# Tally\nkiwi 2\n")  # a person's save, never read by the runtime
    replaced = workspace.state.write(TALLY, "# Tally\n")
    assert replaced.kept is not None and (workspace.root / replaced.kept).read_text() == "# Tally\nkiwi 2\n"
    assert (workspace.root / ".runtime" / LAYOUT.versions_record).is_file()
