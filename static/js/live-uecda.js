// The live page of a UECda place: the table as it is, from the live frames of
// ws/places/ID/live/ (docs/protocol.md, "UECda live frames"). Each frame holds the whole
// public table, so the page draws the newest and needs no snapshot of the game in play;
// until one comes it shows the last finished game this reader may read, as it ended.
// The table is drawn by static/js/uecda-table.js (the replay's code). Only textContent
// is written.
"use strict";

(() => {
  const cfg = JSON.parse(document.getElementById("live-config").textContent);
  const T = cfg.strings;
  const table = UecdaTable(cfg, cfg.names);
  const { $, el, fill, fmt, swatch, nameOf } = table;
  const root = $("live");
  let pending = null;
  let retries = 0;
  let socket = null;
  let ended = false; // the place is over: no socket, the page says so

  // The match is over: no frame will come, so "live" would not be true.
  function end() {
    ended = true;
    setConn(T.ended, "ended");
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close();
  }

  function drawStandings(points) {
    const order = points.map((n, p) => [n, p]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    fill($("standings"), ...order.map(([n, p]) => {
      const tr = el("tr");
      tr.dataset.player = p;
      tr.dataset.points = n;
      const who = el("td");
      who.append(swatch(p), nameOf(p));
      tr.append(who, el("td", "num", String(n)));
      return tr;
    }));
  }

  // rec: what the table's seats and exchange are read from (a record, or a frame);
  // f: the position; a: the submission that made it (null: the deal).
  function draw(rec, f, a, points, source, line) {
    table.drawSeats(rec, f, points);
    table.drawTable(rec, f, a);
    table.drawExchange(rec);
    drawStandings(points);
    $("game-line").textContent = line;
    Object.assign(root.dataset, {
      source,
      game: rec.game,
      order: f.revolution ? "Revolution" : "Normal",
      lock: f.lock ? f.lock.join("") : "",
      ready: "1",
    });
  }

  function drawFrame(x) {
    const a = x.last ? { player: x.last.player, table: x.last.cells } : null;
    draw(x, x, a, x.points, "live", fmt(T.live_game, { no: x.game, count: x.games, at: x.at }));
    root.dataset.at = x.at;
    root.dataset.phase = x.phase;
    if (x.phase === "exchange") {
      $("turn-line").textContent = T.exchanging;
      fill($("exchange"), el("li", "muted", T.exchanging));
    }
    if (x.phase === "over") showChoices(x.game);
    if (x.phase === "over" && x.game >= x.games) end(); // its last game
  }

  // A game's end: its record (when this reader may read it) adds the exchange's cards
  // and the rich's choice. It may be a moment behind the frame: a few tries.
  async function showChoices(game, tries = 3) {
    let response;
    try {
      response = await fetch(`/places/${cfg.place}/games/${game}/record.json`, { cache: "no-store" });
    } catch (_) {
      return; // the next game's frames go on regardless
    }
    if (response.ok) {
      const record = await response.json();
      if (root.dataset.game === String(game)) table.drawExchange(record);
    } else if (response.status === 404 && tries > 1) {
      setTimeout(() => showChoices(game, tries - 1), 500);
    }
  }

  // Frames may come faster than a screen shows them: the newest is drawn, once a frame.
  function onFrame(x) {
    if (pending === null) requestAnimationFrame(() => { drawFrame(pending); pending = null; });
    pending = x;
  }

  function setConn(text, cls) {
    $("conn").textContent = text;
    $("conn").className = `conn ${cls}`;
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${proto}//${location.host}${cfg.ws_path}`);
    setConn(retries ? T.reconnecting : T.connecting, "");
    socket.onopen = () => {
      retries = 0;
      if (!ended) setConn(T.live, "up");
    };
    socket.onmessage = (m) => {
      let frame;
      try { frame = JSON.parse(m.data); } catch (_) { return; }
      if (frame.uecda) onFrame(frame.uecda);
    };
    socket.onclose = () => {
      if (ended) return;
      setConn(T.reconnecting, "down");
      retries += 1;
      setTimeout(connect, Math.min(5000, 250 * 2 ** retries));
    };
  }

  if (cfg.record) {
    const rec = cfg.record;
    const line = fmt(T.last_game, { no: rec.game, count: cfg.game_count });
    draw(rec, cfg.position, rec.actions[rec.actions.length - 1] || null, cfg.points, "last", line);
  } else {
    fill($("turn-line"), el("span", "", T.waiting));
    drawStandings(cfg.points);
    root.dataset.source = "waiting";
    root.dataset.ready = "1";
  }
  if (cfg.over) end();
  else connect();
})();
