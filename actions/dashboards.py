"""The two dashboard actions. Each replaces its file atomically and then the runtime rebuilds
the history from the dashboards: updating a dashboard is how the agent compresses its context (the
run declares them so: `DASHBOARD_UPDATES`, the main agent's `AgentSpec.compresses`).

A person may edit a dashboard while the run works: an update is refused when the file changed since
the version the model was shown (it gets the new text and merges again), and a version a person
edited that an update replaces is kept in `.trash/` (see `StateFiles.write`, agent_runtime/engine/state_files).

An update that is no plan is refused: the dashboard as it already is, nothing but the template's
headings, guidance lines kept (of an earlier template, or the forms a refusal shows), or an overall
dashboard whose research questions or outline are empty. Small models send the template back with
a line changed as an "update"; saving it would clear the history for no progress, and a plan that
is the template leads nowhere. The refusal names the sections to fill and shows the form of each."""

from __future__ import annotations

import re
from dataclasses import dataclass

from actions.steering import after_plan
from agent_runtime.domain.layout import CURRENT_DASHBOARD, OVERALL_DASHBOARD, SOURCES, template_text
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.registry import Observation, action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.state_files import framed, kept_edit_note
from agent_runtime.errors import ActionError, StateEditedError, StorageError, WorkspaceError
from agent_runtime.language import DASHBOARD_WORDS, dashboard_words

# A dashboard is the compressed state: one bigger than this share of the window defeats its purpose.
MAX_DASHBOARD_SHARE = 0.20
# The lines that frame the dashboards in the request (prompts/dashboards.j2, and the headings of
# earlier versions): a model that copies them back gets them removed, not saved into the file.
_FRAME_LINE = re.compile(
    r"^(<<< (end of )?(overall|current)_dashboard\.md >>>|## (Overall|Current) dashboard \((overall|current)_dashboard\.md\))\s*$",
    re.MULTILINE,
)
_CITED = re.compile(r"\[(S\d+)\]")
# The guidance sentences of earlier templates (a resumed workspace may hold them): a line that is one of
# them, or a line of a section's form as a refusal shows it (`form.*` in language.DASHBOARD_WORDS), is
# no content of the model's own.
# ("_None yet._" alone is a statement a model may make of its own: the template's went on.)
_OLD_GUIDANCE = re.compile(
    r"^_(?:(?:Not set yet|None yet|Not written yet)\. .+|The planned chapters, one Notebook file each\."
    r"|What failed and must not be repeated\.)_$"
)
_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s*")
_FORMS = frozenset(
    _LIST_MARK.sub("", " ".join(text.split()))
    for words in DASHBOARD_WORDS.values()
    for key, text in words.items()
    if key.startswith("form.")
)
_HEADING = re.compile(r"^#{1,6}\s")
_SECTION = re.compile(r"^#{1,2}\s+(.*?)\s*#*$")  # subheadings (###) belong to their section
# A section heading in any language with a table, to its key: a model may translate the headings.
_SECTION_KEYS = {
    " ".join(words[key].split()).casefold(): key
    for words in DASHBOARD_WORDS.values()
    for key in ("questions", "outline", "needs", "task", "findings", "next", "lessons")
}
# The sections each dashboard is for (a refusal of a dashboard with nothing written names them),
# and those an update may never leave empty: a plan has questions and an outline.
_SECTIONS_OF = {OVERALL_DASHBOARD: ("questions", "outline", "needs"), CURRENT_DASHBOARD: ("task", "findings", "next")}
_NEVER_EMPTY = {OVERALL_DASHBOARD: ("questions", "outline"), CURRENT_DASHBOARD: ()}


def _unframed(content: str) -> str:
    return _FRAME_LINE.sub("", content).strip() + "\n"


def _with_title(content: str, title: str) -> str:
    """The overall dashboard starts with a `# title` heading (resume and people read it there): one
    written without it gets the research title back."""
    if content.lstrip().startswith("# "):
        return content
    return f"# {title}\n\n{content.lstrip()}"


def _words(line: str) -> str:
    return " ".join(line.split())


def _is_guidance(line: str) -> bool:
    return bool(_OLD_GUIDANCE.match(line)) or _LIST_MARK.sub("", line) in _FORMS


@dataclass
class _Unwritten:
    """What of a dashboard update is still the template: the sections that keep guidance, those
    that must hold something and are empty, and whether the model wrote anything of its own."""

    guided: list[str]
    empty: list[str]
    own: bool


def _unwritten(name: str, content: str, template_lines: set[str]) -> _Unwritten:
    lines = [_words(line) for line in content.splitlines()]
    kept_guidance = any(_is_guidance(line) for line in lines)

    def own(line: str) -> bool:
        """Written by the model: not a line of the template (whitespace aside), not guidance, not a
        bare list mark or "…"; a heading only when no guidance was kept (a model translating the
        template's headings around its guidance has written nothing)."""
        return (
            line not in template_lines
            and not _is_guidance(line)
            and bool(re.search(r"\w", _LIST_MARK.sub("", line).replace("…", "")))
            and not (kept_guidance and _HEADING.match(line))
        )

    bodies: dict[str, list[str]] = {}
    guided: list[str] = []
    body: list[str] | None = None
    key: str | None = None
    for line in lines:
        heading = _SECTION.match(line)
        if heading:
            key = _SECTION_KEYS.get(heading.group(1).casefold())
            body = bodies.setdefault(key, []) if key else None
        elif body is not None:
            body.append(line)
        if _is_guidance(line) and key not in guided:
            guided.append(key or "")
    empty = [k for k in _NEVER_EMPTY[name] if k in bodies and not any(own(line) for line in bodies[k])]
    return _Unwritten(guided, empty, any(own(line) for line in lines))


