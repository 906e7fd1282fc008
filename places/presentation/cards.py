"""Cards, seats and ranks as people see them: labels, faces, colours, names."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from daifugo.cards import MARK, NUMBER, format_card

MARK_SYMBOLS = {1: "♠", 2: "♥", 3: "♦", 4: "♣"}
RANK_LABELS = {1: "A", 11: "J", 12: "Q", 13: "K"}
#: Rank names by rank (1 best): the Japanese ones are the game's own words.
RANK_NAMES = {
    1: gettext_lazy("Tycoon"),  # 大富豪
    2: gettext_lazy("Rich"),  # 富豪
    3: gettext_lazy("Commoner"),  # 平民
    4: gettext_lazy("Poor"),  # 貧民
    5: gettext_lazy("Beggar"),  # 大貧民
}
#: One colour per seat, the same on every page and chart.
SEAT_COLOURS = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed")
#: Colours of ranks 1 … 5: from gold (大富豪) to slate (大貧民).
RANK_COLOURS = ("#d4a017", "#6aa84f", "#7f8c9a", "#c27c4e", "#4b5563")


def card_label(cid: int) -> str:
    """``♥3``, ``♠10``, ``Joker``: how a person reads a card."""
    if cid >= 53:
        return "Joker"
    return MARK_SYMBOLS[MARK[cid]] + RANK_LABELS.get(NUMBER[cid], str(NUMBER[cid]))


def face(cid: int) -> dict:
    """What a template needs to draw a card face (``templates/cards/card.html``)."""
    joker = cid >= 53
    mark = MARK[cid]
    return {
        "id": cid,
        "written": format_card(cid),
        "label": card_label(cid),
        "joker": joker,
        "mark": mark,
        "rank": "" if joker else RANK_LABELS.get(NUMBER[cid], str(NUMBER[cid])),
        "red": (joker and cid == 54) or mark in (2, 3),
        "court": NUMBER[cid] in (11, 12, 13),
    }


def written(ids: list[int]) -> str:
    """Card ids as players write them: ``"1-3 2-3 joker"``."""
    return " ".join(format_card(c) for c in ids)


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def rank_names() -> dict[int, str]:
    return {r: str(name) for r, name in RANK_NAMES.items()}


def rank_legend() -> list[dict]:
    return [
        {"rank": r, "name": str(name), "colour": RANK_COLOURS[r - 1]}
        for r, name in RANK_NAMES.items()
    ]
