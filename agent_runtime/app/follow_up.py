"""`deep-researcher follow-up WORKSPACE QUESTION`: research that builds on a finished report.

    researcher = follow_up(earlier, question, workspace=None, settings=None)   # -> Researcher
    result = await researcher.run()

A new run in a new workspace begins from the earlier one: its sources (the ledger and the snapshots,
so every earlier source keeps its id), its Notebook, its current dashboard, and its report (kept as
`earlier_report.md`). The earlier report, with its citations written back as the [S<n>] ids of this
workspace (or, when it does not fit a quarter of the window, a digest of its chapters with their
citations) and the new question reach the model in its first request; the overall dashboard names
the earlier workspace. The earlier workspace is only read: not a byte of it changes (the copy of
its ledger is what is loaded and checked).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.researcher import Researcher, RunResult, check_input_lengths
from agent_runtime.config import Settings, load_settings
from agent_runtime.domain.layout import (
    CURRENT_DASHBOARD,
    NOTEBOOK,
    OVERALL_DASHBOARD,
    REPORT,
    SOURCES,
    ResearchWorkspace,
)
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.domain.steering import (
    EARLIER_REPORT,
    follow_up_workspace,
    follows_line,
    load_steering,
    save_steering,
)
from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.model import Model
from agent_runtime.engine.run_record import load_meta
from agent_runtime.engine.tokens import raw_text_tokens
from agent_runtime.errors import SettingValueError
from agent_runtime.language import STRINGS

# The earlier report goes whole into the first request while it takes at most this share of the window
# (estimated as the context guard estimates: ~4 ASCII characters a token, one a token for CJK).
REPORT_SHARE = 0.25
_CITATION = re.compile(r"\[(\d+(?:\s*[,，]\s*\d+)*)\]")  # [3], and the finalizer's [2, 3]


def follow_up(
    earlier: str | Path,
    question: str,
    *,
    workspace: str | Path | None = None,
    settings: Settings | None = None,
    flags: Mapping[str, Any] | None = None,
    config_file: str | Path | None = None,
    model: Model | None = None,
    before_start: Callable[[Settings], None] | None = None,
) -> Researcher:
    """A new run answering `question` from the finished run in `earlier`, ready to `run()`.
    `before_start` checks the settings before the new folder is made (the CLI: is the endpoint up).
    `workspace`: the new folder (default: `<earlier>-follow-up`, numbered when taken). Without
    `settings`, the earlier run's settings with `flags` over them (its language is that of the
    question unless `flags` name one). SettingValueError (a usage error) for a folder that is no
    workspace, an unfinished run or a target that is not empty; WorkspaceError for a tampered ledger."""
    source = ResearchWorkspace(Path(earlier))
    if not source.root.is_dir() or not source.exists():
        raise SettingValueError(f"{source.root} is not a research workspace (no overall_dashboard.md, no .runtime/run.json)")
    meta = load_meta(source.run_file)
    if meta is None or meta.status != "finished" or not (source.root / REPORT).is_file():
        status = meta.status if meta is not None else "unknown"
        raise SettingValueError(
            f"{source.root} did not finish (status {status}): a follow-up builds on a finished report; finish it "
            f"first with `{resume_command(source.root)}`"
        )
    question = " ".join(question.split())
    if not question:
        raise SettingValueError('the follow-up question is empty; ask one, e.g. "What changed in 2026?"')
    check_input_lengths(question, meta.purpose)
    target = follow_up_workspace(source.root, workspace)
    if settings is None:
        stored = {k: v for k, v in meta.settings.items() if k not in ("language", "clarify", "review_plan")}
        settings = load_settings(flags, stored=stored, config_file=config_file)
    Ledger.load(source.root / SOURCES)  # a tampered ledger is refused first, as `resume` refuses it (reading writes nothing)
    if before_start is not None:
        before_start(settings)
    researcher = Researcher.start(question, purpose=meta.purpose, workspace=target, settings=settings, model=model)
    try:
        _carry_over(source, meta.title, researcher)
    except BaseException:
        researcher.close()
        shutil.rmtree(researcher.workspace.root, ignore_errors=True)  # it was new or empty: nothing lost
        raise
    return researcher


async def follow_up_research(
    earlier: str | Path, question: str, *, workspace: str | Path | None = None, model: Model | str | None = None,
    **settings: Any,
) -> RunResult:
    """The Python API of `follow-up`: run it to its end (or a budget, or a pause) and return the outcome;
    settings as in the CLI, over the earlier run's."""
    if isinstance(model, str):
        settings["model"], model = model, None
    return await follow_up(earlier, question, workspace=workspace, flags=settings, model=model).run()


