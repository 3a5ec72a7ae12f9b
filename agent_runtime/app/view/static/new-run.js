// The new-research form: a title, a purpose and a few limits; the server starts the run with the
// settings `view` was started with.

import { $, $$, post, say, t, view } from "./shared.js";

// The router (app.js) hands itself over: a started run is opened at once.
let route = () => {};

export function onStarted(router) {
  route = router;
}

function sayForm(text, kind = "info") {
  const box = $("#new-run-message");
  box.textContent = text;
  box.className = `message ${kind}`;
  box.hidden = !text;
}

export function showNewRun() {
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
