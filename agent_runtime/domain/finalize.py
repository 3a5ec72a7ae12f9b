"""Finalization: the report's citations are checked against the ledger, renumbered, and given a
References section built by code.

- Every `[S<n>]` must name a ledger source (fetched, or returned by a search); a raw URL in the
  text must be one that an observation showed (a ledger URL). No `[NEEDS RESEARCH…]` or
  `[SOURCE NEEDED]` marker may remain, and no chapter may be empty.
- Citations are renumbered `[1]`, `[2]`, … in order of first use (a source keeps one number);
  `[S3][S7]` becomes `[1][2]` and `[S7, S9]` becomes `[2, 3]`.
- A reference list the model wrote itself is replaced by one built from the ledger, listing
  exactly the cited sources (title, URL, date accessed).
- A forced finalization (after repeated refusals, or when the budget is nearly spent) removes the
  markers, drops unresolved citations and unverified URLs, keeps each citation the check could not
  verify marked ``[3]†``, and lists every problem in an appendix that says only what code really
  changed, and names flagged citations by the reader's number: the report never pretends to be
  more than it is.
- The words the code writes (the References heading and entries, the appendix and its problems) are
  in the run's language (agent_runtime/language.py); the problems the agent is told stay English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import agent_runtime.language as lang
from agent_runtime.domain.citecheck.verdict import Reason
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.domain.sources.records import SourceRecord

# One bracket group of source ids: [S3] or [S7, S9] or [S7; S9]
_CITATION = re.compile(r"\[\s*(S\d+(?:\s*[,;]\s*S\d+)*)\s*\]")
_ID = re.compile(r"S\d+")
_MARKER = re.compile(r"\[\s*(?:NEEDS RESEARCH\b[^\]]*|SOURCE NEEDED\s*)\]", re.IGNORECASE)
_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\((https?://[^)\s]+)\)")
_BARE_URL = re.compile(r"(?<![(<\w])https?://[^\s<>)\]]+")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)
# A heading that is only a references title ("Sources", "References:"), not "Sources of revenue".
_REFERENCES_TITLES = re.compile(
    r"^(references|sources|bibliography|works cited|参考文献|参考资料)\s*[:：]?$", re.IGNORECASE
)
_CODE_FENCE = re.compile(r"```.*?```", re.DOTALL)


@dataclass
class Problem:
    kind: str  # unknown_source, unverified_url, marker, empty_chapter, no_citations, empty_report,
    # unsupported_citation (agent_runtime.domain.citation_audit)
    subject: str = ""  # the source id, URL, marker or chapter it is about

    @property
    def detail(self) -> str:
        return self.text(lang.DEFAULT)

    def text(self, language: str | None) -> str:
        """The problem said in the language, as the agent is told it."""
        return lang.text(language, f"problem.{self.kind}", subject=self.subject)

    def for_reader(self, language: str | None) -> str:
        """The problem as the report's appendix says it: no internal source id, and what code did."""
        key = f"appendix.{self.kind}"
        return lang.text(language, key if lang.has(language, key) else f"problem.{self.kind}", subject=self.subject)

    def __str__(self) -> str:
        return self.detail


@dataclass
class Flag:
    """A citation the check could not verify, kept in the text and marked † at a forced finish."""

    line: int  # the statement's line in the draft (References stripped)
    source_id: str
    statement: str
    passage: str
    reasons: list[Reason]
    judged_by: str  # "lexical" or "model:<name>"
    start: tuple[int, int] = (0, 0)  # the statement's first and last character: (line, column)
    end: tuple[int, int] = (0, 0)

    def text(self, language: str | None, number: int) -> str:
        how = (
            lang.text(language, "flag.judged", model=self.judged_by.split(":", 1)[1])
            if self.judged_by.startswith("model:")
            else lang.text(language, "flag.lexical")
        )
        why = "; ".join(reason.text(language) for reason in self.reasons)
        closest = (
            lang.text(language, "flag.closest", passage=shorten(self.passage))
            if self.passage
            else lang.text(language, "flag.no_passage")
        )
        return lang.text(language, "flag.entry", number=number, statement=shorten(self.statement), how=how, why=why, closest=closest)


