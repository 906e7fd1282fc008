"""The one format of ``Place.engine_state``: the engine's state and where its rows are.

``{"place": PlaceState as a dict, "game_id": the Game row being played,
"turn_no": the number of its open (or last) turn, "banks": each seat's time bank left
in this game, in seconds, only when the place has a time bank, "posts": each seat's last
posts that carried an idempotency key, oldest first,
``{"seat": [[key, result, reason, reset_place], …]}``, only once there is one}``; written by
``places.services`` at every change, decoded here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from daifugo.cards import sorted_ids
from daifugo.place import IN_GAME, PlaceState

#: A keyed post and its answer: (key, result, reason, reset_place).
KeyedPost = tuple[str, str, str | None, bool]


@dataclass(frozen=True, slots=True)
class Position:
    state: PlaceState | None = None  # None: the place has not started
    game_id: int | None = None
    turn_no: int | None = None
    banks: tuple[float, ...] | None = None
    #: seat -> (key, result, reason, reset_place) of its last keyed posts, oldest first: a
    #: post that repeats one of the keys is answered so again, never applied twice
    #: (``services.moves``).
    posts: dict[int, tuple[KeyedPost, ...]] = field(default_factory=dict)

    @classmethod
    def decode(cls, data: dict | None) -> Position:
        data = data or {}
        place = data.get("place")
        return cls(
            PlaceState.from_dict(place) if place else None,
            data.get("game_id"),
            data.get("turn_no"),
            tuple(data["banks"]) if data.get("banks") is not None else None,
            {
                int(seat): tuple(tuple(post) for post in posts)
                for seat, posts in data.get("posts", {}).items()
            },
        )

    def encode(self) -> dict:
        encoded = {
            "place": None if self.state is None else self.state.to_dict(),
            "game_id": self.game_id,
            "turn_no": self.turn_no,
        }
        if self.banks is not None:
            encoded["banks"] = list(self.banks)
        if self.posts:
            encoded["posts"] = {
                str(seat): [list(post) for post in posts] for seat, posts in self.posts.items()
            }
        return encoded


def state_of(place) -> PlaceState | None:
    """The engine's state of a place (a ``Place`` row); None before it started."""
    return Position.decode(place.engine_state).state


def finished_games(state: PlaceState | None) -> int:
    """How many games this state has finished (its points count exactly these)."""
    if state is None:
        return 0
    return state.game_no - 1 if state.phase == IN_GAME else state.game_no


def table_ids(state: PlaceState | None) -> list[int]:
    """Card ids on the table of the game being played, weakest first."""
    if state is None or state.game is None or state.game.table is None:
        return []
    return sorted_ids(state.game.table.mask)


def every_hand(state: PlaceState | None, players: int) -> list[list[int]]:
    """Every seat's cards now, weakest first (empty lists before the first deal)."""
    if state is None or state.game is None:
        return [[] for _ in range(players)]
    return [sorted_ids(h) for h in state.game.hands]
