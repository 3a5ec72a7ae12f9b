"""The user's language: which language the agent writes in, and the code-written words of the report.

The setting (`--language`, DEEP_RESEARCHER_LANGUAGE, `language` in the config file) takes a code
("zh", "en", "zh-CN", "de") or a name ("Chinese", "中文"). Without it the language is detected from
the title and purpose: Han characters against Latin words (no model, no download), so
"固态电池的产业化进展" is Chinese and "Solid-state batteries" is English.

Every word the code writes into the report (the References heading and entries, the appendix of a
forced finalization) is in `STRINGS`, one table per language; a language without a table gets
English. Source titles stay as the sources give them.
"""

from __future__ import annotations

import re

DEFAULT = "en"

# Names and codes a user may give, to the code used everywhere else.
_ALIASES = {
    "chinese": "zh", "中文": "zh", "汉语": "zh", "漢語": "zh", "简体中文": "zh", "繁體中文": "zh",
    "english": "en", "英文": "en", "英语": "en",
    "german": "de", "deutsch": "de", "french": "fr", "français": "fr", "spanish": "es",
    "español": "es", "japanese": "ja", "日本語": "ja", "korean": "ko", "한국어": "ko",
    "portuguese": "pt", "português": "pt", "italian": "it", "italiano": "it", "russian": "ru",
    "русский": "ru",
}  # fmt: skip
# How the main agent's system prompt names a language (a code not listed is named as given).
NAMES = {
    "zh": "Chinese (中文)", "en": "English", "de": "German (Deutsch)", "fr": "French (français)",
    "es": "Spanish (español)", "ja": "Japanese (日本語)", "ko": "Korean (한국어)",
    "pt": "Portuguese (português)", "it": "Italian (italiano)", "ru": "Russian (русский)",
}  # fmt: skip

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_CODE = re.compile(r"^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})*$")