def shorten(text: str, limit: int = 300) -> str:
    """One line of at most `limit` characters (and an ellipsis): a statement or passage in a problem."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass
class FinalReport:
    text: str
    cited: list[SourceRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    forced: bool = False
    flagged: list[str] = field(default_factory=list)  # the appendix's entries for † citations


def _title_end(title: str, language: str) -> str:
    """What follows a reference's title, before its URL. Never "What is a fen?." In Chinese, a full
    stop "。" with no space after it (full-width punctuation carries its own room), as a Chinese
    reader expects; the space stays after a title that ends in a Latin "?" or ".", so the URL
    stands apart."""
    if language == "zh":
        if title.endswith(("。", "？", "！")):
            return ""
        return " " if title.endswith((".", "?", "!")) else "。"
    return " " if title.endswith((".", "?", "!", "。", "？", "！")) else ". "


def strip_references(text: str) -> str:
    """Remove every References section the model wrote (each up to the next heading of its level or
    higher): a report assembled from chapters may carry one per chapter."""
    while True:
        headings = list(_HEADING.finditer(text))
        for index, heading in enumerate(headings):
            if _REFERENCES_TITLES.match(heading.group(2).strip("*_ ")):
                level = len(heading.group(1))
                end = len(text)
                for later in headings[index + 1 :]:
                    if len(later.group(1)) <= level:
                        end = later.start()
                        break
                text = (text[: heading.start()] + text[end:]).rstrip() + "\n"
                break
        else:
            return text


def _url_known(url: str, ledger: Ledger) -> bool:
    return ledger.lookup(url.rstrip(".,;:")) is not None


def find_problems(text: str, ledger: Ledger) -> list[Problem]:
    """Everything that keeps a draft from being a finished report, each said plainly."""
    problems: list[Problem] = []
    body = strip_references(text)
    prose = _CODE_FENCE.sub("", body)
    if not prose.strip():
        return [Problem("empty_report")]
    seen: set[str] = set()
    for match in _CITATION.finditer(prose):
        for source_id in _ID.findall(match.group(1)):
            if source_id not in seen and ledger.get(source_id) is None:
                problems.append(Problem("unknown_source", source_id))
            seen.add(source_id)
    if not seen:
        problems.append(Problem("no_citations"))
    urls = [m.group(2) for m in _MARKDOWN_LINK.finditer(prose)] + _BARE_URL.findall(
        _MARKDOWN_LINK.sub("", prose)
    )
    for url in dict.fromkeys(urls):
        if not _url_known(url, ledger):
            problems.append(Problem("unverified_url", url))
    for marker in dict.fromkeys(m.group(0) for m in _MARKER.finditer(prose)):
        problems.append(Problem("marker", marker))
    problems += _empty_chapters(prose)
    return problems


def _empty_chapters(text: str) -> list[Problem]:
    problems = []
    headings = list(_HEADING.finditer(text))
    for index, heading in enumerate(headings):
        level = len(heading.group(1))
        if level == 1:
            continue  # the title
        end = len(text)
        for later in headings[index + 1 :]:
            end = later.start()
            # A heading followed directly by its own sub-headings is a parent, not an empty chapter.
            if len(later.group(1)) > level:
                end = -1
            break
        if end != -1 and not text[heading.end() : end].strip():
            problems.append(Problem("empty_chapter", heading.group(2)))
    return problems


def finalize(
    text: str,
    ledger: Ledger,
    *,
    force: bool = False,
    language: str | None = None,
    flags: list[Flag] | None = None,
    more_problems: list[Problem] | None = None,
) -> FinalReport:
    """The finished report. Without `force` the caller must have checked `find_problems` first.
    `language` is the run's; without it, the language the draft is written in. `flags` (the
    citation audit's unverified citations) are marked † and listed in the appendix of a forced
    finalization. `more_problems` (the figures a forced finalization removed) join the appendix."""
    problems = find_problems(text, ledger) + (more_problems or [])
    flags = flags or []
    language = lang.normalize(language) or lang.detect(_CODE_FENCE.sub("", strip_references(text)))
    body = strip_references(text).rstrip() + "\n"
    numbers: dict[str, int] = {}
    cited: list[SourceRecord] = []

    def renumber(match: re.Match[str]) -> str:
        kept = []
        for source_id in _ID.findall(match.group(1)):
            record = ledger.get(source_id)
            if record is None:
                continue  # dropped: only a forced finalization gets here with unknown ids
            if source_id not in numbers:
                numbers[source_id] = len(numbers) + 1
                cited.append(record)
            if numbers[source_id] not in kept:
                kept.append(numbers[source_id])
        return "[" + ", ".join(str(n) for n in kept) + "]" if kept else ""

    marked = _mark(body, flags) if force and flags else body
    body = _CITATION.sub(renumber, marked)
    # the appendix's entries, in the reader's numbers (known once the body is renumbered)
    flagged = [f.text(language, numbers[f.source_id]) for f in _in_order(flags) if force and f.source_id in numbers]
    if force:
        body = _MARKER.sub("", body)
        body = _MARKDOWN_LINK.sub(
            lambda m: m.group(0) if _url_known(m.group(2), ledger) else m.group(1), body
        )
        body = _BARE_URL.sub(lambda m: m.group(0) if _url_known(m.group(0), ledger) else "", body)
        body = re.sub(r"[ \t]+([.,;:])", r"\1", body)  # the space a removed citation left behind
    references = [f"## {lang.text(language, 'references')}", ""]
    for number, record in enumerate(cited, start=1):
        when = (record.fetched_at or record.first_seen or "")[:10]
        title = record.title.strip() or record.final_url or record.url
        entry = "entry_fetched" if record.fetched else "entry_seen"
        end = _title_end(title, language)
        url = record.final_url or record.url
        references.append(lang.text(language, entry, number=number, title=title, end=end, url=url, date=when))
    parts = [body.rstrip(), "", *references]
    if force and (problems or flagged):
        parts += ["", f"## {lang.text(language, 'appendix')}", "", _appendix_intro(problems, flagged, language), ""]
        parts += [f"- {problem.for_reader(language)}" for problem in problems]
        parts += [f"- {entry}" for entry in flagged]
    return FinalReport("\n".join(parts).rstrip() + "\n", cited, problems, forced=force, flagged=flagged)


def _in_order(flags: list[Flag]) -> list[Flag]:
    return sorted(flags, key=lambda f: (f.start, f.line, f.source_id))


def _mark(body: str, flags: list[Flag]) -> str:
    """Each flagged citation marked † where its statement stands: the citation of its source inside
    the statement's span (before renumbering, so [S3]† becomes [3]†). Another sentence citing the
    same source on the same line keeps its mark-free citation."""
    lines = body.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(where: tuple[int, int]) -> int:
        line, col = where
        if not 0 < line <= len(lines):
            return -1
        return starts[line - 1] + min(col, len(lines[line - 1]))

    spans = []
    for flag in flags:
        a, b = offset(flag.start), offset(flag.end)
        if a < 0 or b < 0:  # no position: the statement's first line
            a, b = offset((flag.line, 0)), offset((flag.line, 10**6))
        if a >= 0:
            spans.append((a, max(a, b) + 1, flag.source_id))
    for a, b, source_id in sorted(spans, reverse=True):  # from the end: earlier offsets stay valid
        for match in reversed(list(_CITATION.finditer(body, a, b))):
            if source_id in _ID.findall(match.group(1)):
                if not body.startswith("†", match.end()):
                    body = body[: match.end()] + "†" + body[match.end() :]
                break
    return body


def _appendix_intro(problems: list[Problem], flagged: list[str], language: str) -> str:
    """What code did, truthfully: what it removed (only the kinds it removed) and what it kept."""
    said = [lang.text(language, "appendix_intro")]
    removed = [lang.text(language, f"removed.{kind}") for kind in ("unknown_source", "marker", "unverified_url") if any(p.kind == kind for p in problems)]
    if removed:
        said.append(lang.text(language, "appendix_removed", what=lang.text(language, "list_sep").join(removed)))
    if flagged:
        said.append(lang.text(language, "appendix_flagged"))
    return " ".join(said) if language != "zh" else "".join(said)
