"""A later message of a conversation whose earlier research finished: a follow-up of it.

The child runs `deep-researcher follow-up` (agent_runtime/app/follow_up.py): a new research in
`workspace` (made empty by serve, which `follow-up` accepts) that begins from the earlier report,
its dashboards and its sources, every source keeping its id; the earlier workspace is only read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def follow_up_arguments(earlier: Path, question: str, workspace: Path, options: Sequence[str]) -> list[str]:
    """The child's arguments for a follow-up of the finished research in `earlier`, asking `question`
    (the conversation's new message), in the new empty folder `workspace`."""
    return ["follow-up", f"--workspace={workspace}", *options, "--", str(earlier), question]
