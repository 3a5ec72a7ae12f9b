"""The citation check on labelled claim/source pairs, English and Chinese.

Sets (benchmarks/data/, written by hand for this benchmark, by writers who did not see the rules;
JSONL, read and checked by tests/support/labelled.py, which says their format):
- dev: citation_pairs_en.jsonl + citation_pairs_zh.jsonl — what the rules were looked at against;
- held-out: heldout_pairs_en.jsonl + heldout_pairs_zh.jsonl — written apart, never tuned on;
- context dev / context held-out: context_pairs_{en,zh}.jsonl and heldout_context_{en,zh}.jsonl —
  claims on whole pages with a title and headings (issue 33): the subject only in the title or a
  heading, pronouns, a surname alone, relations of two figures (direction, difference, order) and
  summary sentences (another actor, merged facts, cause and effect turned round), written by two
  writers apart; the held-out one was never looked at while the rules were made;
- context dev 2 / context held-out 2: context2_pairs_{en,zh}.jsonl and heldout2_context_{en,zh}.jsonl
  — 320 claims each on 40 more pages (encyclopedia and news, with tables, lists and infoboxes),
  the same kinds and `report_true` (sentences as a research report writes them), written later by
  four more writers apart who never saw the rules; the second held-out set measures how the rules
  made on the first sets carry to pages nobody here has read;
- context dev 3 and 4: context{3,4}_pairs_{en,zh}.jsonl — 640 more claims on 80 more pages, by four
  more writers, read while the rules were made after the second sets were measured;
- context dev 5: context5_pairs_{en,zh}.jsonl — 300 claims, most of them summary and report sentences
  (figures worked out, facts from several sections) and their wrong twins, by two more writers;
- context held-out 3: heldout3_context_{en,zh}.jsonl — 320 claims on 40 pages by two more writers,
  measured twice (when written, and at the end), never read pair by pair;
- context dev 6 and 7: context{6,7}_pairs_{en,zh}.jsonl — 600 claims on 72 pages by four more
  writers: summary and report sentences (rounded and worked-out figures: differences, shares,
  averages, totals, a count times a price) and their wrong twins;
- context held-out 4: heldout4_context_{en,zh}.jsonl — 600 claims on 72 pages by four more writers,
  report and summary sentences and their wrong twins; measured when written, a few times as the
  rules changed and at the end, never read pair by pair;
- context held-out 5: heldout5_context_{en,zh}.jsonl — 600 claims on 72 new pages by four more
  writers, every kind of issue 33 (subject in the title or a heading, pronouns, surnames, worked-out
  figures and directions, summary sentences, another subject or person); measured once with the code
  of before it was written and once after each change of the session that wrote it, never read;
- context dev 8: context8_pairs_zh.jsonl — 300 Chinese claims of the same kinds on 36 more pages by
  two more writers, read while the Chinese rules were made after held-out 5 was measured;
- earlier: tests/data/citations/pairs.jsonl (the first set, 230 pairs, its sources in sources/).

Per kind and language: how many pairs, and the share judged supported / weak / unsupported. For
wrong claims "caught" is the share not judged supported; for true claims "flagged" is the share
judged unsupported (what refuses a report and marks it †), "not confirmed" the share not supported.
Then the same through the model-judge path (prompt, batching per source, reply parsing, quote
check) with a scripted judge that answers from the labels and quotes the source (a ceiling), and
with one that invents its quotes (all rejected: the lexical verdicts stand). Then time per 100 pairs.

    python benchmarks/bench_citations.py [--errors dev|context-dev|context-dev-2|…|context-dev-8]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_runtime import check_citation
from agent_runtime.domain.citecheck.lexical import source_sentences
from tests.support.labelled import load

GOAL_KINDS = ("number_changed", "date_changed", "bound_false", "negation", "entity_swap")


def run_check(pair: dict[str, Any]) -> Any:
    return check_citation(pair["claim"], pair["source"], title=pair.get("title", ""))


def report(name: str, pairs: list[dict[str, Any]], verdicts: list[str]) -> None:
    table: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for pair, verdict in zip(pairs, verdicts, strict=True):
        table[(pair["kind"], pair["lang"])][verdict] += 1
        table[(("true claims" if pair["label"] == "supported" else "wrong claims"), pair["lang"])][verdict] += 1
        table[(("true claims" if pair["label"] == "supported" else "wrong claims"), "all")][verdict] += 1
    labels = {p["kind"]: p["label"] for p in pairs}
    print(f"\n== {name}: {len(pairs)} pairs ==")
    print(f"{'kind':<18}{'lang':<5}{'n':>4}{'supp.':>7}{'weak':>6}{'unsup.':>7}   measure")
    kinds = [*sorted(labels, key=lambda k: (labels[k] != "supported", k)), "true claims", "wrong claims"]
    for kind in kinds:
        for lang in ("en", "zh", "all"):
            c = table.get((kind, lang))
            if not c:
                if lang == "all" and kind not in ("true claims", "wrong claims"):
                    c = table.get((kind, "en"), Counter()) + table.get((kind, "zh"), Counter())
                if not c:
                    continue
            n = sum(c.values())
            s, w, u = (c[v] / n for v in ("supported", "weak", "unsupported"))
            true = labels.get(kind) == "supported" or kind == "true claims"
            measure = f"flagged {u:.0%}, not confirmed {w + u:.0%}" if true else f"caught {w + u:.0%} (unsupported {u:.0%})"
            print(f"{kind:<18}{lang:<5}{n:>4}{s:>7.0%}{w:>6.0%}{u:>7.0%}   {measure}")
    goal = [v for p, v in zip(pairs, verdicts, strict=True) if p["kind"] in GOAL_KINDS]
    if goal:
        for lang in ("en", "zh"):
            sub = [v for p, v in zip(pairs, verdicts, strict=True) if p["kind"] in GOAL_KINDS and p["lang"] == lang]
            if sub:
                print(f"numbers, dates, bounds, negations, entity swaps ({lang}): caught {sum(v != 'supported' for v in sub) / len(sub):.0%}")


def judged(pairs: list[dict[str, Any]], honest: bool, credulous: bool = False) -> list[str]:
    """The verdicts through the judge path, with a scripted judge: `honest` answers from the labels
    and quotes the passage the lexical pass picked; otherwise it invents every quote. A `credulous`
    one says "supported" to everything and quotes that passage: its quote is real, so only the
    lexical pass run on the quote (another value, a negation, an opposite word) can overrule it."""
    from agent_runtime.domain.citation_audit import CitedPair, judge_pairs
    from agent_runtime.domain.sources.ledger import Ledger
    from agent_runtime.engine.prompts import Prompts
    from agent_runtime.testing import ScriptedModel, reply

    by_claim = {p["claim"]: p for p in pairs}
    checks = [run_check(p) for p in pairs]

    def oracle(messages: list[dict[str, Any]], tools: Any) -> Any:
        text = str(messages[0]["content"])
        import re

        answers = []
        for number, claim in re.findall(r"^Claim (\d+): (.*)$", text, re.M):
            pair = by_claim.get(claim)
            source = pair["source"] if pair else ""
            # the deciding sentence(s): the passage the lexical pass picked (a judge reads the same)
            quote = run_check(pair).passage if pair else ""
            quote = quote or (source_sentences(source)[0].text if source_sentences(source) else "")
            verdict = "supported" if credulous or (pair and pair["label"] == "supported") else "contradicted"
            answers.append({"claim": int(number), "verdict": verdict, "quote": quote if honest else "An invented sentence."})
        return reply(content=json.dumps({"verdicts": answers}))

    verdicts = []
    with tempfile.TemporaryDirectory() as scratch:
        ledger = Ledger.load(Path(scratch))
        for pair, check in zip(pairs, checks, strict=True):
            record = ledger.register(
                f"https://example.test/{abs(hash(pair['source']))}", title=pair.get("title", ""), snippet=pair["source"]
            )
            cited = [CitedPair(record.id, 1, check)]
            asyncio.run(judge_pairs(cited, ledger, Path(scratch) / "sources", ScriptedModel(oracle), Prompts(None), lambda p, c: None))
            verdicts.append(cited[0].check.verdict)
    return verdicts


def main() -> None:
    errors = sys.argv[sys.argv.index("--errors") + 1].replace("-", " ") if "--errors" in sys.argv else None
    run_check(load("dev")[-1])  # jieba's dictionary loads once (~1 s): not a cost of any one set
    held: list[tuple[dict[str, Any], str]] = []
    sets = ("dev", "heldout", "context dev", "context heldout", "context dev 2", "context heldout 2", "context dev 3",
            "context dev 4", "context dev 5", "context heldout 3", "context dev 6", "context dev 7", "context heldout 4",
            "context heldout 5", "context dev 8", "earlier")  # fmt: skip
    for name in sets:
        pairs = load(name)
        if not pairs:
            continue
        start = time.perf_counter()
        results = [run_check(p) for p in pairs]
        elapsed = time.perf_counter() - start
        report(f"{name}, lexical", pairs, [r.verdict for r in results])
        if "heldout" in name:
            held += [(p, r.verdict) for p, r in zip(pairs, results, strict=True)]
        print(f"{elapsed / len(pairs) * 100 * 1000:.0f} ms per 100 pairs")
        if name != "earlier":
            report(f"{name}, a scripted judge that quotes the source", pairs, judged(pairs, honest=True))
            credulous = judged(pairs, honest=True, credulous=True)
            passed = sum(v == "supported" for p, v in zip(pairs, credulous, strict=True) if p["label"] != "supported")
            wrong = sum(p["label"] != "supported" for p in pairs)
            print(f"a judge that says supported to everything, quoting a real sentence: {passed}/{wrong} wrong claims pass")
            lying = judged(pairs, honest=False)
            same = sum(a == b.verdict for a, b in zip(lying, results, strict=True))
            print(f"a judge that invents its quotes: {same}/{len(pairs)} verdicts left as the lexical pass gave them")
        if errors == name and "heldout" not in name:  # held-out sets are measured, never read pair by pair
            for pair, result in zip(pairs, results, strict=True):
                wrong = (pair["label"] == "supported" and result.verdict == "unsupported") or (
                    pair["label"] == "unsupported" and result.verdict == "supported"
                )
                if wrong:
                    print(f"\n[{pair['kind']}/{pair['lang']}] {pair.get('title', '')}: {pair['claim']}\n  -> {result.verdict}: {result.explain()}\n  passage: {result.passage[:200]}")
    long_source()
    goals(held)


def long_source() -> None:
    """Ten claims against one page of 12,000 sentences in one section: the check's work per claim
    must grow with the page, not with its square (a reader's context once compared every sentence
    with every other)."""
    facts = [f"Plant {n} employs {100 + n} people." for n in range(10)]
    lines: list[str] = []
    for fact in facts:
        lines += [f"Filler line about the weather, number {k}." for k in range(1200)] + [fact]
    source = "\n".join(lines)
    start = time.perf_counter()
    verdicts = [check_citation(fact, source, title="Plants").verdict for fact in facts]
    print(f"\n10 claims against a page of {len(lines):,} sentences: {time.perf_counter() - start:.1f} s ({verdicts.count('supported')} supported)")


def _rates(rows: list[tuple[dict[str, Any], str]]) -> tuple[float, float] | None:
    """(the share of true claims flagged unsupported, the share of wrong claims not supported)."""
    true = [v for p, v in rows if p["label"] == "supported"]
    wrong = [v for p, v in rows if p["label"] != "supported"]
    if not true or not wrong:
        return None
    return sum(v == "unsupported" for v in true) / len(true), sum(v != "supported" for v in wrong) / len(wrong)


def goals(held: list[tuple[dict[str, Any], str]]) -> None:
    """Issue 33's goals on the held-out sets (sentence pairs and whole pages together; then the
    second page set alone, which no rule was made on)."""
    print("\n== goals, on the held-out sets ==")
    _goals(held)
    print("\n== goals, on the second held-out page set alone ==")
    _goals([(p, v) for p, v in held if p["id"].startswith("h2-")])
    print("\n== goals, on the third held-out page set alone ==")
    _goals([(p, v) for p, v in held if p["id"].startswith("h3-")])
    print("\n== goals, on the fourth held-out page set alone (report and summary sentences) ==")
    _goals([(p, v) for p, v in held if p["id"].startswith("h4")])
    print("\n== goals, on the fifth held-out page set alone (every kind, new pages) ==")
    _goals([(p, v) for p, v in held if p["id"].startswith("h5")])


def _goals(held: list[tuple[dict[str, Any], str]]) -> None:
    for lang in ("en", "zh", "all"):
        rates = _rates([(p, v) for p, v in held if lang in ("all", p["lang"]) and not p["kind"].startswith("summary_")])
        if rates:
            print(f"{lang}: true claims flagged {rates[0]:.0%} (goal ≤10%), wrong claims caught {rates[1]:.0%} (goal ≥75%)")
    rates = _rates([(p, v) for p, v in held if p["kind"].startswith("summary_")])
    if rates:
        print(f"summary sentences: wrong caught {rates[1]:.0%} (goal ≥15%), true flagged {rates[0]:.0%} (goal ≤5%)")


if __name__ == "__main__":
    main()
