"""Who sits where: the players of a place in seat order.

A started place's seats never change, so they are kept per process once it has
started (a bot's every request asks); a waiting place's are read afresh, since
the admin may still re-seat it. A house bot's strategy is read with its seat: a
place keeps the strategies its seats were read with.
"""

from __future__ import annotations

from dataclasses import dataclass

from places import errors
from places.models import PLAYERS_PER_PLACE, HouseBot, Place, Player


@dataclass(frozen=True, slots=True)
class Seat:
    no: int  # 0 first in the play order
    player_id: int
    user_id: int
    name: str
    #: The strategy the server plays for a house bot (``places.models.HouseBot``); "" otherwise.
    house: str = ""


_cache: dict[int, tuple[Seat, ...]] = {}


def forget() -> None:
    """Drop the kept seats (tests whose rolled-back places reuse ids need this)."""
    _cache.clear()


def seats_of(place_id: int) -> tuple[Seat, ...]:
    """The players of a place in seat order (empty for no such place)."""
    seats = _cache.get(place_id)
    if seats is None:
        players = list(
            Player.objects.filter(place_id=place_id)
            .select_related("user__house_bot", "place")
            .order_by("seat")
        )
        seats = tuple(
            Seat(p.seat, p.id, p.user_id, p.user.get_username(), _house(p.user)) for p in players
        )
        if len(seats) == PLAYERS_PER_PLACE and players[0].place.state != Place.State.WAITING:
            _cache[place_id] = seats
    return seats


def _house(user) -> str:
    try:
        return user.house_bot.strategy
    except HouseBot.DoesNotExist:
        return ""


def seat_of(place_id: int, user_id: int) -> Seat:
    """The user's seat in the place, or ``NOT_LOGGED_IN``: only players act and read hands."""
    for seat in seats_of(place_id):
        if seat.user_id == user_id:
            return seat
    raise errors.Refused(errors.NOT_LOGGED_IN, "not a player of this place")


def seat_player(place_id: int, user_id: int) -> tuple[int, int]:
    """``(place_id, user_id)`` if the user has a seat there, else ``NOT_LOGGED_IN``."""
    seat_of(place_id, user_id)
    return place_id, user_id
