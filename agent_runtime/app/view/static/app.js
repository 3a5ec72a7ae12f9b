// The live view's page: the router between its views (the runs list, a run's page, the new-research
// form), each in its own module. No build step, nothing loaded from elsewhere (see shared.js).

import { $, view } from "./shared.js";
import { watchList } from "./runs-list.js";
import { openWorkspace, showTab } from "./run-page.js";
import { showNewRun, onStarted } from "./new-run.js";

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

onStarted(route);
window.addEventListener("hashchange", route);
watchList();
route();
