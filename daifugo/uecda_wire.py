"""The UECda wire (UECDA.md §1–4): 8×15 int tables and the tables tndhms sends.

Pure, no I/O. A table is a flat list of 120 ints, row-major (cell ``[r][c]`` at
``r * 15 + c``). How it goes is the connection's :data:`Protocol`, named by the
first cell of the client's handshake: 20070 sends it as 480 bytes big-endian, a
negative value as 0; 20060 (a client that sent no handshake) as 480 bytes in the
server's native order; 20140 as 33 hexadecimal characters (docs/bots.md, "Protocol
20140"). The tables are built from the engine's state (:mod:`daifugo.uecda`)
exactly as tndhms fills them, cell by cell; where tndhms echoes a client's stray
cells (rows 5–7 of a submission), this server sends 0, as it does to stock clients.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Sequence
from functools import lru_cache
from typing import NewType

from daifugo import uecda as u

ROWS, COLUMNS = 8, 15
CELLS = ROWS * COLUMNS
#: Where rows 5 and 6 begin: ``[5][k]`` (the flags) is at ``FLAGS + k``, ``[6][k]`` (the
#: counts, ranks and seats) at ``ROW_6 + k``.
FLAGS, ROW_6 = 5 * COLUMNS, 6 * COLUMNS
TABLE_BYTES = CELLS * 4
INT_BYTES = 4
STRING_CHARS = 33  # a table in protocol 20140
HANDSHAKE_SECONDS = 2.0
NAME_CHARS = 9  # tndhms keeps the first 9 characters of a name
HANDSHAKE_CHARS = COLUMNS - 1  # the stock client sends up to 14 (its ``-n`` in a char[15])


#: A connection's protocol: the version its handshake names in ``[0][0]`` (tndhms's
#: ``protocol_version``, ``daihu.c:809-815``): a plain int, as an enum's members hash in
#: Python (one made reading a 20070 submission 40 % slower: the caches are keyed by it).
Protocol = NewType("Protocol", int)
PROTOCOL_20060 = Protocol(20060)  # no handshake within the window: 480 bytes, native order
PROTOCOL_20070 = Protocol(20070)  # 480 bytes big-endian, a negative value as 0: the stock client's
PROTOCOL_20140 = Protocol(20140)  # a table as 33 hexadecimal characters; ints as 20070's
PROTOCOLS = (PROTOCOL_20060, PROTOCOL_20070, PROTOCOL_20140)
#: The versions a handshake may name: 20060 is the protocol of a client that sends none.
HANDSHAKE_PROTOCOLS = (PROTOCOL_20070, PROTOCOL_20140)

ACCEPTED, REJECTED = 9, 8  # the accept code: 8 is a pass
CONTINUE, GAME_OVER, MATCH_OVER = 0, 1, 2  # the game state after each turn
DELIVERY_MARK = 6  # [5][3] of the hand-delivery table

_BIG = struct.Struct(f">{CELLS}I")
_NATIVE = struct.Struct(f"={CELLS}i")
_BIG_INT = struct.Struct(">I")
_NATIVE_INT = struct.Struct("=i")


class TableError(ValueError):
    """Bytes that are not one table."""


def table_bytes(protocol: Protocol) -> int:
    """How many bytes a table is in ``protocol`` (a handshake is 480 in every one)."""
    return STRING_CHARS if protocol == PROTOCOL_20140 else TABLE_BYTES


def encode(table: Sequence[int], protocol: Protocol = PROTOCOL_20070) -> bytes:
    """A table as ``protocol`` sends it; 20070 sends a negative value as 0
    (``htonl(v * (v >= 0))``). 20140: :func:`_rows_20140` and :func:`_tail_20140`."""
    if protocol == PROTOCOL_20140:
        return _rows_20140(table[:75]) + _tail_20140(table[75:])
    if protocol == PROTOCOL_20060:
        return _NATIVE.pack(*table)
    if min(table) < 0:
        table = [v if v > 0 else 0 for v in table]
    return _BIG.pack(*table)


def decode(data: bytes, protocol: Protocol = PROTOCOL_20070) -> list[int]:
    """The 120 ints of a table as it came (20070: read unsigned, as ``ntohl`` does, then
    as C ints; 20140: :func:`_decode_20140`). :class:`TableError` if it is none."""
    if protocol == PROTOCOL_20140:
        return _decode_20140(data)
    if len(data) != TABLE_BYTES:
        raise TableError(f"a table is {TABLE_BYTES} bytes, not {len(data)}")
    if protocol == PROTOCOL_20060:
        return list(_NATIVE.unpack(data))
    return [v - (1 << 32) if v >= 1 << 31 else v for v in _BIG.unpack(data)]


def encode_int(value: int, protocol: Protocol = PROTOCOL_20070) -> bytes:
    """One int: the player number, an accept code, a game state (20140 as 20070)."""
    if protocol == PROTOCOL_20060:
        return _NATIVE_INT.pack(value)
    return _BIG_INT.pack(value if value > 0 else 0)


def decode_int(data: bytes, protocol: Protocol = PROTOCOL_20070) -> int:
    if protocol == PROTOCOL_20060:
        return _NATIVE_INT.unpack(data)[0]
    v = _BIG_INT.unpack(data)[0]
    return v - (1 << 32) if v >= 1 << 31 else v


# -- protocol 20140: a table as 33 hexadecimal characters ----------------------------------
#
# conv_table_to_20140.c: characters 0–12 the suits holding a card in columns 1–13,
# 13–14 the cell of the first 2 (the joker) in rows 0–4 or FF, 15 [5][0] and [5][1],
# 16 [5][2] and [5][3], 17 [5][4]–[5][7], 18–32 row 6. Nothing else goes.

_HEX_DIGITS = b"0123456789ABCDEF"
#: The value of each byte as a hex digit (either case, as ``strtol`` reads it); -1: none.
_DIGIT_OF = [int(chr(b), 16) if chr(b) in "0123456789abcdefABCDEF" else -1 for b in range(256)]
_NO_JOKER = 0xFF
_ROWS_CHARS = 15  # characters 0–14: rows 0–4
_SUITS = 4  # rows 0–3 (♠ ♥ ♦ ♣) are bits 1, 2, 4, 8 of a column's character


def _digit(value: int) -> int:
    """One character's hex digit (``%X``), for a value 20140 sends in one character."""
    if not 0 <= value < 16:
        raise TableError(f"protocol 20140 sends {value} in no one character")
    return _HEX_DIGITS[value]


