"""The game search's index (``GameEntry``, ``GameFact``): written for each finished game in
the change that finishes it, so that ``/games.json`` reads an index, never turns or records.

Every path that finishes a game calls :func:`index_game` with the game's facts
(``daifugo.facts``): a 2011 game's change (``places/services/change.py``), a ``uecda``
game's write (``places/services/uecda.py``, :func:`store_finished_games`: a match over TCP,
the shared server's, an imported log). Migration 0009 filled the index for the games
before with the same two functions (:func:`rows_of`, and ``daifugo.facts``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from daifugo.facts import Fact, facts_2011
from places import rows
from places.models import GameEntry, GameFact, Turn

#: What a 2011 game's facts are read from, of each settled turn (``facts_2011``).
TURN_FACT_FIELDS = ("player_id", "no", "outcome", "reason", "cards", "revolution")
#: Rows an INSERT writes at most (a log's 500 games at once stay under SQLite's parameters).
ROWS_A_STATEMENT = 300


@dataclass(frozen=True)
class Finished:
    """A finished game as the index keeps it. ``players``: ``(seat, user id, rank)`` each."""

    game_id: int
    no: int
    place_id: int
    tournament_id: int | None
    rules: str
    ended_at: datetime
    players: Sequence[tuple[int, int, int]]
    facts: Sequence[Fact]


def rows_of(game: Finished) -> tuple[list[dict], list[dict]]:
    """The game's ``GameEntry`` and ``GameFact`` rows, as dicts of values by attribute."""
    user_of = {seat: user_id for seat, user_id, _ in game.players}
    entries = [
        {
            "game_id": game.game_id,
            "user_id": user_id,
            "place_id": game.place_id,
            "tournament_id": game.tournament_id,
            "rules": game.rules,
            "no": game.no,
            "seat": seat,
            "rank": rank,
            "ended_at": game.ended_at,
        }
        for seat, user_id, rank in game.players
    ]
    facts = [
        {
            "game_id": game.game_id,
            "user_id": user_of[f.seat],
            "kind": f.kind,
            "code": f.code,
            "turn": f.turn,
        }
        for f in game.facts
    ]
    return entries, facts


def index_games(games: Sequence[Finished]) -> None:
    """Write the games' index rows, inside the change that finishes them (held with its
    writes, sent with its COMMIT)."""
    entries: list[dict] = []
    facts: list[dict] = []
    for game in games:
        e, f = rows_of(game)
        entries += e
        facts += f
    for model, written in ((GameEntry, entries), (GameFact, facts)):
        for i in range(0, len(written), ROWS_A_STATEMENT):
            rows.insert_many(model, written[i : i + ROWS_A_STATEMENT])


def facts_of_turns(game_id: int, seat_of: Mapping[int, int]) -> list[Fact]:
    """A 2011 game's facts, read from its settled turns (``seat_of``: player id -> seat).
    What the change holds is sent first: the game's last turn is among it."""
    with rows.at_once():
        turns = list(
            Turn.objects.filter(game_id=game_id, settled_at__isnull=False)
            .order_by("no")
            .values_list(*TURN_FACT_FIELDS)
        )
    return facts_2011((seat_of[player_id], *rest) for player_id, *rest in turns)
