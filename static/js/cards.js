// Card faces and backs as SVG, the same markup as templates/cards/card.html.
// Ids: (mark − 1) × 13 + number for marks 1 ♠ 2 ♥ 3 ♦ 4 ♣; 53 and 54 are the jokers.
"use strict";

const Cards = (() => {
  const SYMBOLS = { 1: "♠", 2: "♥", 3: "♦", 4: "♣" };
  const RANKS = { 1: "A", 11: "J", 12: "Q", 13: "K" };

  function info(id) {
    if (id >= 53) {
      return { id, joker: true, mark: 0, number: 0, rank: "", red: id === 54, court: false,
               written: "joker", label: "Joker" };
    }
    const mark = Math.floor((id - 1) / 13) + 1;
    const number = ((id - 1) % 13) + 1;
    const rank = RANKS[number] || String(number);
    return { id, joker: false, mark, number, rank, red: mark === 2 || mark === 3,
             court: number >= 11, written: `${mark}-${number}`, label: SYMBOLS[mark] + rank };
  }

  // "2-3" → 16; "joker" → 53 (the first joker; which one is for the server to decide)
  function idOf(written) {
    if (written === "joker") return 53;
    const [m, n] = written.split("-").map(Number);
    return (m - 1) * 13 + n;
  }

  // A written card as the server reads it (white space around it, "joker" in any case),
  // or null for a string in no known form (rules.md §2).
  function parse(written) {
    if (typeof written !== "string") return null;
    const w = written.trim();
    if (/^joker$/i.test(w)) return 53;
    const m = /^([1-4])-([1-9]|1[0-3])$/.exec(w);
    return m ? (Number(m[1]) - 1) * 13 + Number(m[2]) : null;
  }

  // rules.md §8: a group of four or more (jokers count; a stair never is). Four or more
  // cards whose real cards share one number can only be a group.
  function isRevolution(ids) {
    const numbers = new Set(ids.filter((id) => id < 53).map((id) => info(id).number));
    return ids.length >= 4 && numbers.size <= 1;
  }

  // rules.md §7 rule 3: a real 8 in the play (a joker standing for an 8 does not count).
  function hasEight(ids) {
    return ids.some((id) => id < 53 && info(id).number === 8);
  }

  // ``extra``: more classes for the svg (the replay marks the cards received in the exchange)
  function face(id, extra) {
    const c = info(id);
    const cls = ["card"];
    if (extra) cls.push(extra);
    if (c.red) cls.push("card-red");
    if (c.joker) cls.push("card-joker");
    if (c.court) cls.push("card-court");
    let inner = '<rect class="card-face" x="2" y="2" width="96" height="136" rx="9"/>';
    if (c.joker) {
      "JOKER".split("").forEach((ch, i) => {
        inner += `<text class="card-index card-index-joker" x="17" y="${26 + 18 * i}">${ch}</text>`;
      });
      inner += '<use class="card-star" href="#joker-star" x="32" y="42" width="62" height="62"/>';
    } else {
      const fit = c.rank === "10" ? ' textLength="30" lengthAdjust="spacingAndGlyphs"' : "";
      inner += `<text class="card-index" x="19" y="33"${fit}>${c.rank}</text>`;
      inner += `<use class="card-pip" href="#suit-${c.mark}" x="8" y="39" width="22" height="22"/>`;
      if (c.court) {
        inner += '<rect class="card-frame" x="34" y="30" width="56" height="80" rx="4"/>';
        inner += `<text class="card-court-letter" x="62" y="82">${c.rank}</text>`;
      } else {
        inner += `<use class="card-pip" href="#suit-${c.mark}" x="36" y="44" width="52" height="52"/>`;
      }
    }
    return `<svg class="${cls.join(" ")}" viewBox="0 0 100 140" role="img" aria-label="${c.label}" data-card="${c.written}">${inner}</svg>`;
  }

  function back(label) {
    return `<svg class="card card-back" viewBox="0 0 100 140" role="img" aria-label="${label || "card"}"><rect class="card-back-face" x="2" y="2" width="96" height="136" rx="9"/><rect x="10" y="10" width="80" height="120" rx="5" fill="url(#card-back-pattern)" stroke="#c7d2fe" stroke-width="2"/></svg>`;
  }

  // A short text form with coloured suits, for logs: "♥3 ♥4"
  function text(ids) {
    return ids.map((id) => {
      const c = info(id);
      return `<span class="card-text${c.red ? " card-red" : ""}${c.joker ? " card-joker" : ""}">${c.label}</span>`;
    }).join(" ");
  }

  // The same as nodes, for pages that build their text with textContent. The markup is made
  // from card ids alone (integers, checked here), never from text a page was given.
  const parsed = document.createElement("template");
  function nodes(markup) {
    parsed.innerHTML = markup;
    return [...parsed.content.childNodes];
  }
  const checked = (ids) => {
    ids.forEach((id) => { if (!Number.isInteger(id) || id < 1 || id > 54) throw new RangeError(`no card ${id}`); });
    return ids;
  };
  const faceNode = (id, extra) => nodes(face(checked([id])[0], /^[\w-]*$/.test(extra || "") ? extra : ""))[0];
  const backNode = () => nodes(back())[0];
  const textNodes = (ids) => nodes(text(checked(ids)));

  return { info, idOf, parse, isRevolution, hasEight, face, back, text, faceNode, backNode, textNodes };
})();
