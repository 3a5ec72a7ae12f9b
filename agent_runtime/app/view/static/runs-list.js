// The runs list: every workspace of the folder with its status and figures, pushed by the server.

import { $, $$, NO_TOKEN, api, badge, duration, el, lang, money, number, say, t, token, view } from "./shared.js";
import { showSteering } from "./steering.js";

// A running row's time goes on between the server's updates (it sends a row again when its
// figures change, not every second): counted here from when the row came.
function elapsedText(s) {
  if (!s.running || !s.received) return s.elapsed_text;
  return duration(Number(s.elapsed || 0) + (Date.now() - s.received) / 1000);
}

export function figures(s) {
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

export function listItem(s) {
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
export const list = { rows: new Map(), order: [], stream: null, poll: null };

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
  view.canStart = !!data.can_start; // a follow-up makes a workspace beside the run: only in a folder of them
  if (view.summary) showSteering(view.summary); // the run's state may have come first
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

export function watchList() {
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
