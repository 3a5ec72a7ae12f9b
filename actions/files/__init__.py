"""The File micro agent's actions: `file_actions()` lists them in the order of its tool list.

Reading is in `read`, searching in `search`, writing and folders in `write`, the shared helpers
in `common`; the agent's `finish` is here. Every path goes through the workspace `PathPolicy`: a
refusal ("path escapes the workspace: …", "… is read-only here: …") comes back to the model as an
observation.
"""

from __future__ import annotations

from actions.files.common import COMPACT_LEAVES_OUT
from actions.files.read import continue_stream_read, read_file, stream_read_file
from actions.files.search import file_search, grep_files, search_in_file
from actions.files.write import (
    create_directory,
    create_file,
    delete_file,
    list_directory,
    replace_text,
    write_attached,
    write_file,
)
from agent_runtime.engine.registry import Action, Observation, action
from agent_runtime.errors import ActionError


@action
async def finish(answer: str) -> Observation:
    """End the file operation and hand your answer to the main agent. It sees nothing else of your
    work: say what you did (each file changed), or give the content it asked for, with paths and
    line numbers; report anything that failed.

    Args:
        answer: your answer for the main agent, concise (under 4,000 characters).
    """
    if not answer.strip():
        raise ActionError("the answer is empty; say what you did or give what was asked for")
    return Observation("The answer was handed to the main agent.", finished=True, result=answer)


# The actions that change the file their `file_path` names: a dashboard named there is the main
# agent's to change (actions/file_operation.py sends it to its own action at once).
CHANGES_FILE = frozenset({"write_file", "write_attached", "replace_text", "create_file", "delete_file"})


def file_actions(compact: bool = False) -> list[Action]:
    """The File agent's action set, in the fixed order of its tool list (the contract order)."""
    every = [
        read_file,
        write_file,
        create_file,
        search_in_file,
        grep_files,
        file_search,
        stream_read_file,
        continue_stream_read,
        list_directory,
        create_directory,
        delete_file,
        write_attached,
        replace_text,
        finish,
    ]
    return [a for a in every if not (compact and a.name in COMPACT_LEAVES_OUT)]


__all__ = ["CHANGES_FILE", "file_actions"]
