"""Chinese (and Japanese) text in the `local` provider: a 2-, 3- or 4-character word is found
inside a sentence, ranked with bm25 and shown in a snippet around the match; mixed Chinese and
English queries work; and recall@5 over a small Chinese corpus with known answers stays high."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from actions.web.corpus_text import cjk_grams, fts_query
from actions.web.local_corpus import LocalCorpus


def make_corpus(root: Path, tmp_path: Path) -> LocalCorpus:
    return LocalCorpus(root, tmp_path / "ws" / ".runtime" / "corpus" / "index.sqlite")


async def test_a_two_character_word_is_found_inside_a_sentence(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "battery.md").write_text("# 行业动态\n\n固态电池技术在2026年取得进展。\n", "utf-8")
    (root / "solar.md").write_text("# 光伏\n\n光伏组件价格继续下降。\n", "utf-8")

    results = await make_corpus(root, tmp_path).search("电池", 5)

    assert [r.url for r in results] == ["corpus:battery.md"]
    assert "固态电池技术在2026年取得进展" in results[0].snippet


DATA = Path(__file__).resolve().parents[2] / "data" / "cjk_corpus"


@pytest.fixture
def news(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "solid.md").write_text(
        "# 固态电池\n\n固态电池用固态电解质取代液态电解液。多家企业宣布半固态电池已经装车，"
        "全固态电池的量产还需要数年。\n",
        "utf-8",
    )
    (root / "ev.md").write_text(
        "# 新能源汽车\n\n" + "汽车市场的竞争十分激烈，价格战仍在继续。" * 8 + "电动汽车普遍使用锂电池。\n",
        "utf-8",
    )
    (root / "solar.md").write_text("# 光伏\n\n光伏组件价格继续下降，TOPCon电池成为主流。\n", "utf-8")
    (root / "english.md").write_text(
        "# Sodium-ion batteries\n\nSodium-ion cells avoid lithium and cobalt. They suit grid storage.\n",
        "utf-8",
    )
    return root


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("汽车", ["ev.md"]),  # 2 characters
        ("电解质", ["solid.md"]),  # 3
        ("电动汽车", ["ev.md"]),  # 4
        ("组件", ["solar.md"]),
    ],
)
async def test_words_of_two_to_four_characters_are_found(
    news: Path, tmp_path: Path, query: str, expected: list[str]
) -> None:
    results = await make_corpus(news, tmp_path).search(query, 5)
    assert [r.url.removeprefix("corpus:") for r in results] == expected
    assert query in results[0].snippet


async def test_more_occurrences_and_a_title_match_rank_higher(news: Path, tmp_path: Path) -> None:
    results = await make_corpus(news, tmp_path).search("电池", 5)
    assert [r.url for r in results][:1] == ["corpus:solid.md"]  # in the title and four times in the body
    assert {r.url for r in results} == {"corpus:solid.md", "corpus:ev.md", "corpus:solar.md"}


async def test_a_word_across_a_punctuation_mark_is_not_matched(news: Path, tmp_path: Path) -> None:
    # "…液。多家…": the bigram 液多 was never indexed, so 电解液多家 cannot match as a phrase.
    local = make_corpus(news, tmp_path)
    assert await local.search("液多", 5) == []


async def test_the_snippet_is_cut_around_the_match(news: Path, tmp_path: Path) -> None:
    results = await make_corpus(news, tmp_path).search("锂电池", 5)
    assert [r.url for r in results] == ["corpus:ev.md"]
    snippet = results[0].snippet
    assert "电动汽车普遍使用锂电池" in snippet and snippet.startswith("…")  # the match is near the end
    assert len(snippet) <= 130


async def test_mixed_chinese_and_english_queries(news: Path, tmp_path: Path) -> None:
    local = make_corpus(news, tmp_path)
    glued = await local.search("TOPCon电池", 5)
    spaced = await local.search("cobalt 光伏", 5)
    assert glued[0].url == "corpus:solar.md" and "TOPCon电池" in glued[0].snippet
    assert {r.url for r in spaced} == {"corpus:solar.md", "corpus:english.md"}


async def test_english_keeps_stemming_and_its_snippets(news: Path, tmp_path: Path) -> None:
    results = await make_corpus(news, tmp_path).search("battery", 5)
    assert [r.url for r in results] == ["corpus:english.md"]
    assert "Sodium-ion cells avoid lithium and cobalt" in results[0].snippet


async def test_a_single_character_and_japanese(news: Path, tmp_path: Path) -> None:
    (news / "ja.md").write_text(
        "# 全固体電池\n\nトヨタは全固体電池を搭載した電気自動車を発売する計画だ。\n", "utf-8"
    )
    local = make_corpus(news, tmp_path)
    assert [r.url for r in await local.search("トヨタ", 5)] == ["corpus:ja.md"]
    assert [r.url for r in await local.search("電池", 5)] == ["corpus:ja.md"]
    assert "corpus:solid.md" in [r.url for r in await local.search("液", 5)]  # last character of a word


async def test_an_index_of_the_old_schema_is_rebuilt(news: Path, tmp_path: Path) -> None:
    index = tmp_path / "ws" / ".runtime" / "corpus" / "index.sqlite"
    index.parent.mkdir(parents=True)
    with closing(sqlite3.connect(index)) as db:
        db.executescript(
            "CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, mtime_ns INTEGER,"
            " size INTEGER, title TEXT, error TEXT);"
            "CREATE VIRTUAL TABLE docs USING fts5(title, body); PRAGMA user_version = 1;"
        )
    local = make_corpus(news, tmp_path)
    assert local.sync().added == 4
    assert [r.url for r in await local.search("电解质", 5)] == ["corpus:solid.md"]


def test_fts_query_and_grams_of_cjk_text() -> None:
    assert cjk_grams("固态电池技术在2026年取得进展。Lithium") == (
        "固态 态电 电池 池技 技术 术在 在 2026 年取 取得 得进 进展 展"
    )
    assert cjk_grams("plain English only") == ""
    assert fts_query("电池") == '{title_grams body_grams}: "电池"'
    assert fts_query("固态电池 cobalt") == '"cobalt" OR {title_grams body_grams}: "固态 态电 电池"'
    assert fts_query("电") == '{title_grams body_grams}: "电"*'
    long = fts_query("海上风电的成本")
    assert long.startswith('{title_grams body_grams}: "海上 上风 风电 电的 的成 成本" OR ')
    assert '{title_grams body_grams}: "成本"' in long


async def test_recall_at_5_on_a_chinese_corpus(tmp_path: Path) -> None:
    queries = json.loads((DATA / "queries.json").read_text("utf-8"))
    local = LocalCorpus(DATA / "docs", tmp_path / "index.sqlite")
    assert len(queries) >= 30 and local.sync().added >= 15
    total = 0.0
    misses = []
    for item in queries:
        found = {r.url.removeprefix("corpus:") for r in await local.search(item["query"], 5)}
        relevant = set(item["relevant"])
        total += len(relevant & found) / len(relevant)
        if not relevant <= found:
            misses.append(item["query"])
    recall = total / len(queries)
    print(f"recall@5 = {recall:.3f} over {len(queries)} queries; missed: {misses}")
    assert recall >= 0.9, misses
