// The replay page of a UECda game (docs/records.md, format 2), step by step.
// The server hands over the record and every position as its engine plays them
// (places/presentation/replay_uecda.py): the lock and its suits, the revolution, the
// ♠3 return, the 20-pass draw are the engine's to say, not worked out here.
// Position k is the game after its first k submissions (0: the deal, after the exchange).
// The URL's #turn=T follows the page. The table is drawn by static/js/uecda-table.js.
// Only textContent is written: no markup from data.
"use strict";

(() => {
  const cfg = JSON.parse(document.getElementById("replay-config").textContent);
  const T = cfg.strings;
  const rec = cfg.record;
  const P = cfg.positions;
  const $ = (id) => document.getElementById(id);
  const root = $("replay");
  const table = UecdaTable(cfg, rec ? rec.players.map((x) => x.name) : []);
  const { SUIT_SYMBOLS, el, face, cardTexts, swatch, fill, fmt, nameOf, tableCards } = table;

  // -- the position and the URL -------------------------------------------------------------

  const turnAt = (at) => (at === 0 ? 0 : rec.actions[at - 1].turn);
  let at = 0;

  function readHash() {
    const turn = parseInt(new URLSearchParams(location.hash.replace(/^#/, "")).get("turn"), 10);
    if (!Number.isInteger(turn)) return 0;
    let found = 0;
    rec.actions.forEach((a, i) => { if (a.turn <= turn) found = i + 1; });
    return found;
  }

  function go(k) {
    at = Math.max(0, Math.min(P.length - 1, k));
    const hash = `#turn=${turnAt(at)}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
    draw();
  }

  // -- drawing ----------------------------------------------------------------------------------

  function drawHead() {
    const count = P.length - 1;
    $("position").textContent = at === 0 ? fmt(T.at_deal, { count }) : fmt(T.at_turn, { turn: turnAt(at), at, count });
    const slider = $("slider");
    slider.max = count;
    slider.value = at;
    slider.disabled = false;
    $("btn-first").disabled = $("btn-back").disabled = at === 0;
    $("btn-last").disabled = $("btn-forward").disabled = at === count;
  }

  function drawHands(f) {
    fill($("hands"), ...rec.seats.map((p) => {
      const row = el("div", `hand-row${f.turn === p ? " turn" : ""}`);
      row.dataset.player = p;
      row.dataset.count = f.hands[p].length;
      row.dataset.cards = f.hands[p].join(" ");
      const name = el("span", "hand-name");
      name.append(swatch(p), `${nameOf(p)} (${f.hands[p].length})`);
      if (f.ranks[p]) name.append(" ", el("span", `rank-pill rank-${f.ranks[p]}`, String(f.ranks[p])));
      const cards = el("div", "cards-row overlap");
      cards.append(...f.hands[p].map((w) => face(w)));
      row.append(name, cards);
      return row;
    }));
    $("hands-note").hidden = true;
  }

  function buildMoves() {
    const deal = el("tr");
    deal.dataset.at = 0;
    deal.append(el("td", "num", "0"));
    const cell = el("td", "", T.deal);
    cell.colSpan = 4;
    deal.append(cell);
    const rows = [deal];
    rec.actions.forEach((a, i) => {
      const f = P[i + 1];
      const tr = el("tr", `verdict-${a.verdict}${a.late ? " late" : ""}${a.reset ? " reset" : ""}`);
      tr.dataset.at = i + 1;
      tr.dataset.turn = a.turn;
      const go = el("button", "move-go", String(a.turn));
      go.type = "button";
      const num = el("td", "num");
      num.append(go);
      const who = el("td", "who");
      who.append(swatch(a.player), nameOf(a.player));
      const cards = el("td");
      if (a.verdict === "play") cards.append(cardTexts(tableCards(f.table)));
      else if (a.verdict === "rejected") cards.append(el("code", "", a.table));
      const result = el("td");
      if (a.late) result.append(el("span", "badge pill-miss", T.timeout));
      else if (a.verdict === "pass") result.append(el("span", "badge pill-pass", T.passed));
      else if (a.verdict === "rejected") result.append(el("span", "badge pill-miss", T.rejected_short));
      else if (f.lock && f.event.locks) result.append(el("span", "badge badge-lock", fmt(T.lock, { suits: f.lock.map((s) => SUIT_SYMBOLS[s]).join("") })));
      tr.append(num, who, cards, result, el("td", "num", a.ms === undefined ? "–" : String(a.ms))); // a log keeps no time
      rows.push(tr);
    });
    fill($("moves"), ...rows);
  }

  function drawMoves() {
    Moves.markCurrent($("moves-wrap"), at);
  }

  function draw() {
    const f = P[at];
    drawHead();
    table.drawSeats(rec, f, null);
    table.drawTable(rec, f, f.action === null ? null : rec.actions[f.action]);
    drawHands(f);
    drawMoves();
    table.drawExchange(rec);
    root.dataset.at = at;
    root.dataset.turn = turnAt(at);
    root.dataset.count = P.length - 1;
    root.dataset.order = f.revolution ? "Revolution" : "Normal";
    root.dataset.lock = f.lock ? f.lock.join("") : "";
    root.dataset.end = rec.end;
    root.dataset.game = rec.game;
    root.dataset.ready = "1";
  }

  // -- controls -----------------------------------------------------------------------------------

  $("btn-first").addEventListener("click", () => go(0));
  $("btn-back").addEventListener("click", () => go(at - 1));
  $("btn-forward").addEventListener("click", () => go(at + 1));
  $("btn-last").addEventListener("click", () => go(P.length - 1));
  $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("moves").addEventListener("click", (e) => {
    const row = e.target.closest("tr[data-at]");
    if (row) go(Number(row.dataset.at));
  });
  window.addEventListener("hashchange", () => go(readHash()));
  const KEYS = { ArrowLeft: () => at - 1, ArrowRight: () => at + 1, Home: () => 0, End: () => P.length - 1 };
  document.addEventListener("keydown", (e) => {
    if (!(e.key in KEYS) || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.target.closest("input, select, textarea, [contenteditable]")) return;
    e.preventDefault();
    go(KEYS[e.key]());
  });
  // a UECda game is the server's: no other record is opened on its page
  document.querySelector(".file-open").hidden = true;
  $("view").closest("label").hidden = true;

  if (!rec || !P) {
    $("replay-error").textContent = fmt(T.no_record, { message: "" });
    $("replay-error").hidden = false;
    return;
  }
  buildMoves();
  window.replay = { frames: () => P, go };
  go(readHash());
})();
