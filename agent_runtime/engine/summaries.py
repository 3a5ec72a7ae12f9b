"""Whether a compaction summary is a summary.

When a history outgrows the window, a separate call folds it into the agent's memory file (one of
its state files: a research run's current dashboard), and the history restarts from that file.
What comes back replaces the file, so it must be checked first: a small model answers the request
with a tool call (the bare name of the action that updates the file, a JSON action), or copies the
transcript it was given. A summary is accepted only when it keeps the file's headings and every
source id the agent itself wrote (in the file or in its own replies), and is neither a tool call
nor the transcript. Otherwise the old file stays, and the history is compacted by pointers instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from agent_runtime.engine.replies import calls_in_text

SOURCE_ID = re.compile(r"\[(S\d+)\]")
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
    summary: str, memory: str, own_text: str, actions: Collection[str], cut_at: int | None = None
) -> str | None:
    """Why `summary` cannot replace `memory`, the memory file's text (None: it can). `own_text` is what the agent wrote
    in the history being folded (its replies and their arguments, not the observations: a search
    shows twenty ids, and a summary keeps the findings, not every result). `cut_at`: the output cap
    the reply was cut at, if it was."""
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
    cited = set(SOURCE_ID.findall(text))
    written = _PLACEHOLDER.sub("", memory) + "\n" + own_text  # a template's example id is no finding
    missing = sorted(set(SOURCE_ID.findall(written)) - cited, key=lambda s: int(s[1:]))
    if missing:
        return f"the summary drops the source id(s) {', '.join(missing[:10])}"
    return None
