"""Game records (``docs/records.md``): one finished game as plain data.

Version 1 (a 2011 game) is read from its Hand and Turn rows; version 2 (a game of
a ``uecda`` place) is kept whole in its Game row and served as kept.

A record shows every hand, so only finished games have one, and the seed would let
anyone compute the deals to come: which games and whether the seed a reader may
read is ``places.reads.disclosure``'s to say (a duplicate deal's records wait for
its every rotation).
A place's records are read a chunk of games at a time, in a bounded number of
queries per chunk, so that a place of thousands of games never sits in memory.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from daifugo import replay
from daifugo.cards import format_card, mask_of, sorted_ids
from daifugo.deal import drawn_ranks
from daifugo.place import points_for
from places.models import ENDED, Game, Hand, Place, Rank, Turn
from places.reads.disclosure import disclosure
from places.reads.seats import Seat, seats_of
from places.wire.codec import compact
from places.wire.records import REVOLUTION

#: Games read together when a place's records are read in turn.
CHUNK = 50

_MS = timedelta(milliseconds=1)


@dataclass(frozen=True, slots=True)
class PlaceHead:
    """What every record of a place shares, read once so that a place's records agree."""

    id: int
    title: str
    game_count: int
    seed: str | None  # None while the reader may not read it, or when it has none
    seats: tuple[Seat, ...]
    finished: int  # games 1 … finished have records the reader may read
    played: int  # games 1 … played are over (more than ``finished`` when some are held back)
    #: Duplicate deals: the seed the exchanges' ranks are drawn from (``drawn_ranks``).
    duplicate_seed: str | None = None
    over: bool = False  # the place is finished or aborted: no game will be added
    #: When the place was made: with its id, this place and no other (of another database).
    created_at: datetime | None = None

    @property
    def final(self) -> bool:
        """Whether the reader's records of the place are all it will ever have: the place is
        over and none of its games is held back from this reader."""
        return self.over and self.finished == self.played


def place_head(place_id: int, *, staff: bool = False) -> PlaceHead | None:
    """The place's part of its records as this reader may read them; None for no such place."""
    place = Place.objects.filter(pk=place_id).first()
    if place is None:
        return None
    shown = disclosure(place, staff=staff)
    return PlaceHead(
        id=place.id,
        title=place.title,
        game_count=place.game_count,
        seed=shown.seed,
        seats=seats_of(place.id),
        finished=shown.public,
        played=shown.played,
        duplicate_seed=place.seed if place.duplicate_deals else None,
        over=place.state in ENDED,
        created_at=place.created_at,
    )


def game_record(place_id: int, game_no: int, *, staff: bool = False) -> dict | None:
    """The record of one finished game, or None (no such place, game, not finished, or
    not yet the reader's)."""
    head = place_head(place_id, staff=staff)
    return None if head is None else record_of(head, game_no)


def record_of(head: PlaceHead, game_no: int) -> dict | None:
    """The record of one game of the place, or None (not finished, or not the reader's)."""
    if not 1 <= game_no <= head.finished:
        return None
    found = records_after(head, game_no - 1, 1)
    return found[0] if found else None


def place_records(
    place_id: int, chunk: int | None = None, *, staff: bool = False
) -> Iterator[dict] | None:
    """Every finished game's record the reader may read, in order, read ``chunk`` games at
    a time; None: no place."""
    head = place_head(place_id, staff=staff)
    if head is None:
        return None
    return (record for batch in record_chunks(head, chunk) for record in batch)


def record_chunks(head: PlaceHead, chunk: int | None = None) -> Iterator[list[dict]]:
    """The place's records, ``chunk`` games (default :data:`CHUNK`) at a time, in order.

    The games are those finished when ``head`` was read, and the seed was decided
    then too: records read later in the stream agree with the first ones. A chunk is
    not kept once it is handed on: a stream waiting for its client holds none.
    """
    size = chunk or CHUNK
    return (records_after(head, after, size) for after in range(0, head.finished, size))


def lines_of(batch: list[dict]) -> str:
    """Records as ``records.jsonl`` writes them: compact JSON, a line each."""
    return "".join(compact(record) + "\n" for record in batch)