def _rows_20140(rows: Sequence[int]) -> bytes:
    """Rows 0–4 (75 values) as their 15 characters: for columns 1–13 the digit of the
    suits holding a ``1`` there, then the cell (``r * 15 + c``) of the first ``2`` in
    two digits, ``FF`` for none (``conv_table_to_20140.c:13-25``). A 1 in columns 0 and
    14 or in row 4, a second 2 and any other value go nowhere."""
    out = bytearray()
    for c in range(1, 14):
        out.append(_digit(sum(1 << r for r in range(_SUITS) if rows[r * COLUMNS + c] == 1)))
    joker = next((i for i, v in enumerate(rows) if v == 2), _NO_JOKER)
    out += b"%02X" % joker
    return bytes(out)


def _tail_20140(tail: Sequence[int]) -> bytes:
    """Rows 5–7 (45 values) as their 18 characters (``conv_table_to_20140.c:27-45``):
    ``8 * ([5][0] == 1) + [5][1] + 2``, ``8 * ([5][2] == 1) + [5][3]``, the bits of
    ``[5][4..7] == 1``, and row 6's 15 values, a character each."""
    return bytes(
        (
            _digit(8 * (tail[0] == 1) + tail[1] + 2),
            _digit(8 * (tail[2] == 1) + tail[3]),
            _digit(sum((tail[4 + i] == 1) << i for i in range(4))),
            *(_digit(v) for v in tail[COLUMNS : 2 * COLUMNS]),
        )
    )


def _digits(data: bytes) -> list[int]:
    """The hex digits of 20140 characters; :class:`TableError` at one that is none
    (tndhms's ``strtol`` would read it as 0: docs/bots.md)."""
    digits = [_DIGIT_OF[b] for b in data]
    if -1 in digits:
        raise TableError(f"not a hex digit: {data[digits.index(-1)]:#04x}")
    return digits


def _joker_cell(digits: Sequence[int]) -> int | None:
    """The joker's cell of characters 13–14, None for ``FF``; :class:`TableError` for
    a number past rows 0–4 (tndhms writes its 2 there all the same, past 119 outside
    its table)."""
    cell = digits[13] << 4 | digits[14]
    if cell == _NO_JOKER:
        return None
    if cell >= 75:
        raise TableError(f"the joker's cell {cell} is not in rows 0–4")
    return cell


