// A UECda table as the pages draw it: the seats, the field (the lock and its marks, the
// revolution), the exchange with the rich's choice. One source for the replay of a game
// (static/js/replay-uecda.js) and the live page of a UECda place (static/js/live-uecda.js).
// A position: {table, owner, lock, revolution, passed, ranks, turn, event} and either
// every hand (a record's) or the counts (a live frame's). Only textContent is written.
"use strict";

// cfg: {strings, colours}; names: the players' names by number.
window.UecdaTable = (cfg, names) => {
  const T = cfg.strings;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const nameOf = (p) => names[p];
  const count = (f, p) => (f.hands ? f.hands[p].length : f.counts[p]);
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

  const fmt = (s, args) => s.replace(/%\((\w+)\)s/g, (_, k) => (k in args ? args[k] : ""));
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

  // The seats, by seat: each player's name, count, turn, rank and pass (``points``: the
  // match's, when the page shows them).
  function drawSeats(rec, f, points) {
    fill($("seats"), ...rec.seats.map((p, seat) => {
      const box = el("div", "seat");
      box.dataset.seat = seat;
      box.dataset.player = p;
      box.dataset.name = nameOf(p);
      box.dataset.cards = count(f, p);
      box.dataset.rank = f.ranks[p] || "";
      const top = el("div", "seat-top");
      const dot = el("span", "seat-colour");
      dot.style.background = colour(p);
      const link = el("a", "seat-name player-link", nameOf(p));
      link.href = `/users/${encodeURIComponent(nameOf(p))}`;
      link.title = nameOf(p);
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
        el("span", "seat-points", points ? `${fmt(T.seat_no, { n: seat })} · ${fmt(T.points_per_game, { n: points[p] })}` : fmt(T.seat_no, { n: seat })),
        el("div", "seat-count", countText(count(f, p))),
        status,
      );
      return box;
    }));
  }

  // A badge after the order's, made once: ``id`` lock, back (an 11-back) or backwards
  // (a 6-reverse's order of play).
  function badgeAfterOrder(id) {
    let badge = $(id);
    if (!badge) {
      badge = el("span", `badge badge-${id}`);
      badge.id = id;
      $("order").after(" ", badge);
    }
    return badge;
  }

  function showBadge(id, text) {
    const badge = badgeAfterOrder(id);
    badge.textContent = text || "";
    badge.hidden = !text;
    return badge;
  }

  // ``a``: the submission, {player, table, late} (its cells as text; late: past the time limit).
  function actionLine(a, f) {
    const line = el("span");
    const name = el("b", "", nameOf(a.player));
    if (f.event.verdict === "play") line.append(name, " ", cardTexts(tableCards(f.table)));
    else if (a.late) line.append(fmt(T.timed_out, { name: nameOf(a.player) }));
    else if (f.event.verdict === "pass") line.append(fmt(T.passes, { name: nameOf(a.player) }));
    else line.append(fmt(T.rejected, { name: nameOf(a.player), cells: a.table }));
    if (f.event.rank) line.append(` · ${rankName(f.event.rank)}`);
    return line;
  }

  // The field: the order, the lock and its suits, the cards lying, whose turn, the news.
  // ``a``: the submission that made the position (null: the deal).
  function drawTable(rec, f, a) {
    $("felt").classList.toggle("revolution", f.revolution);
    const order = $("order");
    order.textContent = f.revolution ? T.revolution_order : T.normal;
    order.className = "badge " + (f.revolution ? "badge-revolution" : "badge-normal");
    // made in this order, each right after the order's badge: order, backwards, back, lock
    const lock = showBadge("lock", f.lock ? fmt(T.lock, { suits: f.lock.map((s) => SUIT_SYMBOLS[s]).join("") }) : "");
    lock.dataset.suits = f.lock ? f.lock.join("") : "";
    showBadge("back", f.back ? T.back : "");
    showBadge("backwards", f.backwards ? T.backwards : "");
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

    const line = a === null ? el("span", "", T.deal) : actionLine(a, f);
    if (f.turn !== null) line.append(" · ", el("strong", "", fmt(a === null || f.event.cleared ? T.leads : T.next, { name: nameOf(f.turn) })));
    else if (a !== null) line.append(" · ", el("strong", "", fmt(T.game_over, { no: rec.game })));
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

  // Who gave whom: the cards and the rich's choice when ``rec`` holds them (a record),
  // else how many (a live frame: the cards are the record's, docs/protocol.md).
  function drawExchange(rec) {
    if (!rec.exchange.length) {
      fill($("exchange"), el("li", "muted", T.no_exchange_uecda));
      return;
    }
    fill($("exchange"), ...rec.exchange.map((x) => {
      const li = el("li");
      li.dataset.from = x.from;
      li.dataset.to = x.to;
      li.append(swatch(x.from), nameOf(x.from), " → ", swatch(x.to), nameOf(x.to), ": ", x.cards ? cardTexts(x.cards) : countText(x.count));
      const rank = rec.ranks_before[x.from];
      if (rank <= 2 && rec.choices) li.append(" ", el("span", "muted", fmt(T.choice, { rank: rankName(rank), cards: rec.choices[rank === 1 ? "daifugo" : "fugo"].map(label).join(" ") })));
      return li;
    }));
  }

  return { SUIT_SYMBOLS, $, el, face, cardTexts, swatch, fill, fmt, label, rankName, countText, nameOf, colour, tableCards, drawSeats, drawTable, drawExchange };
};
