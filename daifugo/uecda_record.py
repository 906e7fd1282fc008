"""Game records, format version 2: a game of the ``uecda`` rules, and its replay.

Version 1 (:mod:`.replay`, ``docs/record.schema.json``) records the 2011 game
and stays as it is. Version 2 (``docs/record-v2.schema.json``, docs/records.md)
holds what a UECda game needs to be replayed beside it: the players' numbers
and the seats, the ranks the game started from, whose seat the deal started
from, the rich's chosen cards, every submission as the table it was (the log's
cell notation), and how the game ended (four players out, or the 20-pass draw
with the ranks it drew). Pure: no I/O.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

from . import replay as v1
from . import uecda as u
from .cards import JOKER_TOKEN, format_card, parse_card, sorted_ids
from .replay import Diverged, Replayed, order_name
from .rules import UECDA_NAME, Rules, UnknownRules, rules_of
from .uecda_log import Refereed, TndhmsLog

FORMAT = "daihinmin-record"
VERSION = 2
PLAY, PASS, REJECTED = "play", "pass", "rejected"
OUT, DRAW = "out", "draw"


def written(mask: int) -> list[str]:
    """A card mask in the record's written form, weakest first (the joker last)."""
    return [format_card(c) for c in sorted_ids(mask)]


def mask_of_written(cards: Iterable[str]) -> int:
    """The card mask of cards in the record's written form."""
    mask = 0
    for text in cards:
        cid = parse_card(text)
        mask |= u.JOKER_BIT if cid == JOKER_TOKEN else 1 << cid
    return mask


def verdict(outcome: u.Outcome) -> str:
    """``play``, ``pass`` (an empty table) or ``rejected`` (a table tndhms refused: a pass)."""
    if outcome.accepted:
        return PLAY
    return PASS if not (outcome.move.ones or outcome.move.twos) else REJECTED


def record_rules(record: Mapping) -> Rules:
    """The rules a record's game was played by: its profile and its variant, if any."""
    return rules_of(record["rules"], record.get("variant", ""))


def _movement(x: u.Exchange) -> dict:
    """One movement of the exchange as recorded (``erased``: the card it made vanish)."""
    out = {"from": x.giver, "to": x.receiver, "cards": written(x.cards)}
    return {**out, "erased": written(x.erased)} if x.erased else out


def _ranks_before(
    logged: tuple[int, ...] | None, exchanged: tuple[int, ...] | None
) -> list[int] | None:
    """The ranks a game started from (1 best): the log's, else those its exchange followed
    (tndhms with ``FLASH_MIBUN_NUMBER`` 1 logs none and exchanges), else None."""
    if logged is not None:
        return [r + 1 for r in logged]
    return None if exchanged is None else list(exchanged)


def record_of_logged(
    log: TndhmsLog,
    done: Refereed,
    place: Mapping[str, object],
    seed: str | None = None,
    late: Collection[int] = (),
    think_ms: Sequence[float] | None = None,
) -> dict:
    """The version 2 record of a game of a tndhms log that the engine refereed.

    ``place`` is ``{"id", "title", "games"}`` (``id`` None for a log not imported).
    ``late``: the turns whose move came past the place's time limit (a pass): their
    actions say ``"late": true`` (a log has none: tndhms has no limit). ``think_ms``: each
    submission's time from the server's asking to its answer, in ms (a match over the
    UECda port; a log keeps none).
    The rich's choices are the cards they gave: the log keeps no other trace of
    what they submitted, and a valid choice gives exactly those cards.
    """
    lg = done.game
    no_exchange = not u.exchanges(done.rules, lg.number + 1)
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": done.rules.name,
        **({"variant": done.rules.variant} if done.rules.variant else {}),
        "place": dict(place),
        "game": lg.number + 1,
        "seed": seed,
        "players": [{"player": p, "name": name} for p, name in enumerate(log.names)],
        "seats": list(lg.seats),
        "ranks_before": _ranks_before(lg.ranks_before, done.exchange_ranks),
        "deal_from": done.deal_from,
        "dealt": [written(h) for h in lg.dealt],
        "choices": None
        if no_exchange
        else {"daifugo": written(lg.exchange[2].cards), "fugo": written(lg.exchange[3].cards)},
        "exchange": [_movement(x) for x in done.exchanges],
        "hands": [written(h) for h in done.hands],
        "actions": [
            {
                "turn": n,
                "player": sub.player,
                "table": sub.text,
                "verdict": verdict(out),
                "reset": out.cleared,
                **({"late": True} if n in late else {}),
                **({"ms": round(think_ms[n - 1], 1)} if think_ms is not None else {}),
            }
            for n, (sub, out) in enumerate(zip(lg.plays, done.outcomes, strict=True), start=1)
        ],
        "end": DRAW if done.drawn else OUT,
        "ranks": list(done.ranks),
        "points": [u.points_for(r) for r in done.ranks],
        "order": order_name(done.revolution),
    }


