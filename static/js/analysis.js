// The replay page's analysis (docs/analysis.md): the Analyse button (a job the server
// makes in the background: the page follows analysis.json until it is done), each
// move's mark in the move list, and the candidates of the turn shown with their
// expected points. Only textContent is written: no markup from data.
"use strict";

(() => {
  const cfg = JSON.parse(document.getElementById("replay-config").textContent);
  const T = cfg.analysis_strings || {};
  const $ = (id) => document.getElementById(id);
  const fmt = (text, values) => text.replace(/%\((\w+)\)s/g, (_, k) => String(values[k] ?? ""));
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // -- the button ---------------------------------------------------------------------------
  const button = $("analyse-button");
  const status = $("analysis-status");
  function show(doc) {
    if (doc.error && doc.error.message) status.textContent = fmt(T.refused, { message: doc.error.message });
    else if (doc.state === "failed") status.textContent = fmt(T.failed, doc);
    else if (doc.state === "running") status.textContent = fmt(T.running, doc);
    else if (doc.state === "queued") status.textContent = T.queued;
  }
  async function follow() {
    const response = await fetch(cfg.analysis_url, { headers: { Accept: "application/json" } });
    if (response.status === 200) { location.reload(); return; }
    const doc = await response.json();
    show(doc);
    if (response.status === 202 && doc.state !== "failed") setTimeout(follow, 2000);
  }
  if (button) {
    button.addEventListener("click", async () => {
      button.disabled = true;
      // the JSON route a script asks too: the session's cookie, the page's own Origin
      const response = await fetch(cfg.analysis_url, {
        method: "POST",
        headers: { Accept: "application/json" },
      });
      const doc = await response.json();
      show(doc);
      if (response.ok) follow();
      else button.disabled = false;
    });
  }
  if (status && status.textContent.trim() in { queued: 1, running: 1 }) follow();

  // -- marks and candidates -----------------------------------------------------------------
  const A = cfg.analysis;
  if (!A) return;
  const MARK_CLASS = { "?!": "mark-dubious", "?": "mark-mistake", "??": "mark-blunder" };
  const byTurn = new Map(A.decisions.map((d) => [d.turn, d]));
  const names = A.players.map((p) => p.name);
  const label = (m) => (m.table !== undefined ? m.table || T.pass : m.cards.join(" ") || T.pass);

  function markMoves() {
    document.querySelectorAll("#moves tr[data-turn]").forEach((tr) => {
      const d = byTurn.get(Number(tr.dataset.turn));
      if (!d || !d.mark || tr.querySelector(".move-mark")) return;
      const cell = tr.children[2];
      if (cell) cell.append(" ", el("span", `move-mark ${MARK_CLASS[d.mark]}`, d.mark));
    });
  }

  function drawCandidates() {
    const box = $("analysis-candidates");
    const d = byTurn.get(Number($("replay").dataset.turn));
    box.replaceChildren();
    if (!d) { box.append(el("p", "api-note", T.none)); return; }
    box.append(el("h3", "", fmt(T.turn, { turn: d.turn, name: names[d.player] ?? d.player })));
    if (!d.candidates) { box.append(el("p", "api-note", T[d.note] || "")); return; }
    const table = el("table", "data analysis-candidates");
    const body = el("tbody");
    const played = label(d.played);
    d.candidates.forEach((c, i) => {
      const tr = el("tr", label(c) === played ? "played" : "");
      const move = el("td", "", label(c));
      if (i === 0) move.append(" ", el("span", "badge", T.best));
      if (label(c) === played) move.append(" ", el("span", "badge badge-lock", T.played));
      tr.append(move, el("td", "num", `${c.points.toFixed(2)} ± ${c.points_se.toFixed(2)}`));
      body.append(tr);
    });
    table.append(body);
    box.append(table);
    if (d.loss !== null) box.append(el("p", "", `${fmt(T.loss, { loss: d.loss.toFixed(2) + (d.loss_se != null ? ` ± ${d.loss_se.toFixed(2)}` : "") })}${d.mark ? " " + d.mark : ""}`));
  }

  const moves = $("moves");
  new MutationObserver(markMoves).observe(moves, { childList: true });
  new MutationObserver(drawCandidates).observe($("replay"), { attributes: true, attributeFilter: ["data-turn"] });
  markMoves();
  drawCandidates();
})();
