// Steering a run from its page: a run that waits for the person (its questions, or its plan to
// review) shows the overall dashboard in an editor and a Continue button, which saves the edit and
// resumes the run with its settings; a finished run offers Follow up, a new run in a new workspace
// that builds on its report and sources.

import { $, api, post, say, t, view } from "./shared.js";

const WAITING = {
  awaiting_answers: {
    title: "The agent asks before it plans",
    hint: "Write your answer under each question (an empty answer means no preference), then Continue.",
  },
  awaiting_review: {
    title: "The plan waits for your review",
    hint: "No search has run yet. Edit the plan if you like, then Continue.",
  },
};

const shown = { ws: null, status: null, text: "", sha: "" };

export function showSteering(s) {
  const waiting = !s.running && WAITING[s.status];
  $("#waiting").hidden = !waiting;
  $("#resume").hidden = !s.resumable || !!waiting; // Continue takes its place
  $("#follow-up-button").hidden = !(s.status === "finished" && view.canStart);
  if (s.status !== "finished") $("#follow-up-form").hidden = true;
  if (!waiting) {
    shown.ws = null;
    return;
  }
  if (shown.ws === s.id && shown.status === s.status) return; // keep what the person is typing
  Object.assign(shown, { ws: s.id, status: s.status });
  $("#waiting-title").textContent = t(waiting.title);
  $("#waiting-hint").textContent = t(waiting.hint);
  $("#waiting-note").textContent = "";
  api("/api/dashboards", { ws: s.id })
    .then((data) => {
      const overall = data["overall_dashboard.md"];
      Object.assign(shown, { text: overall.text, sha: overall.sha });
      $("#waiting-text").value = overall.text;
    })
    .catch((error) => say(error.message, "error"));
}

$("#continue").addEventListener("click", async () => {
  const button = $("#continue");
  const text = $("#waiting-text").value;
  button.disabled = true;
  try {
    if (text !== shown.text) {
      const saved = await post("/api/dashboards/overall_dashboard.md", { ws: view.ws }, { content: text, base: shown.sha });
      Object.assign(shown, { text, sha: saved.sha }); // a failed resume, then Continue again: not a conflict
    }
    const answer = await post("/api/resume", { ws: view.ws });
    $("#waiting").hidden = true;
    say(t("Continued (process {pid}); its output goes to .runtime/view-resume.log.", { pid: answer.resumed }), "ok");
  } catch (error) {
    $("#waiting-note").textContent = t("Not continued: {error}", { error: error.message });
  } finally {
    button.disabled = false;
  }
});

$("#follow-up-button").addEventListener("click", () => {
  const form = $("#follow-up-form");
  form.hidden = !form.hidden;
  if (!form.hidden) $("#follow-up-question").focus();
});

$("#follow-up-cancel").addEventListener("click", () => {
  $("#follow-up-form").hidden = true;
});

$("#follow-up-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const question = $("#follow-up-question").value.trim();
  if (!question) {
    say(t("The question is empty."), "error");
    return;
  }
  const start = $("#follow-up-start");
  start.disabled = true;
  say(t("Starting…"));
  try {
    const answer = await post("/api/follow-up", { ws: view.ws }, { question });
    event.target.reset();
    event.target.hidden = true;
    location.hash = `ws=${encodeURIComponent(answer.id)}`;
    setTimeout(() => say(t("Started the follow-up {folder} (process {pid}).", { folder: answer.folder, pid: answer.pid }), "ok"), 0);
  } catch (error) {
    say(t("Not started: {error}", { error: error.message }), "error");
  } finally {
    start.disabled = false;
  }
});