def _rows_of_20140(data: bytes) -> list[int]:
    """Rows 0–4 (75 values) of a 20140 table's first 15 characters, as
    ``conv_20140_table`` fills them (``conv_table_to_20140.c:57-69``): the column digits'
    1s, then the joker's 2 (over a 1 there). :class:`TableError` if they are none."""
    if len(data) < _ROWS_CHARS:
        raise TableError(f"a 20140 table is {STRING_CHARS} characters, not {len(data)}")
    digits = _digits(data[:_ROWS_CHARS])
    rows = [0] * 75
    for c in range(13):
        for r in range(_SUITS):
            rows[r * COLUMNS + c + 1] = digits[c] >> r & 1
    joker = _joker_cell(digits)
    if joker is not None:
        rows[joker] = 2
    return rows


def _decode_20140(data: bytes) -> list[int]:
    """A 20140 table's 120 ints, as ``conv_20140_table`` fills them
    (``conv_table_to_20140.c:54-96``): the cells not sent are 0."""
    if len(data) != STRING_CHARS:
        raise TableError(f"a 20140 table is {STRING_CHARS} characters, not {len(data)}")
    give, turn, flags, *row_6 = _digits(data[_ROWS_CHARS:])
    row_5 = [give >> 3 & 1, (give & 7) - 2, turn >> 3 & 1, turn & 7]
    row_5 += [flags >> i & 1 for i in range(4)]
    return [*_rows_of_20140(data), *row_5, *_ZEROS[:7], *row_6, *_ZEROS]


def _cells_20140(data: bytes) -> tuple[int, int]:
    """:func:`cells_of_table` of a 20140 submission, reading its first 15 characters
    alone (the rest are rows 5–6, which a submission's reader ignores): a message that
    is no table there reads as an empty one (a pass), as a 20070 table holding a value
    but 0, 1 and 2 does."""
    try:
        return _cells(_rows_of_20140(data))
    except TableError:
        return 0, 0


#: An all-zero table (a pass) as each protocol sends it.
PASS_TABLES = {protocol: encode([0] * CELLS, protocol) for protocol in PROTOCOLS}


def handshake(name: str, version: int = PROTOCOL_20070) -> list[int]:
    """A client's first table (sent as 20070 whatever it names): ``[0][0]`` the version,
    ``[1][…]`` the name's characters."""
    table = [0] * CELLS
    table[0] = version
    for i, ch in enumerate(name[: COLUMNS - 1]):
        table[COLUMNS + i] = ord(ch)
    return table


def handshake_name(table: Sequence[int], chars: int = NAME_CHARS) -> str:
    """The name in a handshake table, as tndhms keeps it (9 characters, up to a NUL);
    ``chars`` 14 reads all a client can send (a shared server's join code).

    A cell that is no character to store or print (a control character, a negative
    int, one past U+10FFFF, a surrogate, which no text can hold alone) reads as ``?``:
    the name is then text of any value, refused as a user name or a code like any other.
    """
    chars_read = []
    for v in table[COLUMNS : COLUMNS + chars]:
        if v == 0:
            break
        chars_read.append(chr(v) if _name_char(v) else "?")
    return "".join(chars_read)


def _name_char(v: int) -> bool:
    """A cell's value is a character a name may hold as text (not yet a valid name)."""
    return 32 <= v < 0x110000 and not 0xD800 <= v <= 0xDFFF


# -- cards and tables --------------------------------------------------------------------


def put_cells(table: list[int], ones: int, twos: int) -> None:
    """Write the engine's cell masks (bit ``c * 5 + r``) into rows 0–4: 1, and 2 for the joker."""
    for mask, value in ((ones, 1), (twos, 2)):
        while mask:
            b = mask & -mask
            col, row = divmod(b.bit_length() - 1, 5)
            table[row * COLUMNS + col] = value
            mask ^= b


def hand_cells(hand: int) -> tuple[int, int]:
    """A hand's cells: each card in its cell, the joker as a ``2`` at ``[4][1]``."""
    ones = 0
    m = hand & ~u.JOKER_BIT
    while m:
        b = m & -m
        ones |= 1 << u.CELL_OF_CARD[b.bit_length() - 1]
        m ^= b
    return ones, (1 << u.cell(4, 1)) if hand & u.JOKER_BIT else 0