def replay_game(record: Mapping, ranks_before: Sequence[int] | None = None) -> Replayed:
    """Play a version 2 record's game again; raise :class:`Diverged` at the first difference.

    ``ranks_before`` are the ranks of the game before when known (its record);
    otherwise the record's own ``ranks_before`` are taken.
    """
    game_no = record["game"]

    def fail(where: str, message: str) -> Diverged:
        return Diverged(game_no, where, message)

    try:
        rules = record_rules(record)
    except UnknownRules as e:
        raise fail("rules", str(e)) from None
    if rules.name != UECDA_NAME:
        raise fail("rules", f"a version 2 record is of the {UECDA_NAME} rules")
    first = u.first_of_period(rules, game_no)
    exchanges = u.exchanges(rules, game_no)
    recorded_before = record["ranks_before"]
    if (first and not exchanges) != (recorded_before is None):
        expected = (
            "none (a rank period begins)"
            if first and not exchanges
            else "the ranks of the game before"
        )
        raise fail("ranks_before", f"recorded {recorded_before}, the engine expects {expected}")
    if ranks_before is not None and not first and list(ranks_before) != recorded_before:
        raise fail(
            "ranks_before",
            f"recorded {recorded_before}, the game before ended {list(ranks_before)}",
        )
    seats = tuple(record["seats"])
    dealt = tuple(mask_of_written(h) for h in record["dealt"])
    everything = 0
    for h in dealt:
        if everything & h:
            raise fail("deal", f"{written(everything & h)} dealt twice")
        everything |= h
    if everything != u.DECK_MASK:
        raise fail("deal", f"{written(u.DECK_MASK & ~everything)} not dealt")
    start = record["deal_from"]
    if not first and rules.deal_from_daifugo and recorded_before[start] != 1:
        raise fail("deal", f"dealt from player {start}, not from the daifugo")
    sizes = tuple(h.bit_count() for h in dealt)
    if u.deal_sizes(seats, start) != sizes:
        raise fail("deal", f"hands of {list(sizes)} cards, not a deal from player {start}'s seat")
    choices = record["choices"]
    if not exchanges:
        if choices is not None or record["exchange"]:
            why = "the first game of a rank period" if first else "rules without the exchange"
            raise fail("exchange", f"an exchange in {why}")
        hands = dealt
    else:
        if choices is None:
            raise fail("exchange", "no choices of the rich recorded")
        erased = [mask_of_written(x.get("erased", ())) for x in record["exchange"][2:4]]
        hands, moves = u.exchange(
            rules,
            dealt,
            recorded_before,
            mask_of_written(choices["daifugo"]),
            mask_of_written(choices["fugo"]),
            (*erased, 0, 0)[:2],
        )
        made = [_movement(x) for x in moves]
        recorded = [
            {**x, **{k: written(mask_of_written(x[k])) for k in ("cards", "erased") if k in x}}
            for x in record["exchange"]
        ]
        if recorded != made:
            raise fail("exchange", f"recorded {record['exchange']}, the engine makes {made}")
    if [written(h) for h in hands] != [written(mask_of_written(h)) for h in record["hands"]]:
        raise fail("hands", "the hands are not the dealt ones after the exchange")
    g = u.new_game(rules, hands, seats)
    for n, action in enumerate(record["actions"], start=1):
        if action["turn"] != n:
            raise fail(f"turn {n}", f"numbered {action['turn']}")
        if g.phase != u.TURN:
            raise fail(f"turn {n}", "recorded after the game ended")
        if action["player"] != g.turn:
            raise fail(f"turn {n}", f"recorded player {action['player']}, the engine says {g.turn}")
        if action.get("late") and action["table"]:
            raise fail(f"turn {n}", "recorded late (a pass) with a table")
        try:
            move = u.move_of_text(action["table"])
        except u.CellsFormatError as e:
            raise fail(f"turn {n}", str(e)) from None
        g, out = u.submit(g, g.turn, move)
        said = verdict(out)
        if said != action["verdict"] or out.cleared != action["reset"]:
            raise fail(
                f"turn {n}",
                f"recorded {action['verdict']}{' and reset' * action['reset']},"
                f" the engine says {said}{' and reset' * out.cleared}",
            )
    end = record["end"]
    if g.phase == u.TURN:
        raise fail("end", f"the record ends, the engine has player {g.turn} to move")
    if (g.phase == u.DRAW) != (end == DRAW):
        raise fail("end", f"recorded {end}, the engine says {DRAW if g.phase == u.DRAW else OUT}")
    ranks = record["ranks"]
    if g.phase == u.DRAW:
        left = sorted((r, p) for p, r in enumerate(ranks) if not g.ranks[p])
        try:
            g = u.settle_draw(g, [p for _, p in left])
        except ValueError as e:
            raise fail("end", str(e)) from None
    if list(g.ranks) != ranks:
        raise fail("end", f"recorded ranks {ranks}, the engine says {list(g.ranks)}")
    points = [u.points_for(r) for r in g.ranks]
    if record["points"] != points:
        raise fail("end", f"recorded points {record['points']}, the engine says {points}")
    if record["order"] != order_name(g.revolution):
        raise fail(
            "end", f"recorded order {record['order']}, the engine says {order_name(g.revolution)}"
        )
    return Replayed(game_no, g.ranks)


