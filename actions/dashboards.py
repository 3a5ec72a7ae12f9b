"""The two dashboard actions. Each replaces its file atomically and then the runtime rebuilds
the history from the dashboards: updating a dashboard is how the agent compresses its context."""

from __future__ import annotations

from agent_runtime.registry import ActionError, Observation, action
from agent_runtime.run import ActionContext
from agent_runtime.workspace import CURRENT_DASHBOARD, OVERALL_DASHBOARD

# A dashboard is the compressed state: one bigger than this share of the window defeats its purpose.
MAX_DASHBOARD_SHARE = 0.20


def _replace(ctx: ActionContext, name: str, content: str) -> Observation:
    if not content.strip():
        raise ActionError(f"the new content is empty; {name} was not changed (send the whole dashboard)")
    tokens = ctx.estimator.text(content)
    limit = int(ctx.settings.context_window * MAX_DASHBOARD_SHARE)
    if tokens > limit:
        raise ActionError(
            f"the new {name} is about {tokens:,} tokens, over the limit of {limit:,}; {name} was not changed. "
            "Keep the dashboard short: move details into Notebook files and keep pointers to them."
        )
    ctx.workspace.write_dashboard(name, content)
    return Observation(
        f"{name} updated ({len(content):,} characters). The history was cleared; continue from the dashboards.",
        reset_context=True,
    )


@action
async def update_overall_dashboard(ctx: ActionContext, content: str) -> Observation:
    """Replace overall_dashboard.md, the research blueprint: the research questions, the outline (the
    planned chapters, one Notebook file each), what a complete answer needs, and the status of each
    chapter. Update it when the plan changes. Afterwards the conversation history is cleared and you
    continue from the two dashboards, so write everything you need to keep.

    Args:
        content: the complete new dashboard in Markdown; it replaces the old one entirely.
    """
    return _replace(ctx, OVERALL_DASHBOARD, content)


@action
async def update_current_dashboard(ctx: ActionContext, content: str) -> Observation:
    """Replace current_dashboard.md: the task at hand, the findings so far with their [S<n>] source ids,
    the next steps, and the lessons from what failed. Update it often: afterwards the conversation
    history is cleared and you continue from the two dashboards, which keeps your context small.

    Args:
        content: the complete new dashboard in Markdown; it replaces the old one entirely.
    """
    return _replace(ctx, CURRENT_DASHBOARD, content)
