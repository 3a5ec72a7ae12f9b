"""The File micro agent's actions called directly: a context on a workspace, and runners that expect
success or a clear error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from actions.files import file_actions
from agent_runtime.config import load_settings
from agent_runtime.domain.layout import ResearchWorkspace
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.registry import ActionSet, Observation
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.run_record import EventLog, RunMeta
from agent_runtime.testing import ScriptedModel, reply

ACTIONS = ActionSet.of(file_actions())


def make_context(root: Path, **overrides: Any) -> ActionContext:
    workspace = ResearchWorkspace(root)
    return ActionContext(
        workspace,
        load_settings(overrides, env={}),
        ScriptedModel(lambda messages, tools: reply()),
        EventLog(workspace.events_file),
        RunMeta(title="Test research"),
        Prompts(),
    )


async def run(ctx: ActionContext, name: str, **arguments: Any) -> Observation:
    return await ACTIONS.run(ctx, name, arguments)


async def ok(ctx: ActionContext, name: str, **arguments: Any) -> str:
    observation = await run(ctx, name, **arguments)
    assert not observation.error, observation.text
    return observation.text


async def fails(ctx: ActionContext, name: str, **arguments: Any) -> str:
    observation = await run(ctx, name, **arguments)
    assert observation.error, observation.text
    assert observation.text.startswith(("Error in ", "Error: invalid arguments")), observation.text
    return observation.text