def _carry_over(source: ResearchWorkspace, earlier_title: str, researcher: Researcher) -> None:
    space = researcher.workspace
    shutil.copytree(source.root / SOURCES, space.root / SOURCES, dirs_exist_ok=True)
    Ledger.load(space.root / SOURCES)  # the copy: a tampered ledger is refused like `resume` refuses it
    if (source.root / NOTEBOOK).is_dir():
        shutil.copytree(source.root / NOTEBOOK, space.root / NOTEBOOK, dirs_exist_ok=True)
    shutil.copyfile(source.root / REPORT, space.root / EARLIER_REPORT)
    language = researcher.settings.language
    overall = space.read_text(OVERALL_DASHBOARD).rstrip("\n")
    space.state.write(OVERALL_DASHBOARD, f"{overall}\n\n{follows_line(source.root, language)} ({EARLIER_REPORT})\n")
    space.state.write(CURRENT_DASHBOARD, source.read_text(CURRENT_DASHBOARD))
    steering = load_steering(space.root)
    steering.follows = str(source.root)
    save_steering(space.root, steering)
    report = earlier_report_for_model(source.root, researcher.settings.context_window)
    researcher.events.append("follow_up", earlier=str(source.root), question=researcher.meta.title)
    researcher.set_first_note(
        researcher.prompts.render(
            "follow_up_note.j2",
            earlier=str(source.root), earlier_title=earlier_title,
            question=researcher.meta.title, report=report, report_file=EARLIER_REPORT,
            earlier_overall=source.read_text(OVERALL_DASHBOARD).strip(),
        )
    )


def earlier_report_for_model(earlier: Path, window: int) -> str:
    """The earlier report with its citations [n] written back as [S<n>] and its References cut (the
    ledger holds them); a digest of its chapters when it would take over REPORT_SHARE of the window."""
    from agent_runtime.app.export.report import load_citations

    text = (earlier / REPORT).read_text(encoding="utf-8", errors="replace")
    ids: dict[int, str] = {}
    for item in load_citations(earlier):
        ids.setdefault(int(item.citation), str(item.source))
    def source_ids(m: re.Match[str]) -> str:
        numbers = [int(n) for n in re.split(r"\s*[,，]\s*", m.group(1))]
        return "".join(f"[{ids[n]}]" for n in numbers) if all(n in ids for n in numbers) else m.group(0)

    text = _CITATION.sub(source_ids, text)
    references = {" ".join(words["references"].split()).casefold() for words in STRINGS.values()}
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("#") and " ".join(line.lstrip("#").split()).casefold() in references:
            lines = lines[:index]
            break
    whole = "\n".join(lines).strip()
    budget = window * REPORT_SHARE
    size = raw_text_tokens(whole)
    return whole if size <= budget else _digest(lines, budget / size)


def _digest(lines: list[str], share: float) -> str:
    """Each chapter's heading, the opening `share` of its text (a little less, for the headings and
    the ids) and the sources it cites."""
    chapters: list[tuple[str, list[str]]] = []
    for line in lines:
        if re.match(r"^#{1,2}\s", line):
            chapters.append((line.strip(), []))
        elif chapters:
            chapters[-1][1].append(line)
    parts = [f"(A digest: the whole earlier report is in {EARLIER_REPORT}.)"]
    for heading, body in chapters:
        text = " ".join(" ".join(body).split())
        cited = sorted(set(re.findall(r"\[(S\d+)\]", text)), key=lambda s: int(s[1:]))
        keep = int(len(text) * share * 0.8)
        opening = text if keep >= len(text) else text[:keep] + "…"
        parts.append(f"{heading}\n{opening}" + (f"\nCites: {', '.join(cited)}" if cited else ""))
    return "\n\n".join(parts)
