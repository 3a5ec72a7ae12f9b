"""The user's language: detected from the title, or set; named in the system prompt; the words the
code writes into report.md (References, the appendix of a forced finalization) follow it."""

from __future__ import annotations

from pathlib import Path

import pytest

import agent_runtime.language as language
from agent_runtime.app.researcher import Researcher
from agent_runtime.config import load_settings
from agent_runtime.domain.finalize import finalize
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_record import load_meta
from agent_runtime.errors import ConfigError
from agent_runtime.testing import Reply, ScriptedModel, call, reply


@pytest.mark.parametrize(
    ("title", "purpose", "expected"),
    [
        ("固态电池的产业化进展", None, "zh"),
        ("Solid-state batteries", None, "en"),
        ("Solid-state batteries", "an investment memo", "en"),
        ("Tesla 4680 电池的量产", None, "zh"),
        ("The 电池 market in China and Europe", None, "en"),
        ("Solid-state batteries", "给投资委员会的一份备忘录", "zh"),
        ("全固体電池の量産化", None, "ja"),
        ("", None, "en"),
    ],
)
def test_the_language_is_detected_from_the_title_and_purpose(
    title: str, purpose: str | None, expected: str
) -> None:
    assert language.resolve(None, title, purpose) == expected


def test_an_explicit_language_wins() -> None:
    assert language.resolve("en", "固态电池的产业化进展") == "en"
    assert language.resolve("zh", "Solid-state batteries") == "zh"


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("zh", "zh"),
        ("zh-CN", "zh"),
        ("Chinese", "zh"),
        ("中文", "zh"),
        ("EN", "en"),
        ("de", "de"),
        ("auto", None),
    ],
)
def test_a_language_is_given_by_code_or_name(given: str, code: str | None) -> None:
    assert load_settings({"language": given}, env={}).language == code


def test_the_setting_comes_from_the_environment_and_a_bad_one_is_refused() -> None:
    assert load_settings({}, env={"DEEP_RESEARCHER_LANGUAGE": "zh"}).language == "zh"
    assert load_settings({}, env={}).language is None
    with pytest.raises(ConfigError, match="language"):
        load_settings({"language": "not a language!"}, env={})


def test_every_language_table_has_every_string() -> None:
    for code, table in language.STRINGS.items():
        assert set(table) == set(language.STRINGS["en"]), code
    assert language.text("fr", "references") == "References"  # English for a language without a table


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    ledger = Ledger.load(tmp_path / "sources")
    ledger.register("https://example.org/a", "Solid-state cells", via="search")
    record = ledger.register("https://example.org/b", "固态电池白皮书", via="search")
    ledger.mark_fetched(
        record.id, final_url="https://example.org/b", title="固态电池白皮书", content_type="text/html",
        sha256="0" * 64, snapshot=f"sources/{record.id}.md", fetched_at="2026-11-20T10:00:00+00:00",
    )  # fmt: skip
    return ledger


CHINESE_DRAFT = "# 固态电池\n\n## 成本\n电池成本逐年下降 [S2]。也有不同看法 [S1]。\n"


def test_a_chinese_report_gets_chinese_references(ledger: Ledger) -> None:
    text = finalize(CHINESE_DRAFT, ledger, language="zh").text
    assert "## 参考文献" in text and "## References" not in text
    first_seen = ledger.get("S1").first_seen[:10]  # type: ignore[union-attr]
    assert text.split("## 参考文献", 1)[1].strip().splitlines() == [
        "1. 固态电池白皮书。https://example.org/b（访问于 2026-11-20）",  # Chinese punctuation
        f"2. Solid-state cells。https://example.org/a（见于搜索结果 {first_seen}）",  # the title as it is
    ]


def test_without_a_language_the_report_is_read_for_it(ledger: Ledger) -> None:
    assert "## 参考文献" in finalize(CHINESE_DRAFT, ledger).text
    english = finalize("# T\n\n## A\nCells [S2].\n", ledger).text
    assert "## References" in english and "(accessed 2026-11-20)" in english


def test_a_forced_chinese_report_has_a_chinese_appendix(ledger: Ledger) -> None:
    draft = CHINESE_DRAFT + "编造的说法 [S99]。[NEEDS RESEARCH: 价格]\n\n## 空章节\n"
    final = finalize(draft, ledger, force=True, language="zh")
    appendix = final.text.split("## 附录：定稿时发现的问题", 1)[1]
    assert "本报告定稿时以下问题仍未解决" in appendix
    assert "程序从正文中删除了：任何搜索或网页访问都未返回的来源的引用；未解决的标记。" in appendix
    assert "- 删除了一处引用：其来源未被任何搜索或网页访问返回" in appendix and "S99" not in appendix
    assert "- 删除了未解决的标记 [NEEDS RESEARCH: 价格]" in appendix
    assert "- 章节“空章节”为空" in appendix
    assert "Appendix" not in final.text
    assert "is not a source" in str(final.problems[0])  # what the agent and run.json are told: English


def test_the_english_report_is_unchanged(ledger: Ledger) -> None:
    draft = "# T\n\n## A\nCells [S2]. Invented [S99].\n"
    final = finalize(draft, ledger, force=True, language="en")
    assert final.text == finalize(draft, ledger, force=True, language="de").text
    assert final.text.endswith(
        "## References\n\n1. 固态电池白皮书. https://example.org/b (accessed 2026-11-20)\n\n"
        "## Appendix: problems found at finalization\n\n"
        "This report was finalized with these problems unresolved. Code removed from the text: citations "
        "of sources no search or visit returned.\n\n"
        "- a citation of a source that no search or visit returned was removed\n"
    )


def _idle(messages: object, tools: object) -> Reply:
    return reply(call("think", thought="never called"))


def _start(tmp_path: Path, title: str, **flags: str) -> Researcher:
    return Researcher.start(
        title, workspace=tmp_path / "ws", settings=load_settings(flags, env={}), model=ScriptedModel(_idle)
    )


def test_the_main_prompt_names_the_language_and_the_run_keeps_it(tmp_path: Path) -> None:
    researcher = _start(tmp_path, "固态电池的产业化进展")
    system = researcher.base_messages()[0]["content"]
    assert "Chinese (中文)" in system
    researcher.close()
    meta = load_meta(tmp_path / "ws" / ".runtime" / "run.json")
    assert meta is not None and meta.settings["language"] == "zh"
    resumed = Researcher.resume(tmp_path / "ws", model=ScriptedModel(_idle))
    assert resumed.settings.language == "zh" and "Chinese (中文)" in resumed.base_messages()[0]["content"]
    resumed.close()


def test_an_explicit_language_is_named_in_the_prompt(tmp_path: Path) -> None:
    researcher = _start(tmp_path, "固态电池的产业化进展", language="en")
    assert "English" in researcher.base_messages()[0]["content"]
    assert "Chinese" not in researcher.base_messages()[0]["content"]
    researcher.close()


def test_the_flag_reaches_the_settings() -> None:
    from agent_runtime.app.cli import _flags, build_parser

    args = build_parser().parse_args(["run", "固态电池的产业化进展", "--language", "en"])
    assert _flags(args)["language"] == "en"
    assert load_settings(_flags(args), env={"DEEP_RESEARCHER_LANGUAGE": "zh"}).language == "en"
