"""The dashboard actions as a weak model meets them: it copies the request's frame into the file,
drops the title, cites ids it never retrieved; and what a resumed model is told."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from actions.dashboards import update_current_dashboard, update_overall_dashboard
from agent_runtime.domain.layout import CURRENT_DASHBOARD, OVERALL_DASHBOARD, template_text
from agent_runtime.engine.registry import Observation
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.language import dashboard_words
from agent_runtime.testing import Reply, call, reply, scratch_context
from tests.support.runs import events, finish_with_report, resume_run, start_run


def observations(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


async def test_a_copied_frame_is_dropped_and_the_title_is_kept(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    seen: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        if len(seen) == 0:
            seen.append(str(messages[1]["content"]))
            # A weak model sends back what it was shown, frame and all, with a new heading of its own.
            copied = str(messages[1]["content"]).split("<<< current_dashboard.md >>>")[0]
            body = (
                copied.replace("# Test research", "## Blueprint")
                .replace("## Research questions\n", "## Research questions\n- Q1: what changed in 2026?\n")
                .replace("## Outline\n", "## Outline\n1. Notebook/01_changes.md\n")
            )
            return reply(call("update_overall_dashboard", content=body))
        seen.append(str(messages[1]["content"]))
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished"
    overall = (ws / "overall_dashboard.md").read_text()
    assert overall.startswith("# Test research\n")
    assert "<<<" not in overall and "Q1: what changed in 2026?" in overall
    assert seen[1].count("<<< overall_dashboard.md >>>") == 1  # shown framed once, not twice


async def test_a_dashboard_citing_ids_that_were_never_retrieved_gets_a_warning(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    requests: list[list[dict[str, Any]]] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        requests.append(messages)
        if len(requests) == 1:
            return reply(
                call("update_current_dashboard", content="# Current\n\n- cells cost less [S1][S5]\n")
            )
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished"
    # The history was reset, so what the update said comes in the request's last message.
    after = str(requests[1][-1]["content"])
    assert "current_dashboard.md updated" in after
    assert "S1, S5 are not the id of any source you retrieved" in after


async def test_the_resume_note_tells_the_model_what_happened_not_the_users_instructions(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"

    def first(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("update_current_dashboard", content="# Current\n\n## Next steps\n- search\n"))

    stopped, _ = await start_run(tmp_path, first, max_steps=1)
    assert stopped.status == "stopped"
    meta_file = ws / ".runtime" / "run.json"
    meta = json.loads(meta_file.read_text())
    meta["status"], meta["stop_reason"] = (
        "error",
        (
            "the model endpoint did not answer; check --base-url / OPENAI_BASE_URL and that the server is "
            "running, then resume"
        ),
    )
    meta_file.write_text(json.dumps(meta))
    shown: list[str] = []

    def second(messages: list[dict[str, Any]], tools: Any) -> Reply:
        shown.append(str(messages[2]["content"]))
        return finish_with_report(ws)

    resumed, _ = await resume_run(tmp_path, second, max_steps=5)
    assert resumed.status == "finished"
    note = shown[0]
    assert note.startswith("[resumed]") and "technical problem" in note
    assert (
        "--base-url" not in note
        and "check" not in note
        and "resume" not in note.split("]", 1)[1].split(".")[0]
    )
    assert "update_current_dashboard" in note  # the last actions are still listed


async def test_the_run_ended_event_carries_the_same_figures_as_run_json(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result, _ = await start_run(tmp_path, lambda m, t: finish_with_report(ws))
    assert result.status == "finished"
    ended = [e for e in events(ws) if e["event"] == "run_ended"][-1]
    meta = json.loads((ws / ".runtime" / "run.json").read_text())
    assert ended["totals"] == meta["totals"]


async def test_an_update_that_is_only_the_copied_frame_changes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    replies = iter(
        [
            reply(
                call("update_overall_dashboard", content="# Test research\n\n## Research questions\n1. Q?\n")
            ),
            reply(
                call(
                    "update_overall_dashboard",
                    content="<<< overall_dashboard.md >>>\n<<< end of overall_dashboard.md >>>",
                )
            ),
        ]
    )
    told: list[str] = []

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        told.extend(observations(messages))
        return next(replies, None) or finish_with_report(ws)

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished"
    assert "1. Q?" in (ws / "overall_dashboard.md").read_text()
    assert any("the new content is empty" in text for text in told)


# -- updates that change nothing ---------------------------------------------------------------
# A small model sends the template's placeholder lines back, or the dashboard it was shown, as its
# "update": saving it would clear the history for nothing, so it is refused and told what to write.


async def update(ctx: ActionContext, name: str, content: str) -> Observation:
    tool = update_overall_dashboard if name == OVERALL_DASHBOARD else update_current_dashboard
    return await tool.run(ctx, {"content": content})


def reflowed(text: str) -> str:
    """The same text with other whitespace: blank lines dropped, spaces doubled, CRLF line ends."""
    return "\r\n".join(line.replace(" ", "  ") for line in text.splitlines() if line.strip())


@pytest.mark.parametrize(("title", "language"), [("Test research", "en"), ("libffi 的调用约定与移植", "zh")])
async def test_the_template_sent_back_is_refused_and_says_what_to_write(
    tmp_path: Path, title: str, language: str
) -> None:
    ctx = scratch_context(tmp_path / "ws", title=title, language=language)
    words = dashboard_words(language)
    try:
        for name in (OVERALL_DASHBOARD, CURRENT_DASHBOARD):
            template = template_text(name, title, None, language)
            assert "_" not in template.replace(title, "")  # no guidance a model could copy as a plan
            # As it is, with other whitespace, with the frame copied around it.
            framed = f"<<< {name} >>>\n{template.strip()}\n<<< end of {name} >>>"
            for content in (template, reflowed(template), framed):
                observation = await update(ctx, name, content)
                assert observation.error, (name, content)
                assert "nothing was changed" in observation.text
                assert ctx.workspace.is_untouched(name, title, None, language)
        told = (await update(ctx, OVERALL_DASHBOARD, template_text(OVERALL_DASHBOARD, title, None, language))).text
        assert f"Fill: {words['questions']}, {words['outline']}, {words['needs']}." in told
        assert f"## {words['outline']}\n{words['form.outline']}\n" in told and words["status"] not in told
        told = (await update(ctx, CURRENT_DASHBOARD, template_text(CURRENT_DASHBOARD, title, None, language))).text
        assert f"Fill: {words['task']}, {words['findings']}, {words['next']}." in told
        assert "[S<n>]" in told and words["lessons"] not in told
    finally:
        await ctx.services.aclose()


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_a_copy_of_the_template_with_one_line_changed_is_no_plan(tmp_path: Path, language: str) -> None:
    title = "Test research" if language == "en" else "libffi 的调用约定与移植"
    ctx = scratch_context(tmp_path / "ws", title=title, language=language)
    words = dashboard_words(language)
    template = template_text(OVERALL_DASHBOARD, title, None, language)
    old_template = (  # as earlier versions had it, with guidance sentences (a resumed workspace)
        f"# {title}\n\n## Research questions\n_Not written yet. The agent's first step is to write the research "
        "blueprint here._\n\n## Outline\n_The planned chapters, one Notebook file each._\n"
    )
    try:
        copies = {
            "status": template.replace(words["not_started"], "In progress."),
            "title": template.replace(f"# {title}", "# My plan"),
            "a question, no outline": template.replace(
                f"## {words['questions']}\n", f"## {words['questions']}\n1. Why does it differ?\n"
            ),
            "the form copied": template.replace(
                f"## {words['questions']}\n", f"## {words['questions']}\n{words['form.questions']}\n"
            ).replace(f"## {words['outline']}\n", f"## {words['outline']}\n{words['form.outline']}\n"),
            "old guidance, title changed": old_template.replace(f"# {title}", "# 我的计划"),
            "old guidance, a question written": old_template.replace(
                "_Not written yet. The agent's first step is to write the research blueprint here._", "1. Why?"
            ),
        }
        for what, content in copies.items():
            observation = await update(ctx, OVERALL_DASHBOARD, content)
            assert observation.error, what
            assert "Fill: " in observation.text and f"## {words['outline']}" in observation.text, what
            assert ctx.workspace.is_untouched(OVERALL_DASHBOARD, title, None, language), what
        told = (await update(ctx, OVERALL_DASHBOARD, copies["old guidance, a question written"])).text
        assert "still holds the template's guidance lines" in told and f"Fill: {words['outline']}." in told
        # Written in the sections, the same copy is a plan.
        plan = template.replace(
            f"## {words['questions']}\n", f"## {words['questions']}\n1. Why does it differ?\n"
        ).replace(f"## {words['outline']}\n", f"## {words['outline']}\n1. Notebook/01_overview.md\n")
        assert not (await update(ctx, OVERALL_DASHBOARD, plan)).error
    finally:
        await ctx.services.aclose()


async def test_a_dashboard_sent_again_unchanged_is_refused(tmp_path: Path) -> None:
    title = "libffi 的调用约定与移植"
    ctx = scratch_context(tmp_path / "ws", title=title, language="zh")
    try:
        template = template_text(OVERALL_DASHBOARD, title, None, "zh")
        blueprint = template.replace("## 研究问题\n", "## 研究问题\n1. libffi 在各平台上如何实现调用约定？\n").replace(
            "## 大纲\n", "## 大纲\n1. Notebook/01_概述.md\n"
        )
        observation = await update(ctx, OVERALL_DASHBOARD, blueprint)
        assert not observation.error
        saved = ctx.workspace.overall_dashboard.read_text("utf-8")
        # Sent again as it is now, reflowed: nothing changes.
        observation = await update(ctx, OVERALL_DASHBOARD, reflowed(saved))
        assert observation.error
        assert "this is the dashboard as it already is: nothing was changed" in observation.text
        assert "Update it when the plan changes" in observation.text
        assert ctx.workspace.overall_dashboard.read_text("utf-8") == saved

        current = "# 当前仪表板\n\n## 当前任务\n比较 x86-64 与 AArch64 的调用约定。\n\n## 下一步\n- 搜索 libffi 文档\n"
        assert not (await update(ctx, CURRENT_DASHBOARD, current)).error
        observation = await update(ctx, CURRENT_DASHBOARD, current.replace("\n\n", "\n"))
        assert observation.error and "as it already is: nothing was changed" in observation.text
        # Its headings are its own: nothing is claimed empty, the model is told what to add.
        assert "Fill:" not in observation.text and "[S<n>]" in observation.text
        # Any real change goes through.
        changed = current + "\n## 经验\n- 官方文档不列出所有平台\n"
        assert not (await update(ctx, CURRENT_DASHBOARD, changed)).error
        assert "官方文档" in ctx.workspace.current_dashboard.read_text("utf-8")
    finally:
        await ctx.services.aclose()


async def test_a_short_dashboard_of_the_models_own_is_still_saved(tmp_path: Path) -> None:
    # A heading of its own is something written (nothing of the template is in it): saved.
    ctx = scratch_context(tmp_path / "ws")
    try:
        for content in ("# Current\n", "# 当前\n", "# Current\n\n## Findings so far\n- a finding [S1]\n"):
            observation = await update(ctx, CURRENT_DASHBOARD, content)
            assert not observation.error, observation.text
    finally:
        await ctx.services.aclose()


async def test_the_refusal_reaches_the_model_and_the_run_goes_on(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    told: list[str] = []
    sent = 0

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        nonlocal sent
        told.extend(observations(messages))
        sent += 1
        if sent == 1:  # the dashboard exactly as the request framed it (purpose line included)
            shown = str(messages[1]["content"])
            current = shown.split("<<< current_dashboard.md >>>\n")[1].split("<<< end of")[0]
            return reply(call("update_current_dashboard", content=current))
        return finish_with_report(ws)

    result, _ = await start_run(tmp_path, script)
    assert result.status == "finished"
    assert any("nothing was changed" in text and "Fill: Task at hand" in text for text in told), told
