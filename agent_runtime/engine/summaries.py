"""Whether a compaction summary is a summary.

When a history outgrows the window, a separate call folds it into the agent's memory file (one of
its state files: a research run's current dashboard), and the history restarts from that file.
What comes back replaces the file, so it must be checked first: a small model answers the request
with a tool call (the bare name of the action that updates the file, a JSON action), or copies the
transcript it was given. A summary is accepted only when it keeps the file's headings and every id
the agent itself wrote (in the file or in its own replies) of the kind its wiring names (`kept_ids`:
a research run's `[S<n>]` source ids), and is neither a tool call nor the transcript. Otherwise the old file stays, and the history is compacted by pointers instead.

`summarize_into_memory` makes that call and writes the file; the loop only rebuilds its history
when the summary was taken.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from agent_runtime.engine.calling import calling
from agent_runtime.engine.context_guard import ContextGuard
from agent_runtime.engine.messages import Message, user
from agent_runtime.engine.model import Model
from agent_runtime.engine.replies import calls_in_text, parse_reply
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.engine.state_files import kept_edit_note
from agent_runtime.engine.tokens import raw_text_tokens

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)
_BARE_NAME = re.compile(r"^\W*([A-Za-z_][A-Za-z0-9_]*)\W*$")  # an action's name in a code span
_PLACEHOLDER = re.compile(r"^_.*_$", re.MULTILINE)  # the template's italic guidance lines
TRANSCRIPT_MARKS = ("### assistant\n", "### user\n", "### tool\n")  # how the request shows the history
MIN_CAP = 512  # tokens of a summary at most, for a small window (a CPU writes 2,048 in minutes)


def summary_cap(window: int, reply_cap: int, memory_tokens: int = 0) -> int:
    """The output cap of the summary call: about 512 tokens at 8k, a sixteenth of larger windows,
    and room for the memory file it rewrites (a summary cut short loses its last sections)."""
    return min(reply_cap, max(MIN_CAP, window // 16, memory_tokens * 5 // 4 + 128))


def headings(markdown: str, sections_only: bool = False) -> list[str]:
    """The headings of a Markdown text; `sections_only`: without the level-1 title, which a
    summary may drop (the file keeps its name)."""
    return [
        match.group(2).strip()
        for match in _HEADING.finditer(markdown)
        if not (sections_only and len(match.group(1)) == 1)
    ]


def summary_problem(
    summary: str,
    memory: str,
    own_text: str,
    actions: Collection[str],
    cut_at: int | None = None,
    kept_ids: re.Pattern[str] | None = None,
) -> str | None:
    """Why `summary` cannot replace `memory`, the memory file's text (None: it can). `own_text` is what the agent wrote
    in the history being folded (its replies and their arguments, not the observations: a search
    shows twenty ids, and a summary keeps the findings, not every result). `cut_at`: the output cap
    the reply was cut at, if it was. `kept_ids`: the ids (its first group) the summary must keep."""
    text = summary.strip()
    if not text:
        return "the summary is empty"
    if cut_at is not None:  # its last sections are missing, whatever it kept
        return f"the summary was cut at the output cap ({cut_at} tokens)"
    bare = _BARE_NAME.fullmatch(text)
    if calls_in_text(text, actions) or (bare is not None and bare.group(1) in actions):
        return "the summary is a tool call, not the text of the file it replaces"
    if any(mark in text for mark in TRANSCRIPT_MARKS):
        return "the summary copies the transcript instead of summarising it"
    kept = {heading.casefold() for heading in headings(text)}
    lost = [heading for heading in headings(memory, sections_only=True) if heading.casefold() not in kept]
    if lost:
        return f"the summary drops the heading(s) {', '.join(lost[:5])} of the file it replaces"
    if kept_ids is None:
        return None
    kept = set(kept_ids.findall(text))
    written = _PLACEHOLDER.sub("", memory) + "\n" + own_text  # a template's example id is no finding
    missing = sorted(set(kept_ids.findall(written)) - kept, key=lambda name: (len(name), name))  # S2, S10
    if missing:
        return f"the summary drops the source id(s) {', '.join(missing[:10])}"
    return None



@dataclass
class Folded:
    """What a summarizing call did: `taken` when the memory file now holds the summary (the history
    restarts from the state files); `notes` for the next request either way."""

    taken: bool
    notes: list[str] = field(default_factory=list)


def transcript_of(messages: Sequence[Message]) -> str:
    """The history being folded, as the summarizing request shows it (see TRANSCRIPT_MARKS)."""
    return "\n\n".join(
        f"### {m['role']}\n{m.get('content') or ''}"
        + "".join(f"\n→ {c['function']['name']}({c['function']['arguments']})" for c in m.get("tool_calls") or [])
        for m in messages
    )


async def summarize_into_memory(
    ctx: ActionContext,
    model: Model,
    guard: ContextGuard,
    memory: str,
    folded: Sequence[Message],
    actions: Collection[str],
    step: int,
    edit_kept: Callable[[str], None] | None = None,
    kept_ids: re.Pattern[str] | None = None,
) -> Folded:
    """Fold `folded` (the history after the base messages) into the state file `memory` with a
    separate call of `model`; a reply that is not a summary (`summary_problem`) leaves the file as
    it was. `edit_kept` hears where a person's save that the summary replaced unseen is kept."""
    workspace, prompts = ctx.workspace, ctx.prompts
    memory_text = workspace.read_text(memory)
    request = [
        {"role": "system", "content": prompts.render("summarize_system.j2")},
        user(prompts.render("summarize_request.j2", memory=memory_text, transcript=transcript_of(folded))),
    ]
    request = guard.fit(request, [])
    memory_tokens = ctx.estimator.scale(raw_text_tokens(memory_text))
    reply_cap = guard.reply_reserve or ctx.settings.reply_cap()
    cap, cut = summary_cap(guard.window, reply_cap, memory_tokens), False
    summary, started = "", time.monotonic()
    try:
        calling.set(("summarizer", f"step {step}"))
        raw = await model.complete(request, [], max_output_tokens=cap)
        prompt_tokens, completion_tokens = ctx.account(
            ctx.estimator.raw(request, []), raw.prompt_tokens, raw.completion_tokens
        )
        summary, cut = parse_reply(raw, "json", ()).text, raw.finish_reason == "length"
        ctx.events.append(
            "model_call", step=step, agent="summarizer", model=model.name,
            prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, calls=[], problems=[],
            duration=round(time.monotonic() - started, 3), max_output_tokens=cap,
        )  # fmt: skip
    except Exception as exc:  # a failed summary must not lose the run: keep the old memory
        ctx.events.append("summary_failed", step=step, error=str(exc)[:300])
        summary = ""
    own_text = "\n".join(str(m.get("content") or "") for m in folded if m.get("role") == "assistant")
    problem = summary_problem(summary, memory_text, own_text, actions, cut_at=cap if cut else None, kept_ids=kept_ids)
    if problem is not None:
        if summary.strip():  # an empty or failed summary is no answer to reject
            ctx.events.append("summary_rejected", step=step, reason=problem, summary=summary[:300])
        # The caller keeps the pointer-compacted history: resetting it would lose everything since
        # the last update of the memory. The last-resort cut keeps the request in the window.
        return Folded(False, [prompts.render("note_summary_rejected.j2")])
    # based_on: the text the summary was made from. A person who saved during the summarizing
    # call had their version replaced: it is kept in .trash/ and the model is told (issue 22).
    replaced = workspace.state.write(memory, summary, based_on=memory_text)
    notes = [f"[note] The runtime compacted the context: the history was folded into {memory}."]
    kept = kept_edit_note(ctx.settings.language, memory, replaced)
    if kept is not None:
        if edit_kept is not None and replaced.kept is not None:
            edit_kept(replaced.kept)
        notes.append(kept)
    return Folded(True, notes)
