"""What a follow-up's first request carries of the earlier report: the report with its citations [n]
written back as the [S<n>] ids of the ledger and its References cut; a digest of its chapters with
the sources each cites when the whole would take over a quarter of the window (English or Chinese)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_runtime.app.follow_up import earlier_report_for_model
from agent_runtime.engine.tokens import raw_text_tokens

CITATIONS = {"citations": [{"citation": 1, "source": "S4"}, {"citation": 2, "source": "S9"}]}


def earlier(tmp_path: Path, body: str, references: str = "References") -> Path:
    (tmp_path / "report.md").write_text(f"# Report\n\n{body}\n\n## {references}\n\n1. A page. https://a.example\n")
    (tmp_path / "report.citations.json").write_text(json.dumps(CITATIONS))
    return tmp_path


def test_the_whole_report_with_ledger_ids_and_no_references(tmp_path: Path) -> None:
    shown = earlier_report_for_model(earlier(tmp_path, "## Costs\nCells cost less [1][2]. Old [7]."), 64_000)
    assert "Cells cost less [S4][S9]. Old [7]." in shown  # a number the record does not know stays as it is
    assert "https://a.example" not in shown and "References" not in shown


def test_a_report_too_long_for_the_window_becomes_a_digest_of_its_chapters(tmp_path: Path) -> None:
    chapters = "\n\n".join(f"## 第{n}章\n" + "电池成本下降了。" * 400 + f" [{1 + n % 2}]" for n in range(1, 6))
    shown = earlier_report_for_model(earlier(tmp_path, chapters, "参考文献"), 8_000)
    assert shown.startswith("(A digest: the whole earlier report is in earlier_report.md.)")
    assert raw_text_tokens(shown) <= 8_000 * 0.25 and "参考文献" not in shown
    for n in range(1, 6):
        assert f"## 第{n}章" in shown
    assert "Cites: S9" in shown and "Cites: S4" in shown


def test_the_finalizers_grouped_citations_are_written_back_too(tmp_path: Path) -> None:
    shown = earlier_report_for_model(earlier(tmp_path, "## Costs\nCells cost less [1, 2]. 成本下降 [2，1]."), 64_000)
    assert "Cells cost less [S4][S9]." in shown and "成本下降 [S9][S4]." in shown
