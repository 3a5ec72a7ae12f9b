"""The two dashboard actions. Each replaces its file atomically and then the runtime rebuilds
the history from the dashboards: updating a dashboard is how the agent compresses its context.

A person may edit a dashboard while the run works: an update is refused when the file changed since
the version the model was shown (it gets the new text and merges again), and a version a person
edited that an update replaces is kept in `.trash/` (see `Workspace.write_dashboard`)."""

from __future__ import annotations

import re

from agent_runtime.context import ActionContext
from agent_runtime.errors import ActionError, DashboardEditedError, StorageError, WorkspaceError
from agent_runtime.ledger import Ledger
from agent_runtime.registry import Observation, action
from agent_runtime.workspace import CURRENT_DASHBOARD, OVERALL_DASHBOARD, SOURCES

# A dashboard is the compressed state: one bigger than this share of the window defeats its purpose.
MAX_DASHBOARD_SHARE = 0.20
# The lines that frame the dashboards in the request (prompts/dashboards.j2, and the headings of
# earlier versions): a model that copies them back gets them removed, not saved into the file.
_FRAME_LINE = re.compile(
    r"^(<<< (end of )?(overall|current)_dashboard\.md >>>|## (Overall|Current) dashboard \((overall|current)_dashboard\.md\))\s*$",
    re.MULTILINE,
)
_CITED = re.compile(r"\[(S\d+)\]")
# Of a dashboard a person edited, the characters an observation shows (the whole text comes with the
# dashboards at the head of the conversation from the next step).
EDITED_TEXT_CHARS = 4_000


def _unframed(content: str) -> str:
    return _FRAME_LINE.sub("", content).strip() + "\n"


def _with_title(content: str, title: str) -> str:
    """The overall dashboard starts with a `# title` heading (resume and people read it there): one
    written without it gets the research title back."""
    if content.lstrip().startswith("# "):
        return content
    return f"# {title}\n\n{content.lstrip()}"


def _framed(name: str, text: str, whole: str) -> str:
    """A dashboard's text for an observation, bounded, between the marker lines of the request."""
    text = text.strip()
    if len(text) > EDITED_TEXT_CHARS:
        text = f"{text[:EDITED_TEXT_CHARS]}\n[… {len(text) - EDITED_TEXT_CHARS:,} more characters; {whole}]"
    return f"<<< {name} >>>\n{text}\n<<< end of {name} >>>"


def _unknown_ids(ctx: ActionContext, content: str) -> list[str]:
    if not _CITED.search(content):
        return []
    # The run's ledger if an action loaded it, else read from disk without keeping it: a dashboard
    # only looks, and what writes the ledger loads it when it needs it.
    ledger = ctx.services.peek(Ledger) or Ledger.load(ctx.workspace.root / SOURCES)
    return sorted({i for i in _CITED.findall(content) if i not in ledger}, key=lambda i: int(i[1:]))


def _replace(ctx: ActionContext, name: str, content: str) -> Observation:
    content = _unframed(content)
    if not content.strip():  # before the title is added: a title alone would wipe the blueprint
        raise ActionError(f"the new content is empty; {name} was not changed (send the whole dashboard)")
    if name == OVERALL_DASHBOARD:
        content = _with_title(content, ctx.meta.title)
    tokens = ctx.estimator.text(content)
    limit = int(ctx.settings.context_window * MAX_DASHBOARD_SHARE)
    if tokens > limit:
        raise ActionError(
            f"the new {name} is about {tokens:,} tokens, over the limit of {limit:,}; {name} was not changed. "
            "Keep the dashboard short: move details into Notebook files and keep pointers to them."
        )
    try:
        replaced = ctx.workspace.write_dashboard(name, content, unless_edited=True)
    except DashboardEditedError as edit:
        # A person changed the file since the version this update was made from: never write over
        # their edit. The model merges again (the next request shows the edited dashboard too).
        raise ActionError(
            f"{name} was not changed: the user edited it while you were working. It now reads:\n"
            f"{_framed(name, edit.text, 'the whole text is in the dashboards at the start of the conversation')}\n"
            f"Merge your update into the user's text (the user's plan comes first) and send {name} again."
        ) from None
    except StorageError:
        raise
    except WorkspaceError as exc:
        raise ActionError(f"{name} was not changed: {exc}") from None
    text = f"{name} updated ({len(content):,} characters). The history was cleared; continue from the dashboards."
    if replaced.unseen_text is not None:
        # The user saved at the very moment of the update: their version is kept, and shown here.
        text += (
            f" But the user saved {name} at the same moment, and your update replaced their version "
            f"(it is kept in {replaced.kept}). The user's version reads:\n"
            f"{_framed(name, replaced.unseen_text, f'the whole text is in {replaced.kept}')}\n"
            f"Merge the user's text into {name} (the user's plan comes first) and send {name} again."
        )
    unknown = _unknown_ids(ctx, content)
    if unknown:
        text += (
            f" Warning: {', '.join(unknown[:10])} {'is' if len(unknown) == 1 else 'are'} not the id of any source "
            "you retrieved: cite only the [S<n>] ids that web_search and visit_url showed you."
        )
    return Observation(text, reset_context=True)


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
