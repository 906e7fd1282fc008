"""tndhms's FLAG_LOGGER log: read it into games, and referee every game with the engine.

The log (UECDA.md §7) is text the caller reads; nothing here opens files.
Lines are ``%KEY%name% value``: a header under the key ``-----``, then seven
lines per game under its number on five digits. :class:`LogReader` reads them one
at a time, a game at a time (a log may hold 99,999 games: memory stays one game's),
checks the shape and names the line of anything malformed or missing, at the first
such line (or, told to keep going, names the game and goes on: :class:`Skipped`);
:func:`parse_log` keeps every game of a log. :func:`referee`
replays every game with :mod:`.uecda` and names the game, the turn, what the
log says and what the engine says wherever they differ; with the log's seed it
also draws tndhms's seatings, deals and 20-pass draws again
(:mod:`.tndhms_random`) and holds the log to them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from . import uecda as u
from .numbers import whole
from .rules import UECDA, Rules, TndhmsSettingError, from_tndhms
from .tndhms_random import TndhmsRandom

GAME_KEYS = ("mibun", "seat", "palyer_cards", "change_cards", "play", "result", "points")
_LINE = re.compile(r"%([^%]*)%([^%]*)%(?: (.*))?")
_PLAY = re.compile(r"([0-4])((?:[SHDCJKLMN][x3-9TJQKA2])*)EE")
_CHANGE = re.compile(r"([0-4])([0-4])((?:[SHDCJKLMN][x3-9TJQKA2])*)EE")
_DIGITS5 = re.compile(r"[0-4]{5}")

#: The header lines of the rules a log must have (tndhms 0.29-0.37 write every one;
#: ``RULE_KINSOKU``, never applied, may be missing).
RULE_LINES = (
    "RULE_KAKUMEI",
    "RULE_SHIBARI",
    "RULE_KAIDAN",
    "RULE_CHANGE",
    "RULE_5TOBI",
    "RULE_6REVERS",
    "RULE_8GIRI",
    "RULE_11BACK",
    "RULE_SEKIGAE",
    "RULE_SEKIGAE_NUM",
    "FLASH_MIBUN_NUMBER",
)


#: A game's key: its number on five digits (a match is at most 99,999 games, ``isint``).
GAME_DIGITS = 5
GAME_MAX = 10**GAME_DIGITS - 1
#: A player's points so far: tndhms keeps them in a C ``int``.
POINTS_MAX = 2**31 - 1
#: ``RANDOM_SEED``: tndhms's ``time(NULL)``, at most 64 bits (``init_genrand`` keeps 32).
SEED_MAX = 2**64 - 1


#: The bytes tndhms's logger keeps a game's plays in (``play_log[1000]``, ``server/src/logger.c:15``).
#: It appends to it with an unbounded ``sprintf``: a longer game runs on into the buffer
#: after it, the exchange's, so its ``change_cards`` line is the plays from this byte on.
TNDHMS_PLAY_BUFFER = 1000


class LogError(ValueError):
    """A log that is malformed or cut short; the message names the line."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Submission:
    player: int
    text: str  # the cells as logged, "" for a pass
    ones: int
    twos: int


@dataclass(frozen=True)
class Handover:
    giver: int
    receiver: int
    text: str
    cards: int


@dataclass(frozen=True)
class LoggedGame:
    """One game of the log; ``number`` counts from 0 as the log does; ``line`` is its first line."""

    number: int
    line: int
    ranks_before: tuple[int, ...] | None  # rank of each player, 0 = daifugo; None: 22222
    seats: tuple[int, ...]  # the player in each seat
    dealt: tuple[int, ...]  # each player's hand before the exchange (card masks)
    exchange: tuple[Handover, ...] | None  # () for NULL; None: lost to tndhms's overflow
    plays: tuple[Submission, ...]
    result: tuple[int, ...]  # the player at each rank, 0 = daifugo
    points: tuple[int, ...]  # each player's cumulative points


