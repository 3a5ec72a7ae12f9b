// The live view's page (with timeline.js, loaded first). Plain JavaScript, no build step, nothing
// loaded from elsewhere.
//
// Safety rule: text that comes from a run or a web page (event fields, titles, URLs, passages) is put
// into the page with textContent only. innerHTML takes only the `html` fields the server rendered
// with its safe Markdown renderer (raw HTML off). The Content-Security-Policy forbids inline scripts
// besides.
"use strict";

(() => {
  // The access token comes in the URL the view printed (?token=…). It is kept in this tab only
  // (sessionStorage is per origin, port included, and survives a reload) and leaves the address
  // bar at once. Never a cookie: the browser would send one to every port of 127.0.0.1.
  const TOKEN_KEY = "deep-researcher-view-token";
  const token = (() => {
    const given = new URLSearchParams(location.search).get("token");
    let kept = null;
    try {
      if (given) sessionStorage.setItem(TOKEN_KEY, given);
      kept = sessionStorage.getItem(TOKEN_KEY);
    } catch (error) {
      // storage disabled: the token lives as long as the page
    }
    if (given) history.replaceState(null, "", location.pathname + location.hash);
    return given || kept || "";
  })();
  const NO_TOKEN = "This page needs its access token: open the URL `deep-researcher view` printed (http://127.0.0.1:PORT/?token=…).";
  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

  const { el, number, timeline, addEvent, noteSkipped, resetTimeline, scrollToEnd } = window.DeepResearcherView;

  const view = {
    ws: null, // the workspace shown
    tab: "timeline",
    summary: null,
    stream: null, // its EventSource
    versions: {}, // file fingerprints last seen in the run's state
    stale: new Set(), // tabs to reload when shown
    dashboards: {}, // name -> {text, sha} as last loaded
    editing: {}, // name -> sha of the text the edit started from
    sources: null, // id -> source, for the [S<n>] marks
    citations: {}, // report citation number -> records
    notebookFile: null,
    sourceId: null,
  };

  // -- the server ----------------------------------------------------------------------------------
  async function api(path, params = {}, options = {}) {
    const url = new URL(path, location.origin);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    const response = await fetch(url, { ...options, headers: { "X-Token": token, ...(options.headers || {}) } });
    const type = response.headers.get("content-type") || "";
    const body = type.includes("application/json") ? await response.json() : null;
    if (!response.ok) {
      const reason = response.status === 401 ? NO_TOKEN : `${response.status} ${response.statusText}`;
      const error = new Error(body && body.error ? body.error : reason);
      error.status = response.status;
      error.body = body;
      throw error;
    }
    return body;
  }

  function post(path, params, payload) {
    return api(path, params, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload || {}),
    });
  }

  function say(text, kind = "info") {
    const box = $("#message");
    box.textContent = text;
    box.className = `message ${kind}`;
    box.hidden = !text;
    clearTimeout(say.timer);
    if (kind === "ok") say.timer = setTimeout(() => say(""), 12000);
  }

  // -- the workspace list --------------------------------------------------------------------------
  const STATUS_LABEL = { interrupted: "interrupted", stopped: "stopped", finished: "finished", running: "running" };

  const money = (cost) => (cost ? `$${Number(cost).toFixed(cost < 1 ? 4 : 2)}` : null);

  function figures(s) {
    const parts = [`${number(s.steps)} steps`, `${number(s.tokens)} tokens`];
    if (s.cost) parts.push(money(s.cost));
    parts.push(s.elapsed_text);
    return parts.join(" · ");
  }

  function badge(status, note) {
    const shown = el("span", `badge status-${status}`, STATUS_LABEL[status] || status);
    // A finished run whose report keeps citations the audit could not verify says so on hover.
    if (note) {
      shown.classList.add("unverified");
      shown.title = note;
    }
    return shown;
  }

  // The citation audit's figures (run.json's summary.citations), as one line:
  // "citations: 12 checked · accuracy 83% · 10 effective".
  function citationFigures(c) {
    if (!c) return null;
    const accuracy = typeof c.citation_accuracy === "number" ? `${Math.round(c.citation_accuracy * 100)}%` : "n/a";
    const parts = [`citations: ${number(c.checked)} checked`, `accuracy ${accuracy}`];
    if (typeof c.effective_citations === "number") parts.push(`${number(c.effective_citations)} effective`);
    return parts.join(" · ");
  }

  function citationDetail(c) {
    const counts = ["supported", "weak", "unsupported"].filter((k) => typeof c[k] === "number").map((k) => `${number(c[k])} ${k}`);
    const by = c.checked_by ? `checked by ${c.checked_by === "lexical" ? "the lexical check" : c.checked_by.replace(/^model:/, "the model ")}` : "";
    return [counts.join(", "), by].filter(Boolean).join("; ");
  }

  function listItem(s) {
    const item = el("li", s.id === view.ws ? "selected" : "");
    item.dataset.ws = s.id;
    const link = el("a");
    link.href = `#ws=${encodeURIComponent(s.id)}&tab=${view.tab}`;
    const top = el("div", "ws-top");
    top.append(el("span", "ws-title", s.title), badge(s.status, s.citation_note));
    link.append(top, el("div", "ws-figures", figures(s)));
    item.append(link);
    return item;
  }

  async function refreshList() {
    let data;
    try {
      data = await api("/api/workspaces");
    } catch (error) {
      if (error.status === 401) {
        say(NO_TOKEN, "error");
        $("#empty").textContent = NO_TOKEN; // shown when no workspace is open (the message box is not)
      }
      return;
    }
    $("#folder").textContent = data.folder;
    const list = $("#workspace-list");
    list.replaceChildren(...data.workspaces.map(listItem));
    $("#no-workspaces").hidden = data.workspaces.length > 0;
    if (!view.ws && data.workspaces.length === 1) location.hash = `ws=${encodeURIComponent(data.workspaces[0].id)}`;
  }

  // -- routing: #ws=<id>&tab=<tab> -------------------------------------------------------------------
  function route() {
    const params = new URLSearchParams(location.hash.slice(1));
    const ws = params.get("ws");
    const tab = params.get("tab") || view.tab;
    if (ws !== view.ws) openWorkspace(ws);
    showTab(tab);
  }

  function go(tab) {
    location.hash = `ws=${encodeURIComponent(view.ws)}&tab=${tab}`;
  }

  function openWorkspace(ws) {
    if (view.stream) view.stream.close();
    Object.assign(view, {
      ws, summary: null, stream: null, versions: {}, dashboards: {}, editing: {}, sources: null,
      citations: {}, notebookFile: null, sourceId: null,
    });
    view.stale = new Set(["dashboards", "notebook", "sources", "report"]);
    resetTimeline();
    say("");
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
        say("Lost the connection to the view. If it was restarted, open the new URL it printed.", "error");
      } else {
        say("Lost the connection to the view; reconnecting…", "error");
      }
    });
    stream.addEventListener("open", () => {
      if ($("#message").textContent.startsWith("Lost the connection")) say("");
    });
    view.stream = stream;
    refreshList();
  }

  function showTab(tab) {
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
    if (listed) listed.replaceWith(listItem(s)); // the list follows the open run live
    $("#run-title").textContent = s.title;
    $("#run-purpose").textContent = s.purpose || "";
    $("#stop").hidden = !s.running;
    $("#resume").hidden = !s.resumable;
    $("#exports").hidden = !s.has_report;
    for (const [file, version] of Object.entries(s.versions || {})) {
      if (view.versions[file] !== undefined && view.versions[file] !== version) {
        for (const tab of DEPENDS[file] || []) view.stale.add(tab);
        if (file.endsWith("_dashboard.md") && view.editing[file] !== undefined) {
          noteEditor(file, "The run has changed this dashboard since you started editing.");
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
    parts.push(s.max_steps ? `step ${number(step)}/${number(s.max_steps)}` : `${number(step)} steps`);
    if (s.running && timeline.activity) parts.push(timeline.activity);
    parts.push(`${number(s.tokens)} tokens`);
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
  }

  // -- rendered documents ----------------------------------------------------------------------------
  function showHtml(container, html) {
    container.innerHTML = html; // server-rendered, raw HTML off (see the top of this file)
    for (const link of $$("a[href]", container)) {
      const href = link.getAttribute("href");
      if (/^https?:/i.test(href)) {
        link.target = "_blank";
        link.rel = "noopener noreferrer";
      }
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
      edit.title = data[name].cut ? "Too long to edit here (over 2 MB, shown cut): edit it in an editor." : "";
    }
  }

  function noteEditor(name, text, withOverwrite = false) {
    const article = $(`.dashboard[data-name="${name}"]`);
    const holder = $(".editor-note", article);
    holder.replaceChildren(el("span", "", text));
    if (withOverwrite) {
      const force = el("button", "danger", "Save anyway");
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
    noteEditor(name, "The agent reads your text at its next step.");
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
        noteEditor(name, `${error.message}. Reload to see its version, or save yours over it.`, true);
      } else {
        noteEditor(name, `Not saved: ${error.message}`);
      }
      return;
    }
    stopEditing(name);
    say(`Saved ${name}. A running agent continues from your text at its next step.`, "ok");
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
      list.append(el("li", "hint", "No notes yet."));
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

  async function sourcesById() {
    if (!view.sources || view.stale.has("sources")) {
      const data = await api("/api/sources", { ws: view.ws });
      view.sources = new Map(data.sources.map((s) => [s.id, s]));
    }
    return view.sources;
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
      if (!s.fetched) button.append(el("span", "source-seen", "search result"));
      button.addEventListener("click", () => openSource(s.id));
      item.append(button);
      list.append(item);
    }
    if (!known.size) list.append(el("li", "hint", "No sources yet."));
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
    const facts = [s.fetched ? `fetched ${s.fetched_at || ""}` : "seen in search results only", s.content_type, s.snapshot].filter(Boolean);
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
      doc.replaceChildren(el("p", "hint", "No report yet: the run writes report.md when it finishes."));
      return;
    }
    view.citations = data.citations || {};
    showHtml(doc, data.html);
  }

  // -- citation and source pop-ups -------------------------------------------------------------------
  const popover = $("#popover");
  let pinned = false;

  function hidePopover() {
    popover.hidden = true;
    pinned = false;
  }

  function place(anchor) {
    const box = anchor.getBoundingClientRect();
    popover.hidden = false;
    const width = popover.offsetWidth;
    const left = Math.max(8, Math.min(box.left + window.scrollX - 20, window.scrollX + document.documentElement.clientWidth - width - 8));
    let top = box.bottom + window.scrollY + 6;
    if (box.bottom + popover.offsetHeight + 12 > window.innerHeight) top = box.top + window.scrollY - popover.offsetHeight - 6;
    popover.style.left = `${left}px`;
    popover.style.top = `${Math.max(8, top)}px`;
  }

  const normalize = (text) => text.replace(/\[[^\]]*\]/g, "").replace(/\s+/g, " ").trim().toLowerCase();

  function pickRecord(records, anchor) {
    // One number may back several statements: take the one written where the mark is.
    const block = normalize((anchor.closest("p, li, td, th, blockquote") || anchor.parentElement).textContent);
    const scored = records.map((r) => {
      const words = normalize(r.statement || "").split(" ").filter((w) => w.length > 3);
      const hits = words.filter((w) => block.includes(w)).length;
      return [words.length ? hits / words.length : 0, r];
    });
    scored.sort((a, b) => b[0] - a[0]);
    return scored[0][1];
  }

  function sourceHeader(title, url, id) {
    const head = el("div", "pop-head");
    head.append(el("span", "pop-title", title || url || id || ""));
    if (url) {
      const link = el("a", "pop-link", url);
      if (/^https?:/i.test(url)) {
        link.href = url;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
      }
      head.append(link);
    }
    return head;
  }

  function showCitation(anchor) {
    const n = anchor.dataset.cite;
    const records = view.citations[n];
    popover.replaceChildren();
    if (!records || !records.length) {
      popover.append(el("div", "pop-passage", `No record for citation [${n}].`));
    } else {
      const r = pickRecord(records, anchor);
      popover.append(el("div", "pop-number", `[${n}]${r.source ? ` · ${r.source}` : ""}`), sourceHeader(r.title, r.url, r.source));
      if (r.verdict) popover.append(el("span", `badge verdict-${r.verdict}`, r.verdict));
      const where = r.file ? `${r.file}${r.lines ? `, lines ${r.lines[0]}–${r.lines[1]}` : ""}` : "";
      const at = where ? ` (${where})` : "";
      if (!r.statement) {
        // No audit record: the opening of the source, which claims nothing.
        popover.append(el("div", "pop-label", `Opening of the source${at}`));
        popover.append(el("blockquote", "pop-passage", r.passage || "(no saved text)"));
      } else if (r.verified) {
        popover.append(el("div", "pop-label", `Supporting passage${at}`));
        popover.append(el("blockquote", "pop-passage", r.passage || "(no saved text)"));
      } else {
        // The check did not confirm the statement: the passage is only the closest one it found,
        // never to be read as the support.
        const reason = (r.reasons || []).find((text) => text && text.trim()) || "";
        popover.append(el("div", "pop-label not-verified", r.passage ? `closest passage — not verified${at}` : "no passage found — not verified"));
        if (reason) popover.append(el("div", "pop-reason", reason));
        if (r.passage) popover.append(el("blockquote", "pop-passage closest", r.passage));
      }
    }
    place(anchor);
  }

  async function showSourceMark(anchor) {
    const id = anchor.dataset.source;
    const known = await sourcesById();
    const s = known.get(id);
    popover.replaceChildren(el("div", "pop-number", id));
    if (s) {
      popover.append(sourceHeader(s.title, s.url, id), el("div", "pop-label", s.fetched ? "Click to read its snapshot" : "Seen in search results only"));
    } else {
      popover.append(el("div", "pop-passage", "Not in the ledger."));
    }
    place(anchor);
  }

  document.addEventListener("mouseover", (event) => {
    if (pinned) return;
    const cite = event.target.closest("a.cite");
    const mark = event.target.closest(".source-id");
    if (cite) showCitation(cite);
    else if (mark) showSourceMark(mark).catch(() => {});
    else if (!event.target.closest("#popover")) hidePopover();
  });

  document.addEventListener("click", (event) => {
    const cite = event.target.closest("a.cite");
    const mark = event.target.closest(".source-id");
    const inPage = event.target.closest('a[href^="#ref-"]');
    if (cite) {
      event.preventDefault(); // the hash holds the route: show the passage instead of jumping
      showCitation(cite);
      pinned = true;
    } else if (mark) {
      view.sourceId = mark.dataset.source;
      view.stale.add("sources");
      go("sources");
    } else if (inPage) {
      event.preventDefault();
      const target = document.getElementById(inPage.getAttribute("href").slice(1));
      if (target) target.scrollIntoView({ block: "center" });
    } else if (!event.target.closest("#popover")) {
      hidePopover();
    }
  });

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
      say(`Stopping the run (process ${answer.stopping}): it saves its state and ends, resumably.`, "ok");
    } catch (error) {
      say(`Not stopped: ${error.message}`, "error");
    }
  });

  $("#resume").addEventListener("click", async () => {
    $("#resume").disabled = true;
    try {
      const answer = await post("/api/resume", { ws: view.ws });
      say(`Resumed (process ${answer.resumed}); its output goes to .runtime/view-resume.log.`, "ok");
    } catch (error) {
      say(`Not resumed: ${error.message}`, "error");
    } finally {
      $("#resume").disabled = false;
    }
  });

  $("#exports").addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-format]");
    if (!button) return;
    const format = button.dataset.format;
    button.disabled = true;
    say(`Exporting the report as ${format.toUpperCase()}…`);
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
      say(`Exported ${link.download}.`, "ok");
    } catch (error) {
      say(`Export failed: ${error.message}`, "error");
    } finally {
      button.disabled = false;
    }
  });

  window.addEventListener("hashchange", route);
  refreshList().then(route);
  setInterval(refreshList, 3000);
})();
