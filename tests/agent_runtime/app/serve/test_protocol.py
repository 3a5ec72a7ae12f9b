"""What `serve` reads of a chat-completion request: the title, the purpose made of the conversation,
the workspace an earlier answer names, and the 400s of a request it cannot take."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.app.serve.progress import PlanWatch, answer_text, lines_for, marker_line
from agent_runtime.app.serve.protocol import MODEL, OpenAIError, parse_request
from agent_runtime.domain.layout import MAX_PURPOSE_CHARS, MAX_TITLE_CHARS


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": list(messages), **extra}


def user(text: Any) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def test_the_last_user_message_is_the_title_and_the_conversation_before_it_the_purpose() -> None:
    ask = parse_request(body(
        {"role": "system", "content": "You help an energy analyst."},
        user("We compare storage options for a grid operator."),
        assistant("Noted."),
        user("  Solid-state batteries\n in 2026  "),
    ))  # fmt: skip
    assert ask.title == "Solid-state batteries in 2026"
    assert ask.purpose is not None
    assert ask.purpose.startswith("Instructions: You help an energy analyst.")
    assert "The person asked earlier: We compare storage options" in ask.purpose
    assert "The answer then: Noted." in ask.purpose
    assert ask.stream is False and ask.marked is None and ask.language == "en"


def test_text_parts_are_read_and_images_left_out() -> None:
    ask = parse_request(body(user([{"type": "text", "text": "固态电池"}, {"type": "image_url", "image_url": {}},
                                   {"type": "text", "text": "的产业化进展"}]), stream=True))  # fmt: skip
    assert ask.title == "固态电池 的产业化进展" and ask.language == "zh" and ask.stream


def test_an_earlier_answer_names_its_workspace_and_the_latest_wins() -> None:
    first = marker_line("solar-power") + "The report…"
    second = marker_line("solar-power-follow-up") + "The next report…"
    ask = parse_request(body(user("Solar power"), assistant(first), user("And 2026?"), assistant(second), user("go on")))
    assert ask.marked == "solar-power-follow-up"
    assert ask.purpose is not None and "deep-researcher workspace" not in ask.purpose  # the marker is no purpose


def test_a_marker_in_the_persons_own_words_is_not_taken() -> None:
    ask = parse_request(body(user(marker_line("elsewhere") + "x"), user("Solar power")))
    assert ask.marked is None


def test_a_marker_cannot_name_a_path() -> None:
    forged = "[//]: # (deep-researcher workspace ../../etc)\n\nhi"
    assert parse_request(body(user("a"), assistant(forged), user("b"))).marked is None


def test_the_purpose_keeps_the_latest_turns_within_its_limit_and_cuts_long_answers() -> None:
    turns: list[dict[str, Any]] = [{"role": "system", "content": "Cite everything."}]
    for n in range(60):
        turns += [user(f"question {n} " + "x" * 300), assistant("report " + "y" * 20_000)]
    ask = parse_request(body(*turns, user("Final question")))
    assert ask.purpose is not None and len(ask.purpose) <= MAX_PURPOSE_CHARS
    assert ask.purpose.startswith("Instructions: Cite everything.")
    assert "question 59" in ask.purpose and "question 0 " not in ask.purpose
    assert "y" * 601 not in ask.purpose  # an earlier report is cut to its opening


def test_reasoning_an_app_kept_in_an_answer_is_left_out_of_the_purpose() -> None:
    kept = '<details type="reasoning" done="true">\nSearching: x\n</details>\nThe answer.'
    ask = parse_request(body(user("a"), assistant(kept), user("b")))
    assert ask.purpose is not None and "Searching" not in ask.purpose and "The answer." in ask.purpose


@pytest.mark.parametrize(
    ("sent", "words"),
    [
        ([], "JSON object"),
        ({"messages": [user("x")]}, "no model"),
        ({"model": "gpt-4o", "messages": [user("x")]}, "'gpt-4o' is not served here"),
        (body(), "non-empty list"),
        ({"model": MODEL, "messages": "hello"}, "non-empty list"),
        (body({"role": "wizard", "content": "x"}), "role"),
        (body(assistant("only an answer")), "no user message"),
        (body(user("   ")), "empty"),
        (body(user({"text": "x"})), "content"),
        (body(user("x" * (MAX_TITLE_CHARS + 1))), f"at most {MAX_TITLE_CHARS:,}"),
        (body(user("### Task:\nGenerate a concise title.\n### Chat History:\n<chat_history>\nUSER: x\n</chat_history>")),
         "task model"),
    ],
)
def test_a_request_it_cannot_take_is_a_400_saying_why(sent: Any, words: str) -> None:
    with pytest.raises(OpenAIError) as refused:
        parse_request(sent)
    assert refused.value.status == 400 and words in refused.value.message
    error = refused.value.body()["error"]
    assert set(error) >= {"message", "type", "code"} and error["type"] == "invalid_request_error"


def test_progress_lines_follow_the_run_in_the_conversations_language() -> None:
    search = {"event": "action", "agent": "main", "action": "web_search", "arguments": {"query": "固态电池 成本"}}
    visit = {"event": "action", "action": "visit_url", "arguments": {"url": ["https://a.example/1", "https://b.example/2"]}}
    chapter = {"event": "action", "agent": "file", "action": "write_attached", "arguments": {"file_path": "Notebook/02_cost.md"}}
    failed = {**search, "error": "no results"}
    assert lines_for(search, "zh") == ["搜索：固态电池 成本"]
    assert lines_for(visit, "en") == ["Reading: https://a.example/1", "Reading: https://b.example/2"]
    assert lines_for(chapter, "en") == ["Writing Notebook/02_cost.md"]
    assert lines_for(failed, "en") == []  # an error is the model's to handle: no line
    assert lines_for({"event": "action", "action": "write_file", "arguments": {"file_path": "scratch.md"}}, "en") == []
    assert lines_for({"event": "run_started", "resumes": 1}, "en") == ["Resumed from the workspace's files (resume 1)."]


def test_an_unfinished_answer_says_how_to_go_on_and_names_the_workspace(tmp_path: Any) -> None:
    text = answer_text(
        "solar", tmp_path, "stopped", "max_steps: 20 steps reached", "# Draft\n\nChapter one.", "en",
        {"steps": 20, "cited": 2, "seconds": 30.0},
    )  # fmt: skip
    assert "stopped before its report: max_steps: 20 steps reached" in text and "“continue”" in text
    assert "Chapter one." in text and f"deep-researcher inspect {tmp_path / 'solar'}" in text


def test_the_planned_chapters_are_shown_when_the_plan_changes_them(tmp_path: Any) -> None:
    watch = PlanWatch(tmp_path, "zh")
    update = {"event": "action", "agent": "main", "action": "update_overall_dashboard", "arguments": {}}
    (tmp_path / "overall_dashboard.md").write_text(
        "# 固态电池\n\n## 研究问题\n1. 成本？\n\n## 大纲\n1. Notebook/01_成本.md：成本的变化\n2. Notebook/02_产能.md：产能\n",
        encoding="utf-8",
    )
    assert watch.lines(update) == ["计划的章节：", "  1. Notebook/01_成本.md：成本的变化", "  2. Notebook/02_产能.md：产能"]
    assert watch.lines(update) == []  # the same outline again: nothing new to show
    assert watch.lines({**update, "error": "refused"}) == []


def test_the_research_language_is_the_titles_not_the_system_prompts() -> None:
    system = {"role": "system", "content": "You are a helpful assistant for an energy analyst at our company."}
    assert parse_request(body(system, user("固态电池的产业化进展"))).language == "zh"
    assert parse_request(body(system, user("Solid-state batteries in 2026"))).language == "en"
    # a short word of the person's ("继续", "continue") goes with the conversation
    chinese = [user("固态电池的产业化进展"), assistant("报告如下……")]
    assert parse_request(body(*chinese, user("continue"))).language == "zh"