@dataclass(frozen=True)
class Skipped:
    """A game left out because a line of it cannot be read: its number, and why (the
    line named). ``game`` is what was read of it when only its exchange is lost (tndhms's
    overflow, :func:`overflowed`): its result and points still follow on to the next game."""

    number: int
    reason: str
    game: LoggedGame | None = None

    def __str__(self) -> str:
        return f"game {self.number:05d}: a garbled line: {self.reason}"


@dataclass
class TndhmsLog:
    header: dict[str, str]
    names: tuple[str, ...]
    games: list[LoggedGame] = field(default_factory=list)
    header_lines: dict[str, int] = field(default_factory=dict)  # the line of each header name


def _five_digits(value: str, line: int, what: str) -> tuple[int, ...]:
    if not _DIGITS5.fullmatch(value):
        raise LogError(line, f"{what} is not five digits 0-4: {value[:40]!r}")
    return tuple(int(c) for c in value)


def overflowed(play: str, change: str) -> bool:
    """The ``change_cards`` line is tndhms's overflow, not an exchange: the play line (its
    value as written, from the space that begins it) is longer than tndhms's play buffer and
    the change_cards line is its tail from there (``NULL`` when the tail is empty)."""
    if len(play) < TNDHMS_PLAY_BUFFER:
        return False
    return change == (play[TNDHMS_PLAY_BUFFER:] or "NULL")


def _game(number: int, lines: list[tuple[int, str]]) -> LoggedGame:
    """A game from its seven lines (each value as written, after the ``% `` of its key).
    A game whose ``change_cards`` line is tndhms's overflow (:func:`overflowed`) has no
    exchange when it begins a rank period (it had none); else its exchange is ``None``, lost."""
    first = lines[0][0]
    written = dict(zip(GAME_KEYS, (v for _, v in lines), strict=True))
    values = {k: v.strip() for k, v in written.items()}
    at = {k: n for k, (n, _) in zip(GAME_KEYS, lines, strict=True)}
    mibun = values["mibun"]
    ranks_before = None if mibun == "22222" else _five_digits(mibun, at["mibun"], "mibun")
    if ranks_before is not None and sorted(ranks_before) != [0, 1, 2, 3, 4]:
        raise LogError(at["mibun"], f"mibun is not a ranking: {mibun!r}")
    seats = _five_digits(values["seat"], at["seat"], "seat")
    if sorted(seats) != [0, 1, 2, 3, 4]:
        raise LogError(at["seat"], f"seat is not a seating of players 0-4: {values['seat']!r}")
    hands = values["palyer_cards"].split()
    if len(hands) != 5:
        raise LogError(at["palyer_cards"], f"{len(hands)} hands, not 5")
    try:
        dealt = tuple(u.parse_hand(h) for h in hands)
    except u.CellsFormatError as e:
        raise LogError(at["palyer_cards"], str(e)) from None
    exchange: list[Handover] | None = []
    if overflowed(written["play"], written["change_cards"]):
        exchange = [] if ranks_before is None else None
    elif values["change_cards"] != "NULL":
        for token in values["change_cards"].split():
            m = _CHANGE.fullmatch(token)
            if m is None:
                raise LogError(at["change_cards"], f"not an exchange: {token[:40]!r}")
            try:
                ones, twos = u.parse_cells(m.group(3))
            except u.CellsFormatError as e:
                raise LogError(at["change_cards"], str(e)) from None
            hand = u.cards_of_cells(ones, twos)
            exchange.append(Handover(int(m.group(1)), int(m.group(2)), m.group(3), hand))
    plays = []
    for token in values["play"].split():
        m = _PLAY.fullmatch(token)
        if m is None:
            raise LogError(at["play"], f"not a submission: {token[:40]!r}")
        ones, twos = u.parse_cells(m.group(2))
        plays.append(Submission(int(m.group(1)), m.group(2), ones, twos))
    result = _five_digits(values["result"], at["result"], "result")
    if sorted(result) != [0, 1, 2, 3, 4]:
        raise LogError(at["result"], f"result is not a ranking: {values['result']!r}")
    points = [whole(p, POINTS_MAX) for p in values["points"].split()]
    if len(points) != 5 or None in points:
        raise LogError(at["points"], f"points are not five numbers: {values['points'][:40]!r}")
    return LoggedGame(
        number,
        first,
        ranks_before,
        seats,
        dealt,
        None if exchange is None else tuple(exchange),
        tuple(plays),
        result,
        tuple(points),
    )


