"""Game records, format version 1: their names, and replaying one through the engine.

A record is one finished game as plain data (``docs/records.md``). Replaying it
deals, exchanges and plays the game again with the engine's own functions and
names the first place where the record and the engine part: a record is checked
against the rules, not against a second copy of them. Pure: no Django, no I/O.

The record is expected to be valid against ``docs/record.schema.json`` (its
shape); this module judges what the schema cannot: whether the game happened so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from .cards import (
    ALL_IDS,
    JOKER_IDS,
    JOKER_TOKEN,
    CardFormatError,
    format_card,
    parse_card,
    sorted_ids,
)
from .deal import exchange, first_player, game_rng
from .game import OVER, GameState, act, advance, new_game, time_out
from .place import make_deal, points_for
from .plays import Miss

FORMAT = "daihinmin-record"
VERSION = 1
RULES = "daihinmin-2011"
#: The order in force at a game's end, as a record names it.
NORMAL, REVOLUTION = "Normal", "Revolution"
#: A turn that ran out of time, as a record's verdict names it (the engine's miss TIMEOUT).
TIMEOUT = "timeout"


def order_name(revolution: bool) -> str:
    return REVOLUTION if revolution else NORMAL


@dataclass(frozen=True, slots=True)
class Replayed:
    """A game the engine played exactly as its record says."""

    game: int
    ranks: tuple[int, ...]

    def __str__(self) -> str:
        return f"ok: game {self.game}, ranks {' '.join(map(str, self.ranks))}"


class Diverged(Exception):
    """Where a record and the engine first part: ``game 7, turn 37: recorded play, …``."""

    def __init__(self, game: int, where: str, message: str):
        self.game = game
        self.where = where  # "turn 37", or "deal", "exchange", "hands", "players", "end"
        self.message = message
        super().__init__(f"game {game}, {where}: {message}")


#: Makes the :class:`Diverged` of the game being replayed from ``(where, message)``.
Fail = Callable[[str, str], Diverged]


def replay_game(record: Mapping, last_ranks: Sequence[int] | None = None) -> Replayed:
    """Play the record's game again; raise :class:`Diverged` at the first difference.

    ``last_ranks`` are the ranks of the game before, when known (the record of
    that game); otherwise the exchange itself tells them (who gave to whom).
    """
    game_no = record["game"]

    def diverged(where: str, message: str) -> Diverged:
        return Diverged(game_no, where, message)

    players = len(record["players"])
    seats = [p["seat"] for p in record["players"]]
    if seats != list(range(players)):
        raise diverged("players", f"seats {seats}, not 0 … {players - 1} in play order")
    try:
        hands, last_ranks = _deal_and_exchange(record, players, last_ranks, diverged)
    except CardFormatError as e:
        raise diverged("deal", str(e)) from None
    state = new_game(game_no, hands, first_player(hands, last_ranks))
    actions = iter(record["actions"])
    while True:
        state, _ = advance(state)
        if state.phase == OVER:
            break
        state = _replay_turn(state, next(actions, None), diverged)
    extra = next(actions, None)
    if extra is not None:
        raise diverged(f"turn {extra['turn']}", "the engine ended the game before this turn")
    ranks = tuple(state.ranks)
    if tuple(record["ranks"]) != ranks:
        raise diverged(
            "end", f"recorded ranks {list(record['ranks'])}, the engine says {list(ranks)}"
        )
    points = [points_for(r, players) for r in ranks]
    if list(record["points"]) != points:
        raise diverged("end", f"recorded points {list(record['points'])}, the ranks give {points}")
    if record["order"] != order_name(state.revolution):
        raise diverged(
            "end",
            f"recorded order {record['order']}, the engine says {order_name(state.revolution)}",
        )
    return Replayed(game_no, ranks)


def starting_hands(record: Mapping) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """A valid record's dealt hands, its hands after the exchange and the seat that leads:
    where the game's analysis (``daifugo/analysis.py``) starts. Raises
    :class:`Diverged` as :func:`replay_game` does."""
    game_no = record["game"]

    def diverged(where: str, message: str) -> Diverged:
        return Diverged(game_no, where, message)

    players = len(record["players"])
    try:
        dealt = _dealt(record["dealt"], players, diverged)
        hands, last_ranks = _deal_and_exchange(record, players, None, diverged)
    except CardFormatError as e:
        raise diverged("deal", str(e)) from None
    return dealt, hands, first_player(hands, last_ranks)


def _deal_and_exchange(
    record: Mapping, players: int, last_ranks: Sequence[int] | None, diverged: Fail
) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """The hands the game starts from, checked against the deal and the rules' exchange;
    and the ranks of the game before (None for game 1)."""
    game_no = record["game"]
    dealt = _dealt(record["dealt"], players, diverged)
    if record["seed"] is not None:
        seeded = make_deal(game_rng(record["seed"], game_no), players, None).dealt
        for seat, (hand, theirs) in enumerate(zip(_written(dealt), _written(seeded), strict=True)):
            if Counter(hand) != Counter(theirs):
                raise diverged("deal", f"seat {seat}'s dealt hand is not the seed's deal")
    if game_no == 1:
        if record["exchange"]:
            raise diverged("exchange", "game 1 has no exchange")
        last_ranks = None
    else:
        inferred = _ranks_of_exchange(record["exchange"], players, diverged)
        last_ranks = inferred if last_ranks is None else tuple(last_ranks)
    hands = _apply(dealt, record["exchange"], diverged)
    if last_ranks is not None:
        _, moves = exchange(dealt, last_ranks)
        expected = [_move(m.giver, m.receiver, m.cards) for m in moves]
        recorded = [_move(m["from"], m["to"], _tokens(m["cards"])) for m in record["exchange"]]
        if recorded != expected:
            raise diverged(
                "exchange",
                f"recorded {_moves_text(recorded)}, the rules make {_moves_text(expected)}",
            )
    if len(record["hands"]) != players:
        raise diverged("hands", f"{len(record['hands'])} hands for {players} players")
    for seat, (hand, written) in enumerate(zip(_written(hands), record["hands"], strict=True)):
        if Counter(hand) != Counter(map(_form, _tokens(written))):
            raise diverged("hands", f"seat {seat}'s hand is not its dealt hand after the exchange")
    return hands, last_ranks


def _replay_turn(state: GameState, action: Mapping | None, diverged: Fail) -> GameState:
    """The open turn played as the record says; the engine must make the same of it."""
    turn, seat = state.turn_no, state.turn
    if action is None:
        raise diverged(f"turn {turn}", f"the record ends; the engine waits for seat {seat}")
    if action["turn"] != turn:
        raise diverged(f"turn {turn}", f"the record's next turn is {action['turn']}")
    if action["seat"] != seat:
        raise diverged(
            f"turn {turn}", f"recorded seat {action['seat']}, the engine says seat {seat}"
        )
    if action["verdict"] == TIMEOUT:
        state, result, _ = time_out(state, seat)
    else:
        try:
            tokens = [parse_card(c) for c in action["cards"]]
        except CardFormatError as e:
            raise diverged(f"turn {turn}", str(e)) from None
        state, result, _ = act(state, seat, tokens)
    said = (TIMEOUT if result.reason == Miss.TIMEOUT else result.outcome, result.reason)
    if (action["verdict"], action["reason"]) != said:
        raise diverged(
            f"turn {turn}",
            f"recorded {_verdict(action['verdict'], action['reason'])}, "
            f"the engine says {_verdict(*said)}",
        )
    if action["reset"] != result.reset:
        raise diverged(
            f"turn {turn}",
            f"recorded reset {_flag(action['reset'])}, the engine says {_flag(result.reset)}",
        )
    return state


def replay_records(records: Iterable[Mapping]) -> Iterator[Replayed | Diverged]:
    """Replay each record in turn; a game that follows a replayed one of the same place
    is exchanged from that game's ranks (else, and always with duplicate deals, whose
    exchanges follow ranks drawn from the seed, from what its own exchange tells)."""
    last: dict[object, Replayed] = {}
    for record in records:
        place = record["place"]["id"]
        before = last.get(place)
        follows = before is not None and before.game == record["game"] - 1
        duplicate = record["place"].get("duplicate_deals", False)
        known = before.ranks if follows and not duplicate else None
        try:
            done = replay_game(record, known)
        except Diverged as e:
            last.pop(place, None)
            yield e
        else:
            last[place] = done
            yield done


# -- reading a record's cards --------------------------------------------------------------


def _tokens(written: Iterable[str]) -> list[int]:
    """Card ids of written cards, ``JOKER_TOKEN`` for a joker (any joker)."""
    return [parse_card(c) for c in written]


def _form(token: int) -> str:
    """The written form of a card id or of ``JOKER_TOKEN``."""
    return format_card(token or JOKER_IDS[0])


def _written(hands: Sequence[int]) -> list[list[str]]:
    return [[format_card(c) for c in sorted_ids(h)] for h in hands]


def _dealt(written: Sequence[Sequence[str]], players: int, diverged: Fail) -> tuple[int, ...]:
    """The dealt hands as masks: a partition of the 54 cards, of the sizes a deal makes.

    The two jokers are alike on paper; the first written is given the first id.
    """
    if len(written) != players:
        raise diverged("deal", f"{len(written)} hands dealt to {players} players")
    jokers = iter(JOKER_IDS)
    seen: set[int] = set()
    hands = []
    for seat, hand in enumerate(written):
        mask = 0
        for token in _tokens(hand):
            cid = next(jokers, None) if token == JOKER_TOKEN else token
            if cid is None or cid in seen:
                card = "a third joker" if cid is None else format_card(cid)
                raise diverged("deal", f"{card} is dealt twice (seat {seat})")
            seen.add(cid)
            mask |= 1 << cid
        hands.append(mask)
    if len(seen) != len(ALL_IDS):
        raise diverged("deal", f"{len(seen)} cards dealt, not {len(ALL_IDS)}")
    base, extra = divmod(len(ALL_IDS), players)
    sizes = sorted(len(h) for h in written)
    if sizes != [base] * (players - extra) + [base + 1] * extra:
        raise diverged("deal", f"hands of {sizes} cards: a deal gives {base} or {base + 1}")
    return tuple(hands)


def _apply(dealt: Sequence[int], moves: Sequence[Mapping], diverged: Fail) -> tuple[int, ...]:
    """The dealt hands after the recorded exchange (each giver must hold what it gives)."""
    hands = list(dealt)
    taken = []
    for m in moves:
        giver, receiver = m["from"], m["to"]
        if not (0 <= giver < len(hands) and 0 <= receiver < len(hands)):
            raise diverged("exchange", f"seat {giver} gives to seat {receiver}: no such seat")
        mask = 0
        for token in _tokens(m["cards"]):
            held = dealt[giver] & ~mask
            if token == JOKER_TOKEN:
                token = next((j for j in JOKER_IDS if held >> j & 1), JOKER_IDS[0])
            if not held >> token & 1:
                raise diverged(
                    "exchange", f"seat {giver} gives {format_card(token)}, not dealt to it"
                )
            mask |= 1 << token
        taken.append((giver, receiver, mask))
    for giver, receiver, mask in taken:  # all chosen from the dealt hands first
        hands[giver] &= ~mask
        hands[receiver] |= mask
    return tuple(hands)


def _ranks_of_exchange(moves: Sequence[Mapping], players: int, diverged: Fail) -> tuple[int, ...]:
    """The previous game's ranks as the exchange tells them.

    The engine's moves come in pairs, richer first: rank 1 gives to the last rank
    and back, then rank 2 to the second-to-last and back; an unmentioned seat
    holds the rank left over.
    """
    pairs = [(1, players)] + ([(2, players - 1)] if players >= 4 else [])
    shape = f"{2 * len(pairs)} moves, each pair of seats giving to each other"
    if len(moves) != 2 * len(pairs):
        raise diverged("exchange", f"{len(moves)} moves; an exchange is {shape}")
    rank_of: dict[int, int] = {}
    for (better, worse), there, back in zip(pairs, moves[::2], moves[1::2], strict=True):
        if (there["from"], there["to"]) != (back["to"], back["from"]):
            raise diverged("exchange", f"seat {there['from']} and seat {there['to']}: {shape}")
        rank_of[there["from"]] = better
        rank_of[there["to"]] = worse
    rest = sorted(set(range(1, players + 1)) - set(rank_of.values()))
    free = [s for s in range(players) if s not in rank_of]
    if (
        len(rank_of) != 2 * len(pairs)
        or len(free) != len(rest)
        or any(s >= players for s in rank_of)
    ):
        raise diverged("exchange", f"the moves do not name {2 * len(pairs)} different seats")
    rank_of.update(zip(free, rest, strict=True))
    return tuple(rank_of[s] for s in range(players))


def _move(giver: int, receiver: int, cards: Iterable[int]) -> tuple[int, int, list[str]]:
    return giver, receiver, sorted(map(_form, cards))


def _moves_text(moves: Iterable[tuple[int, int, list[str]]]) -> str:
    return "; ".join(f"{g}→{r} {' '.join(c)}" for g, r, c in moves) or "none"


def _verdict(verdict: str, reason: str | None) -> str:
    return f"{verdict} ({reason})" if reason else verdict


def _flag(value: bool) -> str:
    return "true" if value else "false"
