#!/usr/bin/env python3
"""A UECda client that submits random card sets: a test bot for servers and referees.

It speaks protocol 20070 (tables of 8x15 big-endian 32-bit ints, 480 bytes) and
plays a whole match the way a bot in development might: when it is to move it
mostly submits sets the server will reject (random subsets of its hand), now and
then a pass, now and then a single that looks legal. In the exchange it gives
random cards, sometimes the wrong number of them. Its point is to put in a
server's log the submissions a careful stock client never makes, so that a
referee replaying the log is tested on them.

Usage, like the stock C client: ``random_submitter.py -h HOST -p PORT -n NAME
[--seed N]``. It ends with status 0 when the server says the last game is over.
Standard library only (Python 3.11).
"""

from __future__ import annotations

import argparse
import random
import socket
import struct
import sys
from dataclasses import dataclass, field

PROTOCOL_VERSION = 20070
ROWS, COLUMNS = 8, 15
TABLE_FORMAT = f">{ROWS * COLUMNS}i"  # network byte order, row-major
TABLE_BYTES = struct.calcsize(TABLE_FORMAT)  # 480
INT_FORMAT = ">i"
NAME_LIMIT = 14  # the name row holds chars then a NUL; servers keep fewer

CARD, JOKER = 1, 2
SUIT_ROWS = range(4)  # rows 0-3: spades, hearts, diamonds, clubs
RANK_COLUMNS = range(1, 14)  # columns 1-13: 3 .. 2
JOKER_IN_HAND = (4, 1)  # where a hand table holds the joker

# Flags of row 5 (what the server tells every client).
F_DELIVERY, F_GIVE, F_MY_TURN = (5, 0), (5, 1), (5, 2)
F_FIELD_EMPTY, F_ELEVEN_BACK, F_REVOLUTION, F_LOCK = (5, 4), (5, 5), (5, 6), (5, 7)

# Game states the server sends after each field table.
GAME_GOES_ON, GAME_OVER, MATCH_OVER = 0, 1, 2

# How it chooses a move by default (--pass-share, --single-share): the remaining
# share is a random subset of its hand.
PASS_SHARE = 0.15
SINGLE_SHARE = 0.30
# How often, in the exchange, it gives one card too many (the server then
# takes its strongest cards instead), and how often a joker it gives is
# written in a suit row rather than in the hand's joker cell (tndhms then also
# erases the giver's own card in that cell, if it holds one).
WRONG_COUNT_SHARE = 0.10
JOKER_IN_SUIT_ROW_SHARE = 0.30
# How often a joker in a random subset is written in a suit row (else in [4][1],
# which tndhms only accepts in a group of five).
PLAY_JOKER_IN_SUIT_ROW_SHARE = 0.5

Table = list[list[int]]
Cell = tuple[int, int]


def empty_table() -> Table:
    """An all-zero table: a pass, or the start of any table we build."""
    return [[0] * COLUMNS for _ in range(ROWS)]


def table_of(cells: dict[Cell, int]) -> Table:
    """A table with the given cells set (value 1 for a card, 2 for the joker)."""
    table = empty_table()
    for (row, column), value in cells.items():
        table[row][column] = value
    return table


def cell(table: Table, at: Cell) -> int:
    """The value of one cell, ``at`` being (row, column)."""
    return table[at[0]][at[1]]


class Connection:
    """One TCP connection to the server, with the protocol's three kinds of message."""

    def __init__(self, host: str, port: int):
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def close(self) -> None:
        self.sock.close()

    def _read_exactly(self, size: int) -> bytes:
        """Read ``size`` bytes; the server may split a table over several segments."""
        chunks = bytearray()
        while len(chunks) < size:
            chunk = self.sock.recv(size - len(chunks))
            if not chunk:
                raise ConnectionError(
                    f"the server closed the connection ({len(chunks)}/{size} bytes read)"
                )
            chunks += chunk
        return bytes(chunks)

    def read_table(self) -> Table:
        values = struct.unpack(TABLE_FORMAT, self._read_exactly(TABLE_BYTES))
        return [list(values[row * COLUMNS : (row + 1) * COLUMNS]) for row in range(ROWS)]

    def read_int(self) -> int:
        return struct.unpack(INT_FORMAT, self._read_exactly(4))[0]

    def write_table(self, table: Table) -> None:
        """Send a table in one call: tndhms reads each table with a single read()."""
        self.sock.sendall(struct.pack(TABLE_FORMAT, *(v for row in table for v in row)))


