"""The citation audit in the loop: all_finished refuses a sentence its source does not state (with
the closest passage and why), accepts it once fixed, writes report.citations.json with the FACT
figures; a forced finalization keeps what stayed unsupported marked † and explains it in the
appendix by the reader's number; the model judges every pair, believed only with a real quote."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.inspect_command import workspace_state
from agent_runtime.testing import Reply, call, reply
from tests.support.runs import start_run

RESULT = re.compile(r"^\[(S\d+)\] ", re.M)


def research(ws: Path, query: str, sentences: list[str]) -> Any:
    """Search, read the first result, then write one chapter per attempt with the sentence of that
    attempt (citing the source read) and finish with it."""
    state: dict[str, Any] = {"attempt": 0, "told": []}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query=query, max_results=3))
        if len(observations) == 1:
            state["id"] = RESULT.findall(observations[0])[0]
            return reply(call("visit_url", url=re.search(r"— (corpus:\S+)", observations[0]).group(1)))  # type: ignore[union-attr]
        if len(observations) > 2:
            state["told"].append(observations[-1])
        sentence = sentences[min(state["attempt"], len(sentences) - 1)]
        state["attempt"] += 1
        (ws / "Notebook").mkdir(exist_ok=True)
        (ws / "Notebook/01.md").write_text(f"## Costs\n\n{sentence.format(id=state['id'])}\n")
        return reply(call("all_finished", result="done", chapters=["Notebook/01.md"]))

    return script, state


def corpus(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "costs.md").write_text(text)
    return folder


JUDGE = "You check the citations"


def judge_reply(messages: list[dict[str, Any]], verdict: str, quote: str) -> Reply:
    claims = re.findall(r"^Claim (\d+): ", str(messages[0]["content"]), re.M)
    return reply(content=json.dumps({"verdicts": [
        {"claim": int(n), "verdict": verdict, "quote": quote, "reason": "scripted"} for n in claims
    ]}))  # fmt: skip


async def test_a_changed_number_is_refused_with_the_passage_then_fixed(tmp_path: Path) -> None:
    folder = corpus(
        tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n\nDemand grew.\n"
    )
    ws = tmp_path / "ws"
    script, state = research(ws, "sodium-ion cell costs", [
        "Sodium-ion cell costs fell 41% in 2026 [{id}].",  # a changed number
        "Sodium-ion cell costs fell 14 percent in 2026 [{id}].",  # the fact, reformatted
    ])  # fmt: skip
    result, _ = await start_run(tmp_path, script, search="local", corpus=folder, verify_citations="lexical")
    assert result.status == "finished", result.reason
    refusal = state["told"][0]
    assert "could not confirm that the source states it" in refusal and "fell 41% in 2026" in refusal
    assert "the source gives 14%; the sentence says 41%" in refusal
    assert "costs fell 14% in 2026" in refusal  # the closest passage
    assert "cite the source that does, weaken the sentence" in refusal
    data = json.loads((ws / "report.citations.json").read_text())
    (record,) = data["citations"]
    assert {k: record[k] for k in ("citation", "source", "statement", "verdict", "judged_by", "passage_is", "file")} == {
        "citation": 1, "source": "S1", "statement": "Sodium-ion cell costs fell 14 percent in 2026.",
        "verdict": "supported", "judged_by": "lexical", "passage_is": "supporting", "file": "sources/S1.md",
    }  # fmt: skip
    first, last = record["lines"]
    snapshot = (ws / "sources/S1.md").read_text().splitlines()
    assert "fell 14% in 2026" in "\n".join(snapshot[first - 1 : last])  # the line range points at it
    assert data["summary"]["citation_accuracy"] == 1.0 and data["summary"]["effective_citations"] == 1
    figures = workspace_state(ws)["summary"]["citations"]
    assert (figures["supported"], figures["unsupported"], figures["checked_by"]) == (1, 0, "lexical")


async def test_what_stays_unsupported_is_marked_and_explained_by_the_readers_number(tmp_path: Path) -> None:
    folder = corpus(tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n")
    ws = tmp_path / "ws"
    script, _ = research(ws, "sodium-ion cell costs", ["Sodium-ion cell costs fell 41% in 2026 [{id}]."])
    result, _ = await start_run(tmp_path, script, search="local", corpus=folder, verify_citations="lexical")
    assert result.status == "finished", result.reason
    report = (ws / "report.md").read_text()
    body, appendix = report.split("## Appendix")
    assert "fell 41% in 2026 [1]†." in body  # kept, visibly marked
    assert "[1]†" in appendix and "not matched by the automatic check" in appendix
    assert "the source gives 14%; the sentence says 41%" in appendix and "fell 14% in 2026" in appendix
    assert "S1" not in appendix and "sources/" not in appendix  # no internal id, no path
    assert "removed" not in appendix  # nothing was removed, so nothing is said to be
    data = json.loads((ws / "report.citations.json").read_text())
    assert data["citations"][0]["verdict"] == "unsupported" and data["citations"][0]["passage_is"] == "closest"
    assert data["summary"]["citation_accuracy"] == 0.0 and data["summary"]["unverified"] == 1


@pytest.mark.slow
async def test_in_chinese(tmp_path: Path) -> None:
    folder = corpus(tmp_path, "# 电池成本\n\n分析师表示，2026年钠离子电池成本下降了百分之十四。\n")
    ws = tmp_path / "ws"
    script, state = research(
        ws, "电池成本", ["2026年钠离子电池成本下降了41% [{id}]。", "2026年钠离子电池成本下降了14% [{id}]。"]
    )
    result, _ = await start_run(tmp_path, script, search="local", corpus=folder, language="zh", verify_citations="lexical")
    assert result.status == "finished", result.reason
    assert "41%" in state["told"][0] and "百分之十四" in state["told"][0]
    assert json.loads((ws / "report.citations.json").read_text())["citations"][0]["verdict"] == "supported"
    assert "## 参考文献" in (ws / "report.md").read_text()


async def test_the_appendix_in_chinese(tmp_path: Path) -> None:
    folder = corpus(tmp_path, "# 电池成本\n\n分析师表示，2026年钠离子电池成本下降了百分之十四。\n")
    ws = tmp_path / "ws"
    script, _ = research(ws, "电池成本", ["2026年钠离子电池成本上升了14% [{id}]。"])
    result, _ = await start_run(tmp_path, script, search="local", corpus=folder, language="zh", verify_citations="lexical")
    assert result.status == "finished", result.reason
    body, appendix = (ws / "report.md").read_text().split("## 附录")
    assert "[1]†" in body and "[1]†" in appendix
    assert "自动核对未能匹配" in appendix and "句子写的是“上升”，来源写的是“下降”" in appendix
    assert "标有 † 的引用按原文保留" in appendix and "删除" not in appendix
    assert "S1" not in appendix and "sources/" not in appendix


async def test_the_model_judges_every_pair_and_is_believed_with_a_real_quote(tmp_path: Path) -> None:
    source = "Analysts said sodium-ion cell costs fell 14% in 2026."
    folder = corpus(tmp_path, f"# Cell costs\n\n{source}\n")
    ws = tmp_path / "ws"
    research_script, _ = research(ws, "sodium-ion cell costs", [
        "In 2026 the price of sodium batteries dropped by 14% [{id}]. Sodium-ion cell costs fell 14% in 2026 [{id}].",
    ])  # fmt: skip
    judged: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(JUDGE):
            judged.append(str(messages[0]["content"]))
            return judge_reply(messages, "supported", source)
        return research_script(messages, tools)

    result, model = await start_run(tmp_path, script, search="local", corpus=folder)  # model is the default
    assert result.status == "finished", result.reason
    assert len(judged) == 1  # both claims of the one source, in one call
    assert "Claim 1: In 2026 the price" in judged[0] and "Claim 2: Sodium-ion cell costs fell 14%" in judged[0]
    data = json.loads((ws / "report.citations.json").read_text())
    assert [r["judged_by"] for r in data["citations"]] == [f"model:{model.name}"] * 2
    assert [r["verdict"] for r in data["citations"]] == ["supported", "supported"]
    assert data["summary"]["judge"]["pairs_judged"] == 2 and data["summary"]["checked_by"] == f"model:{model.name}"
    assert result.totals.model_calls == len(model.requests)  # the judge's call is counted in the budgets


async def test_a_judge_quote_that_is_not_in_the_source_is_not_believed(tmp_path: Path) -> None:
    folder = corpus(tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n")
    ws = tmp_path / "ws"
    research_script, _ = research(ws, "sodium-ion cell costs", ["Sodium-ion cell costs fell 41% in 2026 [{id}]."])

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(JUDGE):
            return judge_reply(messages, "supported", "Analysts said sodium-ion cell costs fell 41% in 2026.")
        return research_script(messages, tools)

    result, _ = await start_run(tmp_path, script, search="local", corpus=folder)
    assert result.status == "finished", result.reason
    data = json.loads((ws / "report.citations.json").read_text())
    record = data["citations"][0]
    assert record["verdict"] == "unsupported" and record["judged_by"] == "lexical"
    assert any("quoted a sentence that is not in the source" in reason for reason in record["reasons"])
    assert data["summary"]["judge"]["quotes_rejected"] >= 1


def test_reference_lists_are_stripped_everywhere_and_a_sources_chapter_is_kept() -> None:
    from agent_runtime.domain.finalize import strip_references

    draft = (
        "# T\n\n## Sources of revenue\nSales [S1].\n\n### Sources\n- [S2] A list the model wrote\n\n"
        "## Costs\nCheaper [S1].\n\n### References\n- [S3] Another list\n"
    )
    stripped = strip_references(draft)
    assert "## Sources of revenue\nSales [S1]." in stripped and "## Costs\nCheaper [S1]." in stripped
    assert "[S2]" not in stripped and "[S3]" not in stripped


async def test_a_judge_that_fails_leaves_the_lexical_verdicts_and_is_recorded(tmp_path: Path) -> None:
    from agent_runtime.errors import ModelUnreachableError

    folder = corpus(tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n")
    ws = tmp_path / "ws"
    research_script, _ = research(ws, "sodium-ion cell costs", ["Sodium-ion cell costs fell 14% in 2026 [{id}]."])

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(JUDGE):
            raise ModelUnreachableError("the judge's server went away")
        return research_script(messages, tools)

    result, _ = await start_run(tmp_path, script, search="local", corpus=folder)
    assert result.status == "finished", result.reason
    data = json.loads((ws / "report.citations.json").read_text())
    assert data["citations"][0]["judged_by"] == "lexical" and data["citations"][0]["verdict"] == "supported"
    assert data["summary"]["judge"]["failed_calls"] == 1 and "went away" in data["summary"]["judge"]["errors"][0]


async def test_audit_rechecks_an_edited_report(tmp_path: Path) -> None:
    import io

    from agent_runtime.app.audit import audit_workspace

    folder = corpus(tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n")
    ws = tmp_path / "ws"
    script, _ = research(ws, "sodium-ion cell costs", ["Sodium-ion cell costs fell 14% in 2026 [{id}]."])
    result, _ = await start_run(tmp_path, script, search="local", corpus=folder, verify_citations="lexical")
    assert result.status == "finished", result.reason
    report = ws / "report.md"
    assert "fell 14% in 2026 [1]." in report.read_text()
    report.write_text(report.read_text().replace("fell 14% in 2026 [1].", "fell 40% in 2026 [1]."))  # a person's edit
    out = io.StringIO()
    code = await audit_workspace(ws, {"verify_citations": "lexical"}, None, out)
    assert code == 3
    assert "1 checked (lexical): 0 supported, 0 weak, 1 unsupported; citation accuracy 0%" in out.getvalue()
    text = report.read_text()
    assert "fell 40% in 2026 [1]†." in text and "the source gives 14%; the sentence says 40%" in text
    assert text.count("## References") == 1
    data = json.loads((ws / "report.citations.json").read_text())
    assert data["citations"][0]["statement"] == "Sodium-ion cell costs fell 40% in 2026."
    kept = list((ws / ".trash").glob("*-report.md"))  # the person's version, as it was before the audit
    assert len(kept) == 1 and "fell 40% in 2026 [1]." in kept[0].read_text()
    report.write_text(text.replace("fell 40% in 2026 [1]†.", "fell 14% in 2026 [1]."))  # fixed again
    out = io.StringIO()
    assert await audit_workspace(ws, {"verify_citations": "lexical"}, None, out) == 0
    fixed = report.read_text()
    assert "†" not in fixed and "## Appendix" not in fixed
    assert workspace_state(ws)["summary"]["citations"]["citation_accuracy"] == 1.0


async def test_a_judge_reply_that_is_not_json_leaves_the_lexical_verdicts(tmp_path: Path) -> None:
    folder = corpus(tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n")
    ws = tmp_path / "ws"
    research_script, _ = research(ws, "sodium-ion cell costs", ["Sodium-ion cell costs fell 14% in 2026 [{id}]."])

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if str(messages[0]["content"]).startswith(JUDGE):
            return reply(content="I think claim 1 is probably fine.")
        return research_script(messages, tools)

    result, _ = await start_run(tmp_path, script, search="local", corpus=folder)
    assert result.status == "finished", result.reason
    data = json.loads((ws / "report.citations.json").read_text())
    assert data["citations"][0]["verdict"] == "supported" and data["citations"][0]["judged_by"] == "lexical"
    assert data["summary"]["judge"]["unanswered"] == 1 and data["summary"]["checked_by"] == "lexical"


async def test_a_refused_report_sends_only_its_changed_claims_to_the_judge_again(tmp_path: Path) -> None:
    source = "Analysts said sodium-ion cell costs fell 14% in 2026."
    folder = corpus(tmp_path, f"# Cell costs\n\n{source}\n\nDemand grew in Europe.\n")
    ws = tmp_path / "ws"
    research_script, state = research(ws, "sodium-ion cell costs", [
        "Demand grew in Europe [{id}]. Sodium-ion cell costs fell 41% in 2026 [{id}].",
        "Demand grew in Europe [{id}]. Sodium-ion cell costs fell 14% in 2026 [{id}].",
    ])  # fmt: skip
    asked: list[list[str]] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        prompt = str(messages[0]["content"])
        if prompt.startswith(JUDGE):
            claims = re.findall(r"^Claim \d+: (.*)$", prompt, re.M)
            asked.append(claims)
            answers = [
                {"claim": n, "verdict": "contradicted" if "41%" in c else "supported",
                 "quote": source if "cell costs" in c else "Demand grew in Europe."}
                for n, c in enumerate(claims, 1)
            ]  # fmt: skip
            return reply(content=json.dumps({"verdicts": answers}))
        return research_script(messages, tools)

    result, _ = await start_run(tmp_path, script, search="local", corpus=folder)
    assert result.status == "finished", result.reason
    assert "judged that the source contradicts it" in state["told"][0]
    assert asked == [
        ["Demand grew in Europe.", "Sodium-ion cell costs fell 41% in 2026."],
        ["Sodium-ion cell costs fell 14% in 2026."],  # the unchanged claim's answer is kept
    ]
    data = json.loads((ws / "report.citations.json").read_text())
    assert [r["verdict"] for r in data["citations"]] == ["supported", "supported"]


@pytest.mark.slow
def test_audit_through_the_cli(tmp_path: Path) -> None:
    import asyncio

    from tests.support.cli import cli_env, run_cli

    folder = corpus(tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n")
    ws = tmp_path / "ws"
    script, _ = research(ws, "sodium-ion cell costs", ["Sodium-ion cell costs fell 14% in 2026 [{id}]."])
    result, _ = asyncio.run(start_run(tmp_path, script, search="local", corpus=folder, verify_citations="lexical"))
    assert result.status == "finished", result.reason
    report = ws / "report.md"
    report.write_text(report.read_text().replace("fell 14% in 2026 [1].", "fell 40% in 2026 [1]."))
    done = run_cli(["audit", str(ws), "--verify-citations", "lexical"], cli_env(), cwd=tmp_path)
    assert done.code == 3, done.stderr
    assert "citations: 1 checked (lexical): 0 supported, 0 weak, 1 unsupported" in done.stdout
    assert "[1]† “Sodium-ion cell costs fell 40% in 2026.”" in done.stdout
    missing = run_cli(["audit", str(tmp_path / "nowhere")], cli_env(), cwd=tmp_path)
    assert missing.code == 1 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr


async def test_audit_without_a_model_checks_lexically_and_says_so(tmp_path: Path) -> None:
    import io

    from agent_runtime.app.audit import audit_workspace

    folder = corpus(tmp_path, "# Cell costs\n\nAnalysts said sodium-ion cell costs fell 14% in 2026.\n")
    ws = tmp_path / "ws"
    script, _ = research(ws, "sodium-ion cell costs", ["Sodium-ion cell costs fell 14% in 2026 [{id}]."])
    result, _ = await start_run(tmp_path, script, search="local", corpus=folder)  # stored: model, the default
    assert result.status == "finished", result.reason
    out = io.StringIO()
    assert await audit_workspace(ws, {"api_key": None, "base_url": None}, None, out) == 0
    assert "only the lexical pass checks the citations" in out.getvalue()
    assert "1 checked (lexical): 1 supported" in out.getvalue()


def test_a_flagged_citation_is_marked_where_its_sentence_stands(tmp_path: Path) -> None:
    from agent_runtime.domain.citation_audit import audit, flags
    from agent_runtime.domain.finalize import finalize
    from agent_runtime.domain.sources.ledger import Ledger

    ledger = Ledger.load(tmp_path / "sources")
    ledger.register("https://a.example/x", title="A", snippet="Sales rose 14% in May. Profits fell 4% in May.")
    draft = (
        "# T\n\n## A\n\nSales rose 14% in May [S1]. Profits fell 5% in May [S1].\n"
        "A wrapped sentence says that sales\nrose 40% in May [S1].\n"
    )
    final = finalize(draft, ledger, force=True, language="en", flags=flags(audit(draft, ledger, tmp_path / "sources")))
    assert "Sales rose 14% in May [1]. Profits fell 5% in May [1]†.\nA wrapped sentence says that sales\nrose 40% in May [1]†." in final.text
    assert final.text.count("- [1]† “") == 2