class LogReader:
    """Reads a log line by line: :meth:`games` yields each game as its last line is read,
    and :attr:`log` holds the header as its lines come (its ``games`` stay empty). A
    malformed line, a game out of order or a log cut short (no ``TIME_END``, a game
    missing its lines, fewer games than ``GAME_NUMBER``) raises :class:`LogError`
    naming the line, as soon as it is read; so does a game that cannot be read (a line
    of it garbled, its exchange lost to tndhms's overflow) unless ``keep_going``: then
    :meth:`games` yields it as :class:`Skipped` and goes on."""

    def __init__(self, lines: Iterable[str], keep_going: bool = False):
        self.log = TndhmsLog({}, ())
        self.count = 0  # the games read so far
        self.keep_going = keep_going
        self._lines = lines

    def _read(self, lines: list[tuple[int, str]]) -> LoggedGame | Skipped:
        """A game from its seven lines, or why it cannot be read (when ``keep_going``)."""
        try:
            game = _game(self.count, lines)
        except LogError as e:
            if not self.keep_going:
                raise
            return Skipped(self.count, str(e))
        if game.exchange is not None:
            return game
        lost = LogError(
            lines[GAME_KEYS.index("change_cards")][0],
            f"tndhms's logger overflowed: the game's plays take "
            f"{len(lines[GAME_KEYS.index('play')][1])} bytes, more than its "
            f"{TNDHMS_PLAY_BUFFER}-byte buffer (server/src/logger.c), so its change_cards "
            "line is the tail of its plays and its exchange is lost",
        )
        if not self.keep_going:
            raise lost
        return Skipped(self.count, str(lost), game)

    def games(self) -> Iterator[LoggedGame | Skipped]:
        header = self.log.header
        pending: list[tuple[int, str]] = []
        last = 0
        ended = False
        for last, raw in enumerate(self._lines, start=1):
            text = raw.rstrip("\r\n")
            if not text.strip():
                continue
            m = _LINE.fullmatch(text)
            if m is None:
                raise LogError(last, f"not a log line: {text[:60]!r}")
            key, name, value = m.group(1), m.group(2), (m.group(3) or "").strip()
            if ended:
                raise LogError(last, f"a line after TOTAL_POINT: {text[:60]!r}")
            if key == "-----":
                if pending:
                    raise LogError(
                        last,
                        f"game {self.count:05d} is cut short: no {GAME_KEYS[len(pending)]} line",
                    )
                header[name] = value
                self.log.header_lines[name] = last
                if name == "palyer_name":
                    self.log.names = tuple(value.split())
                if name == "TOTAL_POINT":
                    ended = True
                continue
            if len(key) != GAME_DIGITS or whole(key, GAME_MAX) is None:
                raise LogError(last, f"not a header or game key: {key[:20]!r}")
            if whole(key, GAME_MAX) != self.count:
                raise LogError(last, f"game {key} where game {self.count:05d} was expected")
            expected = GAME_KEYS[len(pending)]
            if name != expected:
                raise LogError(last, f"game {key}: {name[:20]!r} where {expected!r} was expected")
            pending.append((last, m.group(3) or ""))  # as written: _game reads the overflow
            if len(pending) == len(GAME_KEYS):
                game = self._read(pending)
                pending = []
                self.count += 1
                yield game
        if pending:
            raise LogError(
                last,
                f"the log is cut short in game {self.count:05d}: no {GAME_KEYS[len(pending)]} line",
            )
        for needed in ("palyer_name", "GAME_NUMBER", "TIME_END", "TOTAL_POINT"):
            if needed not in header:
                raise LogError(last, f"the log is cut short: no {needed} line")
        if len(self.log.names) != 5:
            raise LogError(last, f"palyer_name names {len(self.log.names)} players, not 5")
        if whole(header["GAME_NUMBER"], GAME_MAX, digits=GAME_DIGITS) != self.count:
            raise LogError(
                last,
                f"GAME_NUMBER is {header['GAME_NUMBER'][:10]} but the log has {self.count} games",
            )