#: The engine's cell bit of each of rows 0–4's 75 cells, in table order (``r * 15 + c``).
_CELL_BITS = tuple(1 << (c * 5 + r) for r in range(5) for c in range(COLUMNS))


def _cells(rows: Sequence[int]) -> tuple[int, int]:
    """The cells ``(ones, twos)`` of rows 0–4's 75 values (see :func:`cells_of_table`)."""
    ones = twos = 0
    if any(rows):
        for bit, v in zip(_CELL_BITS, rows, strict=True):
            if v:
                if v == 1:
                    ones |= bit
                elif v == 2:
                    twos |= bit
                else:
                    return 0, 0
    return ones, twos


def cells_of_table(table: Sequence[int]) -> tuple[int, int]:
    """A submission's cells ``(ones, twos)`` from rows 0–4.

    tndhms rejects a table holding any value but 0, 1 and 2 there; the record's
    cell notation cannot write such a table, so it is read as an empty one (a
    pass: answered 8 on a field in play, as tndhms answers it).
    """
    return _cells(table[:75])


def _rows_order(protocol: Protocol) -> str:
    """How rows 0–4's 300 bytes read as one integer: in the order they are sent,
    big-endian (20070) or the machine's own (20060)."""
    return sys.byteorder if protocol == PROTOCOL_20060 else "big"


def _value_shift(index: int, protocol: Protocol) -> int:
    """Where value ``index`` (``r * 15 + c``) of rows 0–4 begins in that integer."""
    return 32 * (74 - index) if _rows_order(protocol) == "big" else 32 * index


_BINARY = (PROTOCOL_20060, PROTOCOL_20070)
#: Bit 0 of each of rows 0–4's 75 values in that integer (either order).
_LOW_BITS = sum(1 << (32 * i) for i in range(75))
#: Where each cell's value begins in that integer, by the cell's bit index (``c * 5 + r``).
_SHIFT_OF_CELL = {
    protocol: [_value_shift(r * COLUMNS + c, protocol) for c in range(COLUMNS) for r in range(5)]
    for protocol in _BINARY
}
#: The other way: the cell's bit, by where its value begins (0 where none does).
_CELL_AT = {protocol: [0] * (32 * 75) for protocol in _BINARY}
for _protocol, _shifts in _SHIFT_OF_CELL.items():
    for _cell, _shift in enumerate(_shifts):
        _CELL_AT[_protocol][_shift] = 1 << _cell


def cells_of_bytes(data: bytes, protocol: Protocol = PROTOCOL_20070) -> tuple[int, int]:
    """:func:`cells_of_table` of a table as it came, reading rows 0–4 alone (20140:
    :func:`_cells_20140`). A server's submissions: a negative 20070 value reads as one
    above 2^31, as ``ntohl`` leaves it: out of range either way. The rows read as one
    integer: a value is 0, 1 or 2 when its bits are bit 0 or bit 1 alone, so the few
    cells a play fills are found without a look at the others (a third fewer
    instructions than reading the 75 values one by one, counted by callgrind over the
    submissions of 40 games)."""
    if protocol == PROTOCOL_20140:
        return _cells_20140(data)
    n = int.from_bytes(data[:300], _rows_order(protocol))
    ones = n & _LOW_BITS
    twos = (n >> 1) & _LOW_BITS
    if n != ones | twos << 1 or ones & twos:  # a value other than 0, 1 and 2
        return 0, 0
    cell_at = _CELL_AT[protocol]
    return _mapped(ones, cell_at), _mapped(twos, cell_at)


def _mapped(bits: int, cell_at: list[int]) -> int:
    cells = 0
    while bits:
        b = bits & -bits
        cells |= cell_at[b.bit_length() - 1]
        bits ^= b
    return cells


def move_of_table(table: Sequence[int]) -> u.Move:
    return u.analyze(*cells_of_table(table))


def move_of_bytes(data: bytes, protocol: Protocol = PROTOCOL_20070) -> u.Move:
    return u.analyze(*cells_of_bytes(data, protocol))


def table_of_move(move: u.Move | None) -> list[int]:
    """A submission table of a move (all zero: a pass)."""
    table = [0] * CELLS
    if move is not None:
        put_cells(table, move.ones, move.twos)
    return table


def cards_of_table(table: Sequence[int]) -> int:
    """The cards a rich player's exchange table gives (or a hand table holds)."""
    return u.cards_of_cells(*cells_of_table(table))


