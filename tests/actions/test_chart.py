"""The chart action in a run: values checked against the source read, a refusal that names the
invented value and leaves no file, the figure in the report (numbered, its path from the report's
folder, its caption recorded as a value check), and the figure checked again at finalization."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_runtime.testing import Reply, call, reply
from tests.support.runs import start_run

RESULT = re.compile(r"^\[(S\d+)\] ", re.M)
DOCUMENT = """# Metro networks in 2024

| City | Stations |
|---|---|
| Eastby | 120 |
| Westby | 180 |
| Northby | 260 |

Ridership reached 1.2 million a day in Eastby.
"""
LABELS = ["Eastby", "Westby", "Northby"]


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir(parents=True)
    (folder / "metro.md").write_text(DOCUMENT)
    return folder


def charting(ws: Path, charts: list[dict[str, Any]], *, visit: bool = True, chapter_extra: str = "") -> tuple[Any, dict[str, Any]]:
    """Search, read the first result (unless not `visit`), ask for each chart in turn, write the
    last observation's Markdown into a chapter and finish with it."""
    state: dict[str, Any] = {"told": []}

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        observations = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if not observations:
            return reply(call("web_search", query="stations", max_results=3))
        if len(observations) == 1:
            state["id"] = RESULT.findall(observations[0])[0]
            if visit:
                return reply(call("visit_url", url=re.search(r"— (corpus:\S+)", observations[0]).group(1)))  # type: ignore[union-attr]
        asked = len(state["told"])
        if asked or len(observations) > (2 if visit else 1):
            state["told"].append(observations[-1])
        if len(state["told"]) < len(charts):
            args = json.loads(json.dumps(charts[len(state["told"])]).replace("{id}", state["id"]))
            return reply(call("chart", **args))
        if "chapter" not in state:
            figure = observations[-1].split("as it is; the figure is numbered in the report:\n\n", 1)[-1]
            state["chapter"] = f"## Stations\n\nEastby has 120 stations [{state['id']}].\n\n{figure}\n{chapter_extra}"
            (ws / "Notebook").mkdir(exist_ok=True)
            (ws / "Notebook/01.md").write_text(state["chapter"])
        return reply(call("all_finished", result="done", chapters=["Notebook/01.md"]))

    return script, state


STATIONS = {"title": "Stations by city", "kind": "bar", "labels": LABELS,
            "series": [{"name": "Stations", "values": [120, 180, 260], "source": "{id}"}], "unit": "stations"}  # fmt: skip