def parse_log(lines: Iterable[str]) -> TndhmsLog:
    """Read a whole log, every game kept (:class:`LogReader` says what it refuses)."""
    reader = LogReader(lines)
    games = list(reader.games())
    reader.log.games = games
    return reader.log


def rules_of_log(log: TndhmsLog) -> Rules:
    """The ``uecda`` variant the log's header says the match was played by."""
    for name in RULE_LINES:
        if name not in log.header:
            raise LogError(1, f"the header has no {name} line")
    try:
        return from_tndhms({k: v.upper() for k, v in log.header.items()})
    except TndhmsSettingError as e:
        raise LogError(log.header_lines[e.key], str(e)) from None


@dataclass(frozen=True)
class Disagreement:
    """Where the log and the engine part: the game (as the log numbers it), the turn
    (1 for the first submission; 0 before the play), and what each says."""

    game: int
    turn: int
    log_says: str
    engine_says: str

    def __str__(self) -> str:
        where = f"game {self.game:05d}" + (f", turn {self.turn}" if self.turn else "")
        return f"{where}: the log says {self.log_says}; the engine says {self.engine_says}"


class DisagreementError(Exception):
    def __init__(self, disagreement: Disagreement):
        super().__init__(str(disagreement))
        self.disagreement = disagreement


@dataclass
class Refereed:
    """A game as the engine replayed it: what a record of it holds beside the log."""

    game: LoggedGame
    turns: int
    drawn: bool
    ranks: tuple[int, ...]  # each player's rank, 1 best
    exchanges: list[u.Exchange]
    deal_from: int  # the player whose seat the deal started from
    hands: tuple[int, ...]  # each player's hand after the exchange
    outcomes: list[u.Outcome]  # the engine's verdict on each submission
    revolution: bool  # the order in force at the end
    rules: Rules = UECDA  # the rules it was refereed by
    #: The ranks its exchange followed (1 best), None for none: the logged ones, or with
    #: FLASH_MIBUN_NUMBER 1, which logs none, the last game's (:func:`.uecda.exchange_ranks`).
    exchange_ranks: tuple[int, ...] | None = None


FROM_SEED = "tndhms's generator from RANDOM_SEED"


def seeded_stream(log: TndhmsLog) -> TndhmsRandom | None:
    """tndhms's generator as the log's match seeded it, if it used MT (``RAND_TYPE 1``)."""
    seed = whole(log.header.get("RANDOM_SEED", ""), SEED_MAX)
    if log.header.get("RAND_TYPE") != "1" or seed is None:
        return None
    return TndhmsRandom(seed)


def _digits(players: Iterable[int]) -> str:
    return "".join(map(str, players))


def _cards(mask: int) -> str:
    return u.cards_text(mask) or "nothing"


