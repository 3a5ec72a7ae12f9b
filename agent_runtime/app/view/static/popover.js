// The pop-ups of the rendered documents: a report's citation [n] shows its supporting passage and
// verdict, a note's [S<n>] mark its source.

import { $, el, go, sourcesById, t, view } from "./shared.js";

const popover = $("#popover");
let pinned = false;

export function hidePopover() {
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
