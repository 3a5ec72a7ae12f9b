"""What the person sees of a research in a chat app: its progress as short lines (the model's
"thinking"), and the answer (the report, or why there is none yet, and the workspace's name).

Progress comes from the run's event log (the plan, searches, sources read, chapters written); the
answer from its files. Both are in the language of the conversation (Chinese or English).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_runtime.app.serve.protocol import MARKER
from agent_runtime.domain.layout import NOTEBOOK, OVERALL_DASHBOARD
from agent_runtime.engine.commands import command

REPORT_LIMIT = 400_000  # characters of a report sent at once (a report is far shorter)
_SHOWN = 160  # characters of a query, URL or question in a progress line

WORDS = {
    "en": {
        "begin": "Research “{title}” in workspace {name}.",
        "started": "Started (model {model}).",
        "resumed": "Resumed from the workspace's files (resume {n}).",
        "plan": "Updated the plan (the overall dashboard).",
        "chapters": "The planned chapters:",
        "current": "Updated the current task and findings.",
        "search": "Searching: {q}",
        "read": "Reading: {url}",
        "task": "Research task: {q}",
        "chapter": "Writing {path}",
        "chart": "Drawing a chart: {q}",
        "browse": "Browsing: {url}",
        "finishing": "Assembling the report and checking its citations.",
        "waiting": "Waiting for the model endpoint…",
        "compaction": "Compacting the context.",
        "ended": "Done: {steps} steps, {cited} sources cited, {seconds:.0f} s.",
        "stopped_line": "Stopped: {reason}",
        "stopped": "The research stopped before its report: {reason}. The workspace keeps everything; "
        "send another message in this conversation (e.g. “continue”) to continue it.",
        "interrupted": "The research was interrupted (the server stopped or the connection closed). The "
        "workspace keeps everything; send another message in this conversation (e.g. “continue”) to resume it.",
        "unfinished": "The chapters written so far:",
        "footer": "Workspace: `{name}` in {folder} · `{inspect}` · `{export}`",
    },
    "zh": {
        "begin": "研究「{title}」，工作区 {name}。",
        "started": "已开始（模型 {model}）。",
        "resumed": "已从工作区文件继续（第 {n} 次继续）。",
        "plan": "已更新研究计划（总览仪表板）。",
        "chapters": "计划的章节：",
        "current": "已更新当前任务和发现。",
        "search": "搜索：{q}",
        "read": "阅读：{url}",
        "task": "研究子任务：{q}",
        "chapter": "撰写 {path}",
        "chart": "绘制图表：{q}",
        "browse": "浏览：{url}",
        "finishing": "正在汇编报告并核对引用。",
        "waiting": "正在等待模型端点……",
        "compaction": "正在压缩上下文。",
        "ended": "完成：{steps} 步，引用 {cited} 个来源，用时 {seconds:.0f} 秒。",
        "stopped_line": "已停止：{reason}",
        "stopped": "研究在写出报告之前停止了：{reason}。工作区保存了全部内容；在本对话中再发一条消息（例如“继续”）即可接着研究。",
        "interrupted": "研究被中断了（服务器停止或连接关闭）。工作区保存了全部内容；在本对话中再发一条消息（例如“继续”）即可继续。",
        "unfinished": "目前已写好的章节：",
        "footer": "工作区：{folder} 中的 `{name}` · `{inspect}` · `{export}`",
    },
}


def words(language: str) -> dict[str, str]:
    return WORDS.get(language, WORDS["en"])


def _short(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def lines_for(event: dict[str, Any], language: str) -> list[str]:
    """The progress lines one event of the log gives (most give none)."""
    w = words(language)
    kind = event.get("event")
    if kind == "run_started":
        resumes = event.get("resumes") or 0
        return [w["resumed"].format(n=resumes) if resumes else w["started"].format(model=event.get("model", "?"))]
    if kind == "model_waiting":
        return [w["waiting"]]
    if kind == "compaction":
        return [w["compaction"]]
    if kind == "run_ended":
        if event.get("status") == "finished":
            return []  # the answer's summary line says it, with the figures of the finished run
        return [w["stopped_line"].format(reason=_short(event.get("reason") or event.get("status")))]
    if kind != "action" or event.get("error"):
        return []
    action, arguments = event.get("action"), event.get("arguments") or {}
    if not isinstance(arguments, dict):
        return []
    if action == "update_overall_dashboard":
        return [w["plan"]]
    if action == "update_current_dashboard":
        return [w["current"]]
    if action == "web_search":
        return [w["search"].format(q=_short(arguments.get("query", "")))]
    if action == "visit_url":
        urls = arguments.get("url")
        listed = urls if isinstance(urls, list) else [urls]
        return [w["read"].format(url=_short(url)) for url in listed[:10] if url]
    if action == "research_task":
        return [w["task"].format(q=_short(arguments.get("question", "")))]
    if action == "chart":
        return [w["chart"].format(q=_short(arguments.get("title", "")))]
    if action == "browse":
        return [w["browse"].format(url=_short(arguments.get("start_url", "")))]
    if action == "all_finished":
        return [w["finishing"]]
    if action in ("write_file", "write_attached", "create_file"):
        path = str(arguments.get("file_path", ""))
        if path.startswith(f"{NOTEBOOK}/") and path.endswith(".md"):
            return [w["chapter"].format(path=_short(path))]
    return []


_CHAPTER = re.compile(rf"{NOTEBOOK}/[^\s`*]+\.md")


class PlanWatch:
    """The outline of the plan, shown when a plan update changed it: its lines that name a chapter
    file (the outline's form, `1. Notebook/01_x.md: what it answers`, in any language)."""

    def __init__(self, workspace: Path, language: str) -> None:
        self.file = workspace / OVERALL_DASHBOARD
        self.language = language
        self.shown: list[str] = []

    def lines(self, event: dict[str, Any]) -> list[str]:
        if event.get("event") != "action" or event.get("action") != "update_overall_dashboard" or event.get("error"):
            return []
        try:
            text = self.file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        outline = [_short(line.strip()) for line in text.splitlines() if _CHAPTER.search(line)][:30]
        if not outline or outline == self.shown:
            return []
        self.shown = outline
        return [words(self.language)["chapters"], *(f"  {line}" for line in outline)]


def marker_line(name: str) -> str:
    """The first line of every answer: names the workspace, shows nothing (protocol.py says why)."""
    return MARKER.format(name=name) + "\n\n"


def answer_text(
    name: str, folder: Path, status: str, reason: str | None, report: str | None, language: str,
    figures: dict[str, Any],
) -> str:  # fmt: skip
    """The answer's content after its marker line (`marker_line`): the report (or why there is none
    yet, with the chapters written so far), then the workspace and the commands to look at it."""
    w = words(language)
    parts: list[str] = []
    if status == "finished":
        parts.append((report or "").strip())
        parts.append(f"*{w['ended'].format(**figures)}*")
    else:
        parts.append(w["interrupted"] if status == "interrupted" else w["stopped"].format(reason=reason or status))
        if report and report.strip():
            parts.append(f"{w['unfinished']}\n\n{report.strip()}")
    workspace = folder / name
    footer = w["footer"].format(
        name=name, folder=folder, inspect=command("inspect", workspace),
        export=command("export", workspace, "--format", "html"),
    )  # fmt: skip
    parts.append(f"---\n{footer}")
    return "\n\n".join(parts) + "\n"


def read_report(workspace: Path, report_path: str | None) -> str | None:
    """The report run.json names (only inside the workspace), cut at REPORT_LIMIT; None if none."""
    root = workspace.resolve()
    report = (root / (report_path or "report.md")).resolve()
    if root not in report.parents or not report.is_file():
        return None
    text = report.read_text(encoding="utf-8", errors="replace")
    return text if len(text) <= REPORT_LIMIT else text[:REPORT_LIMIT] + f"\n\n[… {report}]"
