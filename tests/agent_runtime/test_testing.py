"""The scripted demo researcher that `python -m agent_runtime.testing` serves."""

from __future__ import annotations

import json

from agent_runtime.testing import demo_script


def test_the_demo_chapter_quotes_a_markdown_corpus_file_as_prose_not_as_a_heading() -> None:
    # a local corpus file opens with its "# Title", which the search snippet keeps: the demo's
    # chapter must be a cited sentence, not a heading (a chapter of headings alone is "empty")
    tools = [{"type": "function", "function": {"name": name}} for name in ("web_search", "file_operation", "all_finished")]
    observation = "[S1] 固态电池产业化进展 — corpus:ssb.md — # 固态电池产业化进展 据统计，2025年出货量约为3.2吉瓦时。"
    messages = [{"role": "system", "content": ""}, {"role": "user", "content": "# 固态电池"}, {"role": "tool", "content": observation}]
    chapter = json.loads(demo_script(messages, tools).tool_calls[0]["function"]["arguments"])["content"]
    body = chapter.split("\n\n", 1)[1]
    assert not body.startswith("#") and "据统计，2025年出货量约为3.2吉瓦时 [S1]." in body, chapter
