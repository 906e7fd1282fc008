// The replay page: one finished game's record (docs/records.md, format 1), step by step.
// Everything is worked out from the record alone, with no rules engine: cards played leave
// the hand and lie on the table until a turn with "reset" ends the trick; a miss or a time
// out throws the hand away; a trick that held an odd number of revolution plays flips the
// order when it ends (rules.md §8); a seat's rank shows once its hand is empty.
// Position k is the game after its first k actions (0: the deal, after the exchange).
// The URL's #turn=T (T an action's turn number, 0 the deal) and &seat=S follow the page.
"use strict";

(() => {
  const cfg = JSON.parse(document.getElementById("replay-config").textContent);
  const T = cfg.strings;
  const $ = (id) => document.getElementById(id);
  const root = $("replay");

  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  // A translated string with its %(key)s filled in, as text.
  const fmt = (s, args) => s.replace(/%\((\w+)\)s/g, (_, k) => (own(args, k) ? String(args[k]) : ""));
  // The same, its pieces kept as they are: strings, or nodes put where their key stands.
  const fmtNodes = (s, args) => s.split(/(%\(\w+\)s)/).map((piece) => {
    const key = /^%\((\w+)\)s$/.exec(piece);
    return key ? (own(args, key[1]) ? args[key[1]] : "") : piece;
  });

  // An element: attributes set one by one, children appended (strings as text, never as markup).
  // Nothing a record holds is ever parsed as HTML on this page.
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = value;
      else if (key === "background") el.style.background = value; // CSSOM: allowed by the page's CSP
      else el.setAttribute(key, String(value));
    }
    el.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== ""));
    return el;
  }

  const S = {
    records: [], // what was read: one record, or a place's (a .jsonl file)
    rec: null,
    frames: [],
    at: 0,
    seat: null, // null: every hand; else the seat whose view is shown
    source: "server",
  };

  // -- reading records -------------------------------------------------------------------

  // The record format's schema (docs/record.schema.json, sent in the page's config): a record
  // is checked against it whole before anything of it is drawn.
  const RECORD_SCHEMA = Schema.compile(cfg.schema);

  // A record's text (JSON), or a place's records (JSON Lines): the records, or an Error.
  function readRecords(text) {
    let docs;
    try {
      docs = [JSON.parse(text)];
    } catch (whole) {
      const lines = text.split(/\r?\n/).filter((l) => l.trim());
      if (lines.length < 2) throw whole;
      docs = lines.map((line, i) => {
        try { return JSON.parse(line); } catch (err) { throw new Error(`line ${i + 1}: ${err.message}`); }
      });
    }
    if (!docs.length) throw new Error("no record");
    docs.forEach((doc, i) => {
      try { check(doc); } catch (err) { throw docs.length > 1 ? new Error(`line ${i + 1}: ${err.message}`) : err; }
    });
    return docs;
  }

  // A record of format version 1, as the schema says; else an Error naming the first problems.
  function check(r) {
    const problems = Schema.errors(RECORD_SCHEMA, r);
    if (problems.length) throw new Error(problems.slice(0, 3).join("; ") + (problems.length > 3 ? " …" : ""));
  }

  // -- working out each position ------------------------------------------------------------

  // A hand's written cards as ids: its first joker is 53, a second 54 (cards.js draws them apart).
  function handIds(written) {
    let jokers = 0;
    return written.map((w) => {
      const id = Cards.parse(w);
      return id === 53 ? 53 + jokers++ : id;
    });
  }

  // Weakest first in the normal order, jokers last, the lower mark first: as hands are listed.
  const strength = (id) => (id >= 53 ? 100 + id : ((Cards.info(id).number + 10) % 13) * 4 + Cards.info(id).mark);
  const weakestFirst = (ids) => ids.slice().sort((a, b) => strength(a) - strength(b));

  // The ids of the written cards, taken out of the hand (its lowest joker for "joker");
  // null, and the hand unchanged, when it lacks one.
  function take(hand, written) {
    const left = hand.slice();
    const taken = [];
    for (const w of written) {
      const id = Cards.parse(w);
      const at = id === 53 ? left.findIndex((h) => h >= 53) : left.indexOf(id);
      if (at < 0) return null;
      taken.push(left.splice(at, 1)[0]);
    }
    hand.splice(0, hand.length, ...left);
    return weakestFirst(taken);
  }

  function framesOf(rec) {
    const n = rec.players.length;
    const problems = [];
    const hands = rec.hands.map(handIds);
    const ranks = Array(n).fill(null);
    let order = "Normal"; // every game starts in the normal order (rules.md §4)
    let revolutions = 0; // revolution plays in the trick being played
    let table = [];
    let owner = null;
    let passed = [];
    let last = Array(n).fill(null); // what each seat did in this trick
    let ended = false; // the last action ended the trick

    const frame = (extra) => ({
      hands: hands.map((h) => h.slice()),
      table: table.slice(),
      owner,
      order,
      pending: revolutions % 2 === 1,
      passed: passed.slice(),
      last: last.slice(),
      ranks: ranks.slice(),
      ...extra,
    });
    const frames = [frame({ action: null, cleared: false, next: rec.actions.length ? rec.actions[0].seat : null, flags: {} })];

    rec.actions.forEach((a, i) => {
      if (ended) {
        table = [];
        owner = null;
        passed = [];
        last = Array(n).fill(null);
        ended = false;
      }
      const flags = {};
      if (a.verdict === "play") {
        const cards = take(hands[a.seat], a.cards);
        if (cards === null) {
          problems.push(fmt(T.not_held, { turn: a.turn, name: rec.players[a.seat].name, cards: a.cards.join(" ") }));
        } else {
          table = cards;
          owner = a.seat;
          last[a.seat] = { kind: "play", cards };
          if (Cards.isRevolution(cards)) {
            revolutions += 1;
            flags.revolution = true;
          }
          if (!hands[a.seat].length) {
            ranks[a.seat] = rec.ranks[a.seat];
            flags.finished = true;
          }
        }
      } else if (a.verdict === "pass") {
        passed.push(a.seat);
        last[a.seat] = { kind: "pass" };
      } else { // a miss or a time out: the hand is thrown away, the worst free rank taken
        hands[a.seat] = [];
        ranks[a.seat] = rec.ranks[a.seat];
        last[a.seat] = { kind: "miss" };
        flags.missed = true;
      }
      if (a.reset) {
        flags.reset = true;
        flags.eightCut = owner === a.seat && a.verdict === "play" && !flags.finished && Cards.hasEight(table);
        if (revolutions % 2) {
          order = order === "Normal" ? "Revolution" : "Normal";
          flags.flipped = true;
        }
        revolutions = 0;
        ended = true;
      }
      const end = i === rec.actions.length - 1;
      if (end) rec.ranks.forEach((r, s) => { ranks[s] = r; }); // the last holder's rank too
      frames.push(frame({ action: i, cleared: !!a.reset, next: end ? null : rec.actions[i + 1].seat, flags }));
    });
    if (rec.actions.length && rec.order && order !== rec.order) {
      problems.push(fmt(T.order_differs, { mine: orderName(order), theirs: orderName(rec.order) }));
    }
    return { frames, problems };
  }

  // -- the position and the URL -----------------------------------------------------------------

  const turnAt = (at) => (at === 0 ? 0 : S.rec.actions[at - 1].turn);

  // The position of turn T: after the action of that turn (the last one before it if none has it).
  function positionOfTurn(rec, turn) {
    let at = 0;
    rec.actions.forEach((a, i) => { if (a.turn <= turn) at = i + 1; });
    return at;
  }

  function readHash(rec) {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const turn = parseInt(params.get("turn"), 10);
    const seat = parseInt(params.get("seat"), 10);
    return {
      at: Number.isInteger(turn) ? positionOfTurn(rec, turn) : 0,
      seat: Number.isInteger(seat) && seat >= 0 && seat < rec.players.length ? seat : null,
    };
  }

  function writeHash() {
    const hash = `#turn=${turnAt(S.at)}` + (S.seat === null ? "" : `&seat=${S.seat}`);
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  function go(at) {
    if (!S.rec) return;
    S.at = Math.max(0, Math.min(S.frames.length - 1, at));
    writeHash();
    draw();
  }

  // -- drawing ------------------------------------------------------------------------------------

  const colour = (seat) => cfg.colours[seat % cfg.colours.length];
  const nameOf = (seat) => S.rec.players[seat].name;
  const swatch = (seat) => h("span", { class: "swatch", background: colour(seat) });
  const orderName = (order) => (order === "Revolution" ? T.revolution_order : T.normal);
  const rankWord = (r) => (own(T.ranks, r) ? T.ranks[r] : "");
  const rankName = (r) => `${r} ${rankWord(r)}`;
  const countText = (n) => (n === 0 ? T.no_cards : n === 1 ? T.one_card : fmt(T.cards, { n }));
  const written = (ids) => ids.map((id) => Cards.info(id).written).join(" ");
  const spaced = (nodes) => nodes.flatMap((n, i) => (i ? [" ", n] : [n]));
  const rankPill = (r, title) => h("span", { class: `rank-pill rank-${r}`, title }, String(r));
  const badge = (cls, text) => h("span", { class: `badge ${cls}` }, text);

  // Cards as a player wrote them: coloured where they read as cards, else as sent.
  function writtenCards(list) {
    return spaced(list.map((w) => {
      const id = Cards.parse(w);
      return id === null ? h("code", null, JSON.stringify(w)) : Cards.textNodes([id]);
    }));
  }

  function showError(text) {
    const el = $("replay-error");
    el.textContent = text || "";
    el.hidden = !text;
  }

  function drawHead() {
    const rec = S.rec;
    if (S.source !== "server") { // a file's game: its own title, none of the server's links
      $("replay-title").textContent = fmt(T.game_in, { title: rec.place.title, place: rec.place.id, no: rec.game });
      $("source").textContent = fmt(T.from_file, { name: S.source });
      $("server-links").hidden = true;
    }
    const count = S.frames.length - 1;
    $("position").textContent = S.at === 0 ? fmt(T.at_deal, { count }) : fmt(T.at_turn, { turn: turnAt(S.at), at: S.at, count });
    const slider = $("slider");
    slider.max = count;
    slider.value = S.at;
    slider.disabled = false; // the controls wait for a record
    $("btn-first").disabled = $("btn-back").disabled = S.at === 0;
    $("btn-last").disabled = $("btn-forward").disabled = S.at === count;
  }

  function drawSeats(f) {
    $("seats").replaceChildren(...S.rec.players.map((p, s) => {
      const classes = ["seat"];
      const pills = [];
      if (f.next === s) {
        classes.push("turn");
        pills.push(badge("pill-turn", T.turn));
      }
      const rank = f.ranks[s];
      if (rank) {
        classes.push("out");
        pills.push(rankPill(rank, rankName(rank)), h("span", null, rankWord(rank)));
      }
      const last = f.last[s];
      if (last && last.kind === "miss") pills.push(badge("pill-miss", T.missed));
      if (f.passed.includes(s)) {
        classes.push("passed");
        pills.push(badge("pill-pass", T.passed));
      }
      const cards = f.hands[s].length;
      const name = S.source === "server"
        ? h("a", { class: "seat-name player-link", title: p.name, href: `/users/${encodeURIComponent(p.name)}` }, p.name)
        : h("span", { class: "seat-name", title: p.name }, p.name);
      const seat = h("div", { class: classes.join(" ") },
        h("div", { class: "seat-top" }, h("span", { class: "seat-colour", background: colour(s) }), name),
        h("span", { class: "seat-points" }, rank ? fmt(T.points_short, { n: S.rec.points[s] }) : ""),
        h("div", { class: "seat-count" }, countText(cards)),
        h("div", { class: "seat-status" }, spaced(pills)),
        h("div", { class: "seat-last" }, last && last.kind === "play" ? Cards.textNodes(last.cards) : ""));
      Object.assign(seat.dataset, { seat: s, name: p.name, cards, rank: rank || "" });
      return seat;
    }));
  }

  function actionLine(a, f) {
    const name = h("b", null, nameOf(a.seat));
    let line;
    if (a.verdict === "play") line = fmtNodes(T.played, { name, cards: writtenCards(a.cards) });
    else if (a.verdict === "pass") line = fmtNodes(T.passes, { name });
    else if (a.verdict === "miss") line = fmtNodes(T.missed_reason, { name, reason: a.reason || "" });
    else line = fmtNodes(T.timed_out, { name });
    line.push(" ", h("span", { class: "muted-felt" }, `· ${fmt(T.ms, { ms: a.ms })}`));
    if (f.ranks[a.seat] && (f.flags.finished || f.flags.missed)) line.push(` · ${rankName(f.ranks[a.seat])}`);
    return line;
  }

  function drawTable(f) {
    $("felt").classList.toggle("revolution", f.order === "Revolution");
    const order = $("order");
    order.textContent = orderName(f.order);
    order.className = "badge " + (f.order === "Revolution" ? "badge-revolution" : "badge-normal");
    $("trick-info").textContent = f.pending ? T.revolution_play + " …" : "";
    const cards = $("table-cards");
    cards.className = "table-cards" + (f.cleared ? " cleared" : "");
    cards.dataset.cards = written(f.table);
    cards.replaceChildren(...(f.table.length
      ? f.table.map((id) => Cards.faceNode(id))
      : [h("span", { class: "table-empty" }, T.empty_table)]));
    $("table-owner").replaceChildren(...(f.table.length && f.owner !== null ? [h("b", null, nameOf(f.owner))] : []));

    const line = f.action === null ? [T.deal] : actionLine(S.rec.actions[f.action], f);
    if (f.next !== null) line.push(" · ", h("strong", null, fmt(f.action === null || f.cleared ? T.leads : T.next, { name: nameOf(f.next) })));
    else if (f.action !== null) line.push(" · ", h("strong", null, fmt(T.game_over, { no: S.rec.game })));
    $("turn-line").replaceChildren(...line.flat(Infinity));

    const flags = f.flags;
    let notice = "";
    let cls = "";
    if (flags.flipped) [notice, cls] = [f.order === "Revolution" ? T.revolution : T.back_to_normal, "revolution"];
    else if (flags.eightCut) [notice, cls] = [T.eight_cut, "eight"];
    else if (flags.reset) notice = T.reset;
    else if (flags.revolution) [notice, cls] = [T.revolution_play, "revolution"];
    const el = $("notice");
    el.textContent = notice;
    el.className = `notice${notice ? " show" : ""} ${cls}`;
  }

  function drawHands(f) {
    const received = new Map(); // at the deal: the cards each seat got in the exchange
    if (S.at === 0) {
      S.rec.exchange.forEach((e) => {
        const got = received.get(e.to) || [];
        e.cards.forEach((w) => got.push(Cards.parse(w)));
        received.set(e.to, got);
      });
    }
    $("hands").replaceChildren(...S.rec.players.map((p, s) => {
      const hand = f.hands[s];
      const open = S.seat === null || S.seat === s;
      let cards;
      if (open) {
        const got = (received.get(s) || []).slice();
        cards = h("div", { class: "cards-row overlap" }, hand.map((id) => {
          const i = got.indexOf(id >= 53 ? 53 : id);
          if (i >= 0) got.splice(i, 1);
          return Cards.faceNode(id, i >= 0 ? "card-received" : "");
        }));
      } else {
        cards = h("div", { class: "backs", "aria-label": countText(hand.length) }, hand.map(() => Cards.backNode()));
      }
      const rank = f.ranks[s] ? [" ", rankPill(f.ranks[s])] : [];
      const row = h("div", { class: `hand-row${f.next === s ? " turn" : ""}${open ? "" : " hidden-hand"}` },
        h("span", { class: "hand-name" }, swatch(s), `${p.name} (${hand.length})`, rank), cards);
      Object.assign(row.dataset, { seat: s, count: hand.length, cards: open ? written(hand) : "" });
      return row;
    }));
    $("hands-note").hidden = !received.size || (S.seat !== null && !received.has(S.seat));
  }

  // The move list is drawn once per record; a position only moves its highlight.
  function buildMoves() {
    const rec = S.rec;
    const rows = [h("tr", { "data-at": 0 }, h("td", { class: "num" }, "0"), h("td", { colspan: 4 }, T.deal))];
    rec.actions.forEach((a, i) => {
      let result;
      if (a.verdict === "play") result = [];
      else if (a.verdict === "pass") result = [badge("pill-pass", T.passed)];
      else if (a.verdict === "miss") result = [badge("pill-miss", T.missed), " ", h("span", { class: "reason" }, a.reason || "")];
      else result = [badge("pill-miss", T.timeout)];
      rows.push(h("tr", { "data-at": i + 1, "data-turn": a.turn, class: `verdict-${a.verdict}${a.reset ? " reset" : ""}` },
        h("td", { class: "num" }, h("button", { type: "button", class: "move-go" }, String(a.turn))),
        h("td", { class: "who" }, swatch(a.seat), nameOf(a.seat)),
        h("td", null, writtenCards(a.cards)),
        h("td", null, result),
        h("td", { class: "num" }, String(a.ms))));
    });
    $("moves").replaceChildren(...rows);
  }

  function drawMoves() {
    Moves.markCurrent($("moves-wrap"), S.at);
  }

  function drawExchange() {
    const list = S.rec.exchange;
    $("exchange").replaceChildren(...(list.length
      ? list.map((e) => {
        const seen = S.seat === null || S.seat === e.from || S.seat === e.to;
        const cards = seen ? writtenCards(e.cards) : h("span", { class: "muted" }, fmt(T.hidden_cards, { n: e.cards.length }));
        return h("li", { "data-from": e.from, "data-to": e.to },
          swatch(e.from), nameOf(e.from), " → ", swatch(e.to), nameOf(e.to), ": ", cards);
      })
      : [h("li", { class: "muted" }, T.no_exchange)]));
  }

  function draw() {
    const f = S.frames[S.at];
    drawHead();
    drawSeats(f);
    drawTable(f);
    drawHands(f);
    drawMoves();
    drawExchange();
    $("view").value = S.seat === null ? "" : String(S.seat);
    // for tests and curious people: where the page is
    root.dataset.at = S.at;
    root.dataset.turn = turnAt(S.at);
    root.dataset.count = S.frames.length - 1;
    root.dataset.order = f.order;
    root.dataset.seat = S.seat === null ? "" : S.seat;
    root.dataset.source = S.source;
    root.dataset.game = S.rec.game;
    root.dataset.ready = "1";
  }

  // -- loading a record -------------------------------------------------------------------------

  function show(index, where) {
    S.rec = S.records[index];
    const worked = framesOf(S.rec);
    S.frames = worked.frames;
    S.at = 0;
    if (S.seat !== null && S.seat >= S.rec.players.length) S.seat = null;
    if (where) {
      S.at = where.at;
      S.seat = where.seat;
    }
    $("view").replaceChildren(h("option", { value: "" }, T.every_hand),
      ...S.rec.players.map((p, s) => h("option", { value: s }, fmt(T.seat_view, { name: p.name }))));
    const choice = $("game-choice");
    choice.hidden = S.records.length < 2;
    choice.replaceChildren(...S.records.map((r, i) => h("option", { value: i, selected: i === index }, fmt(T.game_of, { no: r.game, count: r.place.games }))));
    showError(worked.problems.join(" "));
    buildMoves();
    writeHash();
    draw();
  }

  async function loadFromServer() {
    let response;
    try {
      response = await fetch(cfg.record_url, { credentials: "same-origin" });
    } catch (err) {
      showError(fmt(T.no_record, { message: String(err) }));
      return;
    }
    if (!response.ok) {
      let message = String(response.status);
      try { message = (await response.json()).error.message; } catch (_) { /* not our JSON */ }
      showError(fmt(T.no_record, { message }));
      return;
    }
    S.records = [await response.json()];
    try {
      check(S.records[0]);
    } catch (err) {
      showError(fmt(T.not_a_record, { name: "record.json", message: err.message }));
      return;
    }
    show(0, readHash(S.records[0]));
  }

  async function loadFile(file) {
    if (!file) return;
    let records;
    try {
      records = readRecords(await file.text());
    } catch (err) {
      showError(fmt(T.not_a_record, { name: file.name, message: err.message }));
      return; // the record shown (if any) stays
    }
    S.records = records;
    S.source = file.name;
    show(0, null);
  }

  // -- controls ------------------------------------------------------------------------------------

  $("btn-first").addEventListener("click", () => go(0));
  $("btn-back").addEventListener("click", () => go(S.at - 1));
  $("btn-forward").addEventListener("click", () => go(S.at + 1));
  $("btn-last").addEventListener("click", () => go(S.frames.length - 1));
  $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("moves").addEventListener("click", (e) => {
    const row = e.target.closest("tr[data-at]");
    if (row) go(Number(row.dataset.at));
  });
  $("view").addEventListener("change", (e) => {
    S.seat = e.target.value === "" ? null : Number(e.target.value);
    writeHash();
    if (S.rec) draw();
  });
  $("game-choice").addEventListener("change", (e) => show(Number(e.target.value), null));
  $("record-file").addEventListener("change", (e) => {
    loadFile(e.target.files[0]);
    e.target.value = ""; // the same file chosen again is read again
  });
  window.addEventListener("hashchange", () => {
    if (!S.rec) return;
    const where = readHash(S.rec);
    S.seat = where.seat;
    go(where.at);
  });

  const KEYS = { ArrowLeft: () => S.at - 1, ArrowRight: () => S.at + 1, Home: () => 0, End: () => S.frames.length - 1 };
  document.addEventListener("keydown", (e) => {
    if (!S.rec || !(e.key in KEYS) || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.target.closest("input, select, textarea, [contenteditable]")) return; // their own keys
    e.preventDefault();
    go(KEYS[e.key]());
  });

  // a record file dropped anywhere on the page
  const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
  let dragDepth = 0;
  document.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dragDepth += 1;
    root.classList.add("dragging");
  });
  document.addEventListener("dragover", (e) => {
    if (hasFiles(e)) e.preventDefault(); // a drop target
  });
  document.addEventListener("dragleave", () => {
    dragDepth = Math.max(0, dragDepth - 1);
    if (!dragDepth) root.classList.remove("dragging");
  });
  document.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dragDepth = 0;
    root.classList.remove("dragging");
    loadFile(e.dataTransfer.files[0]);
  });

  // for tests and the curious: each position as worked out, and a way to move
  window.replay = { frames: () => S.frames, go, problems: (doc) => Schema.errors(RECORD_SCHEMA, doc) };
  loadFromServer();
})();