async def test_an_invented_value_is_refused_by_name_and_leaves_no_file_then_the_figure_is_in_the_report(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    invented = {**STATIONS, "series": [{"name": "Stations", "values": [120, 180, 999], "source": "{id}"}]}
    script, state = charting(ws, [invented, STATIONS])
    result, _ = await start_run(tmp_path, script, search="local", corpus=corpus(tmp_path), verify_citations="lexical")
    refused, drawn = state["told"][:2]
    assert "999 (Northby)" in refused and f"not stated in [{state['id']}]" in refused
    assert "it gives 120, 180, 260" in refused
    assert "Chart drawn: Notebook/figures/stations-by-city.svg" in drawn
    figures = ws / "Notebook" / "figures"
    assert sorted(p.name for p in figures.iterdir()) == ["stations-by-city.json", "stations-by-city.png", "stations-by-city.svg"]
    assert result.status == "finished"
    report = (ws / "report.md").read_text()
    assert "![Stations by city](Notebook/figures/stations-by-city.svg)" in report
    assert "*Figure 1: Stations by city, in stations. Source: [1].*" in report
    image = re.search(r"!\[[^\]]*\]\(([^)]+)\)", report).group(1)  # type: ignore[union-attr]
    assert (ws / image).is_file()  # from the report's folder
    assert "Appendix" not in report
    records = json.loads((ws / "report.citations.json").read_text())["citations"]
    caption = next(r for r in records if "figure" in r)
    assert caption["judged_by"] == "figure values" and caption["verdict"] == "supported"
    assert [v["value"] for v in caption["figure"]["values"]] == [120, 180, 260]
    assert all(v["near_label"] for v in caption["figure"]["values"])
    assert "Northby" in caption["passage"]
    svg = (figures / "stations-by-city.svg").read_text()
    assert "<text" in svg and "Northby" in svg  # text kept as text


async def test_a_value_edited_in_the_record_is_noticed_at_finalization(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    script, state = charting(ws, [STATIONS])

    def edit_then(messages: list[dict[str, Any]], tools: Any) -> Reply:
        answer = script(messages, tools)
        record = ws / "Notebook/figures/stations-by-city.json"
        if "chapter" in state and not state.get("edited"):
            state["edited"] = True
            data = json.loads(record.read_text())
            data["series"][0]["values"][2] = 999
            record.write_text(json.dumps(data))
        return answer

    await start_run(tmp_path, edit_then, search="local", corpus=corpus(tmp_path), verify_citations="lexical", max_steps=8)
    refusal = next(t for t in state["told"] if "not accepted" in t)
    assert "999 (Northby)" in refusal and "'Stations by city'" in refusal
    report = (ws / "report.md").read_text()  # the third try is forced: the figure is removed and said so
    assert "stations-by-city" not in report
    assert "a figure was removed: 'Stations by city'" in report


async def test_a_deleted_figure_file_is_drawn_again_from_the_checked_values(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    script, state = charting(ws, [STATIONS])

    def delete_then(messages: list[dict[str, Any]], tools: Any) -> Reply:
        answer = script(messages, tools)
        if "chapter" in state:
            (ws / "Notebook/figures/stations-by-city.svg").unlink(missing_ok=True)
            png = ws / "Notebook/figures/stations-by-city.png"
            png.write_bytes(png.read_bytes()[:100])  # a damaged picture
        return answer

    result, _ = await start_run(tmp_path, delete_then, search="local", corpus=corpus(tmp_path), verify_citations="lexical")
    assert result.status == "finished"
    figures = ws / "Notebook/figures"
    record = json.loads((figures / "stations-by-city.json").read_text())
    import hashlib

    for suffix in ("svg", "png"):
        assert hashlib.sha256((figures / f"stations-by-city.{suffix}").read_bytes()).hexdigest() == record["digests"][suffix]
    events = (ws / ".runtime/events.jsonl").read_text()
    assert '"figures_redrawn"' in events


def bad(ws: Path, args: dict[str, Any], *, visit: bool = True) -> tuple[Any, dict[str, Any]]:
    return charting(ws, [args, STATIONS], visit=visit)


async def refusal_of(tmp_path: Path, args: dict[str, Any], *, visit: bool = True) -> str:
    ws = tmp_path / "ws"
    script, state = bad(ws, args, visit=visit)
    await start_run(tmp_path, script, search="local", corpus=corpus(tmp_path), verify_citations="lexical", max_steps=6)
    told: str = state["told"][0]
    files = {p.relative_to(ws).as_posix() for p in ws.rglob("*") if p.is_file() and "figures" in p.as_posix()}
    assert not files or all(f.startswith("Notebook/figures/stations-by-city.") for f in files), files
    return told


async def test_an_unknown_source_is_refused(tmp_path: Path) -> None:
    told = await refusal_of(tmp_path, {**STATIONS, "series": [{"name": "x", "values": [120, 180, 260], "source": "S99"}]})
    assert "[S99]" in told and "not a source any search or visit returned" in told


async def test_a_source_only_seen_in_search_results_is_refused(tmp_path: Path) -> None:
    told = await refusal_of(tmp_path, STATIONS, visit=False)
    assert "only a search result, never read" in told and "visit_url" in told


async def test_a_title_that_is_a_path_stays_in_the_figures_folder(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    script, state = charting(ws, [{**STATIONS, "title": "../../x"}])
    await start_run(tmp_path, script, search="local", corpus=corpus(tmp_path), verify_citations="lexical")
    assert "Chart drawn: Notebook/figures/x.svg" in state["told"][0]
    assert not (tmp_path / "x.svg").exists() and not (ws / "x.svg").exists()


async def test_sizes_and_numbers_no_reader_can_read_are_refused(tmp_path: Path) -> None:
    told = await refusal_of(tmp_path, {**STATIONS, "labels": ["E" * 10_000, "Westby", "Northby"]})
    assert "label 1 has 10,000 characters: at most 80" in told
    told = await refusal_of(tmp_path / "2", {**STATIONS, "series": [{"name": "s", "values": [120, 1e308, 260], "source": "{id}"}]})
    assert "value 2 (1e+308) is not a finite number" in told
    many = [str(i) for i in range(10_000)]
    told = await refusal_of(tmp_path / "3", {**STATIONS, "labels": many, "series": [{"name": "s", "values": list(range(10_000)), "source": "{id}"}]})
    assert "10000 labels: at most 60 points" in told
    told = await refusal_of(tmp_path / "5", {**STATIONS, "series": [{"name": "s", "values": [120, float("nan"), 260], "source": "{id}"}]})
    assert "value 2 (nan) is not a finite number" in told
    told = await refusal_of(tmp_path / "4", {**STATIONS, "kind": "pie", "series": [{"name": "s", "values": [120, -180, 260], "source": "{id}"}]})
    assert "a pie cannot show negative values (-180)" in told


async def test_a_research_agent_draws_a_chart_into_its_notes(tmp_path: Path) -> None:
    from tests.support.research_agents import (
        DOCUMENTS,
        main_agent,
        observations,
        results,
        task_call,
        turns,
    )

    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text)
    told: list[str] = []

    def research_agent(messages: list[dict[str, Any]]) -> Reply:
        seen, step = observations(messages), turns(messages)
        if step == 0:
            return reply(call("web_search", query="battery cell costs", max_results=3))
        source = next(sid for sid, url in results(seen[0]) if url.endswith("costs.md"))
        if step == 1:
            return reply(call("visit_url", url="corpus:costs.md", goal="costs"))
        if step == 2:
            return reply(call("chart", title="Battery costs in 2025", kind="bar", labels=["Cell cost change", "Pack price"],
                              series=[{"name": "2025", "values": [14, 115], "source": source}]))  # fmt: skip
        told.append(seen[-1])
        figure = seen[-1].split("the figure is numbered in the report:\n\n", 1)[-1]
        return reply(call("write_notes", content=f"## Costs\n\n{figure}"), call("finish", answer=f"Charted [{source}]."))

    ws = tmp_path / "ws"
    result, _ = await start_run(tmp_path, main_agent(ws, [task_call("Notebook/notes/costs.md")], research_agent),
                                search="local", corpus=folder, verify_citations="lexical")  # fmt: skip
    assert result.status == "finished"
    assert "Chart drawn: Notebook/figures/battery-costs-in-2025.svg" in told[0]
    notes = (ws / "Notebook/notes/costs.md").read_text()
    assert "![Battery costs in 2025](figures/battery-costs-in-2025.svg)" in notes
    assert (ws / "Notebook/figures/battery-costs-in-2025.png").is_file()


async def test_money_in_a_title_and_years_as_numbers_are_drawn_as_written(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    priced = {**STATIONS, "title": "Stations from $100 to $300 a year", "labels": [2019.0, 2020, 2021]}
    script, state = charting(ws, [priced])
    result, _ = await start_run(tmp_path, script, search="local", corpus=corpus(tmp_path), verify_citations="lexical")
    assert "Chart drawn" in state["told"][0], state["told"][0]
    record = json.loads((ws / "Notebook/figures/stations-from-100-to-300-a-year.json").read_text())
    assert record["labels"] == ["2019", "2020", "2021"]  # not 2019.0
    svg = (ws / "Notebook/figures/stations-from-100-to-300-a-year.svg").read_text()
    assert "$100 to $300" in svg  # money, not mathtext
    assert result.status == "finished"


async def test_a_second_title_with_the_same_file_name_is_refused_not_drawn_over_the_first(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    first = {**STATIONS, "title": "Stations ($)"}
    second = {**STATIONS, "title": "Stations (€)", "series": [{"name": "Stations", "values": [120, 180, 260], "source": "{id}"}]}
    script, state = charting(ws, [first, second, first])
    await start_run(tmp_path, script, search="local", corpus=corpus(tmp_path), verify_citations="lexical")
    drawn, refused, again = state["told"][:3]
    assert "Chart drawn: Notebook/figures/stations.svg" in drawn
    assert "is taken by the figure “Stations ($)”" in refused
    assert json.loads((ws / "Notebook/figures/stations.json").read_text())["title"] == "Stations ($)"
    assert "Chart drawn" in again  # the same title replaces its own figure


async def test_a_run_stopped_by_its_budget_shows_its_figures_numbered_in_the_unfinished_report(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    script, state = charting(ws, [STATIONS])

    def until_the_budget(messages: list[dict[str, Any]], tools: Any) -> Reply:
        answer = script(messages, tools)
        if "chapter" in state:  # the chapter is written: the run goes on working until its steps run out
            return reply(call("update_current_dashboard", content=f"# Current\n\nstep {len(messages)}\n"))
        return answer

    result, _ = await start_run(
        tmp_path, until_the_budget, search="local", corpus=corpus(tmp_path), verify_citations="lexical", max_steps=5
    )
    assert result.status == "stopped"
    report = (ws / "report.md").read_text()
    assert "Figure 1" in report and "(Notebook/figures/stations-by-city.svg)" in report
    cited = json.loads((ws / "report.citations.json").read_text())
    captions = [c for c in cited["citations"] if c.get("judged_by") == "figure values"]
    assert captions and all(c["verdict"] == "supported" for c in captions)  # checked by value, never a †
