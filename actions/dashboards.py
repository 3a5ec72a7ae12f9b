"""The two dashboard actions. Each replaces its file atomically and then the runtime rebuilds
the history from the dashboards: updating a dashboard is how the agent compresses its context.

A person may edit a dashboard while the run works: an update is refused when the file changed since
the version the model was shown (it gets the new text and merges again), and a version a person
edited that an update replaces is kept in `.trash/` (see `Workspace.write_dashboard`).

An update that changes nothing is refused: the dashboard as it already is, or nothing but the
template's headings and placeholder lines (small models send the template back as an "update").
Saving it would clear the history for no progress; the refusal names what is still to write."""

from __future__ import annotations

import re

from agent_runtime.domain.ledger import Ledger
from agent_runtime.engine.context import ActionContext
from agent_runtime.engine.registry import Observation, action
from agent_runtime.engine.workspace import CURRENT_DASHBOARD, OVERALL_DASHBOARD, SOURCES, template_text
from agent_runtime.errors import ActionError, DashboardEditedError, StorageError, WorkspaceError

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
# The template's placeholder lines, also as earlier versions of workspace_template/ worded them: a
# resumed workspace may hold those.
_PLACEHOLDER = re.compile(r"^_(Not set yet|None yet|Not written yet)\b.*_$")
_HEADING = re.compile(r"^#{1,6}\s")
_SECTION = re.compile(r"^#{1,2}\s+(.*?)\s*#*$")  # subheadings (###) belong to their section
_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s*")
# What each dashboard must hold, as the template names its sections: a refusal says which of them
# are still empty. Status and Lessons may stay as the template has them.
_TO_WRITE: dict[str, tuple[tuple[str, ...], str]] = {
    OVERALL_DASHBOARD: (
        ("Research questions", "Outline", "What a complete answer needs"),
        "the research questions, the outline (the planned chapters, one Notebook file each) and what a "
        "complete answer needs",
    ),
    CURRENT_DASHBOARD: (
        ("Task at hand", "Findings so far", "Next steps"),
        "the task at hand, the findings so far with their [S<n>] source ids, and the next steps",
    ),
}


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


def _words(line: str) -> str:
    return " ".join(line.split())


def _own_lines(content: str, template: str) -> list[str]:
    """The lines of `content` the model wrote itself: not a line of the template (whitespace aside),
    not a placeholder, not a bare list mark or "…". When a placeholder line is still there, a
    heading alone is not taken for writing either (a model translating the template's headings
    around its placeholders has written nothing)."""
    template_lines = {_words(line) for line in template.splitlines()}
    placeholders = {line for line in template_lines if line.startswith("_") and line.endswith("_")}
    lines = [_words(line) for line in content.splitlines()]
    kept_placeholder = any(line in placeholders or _PLACEHOLDER.match(line) for line in lines)
    return [
        line
        for line in lines
        if line not in template_lines
        and not _PLACEHOLDER.match(line)
        and re.search(r"\w", _LIST_MARK.sub("", line).replace("…", ""))
        and not (kept_placeholder and _HEADING.match(line))
    ]


def _empty_sections(name: str, content: str, template: str) -> list[str]:
    """The sections this dashboard must hold that are present in `content` with nothing written
    under them; all of them when nothing at all is written."""
    needed = _TO_WRITE[name][0]
    if not _own_lines(content, template):
        return list(needed)
    bodies: dict[str, list[str]] = {}
    body: list[str] | None = None
    for line in content.splitlines():
        heading = _SECTION.match(line.strip())
        if heading:
            body = bodies.setdefault(_words(heading.group(1)).casefold(), [])
        elif body is not None:
            body.append(line)
    return [
        section
        for section in needed
        if section.casefold() in bodies and not _own_lines("\n".join(bodies[section.casefold()]), template)
    ]


def _refuse_no_change(ctx: ActionContext, name: str, content: str) -> None:
    """ActionError when the update is the dashboard as it already is, or holds nothing but the
    template (whitespace aside), saying what is still to write."""
    template = template_text(name, ctx.meta.title, ctx.meta.purpose)
    if content.split() == ctx.workspace.read_text(name).split():
        lead = f"this is the dashboard as it already is: nothing was changed in {name}"
    elif not _own_lines(content, template):
        lead = f"this is only the template's headings and placeholder lines: nothing was changed in {name}"
    else:
        return
    empty = _empty_sections(name, content, template)
    what = _TO_WRITE[name][1]
    if empty:
        raise ActionError(
            f"{lead}. Still empty: {', '.join(empty)}. Write {what} in place of the placeholder lines, "
            "then send the whole dashboard."
        )
    if name == OVERALL_DASHBOARD:
        raise ActionError(f"{lead}. Update it when the plan changes; now continue with the next step.")
    raise ActionError(f"{lead}. Send it again with what changed since: {what}.")


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
    _refuse_no_change(ctx, name, content)
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
