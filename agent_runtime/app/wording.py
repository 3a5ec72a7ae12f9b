"""Sentences several commands say alike, so that a person meets one wording everywhere
(`inspect`, `resume`, `export`, `audit`, the live view)."""

from __future__ import annotations

from pathlib import Path

GIVE_A_RUN = "give the folder of a research run (its workspace)"


def not_a_workspace(root: Path) -> str:
    """Why `root` is no workspace a command can read: it does not exist, is a file, or is a folder
    without a run's files."""
    if not root.exists():
        return f"{root} does not exist: {GIVE_A_RUN}"
    if not root.is_dir():
        return f"{root} is a file, not a workspace folder: {GIVE_A_RUN}"
    return (
        f"{root} is not a research workspace (it has no overall_dashboard.md or .runtime/run.json): {GIVE_A_RUN}"
    )
