"""all_finished: the main agent's finishing action."""

from __future__ import annotations

from agent_runtime.registry import ActionError, Observation, action
from agent_runtime.run import ActionContext
from sandbox.paths import PathPolicy


@action
async def all_finished(ctx: ActionContext, result: str, report_path: str) -> Observation:
    """Finish the research. Call it once the report is complete and saved as a Markdown file in the
    workspace. The report is checked; if a problem is found you get the list and keep working.

    Args:
        result: a short summary of what the research found, for the person who asked.
        report_path: the report's path relative to the workspace, e.g. "draft_report.md".
    """
    path = PathPolicy(ctx.workspace.root).resolve(report_path)
    if not path.is_file():
        raise ActionError(
            f"the report {report_path!r} does not exist in the workspace; write the report into a file "
            "first (with file_operation), then call all_finished with its path"
        )
    relative = ctx.workspace.relative(path)
    ctx.meta.report_path = relative
    ctx.meta.result = result
    return Observation(f"Finished. Report: {relative}", finished=True, result=result)
