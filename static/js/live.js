// The live board: a snapshot from state.json, then the numbered events of
// ws/places/ID/live/ ({"seq":N,"event":{…}}). No polling: the snapshot is read
// again only on (re)connecting, on a gap in the numbers, and when a game starts
// (the deal, and so each seat's number of cards, is in no event).
// Pages that add to the board (the manual-play page) set window.liveHooks first.
"use strict";

(() => {
  const cfg = JSON.parse(document.getElementById("live-config").textContent);
  const T = cfg.strings;
  const hooks = window.liveHooks || {};
  const $ = (id) => document.getElementById(id);
  const root = $("live");

  const fmt = (s, args) => s.replace(/%\((\w+)\)s/g, (_, k) => (k in args ? args[k] : ""));
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const ids = (cards) => cards.map((c) => c.card.id);

  // -- the model ------------------------------------------------------------------------

  const M = {
    loaded: false,
    seq: 0,
    place: null,
    phase: "new",
    gameNo: 0,
    gamesFinished: 0,
    gameOver: false,
    order: "Nomal",
    pendingRevolution: false,
    table: [],
    tableOwner: null,
    tableCleared: false,
    turn: null,
    deadline: null, // local ms
    seats: [],
    hands: null,
    ended: {}, // name → rank, for the turn being settled
    log: [],
    counters: { turns: 0, resets: 0, eightCuts: 0, revolutions: 0, ranks: 0, games: 0 },
  };

  const seatOf = (name) => M.seats.find((s) => s.name === name);

  function fromSnapshot(s) {
    const before = Object.fromEntries(M.seats.map((x) => [x.name, x]));
    const sameGame = M.gameNo === s.game_no;
    M.loaded = true;
    M.seq = s.last_seq;
    M.place = s.place;
    M.phase = s.phase;
    M.gameNo = s.game_no;
    M.gamesFinished = s.games_finished;
    M.gameOver = s.game_over;
    M.order = s.order;
    M.pendingRevolution = s.pending_revolution;
    M.table = s.table;
    M.tableOwner = s.table_player;
    M.tableCleared = false;
    M.turn = s.turn;
    M.deadline = s.turn_deadline
      ? Date.now() + (Date.parse(s.turn_deadline) - Date.parse(s.server_time))
      : null;
    M.seats = s.seats.map((x) => ({
      seat: x.seat,
      name: x.name,
      cards: x.cards,
      passed: x.passed,
      rank: x.rank,
      lastRank: x.last_rank,
      points: x.points,
      rankCounts: x.rank_counts.slice(),
      bank: x.bank, // the time bank left in this game (null: none)
      colour: x.colour,
      // what each seat did in this trick is in no snapshot: keep what this page saw
      last: s.phase === "in_game" && !s.game_over && s.table.length && before[x.name] ? before[x.name].last : null,
      missed: sameGame && before[x.name] ? !!before[x.name].missed : false,
    }));
    M.hands = s.hands || null;
    M.ended = {};
  }

  function addLog(html, cls) {
    M.log.unshift({ html, cls: cls || "" });
    if (M.log.length > 80) M.log.length = 80;
  }

  let dealOf = 0;

  function apply(e) {
    const op = e.operation;
    if (op === "start_place") {
      M.place.state = "running";
      M.phase = "between_games";
      addLog(esc(T.place_starts), "sys");
    } else if (op === "start_game") {
      M.gameNo = e.game.no;
      M.phase = "in_game";
      M.gameOver = false;
      M.order = "Nomal";
      M.pendingRevolution = false;
      M.table = [];
      M.tableOwner = null;
      M.seats.forEach((s) => {
        s.rank = null; s.passed = false; s.last = null; s.missed = false;
        if (M.place.time_bank) s.bank = M.place.time_bank;
      });
      if (M.hands) M.hands = M.hands.map(() => []);
      addLog(esc(fmt(T.starts_game, { no: e.game.no })), "sys");
      dealOf = e.game.no; // the deal is in no event: read it (how many cards, for staff which)
    } else if (op === "start_turn") {
      const order = e.place_info;
      if (order !== M.order) {
        flash(order === "Revolution" ? T.revolution : T.back_to_normal, "revolution");
        addLog(esc(order === "Revolution" ? T.revolution : T.back_to_normal), "big");
        M.order = order;
      }
      M.pendingRevolution = false;
      M.table = ids(e.place_cards);
      M.tableCleared = false;
      if (!M.table.length) {
        M.tableOwner = null;
        M.seats.forEach((s) => { s.passed = false; s.last = null; });
      }
      M.turn = e.player;
      const turnSeat = seatOf(e.player);
      M.turnOpened = Date.now();
      M.deadline = M.turnOpened + (M.place.time_limit + ((turnSeat && turnSeat.bank) || 0)) * 1000;
      M.counters.turns += 1;
    } else if (op === "end_player") {
      const rank = e.rank.rank.rank;
      const seat = seatOf(e.player);
      if (seat) seat.rank = rank;
      M.ended[e.player] = rank;
      M.counters.ranks += 1;
      if (!M.turn || M.turn !== e.player) {
        addLog(esc(fmt(T.rank_taken, { name: e.player, rank: rankName(rank) })), "sys");
      }
    } else if (op === "end_turn") {
      const played = ids(e.turn_cards);
      const seat = seatOf(e.player);
      const ended = e.player in M.ended;
      if (seat && seat.bank && M.turnOpened) {
        // what ran past the limit came off the bank (the next snapshot has the server's figure)
        const over = (Date.now() - M.turnOpened) / 1000 - M.place.time_limit;
        seat.bank = Math.max(0, seat.bank - Math.max(0, over));
      }
      if (seat) {
        if (played.length) {
          seat.cards = Math.max(0, seat.cards - played.length);
          seat.last = { kind: "play", cards: played };
          if (M.hands) {
            const gone = new Set(played);
            M.hands[seat.seat] = M.hands[seat.seat].filter((id) => !gone.has(id));
          }
          M.table = played;
          M.tableOwner = e.player;
          clearNotice();
          addLog(fmt(esc(T.played), { name: `<b>${esc(e.player)}</b>`, cards: Cards.text(played) }));
          if (Cards.isRevolution(played)) {
            M.pendingRevolution = !M.pendingRevolution;
            M.counters.revolutions += 1;
            flash(T.revolution_play, "revolution");
            addLog(esc(T.revolution_play), "big");
          }
        } else if (ended) {
          seat.cards = 0;
          seat.missed = true;
          seat.last = { kind: "miss" };
          if (M.hands) M.hands[seat.seat] = [];
          addLog(fmt(esc(T.misses), { name: `<b>${esc(e.player)}</b>` }) + " · " + esc(rankName(M.ended[e.player])), "big");
        } else {
          seat.passed = true;
          seat.last = { kind: "pass" };
          addLog(fmt(esc(T.passes), { name: esc(e.player) }), "sys");
        }
        if (ended && played.length) {
          seat.cards = 0;
          addLog(esc(fmt(T.finishes, { name: e.player, rank: rankName(M.ended[e.player]) })), "big");
        }
      }
      if (e.reset_place) {
        const eight = Cards.hasEight(played);
        if (eight && !ended) {
          M.counters.eightCuts += 1;
          flash(T.eight_cut, "eight");
          addLog(esc(T.eight_cut), "big");
        } else {
          flash(T.reset, "");
          addLog(esc(T.reset) + " · " + esc(T.table_cleared), "sys");
        }
        M.counters.resets += 1;
        M.tableCleared = true;
        M.seats.forEach((s) => { s.passed = false; });
      }
      M.turn = null;
      M.deadline = null;
      M.ended = {};
    } else if (op === "end_game") {
      const n = M.seats.length;
      M.seats.forEach((s) => {
        if (s.rank) {
          s.points += n - s.rank;
          s.rankCounts[s.rank - 1] += 1;
          s.lastRank = s.rank;
        }
      });
      M.gamesFinished = e.game.no;
      M.gameOver = true;
      M.phase = "between_games";
      M.turn = null;
      M.deadline = null;
      M.counters.games += 1;
      flash(fmt(T.game_over, { no: e.game.no }), "");
      addLog(esc(fmt(T.game_over, { no: e.game.no })), "big");
    } else if (op === "end_place") {
      // before its last game: staff stopped it; in a game, that game is dropped
      const dropped = M.phase === "in_game";
      M.place.state = M.gamesFinished < M.place.game_count ? "aborted" : "finished";
      M.phase = "over";
      M.turn = null;
      M.deadline = null;
      addLog(esc(T.place_over), "big");
      if (dropped) reload(); // the snapshot has no dropped game
    }
  }

  const isOver = (state) => state === "finished" || state === "aborted";
  const rankName = (r) => (r ? `${r} ${T.ranks[r] || ""}` : "");

  // -- the connection ---------------------------------------------------------------------

  let socket = null;
  let retries = 0;
  let ended = false; // the place is over: the socket is let go, the page says so
  let loading = false;
  let again = false;
  let wantFull = false;
  let buffer = [];

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${proto}//${location.host}${cfg.ws_path}`);
    setConn(retries ? T.reconnecting : T.connecting, "");
    socket.onopen = () => {
      retries = 0;
      if (!ended) setConn(T.live, "up");
      reload();
    };
    socket.onmessage = (m) => {
      let frame;
      try { frame = JSON.parse(m.data); } catch (_) { return; }
      if (typeof frame.seq === "number" && frame.event) onFrame(frame);
    };
    socket.onclose = () => {
      if (ended) return;
      setConn(T.reconnecting, "down");
      retries += 1;
      setTimeout(connect, Math.min(5000, 250 * 2 ** retries));
    };
  }

  function onFrame(frame) {
    if (loading || !M.loaded) { buffer.push(frame); return; }
    if (frame.seq <= M.seq) return; // already in the snapshot
    if (frame.seq !== M.seq + 1) { buffer.push(frame); reload(); return; } // a gap
    apply(frame.event);
    M.seq = frame.seq;
    if (hooks.onEvent) hooks.onEvent(frame.event, M);
    if (dealOf) { const no = dealOf; dealOf = 0; reload(no); }
    schedule();
  }

  // Read state.json. With ``dealFor`` (a game number whose start_game was just
  // applied) only the deal is taken from it, and the events that follow are
  // applied on top, none skipped; otherwise the page starts over from it.
  async function reload(dealFor) {
    if (loading) { again = true; if (!dealFor) wantFull = true; return; }
    loading = true;
    let full = !dealFor;
    try {
      do {
        again = false;
        if (wantFull) { full = true; wantFull = false; }
        const response = await fetch(cfg.state_url, { cache: "no-store", credentials: "same-origin" });
        if (!response.ok) throw new Error(`state.json: ${response.status}`);
        const snap = await response.json();
        if (!full && snap.game_no === dealFor && snap.last_seq >= M.seq) {
          snap.seats.forEach((x, i) => { if (M.seats[i]) M.seats[i].cards = x.dealt; });
          if (snap.dealt_hands) M.hands = snap.dealt_hands;
        } else {
          fromSnapshot(snap);
          full = true;
        }
      } while (again);
    } catch (err) {
      loading = false;
      setConn(T.reconnecting, "down");
      setTimeout(reload, 1000);
      return;
    }
    loading = false;
    const pending = buffer.sort((a, b) => a.seq - b.seq);
    buffer = [];
    if (hooks.onSnapshot) hooks.onSnapshot(M);
    for (const f of pending) onFrame(f);
    schedule();
  }

  function setConn(text, cls) {
    const el = $("conn");
    el.textContent = text;
    el.className = "conn " + cls;
  }

  // -- drawing ----------------------------------------------------------------------------

  let drawPending = false;
  function schedule() {
    if (drawPending) return;
    drawPending = true;
    setTimeout(() => { drawPending = false; draw(); }, 0);
  }

  let noticeTimer = null;
  function flash(text, cls) {
    const el = $("notice");
    el.textContent = text;
    el.className = `notice show ${cls}`;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { el.className = `notice ${cls}`; }, 1600);
  }

  function clearNotice() {
    const el = $("notice");
    clearTimeout(noticeTimer);
    el.className = "notice";
  }

  function backs(n) {
    let html = "";
    for (let i = 0; i < Math.min(n, 11); i++) html += Cards.back();
    return html;
  }

  function countText(n) {
    return n === 0 ? T.no_cards : n === 1 ? T.one_card : fmt(T.cards, { n });
  }

  function drawSeats() {
    const html = M.seats.map((s) => {
      const classes = ["seat"];
      const pills = [];
      if (M.turn === s.name) {
        classes.push("turn");
        pills.push(`<span class="badge pill-turn">${esc(T.turn)}</span> <span class="seat-time" data-time></span>`);
      }
      if (s.rank) {
        classes.push("out");
        pills.push(`<span class="rank-pill rank-${s.rank}" title="${esc(rankName(s.rank))}">${s.rank}</span> <span>${esc(T.ranks[s.rank] || "")}</span>`);
      }
      if (!s.rank && s.lastRank && (M.phase === "over" || M.phase === "between_games")) {
        pills.push(`<span class="rank-pill rank-${s.lastRank}">${s.lastRank}</span> <span class="muted">${esc(T.ranks[s.lastRank] || "")} · ${esc(T.last_game)}</span>`);
      }
      if (s.missed) pills.push(`<span class="badge pill-miss">${esc(T.missed)}</span>`);
      if (s.passed) {
        classes.push("passed");
        pills.push(`<span class="badge pill-pass">${esc(T.passed)}</span>`);
      }
      if (cfg.me && s.name === cfg.me) {
        classes.push("me");
        pills.unshift(`<span class="badge pill-you">${esc(T.you)}</span>`);
      }
      let last = "";
      if (s.last && s.last.kind === "play") last = Cards.text(s.last.cards);
      return `<div class="${classes.join(" ")}" data-seat="${s.seat}" data-name="${esc(s.name)}" data-cards="${s.cards}" data-rank="${s.rank || ""}"${s.passed ? " data-passed" : ""}>
        <div class="seat-top"><span class="seat-colour" style="background:${s.colour}"></span><a class="seat-name player-link" title="${esc(s.name)}" href="/users/${encodeURIComponent(s.name)}">${esc(s.name)}</a></div>
        <span class="seat-points" title="${esc(T.points)}">${esc(fmt(T.points_short, { n: s.points }))}</span>
        ${s.bank === null || s.bank === undefined ? "" : `<span class="seat-bank" data-bank="${s.bank}">${esc(fmt(T.bank, { s: s.bank.toFixed(1) }))}</span>`}
        <div class="backs" aria-label="${esc(countText(s.cards))}">${backs(s.cards)}</div>
        <div class="seat-count">${M.phase === "over" || !M.gameNo ? "" : esc(countText(s.cards))}</div>
        <div class="seat-status">${pills.join(" ")}</div>
        <div class="seat-last">${last}</div>
        <div class="timer"><span></span></div>
      </div>`;
    }).join("");
    $("seats").innerHTML = html;
  }

  function drawTable() {
    const felt = $("felt");
    felt.classList.toggle("revolution", M.order === "Revolution");
    const order = $("order");
    order.textContent = M.order === "Revolution" ? T.revolution_order : T.normal;
    order.className = "badge " + (M.order === "Revolution" ? "badge-revolution" : "badge-normal");
    $("trick-info").textContent = M.pendingRevolution ? T.revolution_play + " …" : "";
    const cards = $("table-cards");
    cards.className = "table-cards" + (M.tableCleared ? " cleared" : "");
    cards.dataset.cards = M.table.map((id) => Cards.info(id).written).join(" ");
    if (M.table.length) {
      cards.innerHTML = M.table.map((id) => Cards.face(id)).join("");
    } else if (M.place && isOver(M.place.state) && M.gameNo) {
      cards.innerHTML = `<span class="table-empty">${esc(fmt(T.game_over, { no: M.gameNo }))}</span>`;
    } else {
      cards.innerHTML = `<span class="table-empty">${esc(M.place && M.place.state === "waiting" ? T.waiting : T.empty_table)}</span>`;
    }
    $("table-owner").innerHTML = M.table.length && M.tableOwner ? `<b>${esc(M.tableOwner)}</b>` : "";
    let line = "";
    if (M.turn) {
      line = cfg.me && M.turn === cfg.me
        ? `<strong>${esc(T.your_turn)}</strong> · <span data-time></span>`
        : `<strong>${esc(M.turn)}</strong> · ${esc(T.turn)} · <span data-time></span>`;
    } else if (M.place && isOver(M.place.state)) {
      line = `${esc(T.place_over)} <a href="${esc(cfg.results_url)}" class="felt-link">${esc(T.see_results)} →</a>`;
    } else if (M.gameOver) {
      line = esc(fmt(T.game_over, { no: M.gameNo }));
    }
    $("turn-line").innerHTML = line;
  }

  // The place is over: no event will come, so "live" would not be true.
  function end() {
    ended = true;
    setConn(T.ended, "ended");
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close();
  }

  function drawHead() {
    const state = M.place.state;
    if (isOver(state) && !ended) end();
    const badge = $("place-state");
    badge.textContent = { running: T.running, waiting: T.waiting, finished: T.finished, aborted: T.aborted }[state] || state;
    badge.className = "badge badge-" + state;
    $("game-line").textContent = M.gameNo
      ? fmt(T.game_of, { no: M.gameNo, count: M.place.game_count })
      : T.no_game;
  }

  function drawStandings() {
    const order = M.seats.slice().sort((a, b) => b.points - a.points || a.seat - b.seat);
    let position = 0;
    let prev = null;
    $("standings").innerHTML = order.map((s, i) => {
      if (s.points !== prev) position = i + 1;
      prev = s.points;
      return `<tr data-name="${esc(s.name)}"><td class="num">${position}</td><td class="name"><span class="swatch" style="background:${s.colour}"></span><a class="player-link" href="/users/${encodeURIComponent(s.name)}">${esc(s.name)}</a></td><td class="num">${s.points}</td><td class="num">${s.rankCounts.join("·")}</td></tr>`;
    }).join("");
  }

  function drawLog() {
    $("log").innerHTML = M.log.map((l) => `<li class="${l.cls}">${l.html}</li>`).join("");
  }

  function drawStaff() {
    if (!cfg.staff) return;
    $("btn-start").disabled = M.place.state !== "waiting";
    $("btn-next").disabled = M.place.state !== "running" || !!M.turn;
    $("btn-stop").disabled = isOver(M.place.state);
    const hands = $("hands");
    if (!M.hands) { hands.innerHTML = ""; return; }
    hands.innerHTML = M.seats.map((s) => {
      const hand = M.hands[s.seat] || [];
      return `<div class="hand-row${M.turn === s.name ? " turn" : ""}" data-name="${esc(s.name)}"><span class="hand-name"><span class="swatch" style="background:${s.colour}"></span>${esc(s.name)} (${hand.length})</span><div class="cards-row overlap">${hand.map((id) => Cards.face(id)).join("")}</div></div>`;
    }).join("");
  }

  function draw() {
    if (!M.loaded) return;
    drawHead();
    drawSeats();
    drawTable();
    drawStandings();
    drawLog();
    drawStaff();
    tick();
    // for tests and curious people: what this page has applied
    root.dataset.seq = M.seq;
    root.dataset.state = M.place.state;
    root.dataset.game = M.gameNo;
    root.dataset.turn = M.turn || "";
    Object.entries(M.counters).forEach(([k, v]) => { root.dataset[k] = v; });
    if (hooks.onDraw) hooks.onDraw(M);
  }

  function tick() {
    const left = M.deadline ? Math.max(0, (M.deadline - Date.now()) / 1000) : null;
    document.querySelectorAll("[data-time]").forEach((el) => {
      el.textContent = left === null ? "" : fmt(T.seconds, { s: left.toFixed(1) });
    });
    const bank = document.querySelector(".seat.turn [data-bank]");
    if (bank && left !== null) {
      // past the limit, the bank drains: what is left of it is what is left of the turn
      const kept = Math.min(Number(bank.dataset.bank), left);
      bank.textContent = fmt(T.bank, { s: kept.toFixed(1) });
    }
    const bar = document.querySelector(".seat.turn .timer > span");
    if (bar && left !== null && M.place) bar.style.transform = `scaleX(${Math.min(1, left / M.place.time_limit)})`;
  }
  setInterval(tick, 100);

  // -- staff buttons ------------------------------------------------------------------------

  async function staffPost(url, done) {
    const msg = $("staff-msg");
    try {
      const r = await fetch(url, { method: "POST", credentials: "same-origin" });
      const body = await r.json();
      msg.textContent = r.ok ? done : fmt(T.error, { message: body.error ? body.error.message : r.status });
    } catch (err) {
      msg.textContent = fmt(T.error, { message: String(err) });
    }
  }
  if (cfg.staff) {
    $("btn-start").addEventListener("click", () => staffPost(cfg.start_url, T.started));
    $("btn-next").addEventListener("click", () => staffPost(cfg.next_url, T.stepped));
    $("btn-stop").addEventListener("click", () => {
      if (window.confirm(T.stop_confirm)) staffPost(cfg.stop_url, T.stopped);
    });
  }

  // for tests and the curious: the model, and a way to drop the socket (it reconnects)
  window.live = { model: M, reload, drop: () => socket && socket.close() };
  connect();
})();
