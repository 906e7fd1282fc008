// The replay pages' list of moves (replay.js and replay-uecda.js): which row is the
// position shown, kept in sight by scrolling the list only, never the page.
const Moves = (() => {
  function markCurrent(wrap, at) {
    wrap.querySelectorAll("tr.current").forEach((tr) => tr.classList.remove("current"));
    const row = wrap.querySelector(`tbody tr[data-at="${at}"]`);
    if (!row) return;
    row.classList.add("current");
    const head = wrap.querySelector("thead").getBoundingClientRect().height;
    const r = row.getBoundingClientRect();
    const w = wrap.getBoundingClientRect();
    if (r.top < w.top + head || r.bottom > w.bottom) {
      wrap.scrollTop += r.top - w.top - head - (w.height - head - r.height) / 2;
    }
  }

  return { markCurrent };
})();
