// The replay page of a UECda game (docs/records.md, format 2), step by step.
// The server hands over the record and every position as its engine plays them
// (places/presentation/replay_uecda.py): the lock and its suits, the revolution, the
// ♠3 return, the 20-pass draw are the engine's to say, not worked out here.
// Position k is the game after its first k submissions (0: the deal, after the exchange).
// The URL's #turn=T follows the page. Only textContent is written: no markup from data.
"use strict";

(() => {
  const cfg = JSON.parse(document.getElementById("replay-config").textContent);
  const T = cfg.strings;
  const rec = cfg.record;
  const P = cfg.positions;
  const $ = (id) => document.getElementById(id);
  const root = $("replay");
  const SVG = "http://www.w3.org/2000/svg";
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

  const fmt = (s, args) => s.replace(/%\((\w+)\)s/g, (_, k) => (k in args ? args[k] : ""));
  const nameOf = (p) => rec.players[p].name;
  const colour = (p) => cfg.colours[p % cfg.colours.length];
  const label = (w) => Cards.info(Cards.parse(w)).label;
  const rankName = (r) => `${r} ${T.ranks[r] || ""}`;
  const countText = (n) => (n === 0 ? T.no_cards : n === 1 ? T.one_card : fmt(T.cards, { n }));

  // -- building elements -------------------------------------------------------------------

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
    return node;
  }

  // A card face as cards.js draws it (templates/cards/card.html), built node by node.
  function face(written, extra) {
    const c = Cards.info(written === "joker" ? 53 : Cards.parse(written));
    const cls = ["card"];
    if (extra) cls.push(extra);
    if (c.red) cls.push("card-red");
    if (c.joker) cls.push("card-joker");
    if (c.court) cls.push("card-court");
    const card = svg("svg", { class: cls.join(" "), viewBox: "0 0 100 140", role: "img", "aria-label": c.label, "data-card": c.written });
    card.append(svg("rect", { class: "card-face", x: 2, y: 2, width: 96, height: 136, rx: 9 }));
    const text = (attrs, content) => {
      const t = svg("text", attrs);
      t.textContent = content;
      card.append(t);
    };
    if (c.joker) {
      "JOKER".split("").forEach((ch, i) => text({ class: "card-index card-index-joker", x: 17, y: 26 + 18 * i }, ch));
      card.append(svg("use", { class: "card-star", href: "#joker-star", x: 32, y: 42, width: 62, height: 62 }));
    } else {
      text(c.rank === "10" ? { class: "card-index", x: 19, y: 33, textLength: 30, lengthAdjust: "spacingAndGlyphs" } : { class: "card-index", x: 19, y: 33 }, c.rank);
      card.append(svg("use", { class: "card-pip", href: `#suit-${c.mark}`, x: 8, y: 39, width: 22, height: 22 }));
      if (c.court) {
        card.append(svg("rect", { class: "card-frame", x: 34, y: 30, width: 56, height: 80, rx: 4 }));
        text({ class: "card-court-letter", x: 62, y: 82 }, c.rank);
      } else {
        card.append(svg("use", { class: "card-pip", href: `#suit-${c.mark}`, x: 36, y: 44, width: 52, height: 52 }));
      }
    }
    return card;
  }

  // Cards as short coloured text: "♥3 ♥4".
  function cardTexts(list) {
    const span = el("span");
    list.forEach((w, i) => {
      const c = Cards.info(w === "joker" ? 53 : Cards.parse(w));
      if (i) span.append(" ");
      span.append(el("span", `card-text${c.red ? " card-red" : ""}${c.joker ? " card-joker" : ""}`, c.label));
    });
    return span;
  }

  const tableCards = (table) => table.map((cell) => cell.card);

  function swatch(p) {
    const s = el("span", "swatch");
    s.style.background = colour(p);
    return s;
  }

  function fill(node, ...children) {
    node.replaceChildren(...children);
    return node;
  }

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

  function drawSeats(f) {
    fill($("seats"), ...rec.seats.map((p, seat) => {
      const box = el("div", "seat");
      box.dataset.seat = seat;
      box.dataset.player = p;
      box.dataset.name = nameOf(p);
      box.dataset.cards = f.hands[p].length;
      box.dataset.rank = f.ranks[p] || "";
      const top = el("div", "seat-top");
      const dot = el("span", "seat-colour");
      dot.style.background = colour(p);
      const link = el("a", "seat-name player-link", nameOf(p));
      link.href = `/users/${encodeURIComponent(nameOf(p))}`;
      top.append(dot, link);
      const status = el("div", "seat-status");
      if (f.turn === p) {
        box.classList.add("turn");
        status.append(el("span", "badge pill-turn", T.turn));
      }
      if (f.ranks[p]) {
        box.classList.add("out");
        status.append(el("span", `rank-pill rank-${f.ranks[p]}`, String(f.ranks[p])), " ", el("span", "", T.ranks[f.ranks[p]] || ""));
      }
      if (f.passed.includes(p)) {
        box.classList.add("passed");
        status.append(el("span", "badge pill-pass", T.passed));
      }
      box.append(
        top,
        el("span", "seat-points", fmt(T.seat_no, { n: seat })),
        el("div", "seat-count", countText(f.hands[p].length)),
        status,
      );
      return box;
    }));
  }

  function lockBadge() {
    let badge = $("lock");
    if (!badge) {
      badge = el("span", "badge badge-lock");
      badge.id = "lock";
      $("order").after(" ", badge);
    }
    return badge;
  }

  function actionLine(a, f) {
    const line = el("span");
    const name = el("b", "", nameOf(a.player));
    if (f.event.verdict === "play") line.append(name, " ", cardTexts(tableCards(f.table)));
    else if (f.event.verdict === "pass") line.append(fmt(T.passes, { name: nameOf(a.player) }));
    else line.append(fmt(T.rejected, { name: nameOf(a.player), cells: a.table }));
    if (f.event.rank) line.append(` · ${rankName(f.event.rank)}`);
    return line;
  }

  function drawTable(f) {
    $("felt").classList.toggle("revolution", f.revolution);
    const order = $("order");
    order.textContent = f.revolution ? T.revolution_order : T.normal;
    order.className = "badge " + (f.revolution ? "badge-revolution" : "badge-normal");
    const lock = lockBadge();
    lock.textContent = f.lock ? fmt(T.lock, { suits: f.lock.map((s) => SUIT_SYMBOLS[s]).join("") }) : "";
    lock.hidden = !f.lock;
    lock.dataset.suits = f.lock ? f.lock.join("") : "";
    $("trick-info").textContent = "";

    const cards = $("table-cards");
    cards.className = "table-cards" + (f.event.cleared ? " cleared" : "");
    cards.dataset.cards = tableCards(f.table).join(" ");
    if (f.table.length) {
      fill(cards, ...f.table.map((cell) => {
        const box = el("span", "table-cell");
        box.append(face(cell.card));
        if (cell.stands_for) box.append(el("span", "stands-for", fmt(T.stands_for, { card: label(cell.stands_for) })));
        return box;
      }));
    } else {
      fill(cards, el("span", "table-empty", T.empty_table));
    }
    fill($("table-owner"), ...(f.table.length && f.owner !== null ? [el("b", "", nameOf(f.owner))] : []));

    const line = f.action === null ? el("span", "", T.deal) : actionLine(rec.actions[f.action], f);
    if (f.turn !== null) line.append(" · ", el("strong", "", fmt(f.action === null || f.event.cleared ? T.leads : T.next, { name: nameOf(f.turn) })));
    else if (f.action !== null) line.append(" · ", el("strong", "", fmt(T.game_over, { no: rec.game })));
    fill($("turn-line"), line);

    const e = f.event;
    let notice = "";
    let cls = "";
    if (e.draw) [notice, cls] = [T.draw, "revolution"];
    else if (e.revolution) [notice, cls] = [f.revolution ? T.revolution : T.back_to_normal, "revolution"];
    else if (e.eight_cut) [notice, cls] = [T.eight_cut, "eight"];
    else if (e.spade3) [notice, cls] = [T.spade3, "eight"];
    else if (e.locks) notice = T.locks;
    else if (e.cleared) notice = T.reset;
    const n = $("notice");
    n.textContent = notice;
    n.className = `notice${notice ? " show" : ""} ${cls}`;
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
      const tr = el("tr", `verdict-${a.verdict}${a.reset ? " reset" : ""}`);
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
      if (a.verdict === "pass") result.append(el("span", "badge pill-pass", T.passed));
      else if (a.verdict === "rejected") result.append(el("span", "badge pill-miss", T.rejected_short));
      else if (f.lock && f.event.locks) result.append(el("span", "badge badge-lock", fmt(T.lock, { suits: f.lock.map((s) => SUIT_SYMBOLS[s]).join("") })));
      tr.append(num, who, cards, result, el("td", "num", "–"));
      rows.push(tr);
    });
    fill($("moves"), ...rows);
  }

  function drawMoves() {
    Moves.markCurrent($("moves-wrap"), at);
  }

  function drawExchange() {
    if (!rec.exchange.length) {
      fill($("exchange"), el("li", "muted", T.no_exchange_uecda));
      return;
    }
    fill($("exchange"), ...rec.exchange.map((x) => {
      const li = el("li");
      li.dataset.from = x.from;
      li.dataset.to = x.to;
      li.append(swatch(x.from), nameOf(x.from), " → ", swatch(x.to), nameOf(x.to), ": ", cardTexts(x.cards));
      const rank = rec.ranks_before[x.from];
      if (rank <= 2) li.append(" ", el("span", "muted", fmt(T.choice, { rank: rankName(rank), cards: rec.choices[rank === 1 ? "daifugo" : "fugo"].map(label).join(" ") })));
      return li;
    }));
  }

  function draw() {
    const f = P[at];
    drawHead();
    drawSeats(f);
    drawTable(f);
    drawHands(f);
    drawMoves();
    drawExchange();
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
