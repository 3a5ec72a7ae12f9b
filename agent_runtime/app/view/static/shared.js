// The live view's shared parts: the access token, the JSON API, the message line, the state of the
// page, and the small helpers every view uses. The page's scripts are ES modules (no build step,
// nothing loaded from elsewhere); i18n.js and timeline.js, classic scripts, run before them.
//
// Safety rule: text that comes from a run or a web page (event fields, titles, URLs, passages) is put
// into the page with textContent only. innerHTML takes only the `html` fields the server rendered
// with its safe Markdown renderer (raw HTML off), in showHtml below. The Content-Security-Policy
// forbids inline scripts besides.

// The access token comes in the URL the view printed (?token=…). It is kept in this tab only
// (sessionStorage is per origin, port included, and survives a reload) and leaves the address
// bar at once. Never a cookie: the browser would send one to every port of 127.0.0.1.
const TOKEN_KEY = "deep-researcher-view-token";
export const token = (() => {
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
export const { t, translatePage, lang } = window.DeepResearcherI18n;
translatePage();
export const NO_TOKEN = t("This page needs its access token: open the URL `deep-researcher view` printed (http://127.0.0.1:PORT/?token=…).");
export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

export const { el, number } = window.DeepResearcherView;

export const view = {
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
  canStart: false, // the folder takes new workspaces (new research, follow-ups)
};

// -- the server ----------------------------------------------------------------------------------
export async function api(path, params = {}, options = {}) {
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

export function post(path, params, payload) {
  return api(path, params, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(payload || {}),
  });
}

export function say(text, kind = "info", lost = false) {
  const box = $("#message");
  box.textContent = text;
  box.className = `message ${kind}${lost ? " lost" : ""}`;
  box.hidden = !text;
  clearTimeout(say.timer);
  if (kind === "ok") say.timer = setTimeout(() => say(""), 12000);
}

export const money = (cost) => (cost ? `$${Number(cost).toFixed(cost < 1 ? 4 : 2)}` : null);

// Elapsed time as the server writes it (run_record.duration): 45s, 3m07s.
export function duration(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  return minutes ? `${minutes}m${String(rest).padStart(2, "0")}s` : `${rest}s`;
}

export function badge(status, note) {
  const shown = el("span", `badge status-${status}`, t(status).replace(/_/g, " ")); // awaiting_review: "awaiting review"
  // A finished run whose report keeps citations the audit could not verify says so on hover.
  if (note) {
    shown.classList.add("unverified");
    shown.title = note;
  }
  return shown;
}

// -- rendered documents ----------------------------------------------------------------------------
export function showHtml(container, html) {
  container.innerHTML = html; // server-rendered, raw HTML off (see the top of this file)
  for (const link of $$("a[href]", container)) {
    const href = link.getAttribute("href");
    if (/^https?:/i.test(href)) {
      link.target = "_blank";
      link.rel = "noopener noreferrer";
    }
  }
}


// -- where the page is: #ws=<id>&tab=<tab> (app.js routes) -----------------------------------------
export function go(tab) {
  location.hash = `ws=${encodeURIComponent(view.ws)}&tab=${tab}`;
}

// The run's sources by id, loaded once (and again when the run's sources changed).
export async function sourcesById() {
  if (!view.sources || view.stale.has("sources")) {
    const data = await api("/api/sources", { ws: view.ws });
    view.sources = new Map(data.sources.map((s) => [s.id, s]));
  }
  return view.sources;
}

