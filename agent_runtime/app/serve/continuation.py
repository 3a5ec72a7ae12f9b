"""A later message of a conversation whose earlier research finished: the follow-up's command line.

THE SEAM with `deep-researcher follow-up` (issue 36). Until it is merged, a follow-up is a new
research in `workspace` whose purpose carries the earlier research and the conversation. Once it is
merged, `follow_up_arguments` returns its command instead, and nothing else in `serve` changes:

    return ["follow-up", f"--workspace={workspace}", *options, "--", str(earlier), question]

(`workspace` is made empty by serve, which `follow-up` accepts; the earlier workspace is only read.)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_runtime.app.background_runs import run_arguments
from agent_runtime.domain.layout import MAX_PURPOSE_CHARS

_CONTINUES = {
    "en": "This follows up the finished research “{title}” (its workspace: {earlier}; its report: {report}).",
    "zh": "这是对已完成研究「{title}」的后续研究（其工作区：{earlier}；其报告：{report}）。",
}


def follow_up_arguments(
    earlier: Path, earlier_title: str, question: str, workspace: Path, options: Sequence[str],
    purpose: str | None, language: str,
) -> list[str]:  # fmt: skip
    """The child's arguments for a follow-up of the finished research in `earlier`, asking `question`
    (the conversation's new message), in the new empty folder `workspace`."""
    note = _CONTINUES.get(language, _CONTINUES["en"]).format(
        title=earlier_title, earlier=earlier, report=earlier / "report.md"
    )
    carried = f"{note}\n\n{purpose}" if purpose else note
    return run_arguments(question, workspace, options, purpose=carried[:MAX_PURPOSE_CHARS])
