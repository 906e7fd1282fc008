// A running tournament's page: its standings, progress and tables, read again from
// its JSON every few seconds until it is over (then the page is reloaded once, for
// the chart and the final figures). No socket: a tournament changes once a game.
"use strict";

(() => {
  const root = document.getElementById("tournament");
  if (!root) return;
  const EVERY_MS = 3000;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const fixed = (v) => (v === null || v === undefined ? "–" : Number(v).toFixed(2));
  const progress = document.getElementById("tournament-progress");
  const template = progress.textContent.replace(/\d+/, "%d").replace(/\d+/, "%t");

  function standings(rows) {
    return rows.map((s, i) => `<tr data-name="${esc(s.name)}">
      <td class="num">${i + 1}</td>
      <td><a class="player-link" href="/users/${encodeURIComponent(s.name)}">${esc(s.name)}</a></td>
      <td class="num">${s.games}</td>
      <td class="num"><strong>${s.games ? fixed(s.points_per_game) : "–"}</strong></td>
      <td class="num">${s.games ? `${fixed(s.interval[0])} – ${fixed(s.interval[1])}` : "–"}</td>
      <td class="num">${s.games ? fixed(s.average_rank) : "–"}</td>
      <td class="num">${s.points}</td></tr>`).join("");
  }

  function tables(rows, perTable) {
    return rows.map((t) => `<tr data-place="${t.place}" data-state="${esc(t.state)}">
      <td class="num">${t.table + 1}</td>
      <td><a href="/places/${t.place}/${t.state === "finished" ? "results" : ""}">${esc(t.title)}</a></td>
      <td>${t.players.map(esc).join(", ")}</td>
      <td class="num">${t.games_finished} / ${perTable}</td>
      <td><span class="badge badge-${esc(t.state)}">${esc(t.state)}</span></td></tr>`).join("");
  }

  async function poll() {
    try {
      const response = await fetch(root.dataset.json, { cache: "no-store" });
      if (response.ok) {
        const t = await response.json();
        if (t.state === "finished" && root.dataset.state !== "finished") { location.reload(); return; }
        document.querySelector("#tournament-standings tbody").innerHTML = standings(t.standings);
        document.querySelector("#tournament-tables tbody").innerHTML = tables(t.tables, t.games_per_table);
        const state = document.getElementById("tournament-state");
        state.textContent = t.state;
        state.className = `badge badge-${t.state}`;
        root.dataset.state = t.state;
        progress.textContent = template.replace("%d", t.games_finished).replace("%t", t.games_total);
      }
    } catch (_) { /* the next round tries again */ }
    setTimeout(poll, EVERY_MS);
  }
  setTimeout(poll, EVERY_MS);
})();