def referee_game(
    lg: LoggedGame,
    previous: LoggedGame | None,
    rules: Rules = UECDA,
    stream: TndhmsRandom | None = None,
) -> Refereed:
    """Replay one logged game; raise :class:`DisagreementError` at the first difference.

    With ``stream`` (tndhms's generator, seeded as the log says, at this game's
    draws), the seats, the deal and a 20-pass draw must also be the ones it gives.
    """
    game_no = lg.number + 1

    def differ(turn: int, log_says: str, engine_says: str) -> DisagreementError:
        return DisagreementError(Disagreement(lg.number, turn, log_says, engine_says))

    first = u.first_of_period(rules, game_no)
    if first != (lg.ranks_before is None):
        raise differ(
            0,
            f"mibun {'22222' if lg.ranks_before is None else ''.join(map(str, lg.ranks_before))}",
            "a new rank period begins (mibun 22222)" if first else "ranks from the game before",
        )
    if not first and previous is not None:
        before = tuple(previous.result.index(p) for p in range(5))
        if lg.ranks_before != before:
            raise differ(
                0,
                f"mibun {''.join(map(str, lg.ranks_before))}",
                f"mibun {''.join(map(str, before))} (the game before's result)",
            )
    if stream is not None and u.reseats(rules, game_no):
        drawn_seats = stream.seats()
        if lg.seats != drawn_seats:
            raise differ(
                0, f"seat {_digits(lg.seats)}", f"seat {_digits(drawn_seats)} ({FROM_SEED})"
            )
    if previous is not None and not u.reseats(rules, game_no) and lg.seats != previous.seats:
        raise differ(
            0,
            f"seat {''.join(map(str, lg.seats))}",
            f"the seats of the game before, {''.join(map(str, previous.seats))}",
        )
    # the deal: 53 cards, from the daifugo's seat (a random player's in a period's first game)
    everything = 0
    for h in lg.dealt:
        if everything & h:
            raise differ(
                0,
                "a card dealt twice",
                f"each of the 53 cards dealt once ({_cards(everything & h)})",
            )
        everything |= h
    if everything != u.DECK_MASK:
        raise differ(0, f"the deal misses {_cards(u.DECK_MASK & ~everything)}", "53 cards dealt")
    sizes = tuple(h.bit_count() for h in lg.dealt)
    from_anyone = first or not rules.deal_from_daifugo
    starts = list(range(5)) if from_anyone else [lg.ranks_before.index(0)]
    deal_from = next((s for s in starts if u.deal_sizes(lg.seats, s) == sizes), None)
    if deal_from is None:
        raise differ(
            0,
            f"hands of {sizes} cards",
            f"a deal from the seat of player {starts[0]}"
            if len(starts) == 1
            else "a deal of 11, 11, 11, 10, 10 cards in seat order",
        )
    if stream is not None:
        if first:
            dealer = stream.first_dealer()
            if dealer != deal_from:
                raise differ(
                    0,
                    f"a deal from the seat of player {deal_from}",
                    f"a deal from the seat of player {dealer} ({FROM_SEED})",
                )
        for p, (logged, dealt) in enumerate(
            zip(lg.dealt, stream.deal(lg.seats, deal_from), strict=True)
        ):
            if logged != dealt:
                raise differ(
                    0, f"player {p} is dealt {_cards(logged)}", f"{_cards(dealt)} ({FROM_SEED})"
                )
    # the exchange
    hands = lg.dealt
    exchanges: list[u.Exchange] = []
    given: tuple[int, ...] | None = None  # the ranks the exchange follows
    if not u.exchanges(rules, game_no):
        if lg.exchange:
            why = "a rank period's first game" if first else "RULE_CHANGE NO"
            raise differ(0, "an exchange", f"no exchange ({why})")
    else:
        if lg.ranks_before is not None:
            given = tuple(r + 1 for r in lg.ranks_before)
        else:  # ranks tndhms hides and still exchanges by
            last = (
                None if previous is None else tuple(previous.result.index(p) + 1 for p in range(5))
            )
            given = u.exchange_ranks(rules, game_no, last)
        if len(lg.exchange) != 4:
            raise differ(0, f"{len(lg.exchange)} exchanges", "4 exchanges")
        choices = lg.exchange[2:]
        hands, exchanges = u.exchange(
            rules, lg.dealt, given, choices[0].cards, choices[1].cards,
            tuple(u.erased_by(*u.parse_cells(x.text)) for x in choices),
        )  # fmt: skip
        for logged, done in zip(lg.exchange, exchanges, strict=True):
            if (logged.giver, logged.receiver, logged.cards) != (
                done.giver,
                done.receiver,
                done.cards,
            ):
                raise differ(
                    0,
                    f"player {logged.giver} gives player {logged.receiver} {_cards(logged.cards)}",
                    f"player {done.giver} gives player {done.receiver} {_cards(done.cards)}",
                )
    g = u.new_game(rules, hands, lg.seats)
    turn = 0
    outcomes = []
    for turn, sub in enumerate(lg.plays, start=1):
        if g.phase != u.TURN:
            how = "20 passes in a row" if g.phase == u.DRAW else "four players out"
            raise differ(
                turn,
                f"player {sub.player} submits {sub.text or 'a pass'}",
                f"the game ended after turn {turn - 1} ({how})",
            )
        if sub.player != g.turn:
            raise differ(
                turn,
                f"player {sub.player} submits {sub.text or 'a pass'}",
                f"player {g.turn} is to move",
            )
        g, outcome = u.submit(g, sub.player, u.analyze(sub.ones, sub.twos))
        outcomes.append(outcome)
    if g.phase == u.TURN:
        raise differ(
            turn,
            "the game ends here",
            f"player {g.turn} is to move, holding {_cards(g.hands[g.turn])}",
        )
    logged_ranks = tuple(lg.result.index(p) + 1 for p in range(5))
    drawn = g.phase == u.DRAW
    if drawn:
        out = [(r, p) for p, r in enumerate(g.ranks) if r]
        if any(logged_ranks[p] != r for r, p in out):
            raise differ(
                turn,
                f"result {''.join(map(str, lg.result))}",
                f"the players out keep their ranks {sorted(out)} in the 20-pass draw",
            )
        order = [p for p in lg.result if not g.ranks[p]]
        if stream is not None:
            drawn_order = stream.draw(order)
            if order != drawn_order:
                raise differ(
                    turn,
                    f"the draw ranks players {_digits(order)}",
                    f"players {_digits(drawn_order)} ({FROM_SEED})",
                )
        g = u.settle_draw(g, order)
    if g.ranks != logged_ranks:
        engine = "".join(str(g.ranks.index(r)) for r in range(1, 6))
        raise differ(turn, f"result {''.join(map(str, lg.result))}", f"result {engine}")
    before = previous.points if previous is not None else (0,) * 5
    points = tuple(b + u.points_for(r) for b, r in zip(before, g.ranks, strict=True))
    if (previous is not None or lg.number == 0) and points != lg.points:  # else: unread
        raise differ(
            turn, f"points {' '.join(map(str, lg.points))}", f"points {' '.join(map(str, points))}"
        )
    return Refereed(
        lg,
        len(lg.plays),
        drawn,
        g.ranks,
        exchanges,
        deal_from,
        hands,
        outcomes,
        g.revolution,
        rules,
        given,
    )