# The code-written parts of report.md. Keys: see the English table; every table has every key.
STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "references": "References",
        "entry_fetched": "{number}. {title}{end}{url} (accessed {date})",
        "entry_seen": "{number}. {title}{end}{url} (seen in search results {date})",
        "appendix": "Appendix: problems found at finalization",
        "appendix_intro": "This report was finalized with these problems unresolved.",
        "appendix_removed": "Code removed from the text: {what}.",
        "appendix_flagged": (
            "Citations marked † were left in the text as written: the check could not confirm that "
            "their source states the sentence. Each is listed below by its number."
        ),
        "list_sep": "; ",
        "unfinished": (
            "**Unfinished.** The run stopped before the research was finished: these are the chapters "
            "written so far, assembled as they are. Continue with `{command}`."
        ),
        "removed.unknown_source": "citations of sources no search or visit returned",
        "appendix.unknown_source": "a citation of a source that no search or visit returned was removed",
        "appendix.unverified_url": "a link no search or visit showed was removed: {subject}",
        "appendix.marker": "the unresolved marker {subject} was removed",
        "removed.marker": "unresolved markers",
        "removed.unverified_url": "links no search or visit showed",
        "flag.entry": "[{number}]† “{statement}” — {how}: {why}. {closest}",
        "flag.lexical": "not matched by the automatic check",
        "flag.judged": "judged by {model}",
        "flag.closest": "Closest passage of the source: «{passage}»",
        "flag.no_passage": "No passage of the source comes close.",
        "problem.unknown_source": "[{subject}] is not a source any search or visit returned",
        "problem.unverified_url": "{subject} was not shown by any search or visit",
        "problem.marker": "unresolved marker {subject}",
        "problem.empty_chapter": "the chapter '{subject}' is empty",
        "problem.no_citations": "the report cites no source: cite facts with [S<n>] ids",
        "problem.empty_report": "the report is empty",
        "problem.unsupported_citation": "the check could not confirm that the source states it: {subject}",
        "problem.figure": "a figure cannot stay as it is: {subject}",
        "appendix.figure": "a figure was removed: {subject}",
        "figure.caption": "Figure: {title}",
        "figure.unit": ", in {unit}",
        "figure.source": "Source: {ids}.",
        "reason.value": "the source gives {found}; the sentence says {said}",
        "reason.value_absent": "the source's passage does not give {said}",
        "reason.ordinal": "the source says {found}; the sentence says {said}",
        "reason.ordinal_absent": "the source's passage does not say {said}",
        "reason.name": "{said} is not in the source's passage",
        "reason.negation": "one of the two is negated (not, no, never, without…) and the other is not",
        "reason.opposite": "the sentence says “{said}” where the source says “{found}”",
        "reason.roles": "the source has {said} and {found} the other way round",
        "reason.direction": "the sentence says “{said}”, but the source's figures go {found}",
        "reason.relation": "the sentence says “{said}”, but the source's figures ({found}) do not give that",
        "reason.order": "the sentence says “{said}”, but the source gives {found}",
        "reason.actor": "the source says this of {found}, not of {said}",
        "reason.cause": "the source has “{said}” and “{found}” the other way round as cause and effect",
        "reason.cause_unstated": "the sentence says one thing led to another (“{said}”); the source's passage says no such link",
        "reason.coverage_low": "the source's closest passage shares few of the sentence's words ({detail})",
        "reason.coverage_partial": "the closest passage shares only {detail} of the sentence's words",
        "reason.no_passage": "no passage of the source comes close",
        "reason.empty_source": "nothing of the source was saved to check against",
        "reason.no_words": "the sentence has no words to check",
        "reason.judge_contradicted": "{detail} judged that the source contradicts it: “{found}”",
        "reason.judge_not_stated": "{detail} judged that the source does not state it",
        "reason.judge_supported": "{detail} judged that the source states it: “{found}”",
        "reason.judge_quote_rejected": "{detail} quoted a sentence that is not in the source; its verdict was not used",
        "reason.judge_overruled": "{detail} judged it supported, but the sentence it quoted says otherwise",
        "reason.judge_failed": "the judge could not be asked ({detail}); the automatic check's verdict stands",
        # A person's save that the runtime's own write of a dashboard replaced (it is kept in .trash/).
        "note.edit_kept": (
            "[note] The user saved {name} while the runtime was writing it. The user's version is kept in "
            "{kept}, not in {name}. It reads:\n{text}\nMerge the user's text into {name} (the user's plan "
            "comes first) and send the whole dashboard again."
        ),
    },
    "zh": {
        "references": "参考文献",
        "entry_fetched": "{number}. {title}{end}{url}（访问于 {date}）",
        "entry_seen": "{number}. {title}{end}{url}（见于搜索结果 {date}）",
        "appendix": "附录：定稿时发现的问题",
        "appendix_intro": "本报告定稿时以下问题仍未解决。",
        "appendix_removed": "程序从正文中删除了：{what}。",
        "appendix_flagged": "标有 † 的引用按原文保留：核对未能确认其来源陈述了该句内容。下面按编号逐一列出。",
        "list_sep": "；",
        "unfinished": "**未完成。** 研究在完成之前停止了：以下是目前已写好的章节，按原样汇编。继续请运行 `{command}`。",
        "removed.unknown_source": "任何搜索或网页访问都未返回的来源的引用",
        "appendix.unknown_source": "删除了一处引用：其来源未被任何搜索或网页访问返回",
        "appendix.unverified_url": "删除了一个未出现在任何搜索或网页访问结果中的链接：{subject}",
        "appendix.marker": "删除了未解决的标记 {subject}",
        "removed.marker": "未解决的标记",
        "removed.unverified_url": "未出现在任何搜索或网页访问结果中的链接",
        "flag.entry": "[{number}]† “{statement}”——{how}：{why}。{closest}",
        "flag.lexical": "自动核对未能匹配",
        "flag.judged": "由 {model} 判定",
        "flag.closest": "来源中最接近的段落：«{passage}»",
        "flag.no_passage": "来源中没有相近的段落。",
        "problem.unknown_source": "[{subject}] 不是任何搜索或网页访问返回的来源",
        "problem.unverified_url": "{subject} 未出现在任何搜索或网页访问的结果中",
        "problem.marker": "未解决的标记 {subject}",
        "problem.empty_chapter": "章节“{subject}”为空",
        "problem.no_citations": "报告没有引用任何来源",
        "problem.empty_report": "报告为空",
        "problem.unsupported_citation": "核对未能确认来源陈述了该内容：{subject}",
        "problem.figure": "一幅图不能保持原样：{subject}",
        "appendix.figure": "删除了一幅图：{subject}",
        "figure.caption": "图：{title}",
        "figure.unit": "（单位：{unit}）",
        "figure.source": "数据来源：{ids}。",
        "reason.value": "来源给出的是 {found}，句子写的是 {said}",
        "reason.value_absent": "来源的相关段落没有给出 {said}",
        "reason.ordinal": "来源写的是“{found}”，句子写的是“{said}”",
        "reason.ordinal_absent": "来源的相关段落没有提到“{said}”",
        "reason.name": "来源的相关段落中没有“{said}”",
        "reason.negation": "两者之一是否定的（不、没有、未、无……），另一个不是",
        "reason.opposite": "句子写的是“{said}”，来源写的是“{found}”",
        "reason.roles": "来源中“{said}”与“{found}”的关系相反",
        "reason.direction": "句子说“{said}”，但来源的数字是 {found}",
        "reason.relation": "句子说“{said}”，但来源的数字（{found}）并非如此",
        "reason.order": "句子说“{said}”，但来源给出的是 {found}",
        "reason.actor": "来源说的是“{found}”，而不是“{said}”",
        "reason.cause": "来源中“{said}”与“{found}”的因果关系相反",
        "reason.cause_unstated": "句子称二者有因果关系（“{said}”），来源段落并未这样说",
        "reason.coverage_low": "来源中最接近的段落与句子共有的词很少（{detail}）",
        "reason.coverage_partial": "最接近的段落只包含句子 {detail} 的词",
        "reason.no_passage": "来源中没有相近的段落",
        "reason.empty_source": "没有保存该来源的文本，无法核对",
        "reason.no_words": "句子中没有可核对的词",
        "reason.judge_contradicted": "{detail} 判断来源与之矛盾：“{found}”",
        "reason.judge_not_stated": "{detail} 判断来源并未陈述这一点",
        "reason.judge_supported": "{detail} 判断来源陈述了这一点：“{found}”",
        "reason.judge_quote_rejected": "{detail} 引用的句子不在来源中，其判断未被采用",
        "reason.judge_overruled": "{detail} 判断其有依据，但它引用的句子并非如此",
        "reason.judge_failed": "无法调用判定模型（{detail}），沿用自动核对的结论",
        "note.edit_kept": (
            "[note] 运行时写入 {name} 时，用户同时保存了它。用户的版本保存在 {kept}，不在 {name} 中。"
            "内容如下：\n{text}\n请把用户的内容合并进 {name}（以用户的计划为准），然后重新发送完整的仪表板。"
        ),
    },
}


