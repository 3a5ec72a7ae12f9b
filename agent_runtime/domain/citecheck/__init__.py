"""Does the source say what it is cited for? One public check, `check_citation`, in small parts:

- `page`    — a source as a reader meets it: sentences under their title and headings;
- `claims`  — the cited statements of a report (``[S<n>]`` markers) and the sentence splitter;
- `facts`   — quantities, dates and ordinals with their bounds (more than, 不到, before, 截至…);
- `text`    — words: stems and demonyms, jieba's Chinese words and names, negations, opposites;
- `lexical` — the free, offline first pass that picks the passage and gives a first verdict;
- `stated`  — where the page states a claim's figures, dates and ordinals (or gives another);
- `derived` — figures a claim works out of two of the page's (a difference, a share, a span);
- `names`   — a claim's names and where a reader of the page finds them (context, surnames, "it");
- `relations` — two of the page's figures and the relation a claim says they have;
- `roles`   — who did what to whom, what caused what, which name stands where (a swap);
- `speakers` — who said what in a Chinese page (他表示, 许指导);
- `judge`   — the model as judge, believed only when its quote is in the source;
- `figures` — a report's FACT figures (citation accuracy, effective citations).

    >>> check_citation("The network has more than 150 stations.", "The network has 134 stations.").verdict
    'unsupported'
"""

from __future__ import annotations

from agent_runtime.domain.citecheck.judge import Judgement, apply_judgement
from agent_runtime.domain.citecheck.lexical import check_lexical
from agent_runtime.domain.citecheck.verdict import CitationCheck, Reason, Verdict

__all__ = ["CitationCheck", "Judgement", "Reason", "Verdict", "check_citation"]


def check_citation(claim: str, source_text: str, *, title: str = "", judge: Judgement | None = None) -> CitationCheck:
    """The verdict on `claim` against `source_text`: "supported", "weak" or "unsupported", with the
    closest passage and its lines, the reasons in plain words, and `judged_by`.

    The passage is read in its context, as a reader of the page reads it: the source's `title`, the
    Markdown headings above the passage and the sentences before it say who "she" or "the company"
    is and which year a section speaks of (`CitationCheck.context` shows the title and headings).

    The lexical pass always runs first and picks the passage. With `judge` (a model's answer on this
    claim, from `judge.ask_judge`), the judge's verdict replaces the lexical one when its quote is
    really in the source; a quote that is not leaves the lexical verdict, marked so."""
    lexical = check_lexical(claim, source_text, title)
    if judge is None:
        return lexical
    return apply_judgement(lexical, judge, source_text)