@lru_cache(maxsize=4096)
def cell_rows(ones: int, twos: int) -> tuple[int, ...]:
    """Rows 0–4 of a table holding these cells (75 ints): made once, as hands and the
    plays on the field repeat from turn to turn."""
    table = [0] * 75
    put_cells(table, ones, twos)
    return tuple(table)


def hand_rows(hand: int) -> tuple[int, ...]:
    """Rows 0–4 of a hand's table."""
    return cell_rows(*hand_cells(hand))


def _tail(
    mover: int,
    empty: bool,
    revolution: bool,
    locked: bool,
    back: bool,
    counts: Sequence[int],
    rank_of: Sequence[int] | None,
    seats: Sequence[int],
) -> list[int]:
    """Rows 5–7 (45 ints) as every table the server sends fills them: ``[5][3]`` the
    player who moves (or moved), ``[5][4]`` 1 on an empty field, ``[5][5]`` the 11-back,
    ``[5][6]`` the revolution, ``[5][7]`` the lock; row 6: the cards held by players 0–4, their ranks
    (0 daifugo … 4; all 0 when ``rank_of`` is None, the first game of a rank period), the
    player in each seat. Each table sets its own other cells of row 5."""
    return [
        0, 0, 0, mover, int(empty), int(back), int(revolution), int(locked), *_ZEROS[:7],
        *counts, *(_ZEROS[:5] if rank_of is None else rank_of), *seats,
        *_ZEROS,
    ]  # fmt: skip


_ZEROS = (0,) * COLUMNS


def rank_cells(mibun: Sequence[int]) -> list[int]:
    """tndhms's rank cells from ``mibun`` (the player at each rank 0–4, updated as
    players go out): ``[6][mibun[i] + 5] = i`` for i = 0…4, the later rank winning,
    a player no longer listed reading 0 (what a stock client's last table left)."""
    cells = [0] * u.PLAYERS
    for i, p in enumerate(mibun):
        cells[p] = i
    return cells


def delivery_table(
    hand: int,
    to_give: int,
    counts: Sequence[int],
    rank_of: Sequence[int] | None,
    seats: Sequence[int],
) -> list[int]:
    """The hand-delivery table: ``[5][0]`` 1, ``[5][1]`` the cards to give as tndhms
    stores them (the daifugo 2, the fugo 1, the heimin 0, the hinmin −1, the daihinmin
    −2; 0 for all in a period's first game: 20070 sends the negatives as 0, 20140 as
    they are), ``[5][3]`` 6, row 6 with the counts as dealt."""
    tail = _tail(DELIVERY_MARK, False, False, False, False, counts, rank_of, seats)
    tail[0] = 1
    tail[1] = to_give
    return [*hand_rows(hand), *tail]


def turn_tables(
    g: u.UecdaGame, rank_of: Sequence[int] | None, seats: Sequence[int]
) -> list[list[int]]:
    """The five turn tables, players 0–4: each one's hand, ``[5][2]`` 1 for the player
    to move, ``[5][3]`` that player, ``[5][4]`` 1 on an empty field, ``[5][6]`` the
    revolution, ``[5][7]`` the lock, row 6."""
    tail = _game_tail(g, rank_of, seats)
    tables = []
    for p in range(u.PLAYERS):
        table = [*hand_rows(g.hands[p]), *tail]
        if p == g.turn:
            table[FLAGS + _TO_MOVE] = 1
        tables.append(table)
    return tables


def _game_tail(g: u.UecdaGame, rank_of: Sequence[int] | None, seats: Sequence[int]) -> list[int]:
    """Rows 5–7 of the turn tables of position ``g`` (:func:`_tail`)."""
    counts = [h.bit_count() for h in g.hands]
    return _tail(g.turn, g.stage is None, g.revolution, g.locked, g.back, counts, rank_of, seats)


_BIG_TAIL = struct.Struct(f">{CELLS - 75}I")
_NATIVE_TAIL = struct.Struct(f"={CELLS - 75}i")


def tail_bytes(tail: Sequence[int], protocol: Protocol) -> bytes:
    """Rows 5–7 of a table the server sends, as sent: every value there is a count, a
    rank, a player or a flag (none negative, so 20070 sends it as it is)."""
    if protocol == PROTOCOL_20140:
        return _tail_20140(tail)
    return (_NATIVE_TAIL if protocol == PROTOCOL_20060 else _BIG_TAIL).pack(*tail)


