"""Read-only data of the web pages: the home lists, the live snapshot, the results.

Nothing here changes a place (that is ``places.services``). Every function
reads the place's row once, so that what it returns agrees with itself: the
engine state and the event number come from the same row, and the record rows
are read only up to the games that state has finished.

Which hands a reader may see is decided in one place, :func:`snapshot`: a
spectator or a player sees how many cards each seat holds, staff see the
cards. A player's own hand is served by the player API (``legal_plays_doc``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from places import wire
from places.engine import place as engine
from places.engine.cards import MARK, NUMBER, format_card, sort_key, sorted_ids
from places.engine.game import OVER, TURN_OPEN
from places.engine.legal import legal_plays
from places.engine.place import PlaceState, points_for
from places.management import queries
from places.models import PLAYERS_PER_PLACE, Game, Hand, Place, Player, Rank

# -- cards ---------------------------------------------------------------------------------

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


def card_label(cid: int) -> str:
    """``♥3``, ``♠10``, ``Joker``: how a person reads a card."""
    if cid >= 53:
        return "Joker"
    return MARK_SYMBOLS[MARK[cid]] + RANK_LABELS.get(NUMBER[cid], str(NUMBER[cid]))


def card(cid: int) -> dict:
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


def rank_names() -> dict[int, str]:
    return {r: str(name) for r, name in RANK_NAMES.items()}


# -- home ------------------------------------------------------------------------------------


@dataclass
class PlaceRow:
    id: int
    title: str
    state: str
    players: list[str]
    game_no: int
    game_count: int
    pace: float | None
    leader: str = ""
    leader_points: int = 0


@dataclass
class HomeLists:
    running: list[PlaceRow] = field(default_factory=list)
    waiting: list[PlaceRow] = field(default_factory=list)
    finished: list[PlaceRow] = field(default_factory=list)
    finished_total: int = 0


#: The home page lists this many finished places (newest first); the admin has them all.
FINISHED_SHOWN = 30


def home_lists() -> HomeLists:
    """Running, waiting and (the latest) finished places, newest first."""
    players = Prefetch("players", queryset=Player.objects.select_related("user").order_by("seat"))
    base = Place.objects.prefetch_related(players).order_by("-id")
    out = HomeLists()
    out.running = [_row(p) for p in base.filter(state=Place.State.RUNNING)]
    out.waiting = [_row(p) for p in base.filter(state=Place.State.WAITING)]
    finished = base.filter(state=Place.State.FINISHED)
    out.finished_total = finished.count()
    out.finished = [_row(p) for p in finished[:FINISHED_SHOWN]]
    return out


def _row(place: Place) -> PlaceRow:
    state = queries.engine_state(place)
    names = [p.name for p in place.players.all()]
    row = PlaceRow(
        id=place.id,
        title=place.title,
        state=place.state,
        players=names,
        game_no=state.game_no if state else 0,
        game_count=place.game_count,
        pace=place.pace,
    )
    if state is not None and any(state.points) and len(names) == len(state.points):
        best = max(range(len(names)), key=lambda s: (state.points[s], -s))
        row.leader, row.leader_points = names[best], state.points[best]
    return row


# -- the live snapshot -------------------------------------------------------------------------


def _iso(dt: datetime | None) -> str | None:
    """ISO 8601 with milliseconds, for a countdown (the wire's format has whole seconds)."""
    if dt is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def finished_games(state: PlaceState | None) -> int:
    """How many games this state has finished (its points count exactly these)."""
    if state is None:
        return 0
    if state.phase == engine.IN_GAME:
        return state.game_no - 1
    return state.game_no


def rank_counts(place: Place, up_to_game: int) -> dict[int, list[int]]:
    """Per player id: how many of games 1…``up_to_game`` they ended 1st, 2nd, … 5th."""
    counts: dict[int, list[int]] = {}
    rows = Rank.objects.filter(
        game__place=place, game__status=Game.FINISHED, game__no__lte=up_to_game
    ).values_list("player_id", "rank")
    for player_id, rank in rows:
        if 1 <= rank <= PLAYERS_PER_PLACE:
            counts.setdefault(player_id, [0] * PLAYERS_PER_PLACE)[rank - 1] += 1
    return counts


def snapshot(place_id: int, *, staff: bool = False) -> dict | None:
    """The live page's starting point: the place as of event ``last_seq``.

    Public: seats, card counts, the table, whose turn, standings. ``hands``
    (every seat's cards) only when ``staff`` is true. None if no such place.
    """
    place = Place.objects.filter(pk=place_id).first()  # one row: state and seq agree
    if place is None:
        return None
    state = queries.engine_state(place)
    game = state.game if state else None
    players = queries.seated(place)
    done = finished_games(state)
    counts = rank_counts(place, done)
    points = list(state.points) if state else [0] * len(players)
    open_turn = state is not None and state.needs_action
    dealt = _dealt(place, game)
    seats = []
    for p in players:
        s = p.seat
        in_game = game is not None and s < len(game.hands)
        seats.append(
            {
                "seat": s,
                "name": p.name,
                "cards": game.hands[s].bit_count() if in_game else 0,
                # after the exchange, at the start of this game: a page that saw
                # start_game counts down from here with the events that follow
                "dealt": len(dealt.get(p.id, ())),
                "passed": bool(in_game and s in _passed(game)),
                "rank": (game.ranks[s] or None) if in_game else None,
                "last_rank": (state.last_ranks[s] if state and state.last_ranks else None),
                "points": points[s] if s < len(points) else 0,
                "rank_counts": counts.get(p.id, [0] * PLAYERS_PER_PLACE),
                "colour": SEAT_COLOURS[s % len(SEAT_COLOURS)],
            }
        )
    table = queries.table_ids(state)
    doc = {
        "place": {
            "id": place.id,
            "title": place.title,
            "state": place.state,
            "game_count": place.game_count,
            "pace": place.pace,
            "time_limit": place.time_limit,
        },
        "last_seq": place.event_seq,
        "server_time": _iso(timezone.now()),
        "phase": state.phase if state else engine.NEW,
        "game_no": state.game_no if state else 0,
        "games_finished": done,
        "game_over": bool(game is not None and game.phase == OVER),
        "order": wire.order_name(game.revolution if game else False),
        "pending_revolution": bool(game and game.trick_revolutions % 2),
        "table": table,
        "table_player": (
            players[game.last_player].name
            if game is not None and table and 0 <= game.last_player < len(players)
            else None
        ),
        "turn": players[game.turn].name if open_turn and game.turn < len(players) else None,
        "turn_deadline": _iso(place.turn_deadline) if open_turn else None,
        "seats": seats,
        "staff": staff,
    }
    if staff:
        doc["hands"] = queries.hand_ids(state)
        doc["dealt_hands"] = [sorted(dealt.get(p.id, ()), key=sort_key) for p in players]
    return doc


def _dealt(place: Place, game) -> dict[int, list[int]]:
    """Per player id, the cards of the current game after the exchange."""
    game_id = (place.engine_state or {}).get("game_id")
    if game is None or game_id is None:
        return {}
    return dict(Hand.objects.filter(game_id=game_id).values_list("player_id", "after_exchange"))


def _passed(game) -> set[int]:
    return {s for s in range(len(game.hands)) if game.passed >> s & 1}


def page_strings() -> dict[str, str]:
    """Words the pages' scripts show, in the request's language."""
    return {
        "ranks": rank_names(),
        "turn": _("turn"),
        "your_turn": _("Your turn"),
        "passed": _("Pass"),
        "missed": _("Miss"),
        "reset": _("RESET"),
        "eight_cut": _("8-cut"),
        "revolution": _("Revolution!"),
        "revolution_play": _("Revolution play"),
        "back_to_normal": _("Back to the normal order"),
        "normal": _("Normal"),
        "revolution_order": _("Revolution"),
        "game_of": _("Game %(no)s of %(count)s"),
        "no_game": _("No game yet"),
        "waiting": _("Waiting to start"),
        "finished": _("Finished"),
        "running": _("Running"),
        "game_over": _("Game %(no)s over"),
        "place_over": _("The place is over."),
        "played": _("%(name)s played %(cards)s"),
        "passes": _("%(name)s passed"),
        "misses": _("%(name)s missed"),
        "finishes": _("%(name)s finished: %(rank)s"),
        "rank_taken": _("%(name)s: %(rank)s"),
        "starts_game": _("Game %(no)s starts"),
        "empty_table": _("The table is empty"),
        "seconds": _("%(s)s s"),
        "live": _("live"),
        "connecting": _("connecting…"),
        "reconnecting": _("reconnecting…"),
        "cards": _("%(n)s cards"),
        "one_card": _("1 card"),
        "no_cards": _("no cards"),
        "play": _("Play"),
        "legal": _("legal"),
        "not_legal": _("not a legal play"),
        "select_cards": _("Select cards to play"),
        "no_legal_play": _("No card can beat the table: pass."),
        "must_lead": _("You lead: any legal play (no pass)."),
        "result_play": _("You played %(cards)s"),
        "result_pass": _("You passed"),
        "result_miss": _("Miss: %(reason)s"),
        "wait_turn": _("Waiting for %(name)s"),
        "error": _("Error: %(message)s"),
        "started": _("Started"),
        "stepped": _("Stepped"),
        "table_cleared": _("table cleared"),
        "joker": _("Joker"),
        "points": _("points"),
        "you": _("you"),
        "see_results": _("See the results"),
        "place_starts": _("The place starts"),
        "last_game": _("last game"),
        "points_short": _("%(n)s pt"),
    }


# -- results -----------------------------------------------------------------------------------


#: The results page lists at most this many games in its table (the CSV has them all).
GAMES_SHOWN = 500


@dataclass
class Results:
    place: Place
    players: list[Player]
    state: PlaceState | None
    games: list[tuple[int, list[int | None]]]  # (game no, rank per seat)
    totals: list[int]
    counts: list[list[int]]  # per seat: games ended 1st … 5th
    standings: list[dict]
    colours: list[str]

    @property
    def games_played(self) -> int:
        return len(self.games)


def results(place: Place) -> Results:
    """Every finished game's ranks and points, the totals and the rank counts."""
    state = queries.engine_state(place)
    done = finished_games(state)
    players = queries.seated(place)
    seat_of = {p.id: p.seat for p in players}
    by_game: dict[int, list[int | None]] = {}
    rows = (
        Rank.objects.filter(game__place=place, game__status=Game.FINISHED, game__no__lte=done)
        .values_list("game__no", "player_id", "rank")
        .order_by("game__no")
    )
    n = len(players)
    for no, player_id, rank in rows:
        ranks = by_game.setdefault(no, [None] * n)
        if player_id in seat_of:
            ranks[seat_of[player_id]] = rank
    games = sorted(by_game.items())
    totals = [0] * n
    counts = [[0] * PLAYERS_PER_PLACE for _ in range(n)]
    for _no, ranks in games:
        for s, r in enumerate(ranks):
            if r:
                totals[s] += points_for(r, n)
                counts[s][r - 1] += 1
    order = sorted(range(n), key=lambda s: (-totals[s], s))
    standings = []
    for i, s in enumerate(order):
        tied = standings and standings[-1]["points"] == totals[s]
        played = sum(counts[s])
        standings.append(
            {
                "position": standings[-1]["position"] if tied else i + 1,
                "seat": s,
                "name": players[s].name,
                "points": totals[s],
                "counts": counts[s],
                "average": (
                    sum((r + 1) * c for r, c in enumerate(counts[s])) / played if played else None
                ),
                "colour": SEAT_COLOURS[s % len(SEAT_COLOURS)],
            }
        )
    return Results(
        place=place,
        players=players,
        state=state,
        games=games,
        totals=totals,
        counts=counts,
        standings=standings,
        colours=[SEAT_COLOURS[s % len(SEAT_COLOURS)] for s in range(n)],
    )


def game_rows(res: Results) -> list[dict]:
    """The table of the results page: each game's rank and points per seat, running totals."""
    n = len(res.players)
    running = [0] * n
    out = []
    for no, ranks in res.games:
        cells = []
        for s, r in enumerate(ranks):
            pts = points_for(r, n) if r else 0
            running[s] += pts
            cells.append({"rank": r, "points": pts, "total": running[s]})
        out.append({"no": no, "cells": cells})
    return out[:GAMES_SHOWN]


def csv_rows(res: Results) -> list[list[object]]:
    """One row per game and player: game, seat, player, rank, points, cumulative points."""
    n = len(res.players)
    running = [0] * n
    rows: list[list[object]] = [["game", "seat", "player", "rank", "points", "total"]]
    for no, ranks in res.games:
        for s, r in enumerate(ranks):
            pts = points_for(r, n) if r else 0
            running[s] += pts
            rows.append([no, s + 1, res.players[s].name, r if r else "", pts, running[s]])
    return rows


# -- charts (SVG drawn here: no chart library) ----------------------------------------------------


@dataclass
class Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    x_ticks: list[dict]
    y_ticks: list[dict]
    series: list[dict]

    @property
    def plot_right(self) -> int:
        return self.width - self.right

    @property
    def plot_bottom(self) -> int:
        return self.height - self.bottom


def _nice_step(span: float, target: int) -> int:
    """A round step (1, 2, 5 × 10ⁿ) giving about ``target`` ticks over ``span``."""
    raw = max(span / max(target, 1), 1)
    magnitude = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if m * magnitude >= raw:
            return m * magnitude
    return 10 * magnitude


#: A line chart keeps at most this many points per line (every k-th game beyond it).
MAX_LINE_POINTS = 400


def points_chart(res: Results, width: int = 720, height: int = 320) -> Chart:
    """Cumulative points per player over the games: one polyline per seat."""
    left, right, top, bottom = 48, 16, 16, 48
    games = len(res.games)
    n = len(res.players)
    cumulative = [[0] for _ in range(n)]
    for _no, ranks in res.games:
        for s, r in enumerate(ranks):
            cumulative[s].append(cumulative[s][-1] + (points_for(r, n) if r else 0))
    top_value = max([max(c) for c in cumulative] + [1])
    y_step = _nice_step(top_value, 5)
    y_max = -(-top_value // y_step) * y_step
    x_max = max(games, 1)
    x_step = _nice_step(x_max, 10)
    plot_w = width - left - right
    plot_h = height - top - bottom

    def x(i: int) -> float:
        return round(left + plot_w * i / x_max, 1)

    def y(v: int) -> float:
        return round(top + plot_h * (1 - v / y_max), 1)

    every = max(1, -(-games // MAX_LINE_POINTS))
    series = []
    for s, values in enumerate(cumulative):
        idx = list(range(0, games + 1, every))
        if idx[-1] != games:
            idx.append(games)
        series.append(
            {
                "name": res.players[s].name,
                "colour": res.colours[s],
                "points": " ".join(f"{x(i)},{y(values[i])}" for i in idx),
                "end_x": x(games),
                "end_y": y(values[-1]),
                "total": values[-1],
            }
        )
    return Chart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        x_ticks=[{"value": v, "x": x(v)} for v in range(0, x_max + 1, x_step)],
        y_ticks=[{"value": v, "y": y(v)} for v in range(0, y_max + 1, y_step)],
        series=series,
    )


#: Colours of ranks 1 … 5 in the rank chart: from gold (大富豪) to slate (大貧民).
RANK_COLOURS = ("#d4a017", "#6aa84f", "#7f8c9a", "#c27c4e", "#4b5563")


def ranks_chart(res: Results, width: int = 720, height: int = 300) -> Chart:
    """The distribution of ranks per player: one stacked bar per seat, rank 1 at the bottom."""
    left, right, top, bottom = 48, 16, 16, 40
    n = len(res.players)
    games = max(res.games_played, 1)
    plot_w = width - left - right
    plot_h = height - top - bottom
    slot = plot_w / max(n, 1)
    bar_w = min(72, slot * 0.6)
    y_step = _nice_step(games, 5)

    def y(v: float) -> float:
        return round(top + plot_h * (1 - v / games), 1)

    series = []
    for s in range(n):
        cx = left + slot * (s + 0.5)
        segments = []
        below = 0
        for r, c in enumerate(res.counts[s]):
            if c:
                segments.append(
                    {
                        "rank": r + 1,
                        "count": c,
                        "x": round(cx - bar_w / 2, 1),
                        "y": y(below + c),
                        "width": round(bar_w, 1),
                        "height": round(y(below) - y(below + c), 1),
                        "colour": RANK_COLOURS[r],
                        "label_y": round((y(below) + y(below + c)) / 2 + 4, 1),
                    }
                )
            below += c
        series.append(
            {"name": res.players[s].name, "x": round(cx, 1), "segments": segments, "seat": s}
        )
    ticks = list(range(0, games + 1, y_step))
    if ticks[-1] != games:
        ticks.append(games)
    return Chart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        x_ticks=[],
        y_ticks=[{"value": v, "y": y(v)} for v in ticks],
        series=series,
    )


def rank_legend() -> list[dict]:
    return [
        {"rank": r, "name": str(RANK_NAMES[r]), "colour": RANK_COLOURS[r - 1]}
        for r in range(1, PLAYERS_PER_PLACE + 1)
    ]


# -- the player's legal plays ------------------------------------------------------------------


def legal_plays_doc(place_id: int, seat: int) -> dict:
    """The player's hand and every legal play of it against the table now.

    Cards are written as in ``post_cards`` ("2-3", "joker"); plays are listed
    once per written form (with two jokers, a play that can use either is one
    entry). ``can_pass`` is true when the table has cards: a pass is legal then.
    """
    place = Place.objects.only("engine_state", "state").get(pk=place_id)
    state = queries.engine_state(place)
    game = state.game if state else None
    if game is None or state.phase != engine.IN_GAME:
        return {
            "game_no": state.game_no if state else 0,
            "my_turn": False,
            "turn_open": False,
            "order": wire.order_name(False),
            "table": [],
            "hand": [],
            "can_pass": False,
            "plays": [],
        }
    hand = game.hands[seat]
    found: dict[tuple[str, ...], tuple[int, ...]] = {}
    for p in legal_plays(hand, game.table, game.revolution):
        found.setdefault(tuple(format_card(c) for c in p.cards), p.cards)
    # fewest cards first, then weakest first (normal order, jokers last)
    ordered = sorted(found.items(), key=lambda kv: (len(kv[1]), [sort_key(c) for c in kv[1]]))
    plays = [list(written) for written, _cards in ordered]
    return {
        "game_no": state.game_no,
        "my_turn": game.phase == TURN_OPEN and game.turn == seat,
        "turn_open": game.phase == TURN_OPEN,
        "order": wire.order_name(game.revolution),
        "table": [format_card(c) for c in queries.table_ids(state)],
        "hand": [format_card(c) for c in sorted_ids(hand)],
        "can_pass": game.table is not None,
        "plays": plays,
    }