def records_after(head: PlaceHead, after: int, limit: int) -> list[dict]:
    """Records of the finished games ``after + 1 …`` (at most ``limit``): four queries."""
    last = min(head.finished, after + limit)
    games = list(
        Game.objects.filter(place_id=head.id, status=Game.FINISHED, no__gt=after, no__lte=last)
        .order_by("no")
        .values_list("id", "no", "place_info", "record")
    )
    if not games:
        return []
    ids = [game_id for game_id, _, _, _ in games]
    seat_of = {s.player_id: s.no for s in head.seats}
    players = len(head.seats)

    hands: dict[int, list] = defaultdict(lambda: [None] * players)
    for game_id, player_id, dealt, given, received, after_exchange in Hand.objects.filter(
        game_id__in=ids
    ).values_list("game_id", "player_id", "dealt", "given", "received", "after_exchange"):
        hands[game_id][seat_of[player_id]] = (dealt, given, received, after_exchange)

    actions: dict[int, list[dict]] = defaultdict(list)
    for row in (
        Turn.objects.filter(game_id__in=ids)
        .order_by("game_id", "no")
        .values_list(
            "game_id",
            "no",
            "player_id",
            "cards",
            "submitted",
            "outcome",
            "reason",
            "reset",
            "opened_at",
            "settled_at",
        )
    ):
        actions[row[0]].append(_action(row, seat_of))

    # the game before the first too: its ranks order the first game's exchange
    ranks: dict[int, list[int]] = defaultdict(lambda: [0] * players)
    for no, player_id, rank in Rank.objects.filter(
        game__place_id=head.id, game__no__gte=after, game__no__lte=last
    ).values_list("game__no", "player_id", "rank"):
        ranks[no][seat_of[player_id]] = rank

    def exchanged_by(no: int) -> list[int] | None:
        if head.duplicate_seed is not None:
            return list(drawn_ranks(head.duplicate_seed, no, players)) if no > 1 else None
        return ranks.get(no - 1)

    return [
        _kept(head, kept)
        if kept is not None
        else _record(
            head, no, place_info, hands[game_id], actions[game_id], ranks[no], exchanged_by(no)
        )
        for game_id, no, place_info, kept in games
    ]


def _kept(head: PlaceHead, record: dict) -> dict:
    """A game that keeps its record (version 2, a ``uecda`` place): as kept, with the
    place as it is now and the seed only once the place is over, as version 1."""
    return {
        **record,
        "place": _place(head),
        "seed": head.seed,
    }


def _place(head: PlaceHead) -> dict:
    """A record's ``place``: the place as it is now, and whether it deals duplicate deals."""
    return {
        "id": head.id,
        "title": head.title,
        "games": head.game_count,
        **({"duplicate_deals": True} if head.duplicate_seed is not None else {}),
    }


def _written(ids: list[int]) -> list[str]:
    return [format_card(c) for c in sorted_ids(mask_of(ids))]


def _action(row: tuple, seat_of: dict[int, int]) -> dict:
    _, no, player_id, cards, submitted, outcome, reason, reset, opened_at, settled_at = row
    return {
        "turn": no,
        "seat": seat_of[player_id],
        # what the player wrote; a play nobody wrote (the server's own) is its cards
        "cards": list(submitted) if submitted else [format_card(c) for c in cards],
        "verdict": outcome,
        "reason": reason or None,
        "ms": (settled_at - opened_at) // _MS,
        "reset": reset,
    }


def _exchange(hands: list, last_ranks: list[int] | None) -> list[dict]:
    """Each giver's cards, to the seat that received them, in the engine's order.

    The engine moves cards between ranks 1 and n first (the richer gives first),
    then between ranks 2 and n - 1: ordered by the givers' ranks of the game before.
    """
    players = len(hands)
    moves = []
    for giver, (_, given, _, _) in enumerate(hands):
        if not given:
            continue
        receiver = next(
            s for s, (_, _, received, _) in enumerate(hands) if set(received) == set(given)
        )
        moves.append((giver, receiver, given))
    if last_ranks:
        moves.sort(
            key=lambda m: (
                min(last_ranks[m[0]], players + 1 - last_ranks[m[0]]),
                last_ranks[m[0]] > players + 1 - last_ranks[m[0]],
            )
        )
    return [
        {"from": giver, "to": receiver, "cards": [format_card(c) for c in given]}
        for giver, receiver, given in moves
    ]


def _record(
    head: PlaceHead,
    no: int,
    place_info: str,
    hands: list,
    actions: list[dict],
    ranks: list[int],
    last_ranks: list[int] | None,
) -> dict:
    players = len(head.seats)
    return {
        "format": replay.FORMAT,
        "version": replay.VERSION,
        "rules": replay.RULES,
        "place": _place(head),
        "game": no,
        "seed": head.seed,
        "players": [{"seat": s.no, "name": s.name} for s in head.seats],
        "dealt": [_written(dealt) for dealt, _, _, _ in hands],
        "exchange": _exchange(hands, last_ranks),
        "hands": [_written(after) for _, _, _, after in hands],
        "actions": actions,
        "ranks": ranks,
        "points": [points_for(r, players) for r in ranks],
        "order": replay.order_name(place_info == REVOLUTION),
    }