@lru_cache(maxsize=8192)
def hand_bytes(hand: int, protocol: Protocol) -> bytes:
    """Rows 0–4 of a hand's table as sent, made once per hand."""
    return cells_bytes(*hand_cells(hand), protocol)


@lru_cache(maxsize=4096)
def cells_bytes(ones: int, twos: int, protocol: Protocol) -> bytes:
    """Rows 0–4 holding these cells as sent (those of :func:`cell_rows` encoded), made
    once per cells. 20060 and 20070: only the cells filled are put in place, in one
    integer, rather than the 75 values packed (a turn's new hand is made at every play)."""
    if protocol == PROTOCOL_20140:
        return _rows_20140(cell_rows(ones, twos))
    shift_of = _SHIFT_OF_CELL[protocol]
    n = 0
    for cells, value in ((ones, 1), (twos, 2)):
        while cells:
            b = cells & -cells
            n |= value << shift_of[b.bit_length() - 1]
            cells ^= b
    return n.to_bytes(300, _rows_order(protocol))


def turn_table_bytes(
    g: u.UecdaGame,
    rank_of: Sequence[int] | None,
    seats: Sequence[int],
    protocols: Sequence[Protocol],
) -> list[bytes]:
    """The five turn tables as sent (player ``p``'s in ``protocols[p]``): the bytes of
    :func:`turn_tables`, made from each hand's cached rows and rows 5–7 encoded once a
    protocol, and once more for the mover (its ``[5][2]`` set)."""
    tail = _game_tail(g, rank_of, seats)
    mover_tail = list(tail)
    mover_tail[_TO_MOVE] = 1
    tails: dict[tuple[Protocol, bool], bytes] = {}
    out = []
    for p in range(u.PLAYERS):
        protocol, moves = protocols[p], p == g.turn
        data = tails.get((protocol, moves))
        if data is None:
            data = tails[protocol, moves] = tail_bytes(mover_tail if moves else tail, protocol)
        out.append(hand_bytes(g.hands[p], protocol) + data)
    return out


#: Where ``[5][2]`` (1: the player to move) is in rows 5–7.
_TO_MOVE = 2


def _field(
    before: u.UecdaGame,
    after: u.UecdaGame,
    done: u.Outcome,
    rank_of: Sequence[int] | None,
    seats: Sequence[int],
) -> tuple[tuple[int, int], list[int]]:
    """The field table's cells ``(ones, twos)`` in rows 0–4 and its rows 5–7 (see
    :func:`field_table`)."""
    stage = done.move if done.accepted else before.stage
    locked = after.locked
    if done.cleared and after.phase == u.TURN:
        locked = u.judge(before, done.player, done.move)[1]  # the lock before the clear
    counts = [h.bit_count() for h in after.hands]
    tail = _tail(
        done.player, stage is None, after.revolution, locked, done.back, counts, rank_of, seats
    )
    return ((0, 0) if stage is None else (stage.ones, stage.twos)), tail


def field_table(
    before: u.UecdaGame,
    after: u.UecdaGame,
    done: u.Outcome,
    rank_of: Sequence[int] | None,
    seats: Sequence[int],
) -> list[int]:
    """The field table after a submission: rows 0–4 the last accepted play of the
    trick (the clear is not shown yet), ``[5][3]`` who submitted, ``[5][4]`` 1 if no
    play is on the field, the 11-back, the revolution and the lock as the submission left
    them before any clear, row 6 with the counts after it."""
    cells, tail = _field(before, after, done, rank_of, seats)
    return [*cell_rows(*cells), *tail]


def field_table_bytes(
    before: u.UecdaGame,
    after: u.UecdaGame,
    done: u.Outcome,
    rank_of: Sequence[int] | None,
    seats: Sequence[int],
    protocol: Protocol,
) -> bytes:
    """:func:`field_table` as sent: the cached rows of the play on the field and the
    encoded rows 5–7."""
    cells, tail = _field(before, after, done, rank_of, seats)
    return cells_bytes(*cells, protocol) + tail_bytes(tail, protocol)


def accept_code(before: u.UecdaGame, done: u.Outcome) -> int:
    """9: accepted, or an empty table on an empty field; 8 otherwise (a pass)."""
    if done.accepted:
        return ACCEPTED
    empty = not (done.move.ones or done.move.twos)
    return ACCEPTED if empty and before.stage is None else REJECTED
