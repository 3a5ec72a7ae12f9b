"""Reading a batch's task file: JSONL (DeepResearch Bench's query.jsonl as it is) and CSV, and the
line a wrong task is on."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.app.batch.results import count_words
from agent_runtime.app.batch.task_file import Task, TaskFileError, read_tasks

QUERY = (
    '{"id": 1, "topic": "Finance & Business", "language": "zh", "prompt": "收集整理目前中国9阶层实际收入和财务状况"}\n'
    '{"id": 51, "topic": "Science & Technology", "language": "en", "prompt": "Write a report on solid-state batteries."}\n'
)


def test_deepresearch_bench_query_jsonl_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "query.jsonl"
    path.write_text(QUERY, encoding="utf-8")
    assert read_tasks(path) == [
        Task("1", "收集整理目前中国9阶层实际收入和财务状况", None, "zh", 1),
        Task("51", "Write a report on solid-state batteries.", None, "en", 2),
    ]


def test_csv_with_a_bom_quoted_lines_and_no_ids(tmp_path: Path) -> None:
    path = tmp_path / "tasks.csv"
    text = 'title,purpose\n"Grid storage, 2026","a memo\nover two lines"\n固态电池的产业化进展,\n'
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    first, second = read_tasks(path)
    assert first == Task("grid-storage-2026", "Grid storage, 2026", "a memo\nover two lines", None, 2)
    assert second.id == "固态电池的产业化进展" and second.line == 4 and second.purpose is None


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.jsonl", '{"title": "ok"}\n[1, 2]\n', "a.jsonl, line 2: a JSON list, not an object"),
        ("b.jsonl", '{"title": "ok"}\n\n{"purpose": "x"}\n', "b.jsonl, line 3: no title (or prompt) field"),
        ("c.jsonl", '{"title": 5}\n', "c.jsonl, line 1: title must be text"),
        ("d.jsonl", '{"id": true, "title": "x"}\n', "d.jsonl, line 1: id must be text or a whole number"),
        ("e.jsonl", '{"id": "results.csv", "title": "x"}\n', "cannot name a folder"),
        (
            "f.jsonl",
            '{"id": "A1", "title": "x"}\n{"id": "a1", "title": "y"}\n',
            "line 2: the id 'a1' is also on line 1",
        ),
        ("g.csv", "title,id\nx,1,extra\n", "g.csv, line 2: more cells than the header's 2 columns"),
        ("h.jsonl", "\n\n", "holds no task"),
        ("i.jsonl", '{"title": "same"}\n{"title": "Same"}\n', "line 2: the id 'same' is also on line 1"),
    ],
)
def test_a_wrong_task_is_named_by_its_line(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TaskFileError) as caught:
        read_tasks(path)
    assert message in str(caught.value)


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "gbk.jsonl"
    path.write_bytes(b'{"title": "ok"}\n' + '{"title": "电池"}\n'.encode("gbk"))
    with pytest.raises(TaskFileError, match="line 2: not UTF-8"):
        read_tasks(path)


def test_words_count_chinese_characters_and_english_words() -> None:
    assert count_words("固态电池 is near, 2026.") == 4 + 3
