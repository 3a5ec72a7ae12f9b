// The run page: one workspace's timeline, dashboards (with their editor), notebook, sources and
// report, its status line, and the Stop, Resume and Export buttons.

import { $, $$, api, badge, el, go, money, number, post, say, showHtml, sourcesById, t, token, view } from "./shared.js";
import { list, listItem } from "./runs-list.js";
import { hidePopover } from "./popover.js";
import { showSteering } from "./steering.js";

const { timeline, addEvent, noteSkipped, resetTimeline, scrollToEnd } = window.DeepResearcherView;

// The citation audit's figures (run.json's summary.citations), as one line:
// "citations: 12 checked · accuracy 83% · 10 effective".
function citationFigures(c) {
  if (!c) return null;
  const accuracy = typeof c.citation_accuracy === "number" ? `${Math.round(c.citation_accuracy * 100)}%` : "n/a";
  const parts = [t("citations: {n} checked", { n: number(c.checked) }), t("accuracy {p}", { p: accuracy })];
  if (typeof c.effective_citations === "number") parts.push(t("{n} effective", { n: number(c.effective_citations) }));
  return parts.join(" · ");
}

function citationDetail(c) {
  const counts = ["supported", "weak", "unsupported"].filter((k) => typeof c[k] === "number").map((k) => t(`{n} ${k}`, { n: number(c[k]) }));
  let by = "";
  if (c.checked_by) by = c.checked_by === "lexical" ? t("checked by the lexical check") : t("checked by the model {name}", { name: c.checked_by.replace(/^model:/, "") });
  return [counts.join(", "), by].filter(Boolean).join("; ");
}

export function openWorkspace(ws) {
  if (view.stream) view.stream.close();
  Object.assign(view, {
    ws, summary: null, stream: null, versions: {}, dashboards: {}, editing: {}, sources: null,
    citations: {}, notebookFile: null, sourceId: null,
  });
  view.stale = new Set(["dashboards", "notebook", "sources", "report"]);
  resetTimeline();
  say("");
  $("#new-run").hidden = true;
  $("#empty").hidden = !!ws;
  $("#run").hidden = !ws;
  for (const item of $$("#workspace-list li")) item.classList.remove("selected");
  if (!ws) return;
  // EventSource cannot send a header: the token goes in its URL (never shown, nor sent as a referrer).
  const stream = new EventSource(`/api/events?${new URLSearchParams({ ws, token })}`);
  stream.addEventListener("log", (message) => {
    for (const event of JSON.parse(message.data)) addEvent(event);
    scrollToEnd(); // once per batch (timeline.js appends without scrolling)
    showActivity();
  });
  stream.addEventListener("skipped", (message) => noteSkipped(JSON.parse(message.data)));
  stream.addEventListener("state", (message) => showState(JSON.parse(message.data)));
  stream.addEventListener("reset", () => resetTimeline());
  // The browser reconnects by itself (after `retry`), continuing from the last event it got.
  stream.addEventListener("error", () => {
    if (stream.readyState === EventSource.CLOSED) {
      say(t("Lost the connection to the view. If it was restarted, open the new URL it printed."), "error", true);
    } else {
      say(t("Lost the connection to the view; reconnecting…"), "error", true);
    }
  });
  stream.addEventListener("open", () => {
    if ($("#message").classList.contains("lost")) say("");
  });
  view.stream = stream;
  for (const item of $$("#workspace-list li")) item.classList.toggle("selected", item.dataset.ws === ws);
}

export function showTab(tab) {
  if (!["timeline", "dashboards", "notebook", "sources", "report"].includes(tab)) tab = "timeline";
  view.tab = tab;
  for (const button of $$("#tabs button")) button.classList.toggle("active", button.dataset.tab === tab);
  for (const section of $$(".tab")) section.hidden = section.id !== `tab-${tab}`;
  if (tab === "timeline") scrollToEnd();
  hidePopover();
  if (view.ws && view.stale.has(tab)) load(tab);
}

function load(tab) {
  view.stale.delete(tab);
  const loaders = { dashboards: loadDashboards, notebook: loadNotebook, sources: loadSources, report: loadReport };
  if (loaders[tab]) loaders[tab]().catch((error) => say(error.message, "error"));
}

// -- the run's state (status line, buttons, what to reload) ----------------------------------------
const DEPENDS = {
  "overall_dashboard.md": ["dashboards"],
  "current_dashboard.md": ["dashboards"],
  Notebook: ["notebook"],
  sources: ["sources", "report"],
  "report.md": ["report"],
};