def replay_records(records: Iterable[Mapping]) -> Iterator[Replayed | Diverged]:
    """Replay version 2 records in turn; a game that follows a replayed game of the
    same place (the same id and title: a log's games have no id) is checked against
    that game's ranks, unless the place deals duplicate deals (its exchanges follow
    ranks drawn from the seed)."""
    last: dict[object, Replayed] = {}
    for record in records:
        place = (record["place"]["id"], record["place"]["title"])
        before = last.get(place)
        follows = before is not None and before.game == record["game"] - 1
        duplicate = record["place"].get("duplicate_deals", False)
        try:
            done = replay_game(record, before.ranks if follows and not duplicate else None)
        except Diverged as e:
            last.pop(place, None)
            yield e
        else:
            last[place] = done
            yield done


def _fed(queue: deque) -> Iterator[Mapping]:
    """The records put in ``queue``, one at a time, as a replay asks for them."""
    while True:
        yield queue.popleft()


def replay_any(records: Iterable[Mapping]) -> Iterator[Replayed | Diverged]:
    """Records of both versions in one stream, in order: each judged by its version's
    replay, which sees the records of its version in turn (so a game is checked
    against the game before it of the same version and place)."""
    first, second = deque(), deque()
    replay_1, replay_2 = v1.replay_records(_fed(first)), replay_records(_fed(second))
    for record in records:
        if record.get("version") == VERSION:
            second.append(record)
            yield next(replay_2)
        else:
            first.append(record)
            yield next(replay_1)
