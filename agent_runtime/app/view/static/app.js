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
  const { t, translatePage, lang } = window.DeepResearcherI18n;
  translatePage();
  const NO_TOKEN = t("This page needs its access token: open the URL `deep-researcher view` printed (http://127.0.0.1:PORT/?token=…).");
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

  function say(text, kind = "info", lost = false) {
    const box = $("#message");
    box.textContent = text;
    box.className = `message ${kind}${lost ? " lost" : ""}`;
    box.hidden = !text;
    clearTimeout(say.timer);
    if (kind === "ok") say.timer = setTimeout(() => say(""), 12000);
  }

  // -- the workspace list --------------------------------------------------------------------------
  const money = (cost) => (cost ? `$${Number(cost).toFixed(cost < 1 ? 4 : 2)}` : null);

  // Elapsed time as the server writes it (run_record.duration): 45s, 3m07s.
  function duration(seconds) {
    const whole = Math.max(0, Math.floor(seconds));
    const minutes = Math.floor(whole / 60);
    const rest = whole % 60;
    return minutes ? `${minutes}m${String(rest).padStart(2, "0")}s` : `${rest}s`;
  }

  // A running row's time goes on between the server's updates (it sends a row again when its
  // figures change, not every second): counted here from when the row came.
  function elapsedText(s) {
    if (!s.running || !s.received) return s.elapsed_text;
    return duration(Number(s.elapsed || 0) + (Date.now() - s.received) / 1000);
  }

  function figures(s) {
    const parts = [t("{n} steps", { n: number(s.steps) }), t("{n} tokens", { n: number(s.tokens) })];
    if (s.cost) parts.push(money(s.cost));
    parts.push(elapsedText(s));
    if (s.cited) {  // a finished run's [citation accuracy, effective citations]: what runs are compared by
      const [accuracy, effective] = s.cited;
      if (typeof accuracy === "number") parts.push(t("accuracy {p}", { p: `${Math.round(accuracy * 100)}%` }));
      if (typeof effective === "number") parts.push(t("{n} effective", { n: number(effective) }));
    }
    return parts.join(" · ");
  }

  // When a run started, in the reader's locale: with the folder name, what tells two runs of one
  // title apart.
  function startedAt(stamp) {
    const date = stamp ? new Date(stamp) : null;
    if (!date || Number.isNaN(date.getTime())) return "";
    return date.toLocaleString(lang === "zh" ? "zh-CN" : undefined, { dateStyle: "short", timeStyle: "short" });
  }

  function badge(status, note) {
    const shown = el("span", `badge status-${status}`, t(status));
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

  function listItem(s) {
    const item = el("li", s.id === view.ws ? "selected" : "");
    item.dataset.ws = s.id;
    const link = el("a");
    link.href = `#ws=${encodeURIComponent(s.id)}&tab=${view.tab}`;
    const top = el("div", "ws-top");
    top.append(el("span", "ws-title", s.title), badge(s.status, s.citation_note));
    const where = [s.folder, startedAt(s.created_at) && t("started {when}", { when: startedAt(s.created_at) })];
    link.append(top, el("div", "ws-where", where.filter(Boolean).join(" · ")), el("div", "ws-figures", figures(s)));
    item.append(link);
    return item;
  }

  // -- the list, pushed by the server: /api/workspaces/stream sends it whole, then the rows that
  // changed. Should the stream fail for good (an old proxy, a refused token), the page asks for the
  // whole list every few seconds instead, and tries the stream again now and then.
  const list = { rows: new Map(), order: [], stream: null, poll: null };

  function renderList() {
    const shown = list.order.map((id) => list.rows.get(id)).filter(Boolean);
    $("#workspace-list").replaceChildren(...shown.map(listItem));
    $("#no-workspaces").hidden = shown.length > 0;
    // The one workspace opens by itself (also when it appears after the page: a run just started).
    if (!view.ws && !location.hash && shown.length === 1) location.hash = `ws=${encodeURIComponent(shown[0].id)}`;
  }

  function applyList(data) {
    const now = Date.now();
    $("#folder").textContent = data.folder;
    $("#new-run-button").hidden = !data.can_start;
    list.rows = new Map(data.workspaces.map((s) => [s.id, { ...s, received: now }]));
    list.order = data.workspaces.map((s) => s.id);
    renderList();
  }

  function applyChanges(change) {
    const now = Date.now();
    for (const id of change.removed || []) list.rows.delete(id);
    for (const row of change.rows || []) list.rows.set(row.id, { ...row, received: now });
    if (change.order || (change.removed || []).length) {
      if (change.order) list.order = change.order;
      renderList();
      return;
    }
    for (const row of change.rows || []) {
      const shown = $$("#workspace-list li").find((item) => item.dataset.ws === row.id);
      if (shown) shown.replaceWith(listItem(list.rows.get(row.id)));
    }
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
    applyList(data);
  }

  function startPolling() {
    if (list.poll) return;
    refreshList();
    list.poll = setInterval(refreshList, 3000);
  }

  function stopPolling() {
    clearInterval(list.poll);
    list.poll = null;
  }

  function watchList() {
    if (!window.EventSource) {
      startPolling();
      return;
    }
    const stream = new EventSource(`/api/workspaces/stream?${new URLSearchParams({ token })}`);
    list.stream = stream;
    stream.addEventListener("list", (message) => {
      stopPolling();
      applyList(JSON.parse(message.data));
    });
    stream.addEventListener("changes", (message) => applyChanges(JSON.parse(message.data)));
    // A dropped connection is reopened by the browser (after `retry`), and the server then sends
    // the whole list again. Closed for good (refused, or the view is gone): poll instead.
    stream.addEventListener("error", () => {
      if (stream.readyState !== EventSource.CLOSED) return;
      startPolling();
      setTimeout(() => {
        if (list.stream === stream) watchList();
      }, 15000);
    });
  }

  // The running rows' elapsed time, counted on between updates.
  setInterval(() => {
    for (const item of $$("#workspace-list li")) {
      const s = list.rows.get(item.dataset.ws);
      const shown = s && s.running ? $(".ws-figures", item) : null;
      if (shown) shown.textContent = figures(s);
    }
  }, 1000);

  // -- routing: #ws=<id>&tab=<tab> -------------------------------------------------------------------
  function route() {
    if (location.hash === "#new") {
      showNewRun();
      return;
    }
    $("#new-run").hidden = true;
    const params = new URLSearchParams(location.hash.slice(1));
    const ws = params.get("ws");
    if (!ws && !view.ws) $("#empty").hidden = false;
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
      popover.append(el("div", "pop-passage", t("No record for citation [{n}].", { n })));
    } else {
      const r = pickRecord(records, anchor);
      popover.append(el("div", "pop-number", `[${n}]${r.source ? ` · ${r.source}` : ""}`), sourceHeader(r.title, r.url, r.source));
      if (r.verdict) popover.append(el("span", `badge verdict-${r.verdict}`, r.verdict));
      const where = r.file ? `${r.file}${r.lines ? `, ${t("lines {a}–{b}", { a: r.lines[0], b: r.lines[1] })}` : ""}` : "";
      const at = where ? ` (${where})` : "";
      if (!r.statement) {
        // No audit record: the opening of the source, which claims nothing.
        popover.append(el("div", "pop-label", t("Opening of the source{at}", { at })));
        popover.append(el("blockquote", "pop-passage", r.passage || t("(no saved text)")));
      } else if (r.verified) {
        popover.append(el("div", "pop-label", t("Supporting passage{at}", { at })));
        popover.append(el("blockquote", "pop-passage", r.passage || t("(no saved text)")));
      } else {
        // The check did not confirm the statement: the passage is only the closest one it found,
        // never to be read as the support.
        const reason = (r.reasons || []).find((text) => text && text.trim()) || "";
        popover.append(el("div", "pop-label not-verified", r.passage ? t("closest passage — not verified{at}", { at }) : t("no passage found — not verified")));
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
      popover.append(sourceHeader(s.title, s.url, id), el("div", "pop-label", s.fetched ? t("Click to read its snapshot") : t("Seen in search results only")));
    } else {
      popover.append(el("div", "pop-passage", t("Not in the ledger.")));
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

  // -- new research --------------------------------------------------------------------------------
  function sayForm(text, kind = "info") {
    const box = $("#new-run-message");
    box.textContent = text;
    box.className = `message ${kind}`;
    box.hidden = !text;
  }

  function showNewRun() {
    if (view.stream) view.stream.close();
    Object.assign(view, { ws: null, stream: null, summary: null });
    for (const item of $$("#workspace-list li")) item.classList.remove("selected");
    $("#empty").hidden = true;
    $("#run").hidden = true;
    $("#new-run").hidden = false;
    $("#new-title").focus();
  }

  $("#new-run-button").addEventListener("click", () => {
    location.hash = "new";
  });

  $("#new-run-cancel").addEventListener("click", () => {
    sayForm("");
    history.back();
  });

  $("#new-run-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = event.target.elements; // (form.title would be the form's own title attribute)
    const value = (name) => fields.namedItem(name).value.trim();
    const payload = { title: value("title") };
    if (!payload.title) {
      sayForm(t("The title is empty."), "error");
      fields.namedItem("title").focus();
      return;
    }
    if (value("purpose")) payload.purpose = value("purpose");
    if (value("language")) payload.language = value("language");
    // Sent as typed: the server says what is wrong with a number, in one place.
    if (value("max_steps")) payload.max_steps = value("max_steps");
    if (value("max_cost")) payload.max_cost = value("max_cost");
    const start = $("#new-run-start");
    start.disabled = true; // one click, one run
    sayForm(t("Starting…"));
    try {
      const answer = await post("/api/runs", {}, payload);
      event.target.reset();
      sayForm("");
      location.hash = `ws=${encodeURIComponent(answer.id)}`;
      route(); // now, so that the message below is not cleared by opening the workspace
      say(t("Started {folder} (process {pid}); its output goes to .view-logs/{folder}.log.", { folder: answer.folder, pid: answer.pid }), "ok");
    } catch (error) {
      sayForm(t("Not started: {error}", { error: error.message }), "error");
    } finally {
      start.disabled = false;
    }
  });

  window.addEventListener("hashchange", route);
  watchList();
  route();
})();