function showState(s) {
  view.summary = s;
  const listed = $$("#workspace-list li").find((item) => item.dataset.ws === s.id);
  if (listed) {
    // the list follows the open run live
    list.rows.set(s.id, { ...s, received: Date.now() });
    listed.replaceWith(listItem(list.rows.get(s.id)));
  }
  $("#run-title").textContent = s.title;
  $("#run-purpose").textContent = s.purpose || "";
  $("#stop").hidden = !s.running;
  $("#resume").hidden = !s.resumable;
  $("#exports").hidden = !s.has_report;
  showSteering(s);
  for (const [file, version] of Object.entries(s.versions || {})) {
    if (view.versions[file] !== undefined && view.versions[file] !== version) {
      for (const tab of DEPENDS[file] || []) view.stale.add(tab);
      if (file.endsWith("_dashboard.md") && view.editing[file] !== undefined) {
        noteEditor(file, t("The run has changed this dashboard since you started editing."));
      }
    }
    view.versions[file] = version;
  }
  if (view.stale.has(view.tab)) load(view.tab);
  showActivity();
}

function showActivity() {
  const s = view.summary;
  if (!s) return;
  const line = $("#status-line");
  line.replaceChildren(badge(s.status, s.citation_note));
  const parts = [];
  // run.json counts finished steps; while the run works, the step under way is the one shown.
  const step = s.running ? Math.max(s.steps, timeline.lastStep || 0) : s.steps;
  parts.push(s.max_steps ? t("step {n} of {max}", { n: number(step), max: number(s.max_steps) }) : t("{n} steps", { n: number(step) }));
  if (s.running && timeline.activity) parts.push(timeline.activity);
  parts.push(t("{n} tokens", { n: number(s.tokens) }));
  if (s.cost) parts.push(money(s.cost)); // no prices configured: no cost to show
  parts.push(s.elapsed_text);
  if (s.model) parts.push(s.model);
  line.append(el("span", "figures", parts.join(" · ")));
  const cited = citationFigures(s.citations);
  if (cited) {
    const shown = el("span", "citation-figures", cited);
    shown.title = citationDetail(s.citations);
    line.append(shown);
  }
  if (s.citation_note) line.append(el("span", "unverified-note", s.citation_note));
  if (!s.running && s.stop_reason) line.append(el("span", "reason", s.stop_reason));
  if (s.resume_command) {
    // the same command `run` and `inspect` print: it pastes into a shell as shown
    const command = el("span", "resume-command", t("From a terminal: "));
    command.append(el("code", "", s.resume_command));
    line.append(command);
  }
}


async function loadDashboards() {
  const data = await api("/api/dashboards", { ws: view.ws });
  for (const article of $$(".dashboard")) {
    const name = article.dataset.name;
    view.dashboards[name] = data[name];
    showHtml($(".doc", article), data[name].html);
    // Only the beginning of a very long dashboard came: an edit of it would cut the file (the
    // server refuses to save it too).
    const edit = $(".edit", article);
    edit.disabled = !!data[name].cut;
    edit.title = data[name].cut ? t("Too long to edit here (over 2 MB, shown cut): edit it in an editor.") : "";
  }
}

function noteEditor(name, text, withOverwrite = false) {
  const article = $(`.dashboard[data-name="${name}"]`);
  const holder = $(".editor-note", article);
  holder.replaceChildren(el("span", "", text));
  if (withOverwrite) {
    const force = el("button", "danger", t("Save anyway"));
    force.type = "button";
    force.addEventListener("click", () => saveDashboard(name, true));
    holder.append(" ", force);
  }
}

function startEditing(name) {
  const article = $(`.dashboard[data-name="${name}"]`);
  const current = view.dashboards[name] || { text: "", sha: "" };
  if (current.cut) return;
  view.editing[name] = current.sha;
  $("textarea", article).value = current.text;
  noteEditor(name, t("The agent reads your text at its next step."));
  $(".editor", article).hidden = false;
  $(".doc", article).hidden = true;
  $(".edit", article).hidden = true;
  $("textarea", article).focus();
}

function stopEditing(name) {
  const article = $(`.dashboard[data-name="${name}"]`);
  delete view.editing[name];
  $(".editor", article).hidden = true;
  $(".doc", article).hidden = false;
  $(".edit", article).hidden = false;
}

async function saveDashboard(name, overwrite = false) {
  const article = $(`.dashboard[data-name="${name}"]`);
  const content = $("textarea", article).value;
  try {
    await post(`/api/dashboards/${encodeURIComponent(name)}`, { ws: view.ws }, { content, base: overwrite ? null : view.editing[name] });
  } catch (error) {
    if (error.status === 409) {
      noteEditor(name, t("{error}. Reload to see its version, or save yours over it.", { error: error.message }), true);
    } else {
      noteEditor(name, t("Not saved: {error}", { error: error.message }));
    }
    return;
  }
  stopEditing(name);
  say(t("Saved {name}. A running agent continues from your text at its next step.", { name }), "ok");
  await loadDashboards();
}