# The dashboards' sections as a new workspace has them (workspace_template/), in the run's language;
# a language without a table gets English. The template holds no guidance a model could copy as a
# plan: the sections are empty, and what goes in them is said in the system prompt. `form.*`: one
# line of each section's form, with no topic in it, for the refusal of an update that leaves the
# section empty (actions/dashboards.py).
DASHBOARD_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "purpose": "Purpose",
        "questions": "Research questions",
        "outline": "Outline",
        "needs": "What a complete answer needs",
        "status": "Status",
        "not_started": "Not started.",
        "current": "Current dashboard",
        "task": "Task at hand",
        "findings": "Findings so far",
        "next": "Next steps",
        "lessons": "Lessons",
        "form.questions": "1. <a question the report must answer>",
        "form.outline": "1. Notebook/01_<chapter>.md: <what this chapter answers>",
        "form.needs": "- <what a complete answer must contain>",
        "form.task": "<the task you work on now>",
        "form.findings": "- <a finding> [S<n>]",
        "form.next": "- <the next step>",
    },
    "zh": {
        "purpose": "目的",
        "questions": "研究问题",
        "outline": "大纲",
        "needs": "完整的回答需要什么",
        "status": "状态",
        "not_started": "尚未开始。",
        "current": "当前仪表板",
        "task": "当前任务",
        "findings": "目前的发现",
        "next": "下一步",
        "lessons": "经验教训",
        "form.questions": "1. <报告必须回答的一个问题>",
        "form.outline": "1. Notebook/01_<章节>.md：<这一章回答什么>",
        "form.needs": "- <完整的回答必须包含的内容>",
        "form.task": "<你现在进行的任务>",
        "form.findings": "- <一项发现> [S<n>]",
        "form.next": "- <下一步>",
    },
}


def dashboard_words(code: str | None) -> dict[str, str]:
    """The dashboards' section names and forms in the language (English when it has no table)."""
    return DASHBOARD_WORDS.get(code or DEFAULT, DASHBOARD_WORDS[DEFAULT])


def normalize(value: str | None) -> str | None:
    """The code of a language the user named; None (or "auto", or blank) means "detect it"."""
    if value is None:
        return None
    text = value.strip()
    if not text or text.lower() == "auto":
        return None
    lowered = text.lower()
    if lowered in _ALIASES:
        return _ALIASES[lowered]
    if _CODE.match(lowered):
        return re.split(r"[-_]", lowered)[0]  # zh-CN, zh_Hans, en-GB: the language, not the region
    raise ValueError(f"unknown language {value!r}: give a code such as zh or en, or auto")


def detect(*texts: str | None) -> str:
    """The language of the title and purpose: Chinese when Han characters outnumber Latin words
    (a title like "Tesla 4680 电池" is Chinese; "The 电池 market in China" is English)."""
    text = " ".join(t for t in texts if t)
    han, words = len(_HAN.findall(text)), len(_LATIN_WORD.findall(text))
    kana, hangul = len(_KANA.findall(text)), len(_HANGUL.findall(text))
    if kana and han + kana >= words:
        return "ja"
    if hangul and hangul >= words:
        return "ko"
    if han and han >= words:
        return "zh"
    return DEFAULT


def resolve(setting: str | None, title: str | None, purpose: str | None = None) -> str:
    """The run's language: the setting when given, else the one detected from the title and purpose."""
    return normalize(setting) or detect(title, purpose)


def name(code: str) -> str:
    """The language as the system prompt names it."""
    return NAMES.get(code, code)


def has(code: str | None, key: str) -> bool:
    return key in STRINGS.get(code or DEFAULT, STRINGS[DEFAULT])


def text(code: str | None, key: str, **values: object) -> str:
    """A code-written string in the language, English when it has no table."""
    table = STRINGS.get(code or DEFAULT, STRINGS[DEFAULT])
    return table[key].format(**values)
