// The live view's timeline: the run's events, as the server streams them, folded into one card per
// main-agent step; the steps of the File, Browser and Research agents go in a collapsible group under
// the action they served. Every text here is set with textContent (see app.js).
"use strict";

(() => {
  const $ = (selector, root = document) => root.querySelector(selector);
  const { t } = window.DeepResearcherI18n;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  const number = (n) => Number(n || 0).toLocaleString("en-US");
  const compact = (n) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 100000 ? 0 : 1)}k` : String(n || 0));
  const seconds = (s) => (s >= 10 ? `${Math.round(s)}s` : `${Number(s).toFixed(1)}s`);
  const squash = (text) => text.split(/\s+/).join(" ").trim();
  const clip = (text, n) => (text.length > n ? `${text.slice(0, n)}…` : text);

  // A run of thousands of steps would make the page slow: it keeps the last MAX_CARDS step cards,
  // and a note at the top says what it left out (and what the server did not send, see events.py).
  const MAX_CARDS = 2000;
  const fresh = () => ({ cards: new Map(), run: 0, current: null, activity: "", head: null, skipped: 0, kept: 0, dropped: 0 });
  const timeline = fresh();

  function resetTimeline() {
    $("#timeline").replaceChildren();
    follow = true;
    lastTop = 0;
    Object.assign(timeline, fresh());
  }

  function showHead() {
    if (!timeline.head) {
      timeline.head = el("li", "event note skipped");
      $("#timeline").prepend(timeline.head);
    }
    const parts = [];
    if (timeline.skipped) {
      const mb = (bytes) => (bytes / 1e6).toFixed(1);
      parts.push(t("The first {mb} MB of the event log are not shown (the view sends only its last {kept} MB)", { mb: mb(timeline.skipped), kept: mb(timeline.kept) }));
    }
    if (timeline.dropped) {
      parts.push(t("{n} earlier steps are not shown: the page keeps the last {max}", { n: number(timeline.dropped), max: number(MAX_CARDS) }));
    }
    timeline.head.textContent = `${parts.join(". ")}. ${t("The whole log is in .runtime/events.jsonl.")}`;
  }

  function noteSkipped(skipped) {
    timeline.skipped = Number(skipped.bytes) || 0;
    timeline.kept = Number(skipped.kept) || 0;
    showHead();
  }

  // The oldest card goes, with the run markers and notes above it.
  function dropOldest() {
    const [key, oldest] = timeline.cards.entries().next().value;
    timeline.cards.delete(key);
    if (!oldest.item.parentNode) return;
    let node = timeline.head ? timeline.head.nextSibling : $("#timeline").firstChild;
    while (node) {
      const next = node.nextSibling;
      node.remove();
      if (node === oldest.item) break;
      node = next;
    }
    timeline.dropped += 1;
    showHead();
  }

  // The timeline follows the run (stays scrolled to its end) unless the reader scrolled up.
  // Only the reader scrolls up (the page only ever scrolls down, to the end), so moving up stops
  // following and coming back to the end starts it again.
  const box = $("#tab-timeline");
  let follow = true;
  let lastTop = 0;
  box.addEventListener("scroll", () => {
    if (!box.clientHeight) return; // hidden: another tab is shown
    if (box.scrollTop < lastTop - 2) follow = false;
    if (box.scrollHeight - box.scrollTop - box.clientHeight < 40) follow = true;
    lastTop = box.scrollTop;
  });

  function scrollToEnd() {
    if (follow && box.clientHeight) {
      box.scrollTop = box.scrollHeight;
      lastTop = box.scrollTop;
    }
  }

  // Not scrolled here: app.js scrolls once per batch of events (scrolling measures the layout, and a
  // batch can hold thousands of rows).
  function append(node, parent) {
    (parent || $("#timeline")).append(node);
  }

  function card(step) {
    const key = `${timeline.run}:${step}`;
    let found = timeline.cards.get(key);
    if (!found) {
      const item = el("li", "step");
      const head = el("div", "step-head");
      const info = el("div", "step-info");
      head.append(el("div", "step-number", t("Step {n}", { n: step })), info);
      const body = el("ul", "step-body");
      item.append(head, body);
      append(item);
      found = { item, info, body, groups: [] };
      timeline.cards.set(key, found);
      if (timeline.cards.size > MAX_CARDS) dropOldest();
    }
    return found;
  }

  const AGENT_OF_ACTION = {
    file_operation: (agent) => agent === "file",
    browse: (agent) => agent === "browser",
    research_task: (agent) => agent.startsWith("research"),
  };

  function agentLabel(agent) {
    if (agent === "file") return t("File agent");
    if (agent === "browser") return t("Browser agent");
    if (agent.startsWith("research")) return t("Research agent {n}", { n: agent.replace(/^research-?/, "") }).trim();
    return agent;
  }

  function newGroup(agent) {
    const details = el("details", "agent-group");
    details.open = true;
    const summary = el("summary");
    const rows = el("ul", "agent-rows");
    details.append(summary, rows);
    return { agent, details, summary, rows, steps: 0, actions: 0, attached: false, groups: [] };
  }

  // A sub-agent's group sits in its step's card; one delegated by another sub-agent (a File
  // operation of a research task: its events name the task as `parent`) sits in that agent's group.
  function group(agent, parent) {
    const nested = parent && parent !== "main";
    const owner = nested ? group(parent) : timeline.current || card(0);
    let found = owner.groups.find((g) => g.agent === agent && !g.attached);
    if (!found) {
      found = newGroup(agent);
      owner.groups.push(found);
      append(found.details, nested ? owner.rows : owner.body);
    }
    return found;
  }

  // The open group of the sub-agent an action delegated to, folded under that action's row.
  function foldUnder(row, owner, action, question) {
    const matches = AGENT_OF_ACTION[action];
    const open = matches ? owner.groups.filter((candidate) => !candidate.attached && matches(candidate.agent)) : [];
    // Research tasks of one reply run side by side: each finds its group by its question.
    const asked = typeof question === "string" ? squash(question).slice(0, 40) : "";
    const g = (asked && open.find((candidate) => (candidate.question || "").startsWith(asked))) || open[0];
    if (g) {
      g.attached = true;
      g.details.open = false;
      row.append(g.details);
    }
  }

  function countGroup(g) {
    const counted = t("{agent} · {actions} actions in {steps} steps", { agent: agentLabel(g.agent), actions: g.actions, steps: g.steps });
    // English singulars: "1 action in 1 step"
    g.summary.textContent = counted.replace(/\b1 actions\b/, "1 action").replace(/\b1 steps\b/, "1 step");
  }

  const KEY_ARGUMENT = {
    web_search: "query", visit_url: "url", file_operation: "operation_description", browse: "task",
    research_task: "question", all_finished: "result", update_overall_dashboard: "content",
    update_current_dashboard: "content", finish: "answer",
  };

  function describe(action, args) {
    if (!args || typeof args !== "object") return "";
    const show = (value) => (typeof value === "string" ? value : JSON.stringify(value));
    const key = KEY_ARGUMENT[action];
    if (key && args[key] !== undefined) {
      const value = Array.isArray(args[key]) ? args[key].join(", ") : show(args[key]);
      return clip(value.split("\n")[0], 160);
    }
    return clip(Object.entries(args).slice(0, 2).map(([k, v]) => `${k}: ${clip(show(v), 80)}`).join(" · "), 160);
  }

  function actionRow(event) {
    const row = el("li", `event action${event.error ? " failed" : ""}`);
    const line = el("div", "line");
    line.append(el("span", "name", event.action), el("span", "args", describe(event.action, event.arguments)));
    const facts = [];
    if (event.observation_chars !== undefined && event.observation_chars !== null) facts.push(t("{n} chars", { n: number(event.observation_chars) }));
    if (event.duration !== undefined && event.duration !== null) facts.push(seconds(event.duration));
    line.append(el("span", "facts", facts.join(" · ")));
    row.append(line);
    if (event.error) row.append(el("div", "error-text", clip(String(event.error), 400)));
    return row;
  }

  function note(text, className, where) {
    const row = el("li", `event note ${className || ""}`, text);
    append(row, where || (timeline.current ? timeline.current.body : null));
    return row;
  }

  function addEvent(e) {
    const agent = e.agent || (e.event === "browse_step" ? "browser" : "run");
    switch (e.event) {
      case "run_started":
        timeline.run += 1;
        timeline.current = null;
        note(e.resumes ? t("Resumed (resume {n})", { n: e.resumes }) : e.model ? t("Run started with {model}", { model: e.model }) : t("Run started"), "marker");
        timeline.activity = t("starting");
        break;
      case "run_ended":
        note(`${t("Run ended: {status}", { status: t(String(e.status)) })}${e.reason ? ` (${e.reason})` : ""}`, `marker ended-${e.status}`, $("#timeline"));
        timeline.current = null;
        timeline.activity = "";
        break;
      case "model_call":
        if (agent === "main") {
          timeline.current = card(e.step);
          timeline.lastStep = Math.max(timeline.lastStep || 0, Number(e.step) || 0);
          const calls = (e.calls || []).join(", ") || t("no action");
          const clock = typeof e.time === "string" ? e.time.slice(11, 19) : "";
          timeline.current.info.textContent = `${clock} · ${compact((e.prompt_tokens || 0) + (e.completion_tokens || 0))} tokens`;
          if ((e.problems || []).length) note(t("The reply needed tolerance: {problems}", { problems: e.problems.join(", ") }), "warning");
          timeline.activity = calls;
        } else {
          const g = group(agent, e.parent);
          g.steps += 1;
          countGroup(g);
          g.rows.append(el("li", "event sub-call", `${t("step {n}", { n: e.step })}: ${(e.calls || []).join(", ") || t("no action")}`));
        }
        break;
      case "action":
        if (agent === "main") {
          const owner = card(e.step);
          const row = actionRow(e);
          foldUnder(row, owner, e.action, e.arguments && e.arguments.question); // the sub-agent's steps
          append(row, owner.body);
          timeline.activity = e.action;
        } else {
          const g = group(agent, e.parent);
          g.actions += 1;
          countGroup(g);
          const row = actionRow(e);
          foldUnder(row, g, e.action, null);
          g.rows.append(row);
          timeline.activity = `${agentLabel(agent)}: ${e.action}`;
        }
        break;
      case "agent_started": {
        const g = group(agent);
        g.question = squash(String(e.question || ""));
        g.rows.append(el("li", "event sub-call", t("started: {question}", { question: clip(g.question, 200) })));
        break;
      }
      case "agent_ended": {
        const how = [e.outcome, e.steps ? `${e.steps} step${e.steps === 1 ? "" : "s"}` : "", e.reason].filter(Boolean).join(", ");
        group(agent, e.parent).rows.append(el("li", "event sub-call", how ? t("ended: {how}", { how }) : t("ended")));
        break;
      }
      case "browse_step": {
        const g = group("browser");
        g.steps += 1;
        g.actions += (e.actions || []).length;
        countGroup(g);
        g.rows.append(el("li", "event sub-call", `${(e.actions || []).join(", ")} ${e.url || ""}`));
        break;
      }
      case "dashboard_edited":
        timeline.current = card(e.step); // noticed before the step's request: it opens that step
        note(t("Edited from outside the run: {files}; the agent continues from the edited text", { files: (e.files || []).join(", ") }), "edited");
        break;
      case "compaction":
        note(t("Context compacted ({how}): {before} → {after} tokens", { how: e.how, before: number(e.tokens_before), after: number(e.tokens_after) }), "system");
        break;
      case "context_overflow":
        note(t("The endpoint refused a request as too long: window {before} → {after} tokens", { before: number(e.window_before), after: number(e.window_after) }), "warning");
        break;
      case "model_retry":
        note(t("Model call failed ({reason}); retry {n} in {delay}", { reason: e.reason, n: e.attempt, delay: seconds(e.delay || 0) }), "warning");
        break;
      case "model_waiting":
        timeline.activity = t("waiting for the model ({s})", { s: seconds(e.seconds || 0) });
        break;
      case "search_provider_failed":
        note(t("Search provider {provider} failed: {error}", { provider: e.provider, error: clip(String(e.error || ""), 200) }), "warning");
        break;
      default: {
        const rest = Object.entries(e).filter(([k]) => !["time", "t", "event", "agent", "step"].includes(k));
        note(`${e.event}${rest.length ? ": " : ""}${clip(rest.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" "), 200)}`, "system");
      }
    }
  }

  window.DeepResearcherView = { el, number, compact, seconds, clip, timeline, addEvent, noteSkipped, resetTimeline, scrollToEnd };
})();