async function loadNotebook() {
  const data = await api("/api/notebook", { ws: view.ws });
  const list = $("#notebook-files");
  list.replaceChildren();
  for (const path of data.files) {
    const item = el("li", path === view.notebookFile ? "selected" : "");
    const button = el("button", "", path.replace(/^Notebook\//, ""));
    button.type = "button";
    button.addEventListener("click", () => openNotebookFile(path));
    item.append(button);
    list.append(item);
  }
  if (!data.files.length) {
    list.append(el("li", "hint", t("No notes yet.")));
    $("#notebook-doc").replaceChildren();
  } else {
    await openNotebookFile(data.files.includes(view.notebookFile) ? view.notebookFile : data.files[0]);
  }
}

async function openNotebookFile(path) {
  view.notebookFile = path;
  for (const button of $$("#notebook-files button")) {
    button.parentElement.classList.toggle("selected", `Notebook/${button.textContent}` === path);
  }
  const data = await api("/api/file", { ws: view.ws, path });
  if (view.notebookFile !== path) return; // another file was chosen meanwhile
  showHtml($("#notebook-doc"), data.html);
}

async function loadSources() {
  view.sources = null;
  const known = await sourcesById();
  const list = $("#source-list");
  list.replaceChildren();
  for (const s of known.values()) {
    const item = el("li", s.id === view.sourceId ? "selected" : "");
    const button = el("button");
    button.type = "button";
    button.dataset.id = s.id;
    button.append(el("span", "source-badge", s.id), el("span", "source-title", s.title || s.url));
    if (!s.fetched) button.append(el("span", "source-seen", t("search result")));
    button.addEventListener("click", () => openSource(s.id));
    item.append(button);
    list.append(item);
  }
  if (!known.size) list.append(el("li", "hint", t("No sources yet.")));
  const first = view.sourceId && known.has(view.sourceId) ? view.sourceId : known.keys().next().value;
  if (first) await openSource(first);
}

async function openSource(id) {
  view.sourceId = id;
  for (const button of $$("#source-list button")) button.parentElement.classList.toggle("selected", button.dataset.id === id);
  const data = await api("/api/source", { ws: view.ws, id });
  if (view.sourceId !== id) return; // another source was chosen meanwhile
  const s = data.source;
  const doc = $("#source-doc");
  doc.replaceChildren();
  const head = el("header", "source-head");
  head.append(el("h2", "", `${s.id} · ${s.title || s.url}`));
  const link = el("a", "source-url", s.url);
  if (/^https?:/i.test(s.url)) {
    link.href = s.url;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
  }
  const facts = [s.fetched ? t("fetched {when}", { when: s.fetched_at || "" }) : t("seen in search results only"), s.content_type, s.snapshot].filter(Boolean);
  head.append(link, el("div", "source-facts", facts.join(" · ")));
  const body = el("div", "markdown snapshot");
  doc.append(head, body);
  showHtml(body, data.html);
}

async function loadReport() {
  const doc = $("#report-doc");
  let data;
  try {
    data = await api("/api/report", { ws: view.ws });
  } catch (error) {
    if (error.status !== 404) throw error;
    doc.replaceChildren(el("p", "hint", t("No report yet: the run writes report.md when it finishes.")));
    return;
  }
  view.citations = data.citations || {};
  showHtml(doc, data.html);
}

// -- buttons ---------------------------------------------------------------------------------------
$("#tabs").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-tab]");
  if (button && view.ws) go(button.dataset.tab);
});

for (const article of $$(".dashboard")) {
  const name = article.dataset.name;
  $(".edit", article).addEventListener("click", () => startEditing(name));
  $(".cancel", article).addEventListener("click", () => stopEditing(name));
  $(".save", article).addEventListener("click", () => saveDashboard(name));
}

$("#stop").addEventListener("click", async () => {
  try {
    const answer = await post("/api/stop", { ws: view.ws });
    say(t("Stopping the run (process {pid}): it saves its state and ends, resumably.", { pid: answer.stopping }), "ok");
  } catch (error) {
    say(t("Not stopped: {error}", { error: error.message }), "error");
  }
});

$("#resume").addEventListener("click", async () => {
  $("#resume").disabled = true;
  try {
    const answer = await post("/api/resume", { ws: view.ws });
    say(t("Resumed (process {pid}); its output goes to .runtime/view-resume.log.", { pid: answer.resumed }), "ok");
  } catch (error) {
    say(t("Not resumed: {error}", { error: error.message }), "error");
  } finally {
    $("#resume").disabled = false;
  }
});

$("#exports").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-format]");
  if (!button) return;
  const format = button.dataset.format;
  button.disabled = true;
  say(t("Exporting the report as {format}…", { format: format.toUpperCase() }));
  try {
    const response = await fetch(`/api/export/${format}?ws=${encodeURIComponent(view.ws)}`, { headers: { "X-Token": token } });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(body.error || `${response.status} ${response.statusText}`);
    }
    const blob = await response.blob();
    const link = el("a");
    link.href = URL.createObjectURL(blob);
    link.download = `${(view.summary && view.summary.folder) || "report"}.${format}`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    say(t("Exported {name}.", { name: link.download }), "ok");
  } catch (error) {
    say(t("Export failed: {error}", { error: error.message }), "error");
  } finally {
    button.disabled = false;
  }
});
