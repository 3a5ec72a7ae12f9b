"""What a check says: the verdict, the passage it rests on, and its reasons in plain words.

A `Reason` is a kind and its parts; `Reason.text(language)` words it in the report's language (the
table is `agent_runtime.language`'s), so the appendix of a Chinese report explains in Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent_runtime.language import DEFAULT, text

Verdict = Literal["supported", "weak", "unsupported"]
VERDICTS: tuple[Verdict, ...] = ("supported", "weak", "unsupported")


@dataclass(frozen=True)
class Reason:
    """Why a claim was not confirmed. `kind` is one of the `reason.*` keys of the language tables:
    value, value_absent, ordinal, ordinal_absent, name, negation, opposite, roles, direction, relation, cause_unstated,
    order, actor, cause, coverage_low,
    coverage_partial, no_passage, empty_source, no_words, judge_contradicted, judge_not_stated,
    judge_quote_rejected, judge_overruled, judge_failed."""

    kind: str
    said: str = ""  # what the claim says
    found: str = ""  # what the source says instead
    detail: str = ""  # a share, a judge's model or words

    def text(self, language: str | None = None) -> str:
        return text(language, f"reason.{self.kind}", said=self.said, found=self.found, detail=self.detail)

    def __str__(self) -> str:
        return self.text(DEFAULT)


@dataclass
class CitationCheck:
    """The verdict on one claim against one source.

    `passage` is the closest passage of the source (one to three sentences) and `lines` its first
    and last line in the source text (1-based; (0, 0) without a passage). `judged_by` is "lexical",
    "model:<name>" when a judge's verdict was accepted, or "lexical" with a reason saying why a
    judge's was not. `quote` is the judge's deciding sentence, found in the source. `context` is the source's title and the
    headings above the passage (``Marie Curie › Later life``), which the passage was read with."""

    claim: str
    verdict: Verdict
    passage: str = ""
    lines: tuple[int, int] = (0, 0)
    reasons: list[Reason] = field(default_factory=list)
    judged_by: str = "lexical"
    score: float = 0.0
    quote: str = ""
    context: str = ""  # where the passage stands: the source's title and the headings above it

    def explain(self, language: str | None = None) -> str:
        return "; ".join(reason.text(language) for reason in self.reasons)
