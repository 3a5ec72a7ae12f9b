// The page's own words in the reader's language: Chinese when the browser asks for it
// (navigator.language zh, zh-CN, zh-TW…), English otherwise. What a run or a web page wrote is shown
// as it is; only the page's labels, buttons and messages are translated. Loaded before timeline.js
// and app.js, which call t("English text with {names}", {names: …}).
"use strict";

(() => {
  const ZH = {
    // index.html
    "Deep Researcher": "Deep Researcher",
    "Workspaces": "工作区",
    "New research": "新研究",
    "Follow up": "继续追问",
    "Follow-up question": "追问的问题",
    "e.g. What changed since this report?": "例如：这份报告之后有什么变化？",
    "A new run in a new workspace starts from this report, its notes and its sources; this run stays as it is.":
      "新的研究在新的工作区中从这份报告、它的笔记和来源开始；本次研究保持不变。",
    "Start the follow-up": "开始追问",
    "Continue": "继续",
    "The agent asks before it plans": "智能体在制定计划前向你提问",
    "The plan waits for your review": "计划等待你的审阅",
    "Write your answer under each question (an empty answer means no preference), then Continue.":
      "请在每个问题下面写下你的回答（留空表示没有偏好），然后点“继续”。",
    "No search has run yet. Edit the plan if you like, then Continue.": "尚未进行任何搜索。可以修改计划，然后点“继续”。",
    "Continued (process {pid}); its output goes to .runtime/view-resume.log.": "已继续（进程 {pid}）；输出写入 .runtime/view-resume.log。",
    "Not continued: {error}": "未能继续：{error}",
    "Started the follow-up {folder} (process {pid}).": "已开始追问 {folder}（进程 {pid}）。",
    "The question is empty.": "问题是空的。",
    "awaiting_answers": "等待回答",
    "awaiting_review": "等待审阅",
    "Title": "标题",
    "Purpose (optional)": "目的（可选）",
    "Language": "语言",
    "auto (from the title)": "自动（按标题）",
    "Max steps": "最大步数",
    "Max cost ($)": "最高费用（美元）",
    "Start": "开始",
    "Cancel": "取消",
    "e.g. Solid-state batteries in 2026": "例如：2026 年固态电池的产业化进展",
    "e.g. an investment memo": "例如：一份投资备忘录",
    "The run uses the model and settings `view` was started with.": "研究使用启动 view 时给出的模型和设置。",
    "No workspace here yet. Start one with New research, or with deep-researcher run --workspace in this folder.":
      "这里还没有工作区。点击“新研究”开始一个，或在此文件夹中运行 deep-researcher run --workspace。",
    "Choose a workspace on the left.": "请在左侧选择一个工作区。",
    "Choose a workspace.": "请选择一个工作区。",
    "Stop": "停止",
    "Resume": "继续",
    "Export": "导出",
    "Timeline": "时间线",
    "Dashboards": "看板",
    "Notebook": "笔记",
    "Sources": "来源",
    "Report": "报告",
    "Overall dashboard": "总体看板",
    "Current dashboard": "当前看板",
    "Edit": "编辑",
    "Save": "保存",
    "Save anyway": "仍然保存",
    "Workspaces list": "工作区列表",
    // app.js
    "This page needs its access token: open the URL `deep-researcher view` printed (http://127.0.0.1:PORT/?token=…).":
      "此页面需要访问令牌：请打开 `deep-researcher view` 打印的网址（http://127.0.0.1:PORT/?token=…）。",
    "running": "运行中",
    "stopped": "已停止",
    "interrupted": "已中断",
    "finished": "已完成",
    "unknown": "未知",
    "{n} steps": "{n} 步",
    "{n} tokens": "{n} tokens",
    "started {when}": "开始于 {when}",
    "citations: {n} checked": "引用：已核对 {n} 条",
    "accuracy {p}": "准确率 {p}",
    "{n} effective": "有效 {n} 条",
    "{n} supported": "{n} 条有依据",
    "{n} weak": "{n} 条依据不足",
    "{n} unsupported": "{n} 条无依据",
    "checked by the lexical check": "由词汇核对检查",
    "checked by the model {name}": "由模型 {name} 检查",
    "step {n} of {max}": "第 {n} 步，共 {max} 步",
    "step {n}": "第 {n} 步",
    "now: {what}": "当前：{what}",
    "Lost the connection to the view. If it was restarted, open the new URL it printed.":
      "与 view 的连接已断开。如果它已重启，请打开它新打印的网址。",
    "Lost the connection to the view; reconnecting…": "与 view 的连接已断开，正在重连……",
    "Too long to edit here (over 2 MB, shown cut): edit it in an editor.": "太长，无法在此编辑（超过 2 MB，只显示开头）：请用编辑器编辑。",
    "The run has changed this dashboard since you started editing.": "在你开始编辑之后，研究已经修改了这个看板。",
    "The agent reads your text at its next step.": "智能体会在下一步读取你的文字。",
    "{error}. Reload to see its version, or save yours over it.": "{error}。重新加载可查看它的版本，或用你的版本覆盖。",
    "Not saved: {error}": "未保存：{error}",
    "Saved {name}. A running agent continues from your text at its next step.": "已保存 {name}。运行中的智能体会在下一步从你的文字继续。",
    "No notes yet.": "还没有笔记。",
    "No sources yet.": "还没有来源。",
    "search result": "搜索结果",
    "fetched {when}": "抓取于 {when}",
    "seen in search results only": "仅在搜索结果中出现",
    "No report yet: the run writes report.md when it finishes.": "还没有报告：研究完成时会写出 report.md。",
    "No record for citation [{n}].": "引用 [{n}] 没有记录。",
    "Opening of the source{at}": "来源的开头{at}",
    "Supporting passage{at}": "支持的段落{at}",
    "closest passage — not verified{at}": "最接近的段落——未核实{at}",
    "no passage found — not verified": "未找到段落——未核实",
    "(no saved text)": "（没有保存的文本）",
    "lines {a}–{b}": "第 {a}–{b} 行",
    "Click to read its snapshot": "点击阅读其快照",
    "Seen in search results only": "仅在搜索结果中出现",
    "Not in the ledger.": "不在来源台账中。",
    "Stopping the run (process {pid}): it saves its state and ends, resumably.": "正在停止研究（进程 {pid}）：它会保存状态后结束，之后可以继续。",
    "Not stopped: {error}": "未停止：{error}",
    "Resumed (process {pid}); its output goes to .runtime/view-resume.log.": "已继续（进程 {pid}）；输出写入 .runtime/view-resume.log。",
    "Not resumed: {error}": "未能继续：{error}",
    "From a terminal: ": "在终端中：",
    "Exporting the report as {format}…": "正在将报告导出为 {format}……",
    "Exported {name}.": "已导出 {name}。",
    "Export failed: {error}": "导出失败：{error}",
    "Started {folder} (process {pid}); its output goes to .view-logs/{folder}.log.": "已开始 {folder}（进程 {pid}）；输出写入 .view-logs/{folder}.log。",
    "Not started: {error}": "未能开始：{error}",
    "Starting…": "正在开始……",
    "The title is empty.": "标题为空。",
    "This view shows one workspace: start `deep-researcher view` on the folder of your workspaces to start research here.":
      "此 view 只显示一个工作区：在存放工作区的文件夹上启动 `deep-researcher view`，才能在这里开始研究。",
    // timeline.js
    "Step {n}": "第 {n} 步",
    "File agent": "文件智能体",
    "Browser agent": "浏览器智能体",
    "Research agent {n}": "研究智能体 {n}",
    "{agent} · {actions} actions in {steps} steps": "{agent} · {steps} 步中 {actions} 个动作",
    "{n} chars": "{n} 字符",
    "Resumed (resume {n})": "已继续（第 {n} 次）",
    "Run started": "研究开始",
    "Run started with {model}": "研究开始，模型 {model}",
    "Run ended: {status}": "研究结束：{status}",
    "no action": "无动作",
    "The reply needed tolerance: {problems}": "回复需要容错处理：{problems}",
    "started: {question}": "开始：{question}",
    "ended": "结束",
    "ended: {how}": "结束：{how}",
    "Edited from outside the run: {files}; the agent continues from the edited text": "在研究之外被编辑：{files}；智能体将从编辑后的文字继续",
    "Context compacted ({how}): {before} → {after} tokens": "上下文已压缩（{how}）：{before} → {after} tokens",
    "The endpoint refused a request as too long: window {before} → {after} tokens": "服务端以过长为由拒绝了请求：窗口 {before} → {after} tokens",
    "Model call failed ({reason}); retry {n} in {delay}": "模型调用失败（{reason}）；{delay} 后第 {n} 次重试",
    "waiting for the model ({s})": "等待模型（{s}）",
    "starting": "正在开始",
    "Search provider {provider} failed: {error}": "搜索服务 {provider} 失败：{error}",
    "The first {mb} MB of the event log are not shown (the view sends only its last {kept} MB)": "事件日志的前 {mb} MB 未显示（view 只发送最后 {kept} MB）",
    "{n} earlier steps are not shown: the page keeps the last {max}": "更早的 {n} 步未显示：页面只保留最后 {max} 步",
    "The whole log is in .runtime/events.jsonl.": "完整日志在 .runtime/events.jsonl 中。",
  };

  const wanted = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  const lang = /^zh\b/i.test(wanted) ? "zh" : "en";

  // t("Step {n}", {n: 3}): the text in the page's language, its {names} filled in.
  function t(text, values) {
    const template = (lang === "zh" && ZH[text]) || text;
    return template.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole));
  }

  // The words written in index.html: data-i18n (text), data-i18n-placeholder, data-i18n-label.
  function translatePage(root = document) {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    for (const node of root.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
    for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }

  window.DeepResearcherI18n = { lang, t, translatePage };
})();