def referee(
    log: TndhmsLog,
    rules: Rules | None = None,
    games: Iterable[LoggedGame | Skipped] | None = None,
) -> Iterator[Refereed | Disagreement | Skipped]:
    """Referee every game of a log, in order: a :class:`Refereed` for each game the
    engine replays as logged, a :class:`Disagreement` for each it does not, and each
    game the reader could not read passed on as it came (:class:`Skipped`). The rules
    are the header's (:func:`rules_of_log`) unless ``rules`` says otherwise.

    ``games`` are the log's games as they are read (:meth:`LogReader.games`, the
    header already whole), in place of ``log.games``: one game is kept at a time."""
    rules = rules_of_log(log) if rules is None else rules
    stream = seeded_stream(log)
    previous = None
    for lg in log.games if games is None else games:
        if isinstance(lg, Skipped):
            yield lg
            stream = None  # its draws are unknown: no more to check
            previous = lg.game  # what the next game follows on from, if it was read
            continue
        try:
            yield referee_game(lg, previous, rules, stream)
        except DisagreementError as e:
            yield e.disagreement
            stream = None  # where the game parted, its draws are unknown: no more to check
        previous = lg
    total = log.header.get("TOTAL_POINT", "")
    if previous is not None and total.split() != [str(p) for p in previous.points]:
        yield Disagreement(
            previous.number,
            0,
            f"TOTAL_POINT {total}",
            f"the last game's points {previous.points}",
        )