def profile_table(name: str) -> Table:
    """The handshake table: the protocol version in [0][0], the name's chars in row 1."""
    table = empty_table()
    table[0][0] = PROTOCOL_VERSION
    for column, char in enumerate(name[:NAME_LIMIT].encode("ascii", "replace")):
        table[1][column] = char
    return table


def cards_in_hand(hand: Table) -> list[Cell]:
    """The cards a hand table holds; the joker, if held, as its hand cell (4, 1)."""
    cards = [
        (row, column) for row in SUIT_ROWS for column in RANK_COLUMNS if hand[row][column] == CARD
    ]
    if cell(hand, JOKER_IN_HAND) == JOKER:
        cards.append(JOKER_IN_HAND)
    return cards


@dataclass
class RandomPlayer:
    """Chooses submissions and exchange cards at random, from one seeded stream."""

    rng: random.Random
    pass_share: float = PASS_SHARE
    single_share: float = SINGLE_SHARE
    field_cells: dict[Cell, int] = field(default_factory=dict)  # the last field table's cards

    def watch_field(self, field_table: Table) -> None:
        """Remember the cards now on the field (rows 0-4 of the field table)."""
        self.field_cells = {
            (row, column): field_table[row][column]
            for row in range(5)
            for column in range(COLUMNS)
            if field_table[row][column] != 0
        }

    def _joker_cell(self, taken: set[Cell], in_suit_row: bool) -> Cell:
        """Where to write the joker: its hand cell, or a free cell of a suit row."""
        if not in_suit_row:
            return JOKER_IN_HAND
        free = [(r, c) for r in SUIT_ROWS for c in range(COLUMNS) if (r, c) not in taken]
        return self.rng.choice(free)

    def _set_of(self, cards: list[Cell], joker_in_suit_row: bool) -> Table:
        """A table of the chosen cards, the joker (if chosen) written where chance says."""
        plain = {c: CARD for c in cards if c != JOKER_IN_HAND}
        if JOKER_IN_HAND in cards:
            plain[self._joker_cell(set(plain), joker_in_suit_row)] = JOKER
        return table_of(plain)

    def exchange(self, hand: Table, count: int) -> Table:
        """The cards it gives back as daifugo (2) or fugo (1): random, sometimes one too many."""
        cards = cards_in_hand(hand)
        if self.rng.random() < WRONG_COUNT_SHARE:
            count += 1
        chosen = self.rng.sample(cards, min(count, len(cards)))
        return self._set_of(chosen, self.rng.random() < JOKER_IN_SUIT_ROW_SHARE)

    def _looks_legal_single(self, turn: Table, cards: list[Cell]) -> list[Cell]:
        """Singles that beat the field as far as the flags tell (rank, order, lock).

        Only a lone plain card on the field is answered; on an empty field any
        card will do. It does not try to be right in every case."""
        plain = [c for c in cards if c != JOKER_IN_HAND]
        if cell(turn, F_FIELD_EMPTY) == 1:
            return plain
        if len(self.field_cells) != 1:
            return []
        (row, column), value = next(iter(self.field_cells.items()))
        if value != CARD:
            return []
        reversed_order = (cell(turn, F_REVOLUTION) + cell(turn, F_ELEVEN_BACK)) % 2 == 1
        locked = cell(turn, F_LOCK) == 1
        return [
            (r, c)
            for r, c in plain
            if (c < column if reversed_order else c > column) and (not locked or r == row)
        ]

    def move(self, turn: Table) -> Table:
        """Its submission: a pass, a single that looks legal, or a random subset of 1-4 cards."""
        cards = cards_in_hand(turn)
        roll = self.rng.random()
        if not cards or roll < self.pass_share:
            return empty_table()
        if roll < self.pass_share + self.single_share:
            singles = self._looks_legal_single(turn, cards)
            if singles:
                return self._set_of([self.rng.choice(singles)], False)
        size = self.rng.randint(1, min(4, len(cards)))
        chosen = self.rng.sample(cards, size)
        return self._set_of(chosen, self.rng.random() < PLAY_JOKER_IN_SUIT_ROW_SHARE)