def _refuse_unwritten(ctx: ActionContext, name: str, content: str) -> None:
    """ActionError when the update is the dashboard as it already is, keeps the template's guidance,
    leaves the research questions or the outline empty, or holds nothing of the model's own; it
    names the sections to fill and shows one line of the form of each (no topic in it)."""
    language = ctx.settings.language
    words = dashboard_words(language)
    template_lines = {
        _words(line)
        for code in {language, "en"}
        for line in template_text(name, ctx.meta.title, ctx.meta.purpose, code).splitlines()
    }
    found = _unwritten(name, content, template_lines)
    unchanged = content.split() == ctx.workspace.read_text(name).split()
    if not (unchanged or found.guided or found.empty or not found.own):
        return
    to_fill = list(_SECTIONS_OF[name]) if not found.own else [*found.empty]
    to_fill += [k for k in found.guided if k and k not in to_fill]
    if unchanged:
        lead = f"this is the dashboard as it already is: nothing was changed in {name}"
    elif not found.own:
        lead = f"this is only the template: nothing was changed in {name}"
    else:
        problems = []
        if found.guided:
            problems.append("it still holds the template's guidance lines (write your own words in their place)")
        if found.empty:
            problems.append(f"{', '.join(words[k] for k in found.empty)} {'is' if len(found.empty) == 1 else 'are'} empty")
        lead = f"{name} was not changed: {'; '.join(problems)}"
    if not to_fill:
        if name == OVERALL_DASHBOARD:
            raise ActionError(f"{lead}. Update it when the plan changes; now continue with the next step.")
        raise ActionError(f"{lead}. Send it again with what changed since: {_CHANGED[name]}.")
    forms = "\n".join(f"## {words[k]}\n{words['form.' + k]}" for k in to_fill if "form." + k in words)
    raise ActionError(
        f"{lead}. Fill: {', '.join(words[k] for k in to_fill)}. One line of each, in this form, in your own "
        f"words:\n{forms}\nThen send the whole dashboard again."
    )


# What an update of a dashboard that has all it needs should bring (the refusal of a repeat says it).
_CHANGED = {
    OVERALL_DASHBOARD: "a changed plan",
    CURRENT_DASHBOARD: "the task at hand, the findings so far with their [S<n>] source ids, and the next steps",
}


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
    _refuse_unwritten(ctx, name, content)
    tokens = ctx.estimator.text(content)
    limit = int(ctx.settings.context_window * MAX_DASHBOARD_SHARE)
    if tokens > limit:
        raise ActionError(
            f"the new {name} is about {tokens:,} tokens, over the limit of {limit:,}; {name} was not changed. "
            "Keep the dashboard short: move details into Notebook files and keep pointers to them."
        )
    try:
        replaced = ctx.workspace.state.write(name, content, unless_edited=True)
    except StateEditedError as edit:
        # A person changed the file since the version this update was made from: never write over
        # their edit. The model merges again (the next request shows the edited dashboard too).
        raise ActionError(
            f"{name} was not changed: the user edited it while you were working. It now reads:\n"
            f"{framed(name, edit.text, 'the whole text is in the dashboards at the start of the conversation')}\n"
            f"Merge your update into the user's text (the user's plan comes first) and send {name} again."
        ) from None
    except StorageError:
        raise
    except WorkspaceError as exc:
        raise ActionError(f"{name} was not changed: {exc}") from None
    text = f"{name} updated ({len(content):,} characters). The history was cleared; continue from the dashboards."
    kept = kept_edit_note(ctx.settings.language, name, replaced)
    if kept is not None:  # the user saved at the very moment of the update: kept, and shown here
        ctx.events.append("dashboard_edit_kept", file=name, kept=replaced.kept)
        text += f"\n{kept}"
    unknown = _unknown_ids(ctx, content)
    if unknown:
        text += (
            f" Warning: {', '.join(unknown[:10])} {'is' if len(unknown) == 1 else 'are'} not the id of any source "
            "you retrieved: cite only the [S<n>] ids that web_search and visit_url showed you."
        )
    return Observation(text)


@action
async def update_overall_dashboard(ctx: ActionContext, content: str) -> Observation:
    """Replace overall_dashboard.md, the research blueprint: the research questions, the outline (the
    planned chapters, one Notebook file each), what a complete answer needs, and the status of each
    chapter. Update it when the plan changes. Afterwards the conversation history is cleared and you
    continue from the two dashboards, so write everything you need to keep.

    Args:
        content: the complete new dashboard in Markdown; it replaces the old one entirely.
    """
    return after_plan(ctx, _replace(ctx, OVERALL_DASHBOARD, content))


@action
async def update_current_dashboard(ctx: ActionContext, content: str) -> Observation:
    """Replace current_dashboard.md: the task at hand, the findings so far with their [S<n>] source ids,
    the next steps, and the lessons from what failed. Update it often: afterwards the conversation
    history is cleared and you continue from the two dashboards, which keeps your context small.

    Args:
        content: the complete new dashboard in Markdown; it replaces the old one entirely.
    """
    return _replace(ctx, CURRENT_DASHBOARD, content)


# The actions that rewrite the dashboards, the main agent's state: the run hands them to the loop
# (AgentSpec.compresses), which rebuilds the history from the files after one of them succeeds.
DASHBOARD_UPDATES = frozenset({update_overall_dashboard.name, update_current_dashboard.name})
