// The manual-play page: the player's hand as cards, click to select, the legal
// plays from /operations/legal_plays.json, Play and Pass posting to
// /operations/post_cards.json. The table and the other players come from
// live.js (loaded after this file), which calls the hooks set here.
"use strict";

(() => {
  const cfg = JSON.parse(document.getElementById("live-config").textContent);
  const T = cfg.strings;
  const $ = (id) => document.getElementById(id);
  const fmt = (s, args) => s.replace(/%\((\w+)\)s/g, (_, k) => (k in args ? args[k] : ""));
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const key = (cards) => cards.slice().sort().join(" ");

  // With scripts on, the cards below replace the text view: fold it away.
  const classic = $("classic");
  if (classic) classic.open = false;

  let doc = null; // the last legal_plays.json
  let selected = new Set(); // indexes into doc.hand
  let busy = false; // a post is on its way
  let loading = null;
  let again = false;
  let model = null;

  async function refresh() {
    if (loading) { again = true; return loading; }
    loading = (async () => {
      do {
        again = false;
        try {
          const r = await fetch(cfg.legal_url, { cache: "no-store", credentials: "same-origin" });
          if (!r.ok) throw new Error(String(r.status));
          const next = await r.json();
          if (!doc || key(doc.hand) !== key(next.hand)) selected = new Set();
          doc = next;
        } catch (err) {
          $("play-result").textContent = fmt(T.error, { message: String(err) });
        }
      } while (again);
      loading = null;
      draw();
    })();
    return loading;
  }

  function selectedCards() {
    return [...selected].sort((a, b) => a - b).map((i) => doc.hand[i]);
  }

  // the legal plays that contain every selected card
  function compatible() {
    const chosen = selectedCards();
    return doc.plays.filter((p) => {
      const left = p.slice();
      return chosen.every((c) => {
        const i = left.indexOf(c);
        if (i < 0) return false;
        left.splice(i, 1);
        return true;
      });
    });
  }

  function draw() {
    const panel = $("my-hand-panel");
    if (!doc) return;
    const myTurn = doc.my_turn && !busy;
    panel.dataset.busy = busy || loading ? "1" : "";
    panel.classList.toggle("my-turn", doc.my_turn);
    panel.dataset.myTurn = doc.my_turn ? "1" : "";
    panel.dataset.hand = doc.hand.join(" ");
    const chosen = selectedCards();
    const legalNow = doc.plays.some((p) => key(p) === key(chosen));
    const fits = compatible();
    const usable = new Set(fits.flat());

    // the hand: one button per card; jokers are drawn as the first and second joker
    let jokers = 0;
    $("my-hand").innerHTML = doc.hand.map((w, i) => {
      const id = w === "joker" ? 53 + jokers++ : Cards.idOf(w);
      const dim = doc.my_turn && !selected.has(i) && !usable.has(w);
      return `<button type="button" class="pick${selected.has(i) ? " selected" : ""}${dim ? " dim" : ""}" data-index="${i}" data-card="${w}" aria-pressed="${selected.has(i)}">${Cards.face(id)}</button>`;
    }).join("") || `<span class="empty">${esc(T.no_cards)}</span>`;

    $("btn-play").disabled = !(myTurn && chosen.length && legalNow);
    $("btn-pass").disabled = !(myTurn && doc.can_pass);
    $("btn-clear").disabled = !selected.size;

    const hint = $("play-hint");
    hint.className = "play-hint";
    if (!doc.my_turn) {
      hint.textContent = "";
    } else if (chosen.length) {
      hint.textContent = legalNow ? T.legal : T.not_legal;
      hint.classList.add(legalNow ? "ok" : "bad");
    } else if (!doc.plays.length) {
      hint.textContent = T.no_legal_play;
    } else {
      hint.textContent = doc.can_pass ? T.select_cards : T.must_lead;
    }

    // the legal plays, as shortcuts
    const shown = doc.my_turn ? (chosen.length ? fits : doc.plays) : [];
    const max = 16;
    $("suggestions").innerHTML = shown.slice(0, max).map((p) =>
      `<button type="button" data-cards="${esc(p.join(" "))}">${Cards.text(p.map((w) => Cards.idOf(w)))}</button>`
    ).join("") + (shown.length > max ? `<span class="more">+${shown.length - max}</span>` : "");

    drawStatus();
  }

  function drawStatus() {
    const el = $("my-status");
    if (!doc || !model) return;
    const me = model.seats.find((s) => s.name === cfg.me);
    if (me && me.rank) {
      el.textContent = `${me.rank} ${T.ranks[me.rank] || ""}`;
    } else if (doc.my_turn) {
      el.innerHTML = `${esc(T.your_turn)} · <span data-time></span>`;
    } else if (model.turn) {
      el.textContent = fmt(T.wait_turn, { name: model.turn });
    } else if (model.place && ["finished", "aborted"].includes(model.place.state)) {
      el.textContent = T.place_over;
    } else {
      el.textContent = "";
    }
  }

  async function post(cards) {
    if (busy) return;
    busy = true;
    draw();
    const body = new URLSearchParams();
    cards.forEach((c, i) => body.append(`card_${i}`, c));
    const out = $("play-result");
    try {
      const r = await fetch(cfg.post_url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body,
      });
      const answer = await r.json();
      out.className = "play-result";
      if (answer.error) {
        out.textContent = fmt(T.error, { message: answer.error.message });
      } else if (answer.result === "play") {
        out.innerHTML = fmt(esc(T.result_play), { cards: Cards.text(cards.map((w) => Cards.idOf(w))) });
      } else if (answer.result === "pass") {
        out.textContent = T.result_pass;
      } else {
        out.textContent = fmt(T.result_miss, { reason: answer.reason || "" });
        out.classList.add("miss");
      }
    } catch (err) {
      out.textContent = fmt(T.error, { message: String(err) });
    }
    selected = new Set();
    busy = false;
    await refresh();
  }

  document.addEventListener("click", (e) => {
    const pick = e.target.closest("#my-hand .pick");
    if (pick) {
      const i = Number(pick.dataset.index);
      if (selected.has(i)) selected.delete(i); else selected.add(i);
      draw();
      return;
    }
    const chip = e.target.closest("#suggestions button");
    if (chip && doc) {
      const want = chip.dataset.cards.split(" ");
      selected = new Set();
      want.forEach((w) => {
        const i = doc.hand.findIndex((h, j) => h === w && !selected.has(j));
        if (i >= 0) selected.add(i);
      });
      draw();
    }
  });
  $("btn-play").addEventListener("click", () => post(selectedCards()));
  $("btn-pass").addEventListener("click", () => post([]));
  $("btn-clear").addEventListener("click", () => { selected = new Set(); draw(); });

  window.liveHooks = {
    onSnapshot(m) { model = m; refresh(); },
    onEvent(e, m) {
      model = m;
      const mine = e.player === cfg.me;
      if ((e.operation === "start_turn" && mine) || (e.operation === "end_turn" && mine) ||
          e.operation === "end_game" || e.operation === "start_game" || e.operation === "end_place") {
        refresh();
      } else if (e.operation === "start_turn" && doc && doc.my_turn) {
        refresh(); // someone else's turn now: mine is over
      }
    },
    onDraw(m) { model = m; drawStatus(); },
  };
})();