@dataclass
class MatchTally:
    """What happened, for the closing line on stderr."""

    player_number: int = -1  # as the server numbered us (accept order)
    games: int = 0
    submissions: int = 0
    accepted: int = 0  # answered 9 (an accepted play, or a pass on an empty field)


def play_game(conn: Connection, player: RandomPlayer, tally: MatchTally) -> int:
    """One game, from the hand delivery to the state that ends it (1 or 2)."""
    delivery = conn.read_table()
    if cell(delivery, F_DELIVERY) != 1:
        raise ConnectionError(
            f"expected the hand delivery table, got [5][0]={cell(delivery, F_DELIVERY)}"
        )
    give = cell(delivery, F_GIVE)
    if 0 < give < 100:
        conn.write_table(player.exchange(delivery, give))
    while True:
        turn = conn.read_table()
        if cell(turn, F_MY_TURN) == 1:
            conn.write_table(player.move(turn))
            tally.submissions += 1
            tally.accepted += conn.read_int() == 9
        player.watch_field(conn.read_table())
        state = conn.read_int()
        if state != GAME_GOES_ON:
            tally.games += 1
            return state


def play_match(host: str, port: int, name: str, player: RandomPlayer) -> MatchTally:
    """Connect, introduce itself, and play until the server says the match is over."""
    conn = Connection(host, port)
    tally = MatchTally()
    try:
        conn.write_table(profile_table(name))
        tally.player_number = conn.read_int()
        while play_game(conn, player, tally) == GAME_OVER:
            pass
    finally:
        conn.close()
    return tally


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``-h`` is the host, as in the stock client, so help is ``--help`` only."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("-h", dest="host", default="127.0.0.1", help="server host (127.0.0.1)")
    parser.add_argument("-p", dest="port", type=int, default=42485, help="server port (42485)")
    parser.add_argument("-n", dest="name", default="random", help="name sent to the server")
    parser.add_argument(
        "--seed", type=int, help="seed of its choices (default: a random one, printed)"
    )
    parser.add_argument(
        "--pass-share", type=float, default=PASS_SHARE, help=f"share of passes ({PASS_SHARE})"
    )
    parser.add_argument(
        "--single-share",
        type=float,
        default=SINGLE_SHARE,
        help=f"share of singles that look legal ({SINGLE_SHARE}); the rest are random subsets",
    )
    parser.add_argument("--help", action="help", help="show this help and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    shares = (args.pass_share, args.single_share)
    if min(shares) < 0 or sum(shares) > 1:
        print(
            "--pass-share and --single-share must be shares summing to at most 1", file=sys.stderr
        )
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"random_submitter {args.name}: seed {seed}", file=sys.stderr)
    try:
        player = RandomPlayer(random.Random(seed), args.pass_share, args.single_share)
        tally = play_match(args.host, args.port, args.name, player)
    except (OSError, ConnectionError) as e:
        print(f"random_submitter {args.name}: {e}", file=sys.stderr)
        return 1
    print(
        f"random_submitter {args.name} (player {tally.player_number}): {tally.games} games,"
        f" {tally.submissions} submissions, {tally.accepted} answered 9",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
