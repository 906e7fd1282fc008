"""The UECda wire (UECDA.md §1–4): 8×15 int tables and the tables tndhms sends.

Pure, no I/O. A table is a flat list of 120 ints, row-major (cell ``[r][c]`` at
``r * 15 + c``). Protocol 20070 sends them big-endian, a negative value as 0;
20060 (a client that sent no handshake) in the server's native order. The
tables are built from the engine's state (:mod:`places.engine.uecda`) exactly as
tndhms fills them, cell by cell; where tndhms echoes a client's stray cells
(rows 5–7 of a submission), this server sends 0, as it does to stock clients.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Sequence
from functools import lru_cache

from places.engine import uecda as u

ROWS, COLUMNS = 8, 15
CELLS = ROWS * COLUMNS
TABLE_BYTES = CELLS * 4
INT_BYTES = 4
PROTOCOL_20070 = 20070
PROTOCOL_20060 = 20060  # no handshake within the window: native order, no name
HANDSHAKE_SECONDS = 2.0
NAME_CHARS = 9  # tndhms keeps the first 9 characters of a name
HANDSHAKE_CHARS = COLUMNS - 1  # the stock client sends up to 14 (its ``-n`` in a char[15])

ACCEPTED, REJECTED = 9, 8  # the accept code: 8 is a pass
CONTINUE, GAME_OVER, MATCH_OVER = 0, 1, 2  # the game state after each turn
DELIVERY_MARK = 6  # [5][3] of the hand-delivery table

_BIG = struct.Struct(f">{CELLS}I")
_NATIVE = struct.Struct(f"={CELLS}i")
_BIG_INT = struct.Struct(">I")
_NATIVE_INT = struct.Struct("=i")


class TableError(ValueError):
    """Bytes that are not one table."""


def encode(table: Sequence[int], native: bool = False) -> bytes:
    """480 bytes; 20070 sends a negative value as 0 (``htonl(v * (v >= 0))``)."""
    if native:
        return _NATIVE.pack(*table)
    if min(table) < 0:
        table = [v if v > 0 else 0 for v in table]
    return _BIG.pack(*table)


def decode(data: bytes, native: bool = False) -> list[int]:
    """The 120 ints of 480 bytes (20070: read unsigned, as ``ntohl`` does, then as C ints)."""
    if len(data) != TABLE_BYTES:
        raise TableError(f"a table is {TABLE_BYTES} bytes, not {len(data)}")
    if native:
        return list(_NATIVE.unpack(data))
    return [v - (1 << 32) if v >= 1 << 31 else v for v in _BIG.unpack(data)]


def encode_int(value: int, native: bool = False) -> bytes:
    """One int: the player number, an accept code, a game state."""
    if native:
        return _NATIVE_INT.pack(value)
    return _BIG_INT.pack(value if value > 0 else 0)


def decode_int(data: bytes, native: bool = False) -> int:
    if native:
        return _NATIVE_INT.unpack(data)[0]
    v = _BIG_INT.unpack(data)[0]
    return v - (1 << 32) if v >= 1 << 31 else v


def handshake(name: str, version: int = PROTOCOL_20070) -> list[int]:
    """A client's first table: ``[0][0]`` the version, ``[1][…]`` the name's characters."""
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


def _rows_order(native: bool) -> str:
    """How rows 0–4's 300 bytes read as one integer: in the order they are sent,
    big-endian (20070) or the machine's own (20060)."""
    return sys.byteorder if native else "big"


def _value_shift(index: int, native: bool) -> int:
    """Where value ``index`` (``r * 15 + c``) of rows 0–4 begins in that integer."""
    return 32 * (74 - index) if _rows_order(native) == "big" else 32 * index


#: Bit 0 of each of rows 0–4's 75 values in that integer (either order).
_LOW_BITS = sum(1 << (32 * i) for i in range(75))
#: Where each cell's value begins in that integer, by the cell's bit index (``c * 5 + r``).
_SHIFT_OF_CELL = {
    native: [_value_shift(r * COLUMNS + c, native) for c in range(COLUMNS) for r in range(5)]
    for native in (False, True)
}
#: The other way: the cell's bit, by where its value begins (0 where none does).
_CELL_AT = {native: [0] * (32 * 75) for native in (False, True)}
for _native, _shifts in _SHIFT_OF_CELL.items():
    for _cell, _shift in enumerate(_shifts):
        _CELL_AT[_native][_shift] = 1 << _cell


def cells_of_bytes(data: bytes, native: bool = False) -> tuple[int, int]:
    """:func:`cells_of_table` of a table as it came (480 bytes), reading rows 0–4 alone:
    a server's submissions (a negative 20070 value reads as one above 2^31, as ``ntohl``
    leaves it: out of range either way). The rows read as one integer: a value is 0, 1
    or 2 when its bits are bit 0 or bit 1 alone, so the few cells a play fills are
    found without a look at the others (a third fewer instructions than reading the 75
    values one by one, counted by callgrind over the submissions of 40 games)."""
    n = int.from_bytes(data[:300], _rows_order(native))
    ones = n & _LOW_BITS
    twos = (n >> 1) & _LOW_BITS
    if n != ones | twos << 1 or ones & twos:  # a value other than 0, 1 and 2
        return 0, 0
    cell_at = _CELL_AT[native]
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


def move_of_bytes(data: bytes, native: bool = False) -> u.Move:
    return u.analyze(*cells_of_bytes(data, native))


def table_of_move(move: u.Move | None) -> list[int]:
    """A submission table of a move (all zero: a pass)."""
    table = [0] * CELLS
    if move is not None:
        put_cells(table, move.ones, move.twos)
    return table


def _cards(ones: int, twos: int) -> int:
    """The cards of cells (a joker-only cell gives no card: bit 0, never in a hand; so
    do two jokers, which tndhms counts as an error, or as two cards)."""
    mask = (u.JOKER_BIT if twos else 0) | (1 if twos & (twos - 1) else 0)
    while ones:
        b = ones & -ones
        cid = u.CARD_OF_CELL[b.bit_length() - 1]
        mask |= 1 << (cid or 0)
        ones ^= b
    return mask


def cards_of_table(table: Sequence[int]) -> int:
    """The cards a rich player's exchange table gives (or a hand table holds)."""
    return _cards(*cells_of_table(table))


def cards_of_bytes(data: bytes, native: bool = False) -> int:
    """:func:`cards_of_table` of a table as it came."""
    return _cards(*cells_of_bytes(data, native))


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
    """The hand-delivery table: ``[5][0]`` 1, ``[5][1]`` the cards to give (0 but for
    the daifugo, 2, and the fugo, 1), ``[5][3]`` 6, row 6 with the counts as dealt."""
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
            table[5 * COLUMNS + 2] = 1
        tables.append(table)
    return tables


def _game_tail(g: u.UecdaGame, rank_of: Sequence[int] | None, seats: Sequence[int]) -> list[int]:
    """Rows 5–7 of the turn tables of position ``g`` (:func:`_tail`)."""
    counts = [h.bit_count() for h in g.hands]
    return _tail(g.turn, g.stage is None, g.revolution, g.locked, g.back, counts, rank_of, seats)


_BIG_TAIL = struct.Struct(f">{CELLS - 75}I")
_NATIVE_TAIL = struct.Struct(f"={CELLS - 75}i")


@lru_cache(maxsize=8192)
def hand_bytes(hand: int, native: bool) -> bytes:
    """Rows 0–4 of a hand's table as sent (its 300 bytes), made once per hand."""
    return cells_bytes(*hand_cells(hand), native)


@lru_cache(maxsize=4096)
def cells_bytes(ones: int, twos: int, native: bool) -> bytes:
    """Rows 0–4 holding these cells as sent (300 bytes, those of :func:`cell_rows`), made
    once per cells: only the cells filled are put in place, in one integer, rather than
    the 75 values packed (a turn's new hand is made at every play)."""
    shift_of = _SHIFT_OF_CELL[native]
    n = 0
    for cells, value in ((ones, 1), (twos, 2)):
        while cells:
            b = cells & -cells
            n |= value << shift_of[b.bit_length() - 1]
            cells ^= b
    return n.to_bytes(300, _rows_order(native))


def turn_table_bytes(
    g: u.UecdaGame, rank_of: Sequence[int] | None, seats: Sequence[int], native: Sequence[bool]
) -> list[bytes]:
    """The five turn tables as sent (player ``p`` in ``native[p]`` order): the bytes of
    :func:`turn_tables`, made from each hand's cached rows and the tail encoded once
    an order, the mover's ``[5][2]`` set in its bytes."""
    tail = _game_tail(g, rank_of, seats)
    tails: dict[bool, bytes] = {}
    out = []
    for p in range(u.PLAYERS):
        order = native[p]
        data = tails.get(order)
        if data is None:
            data = tails[order] = (_NATIVE_TAIL if order else _BIG_TAIL).pack(*tail)
        if p == g.turn:
            data = data[:_TO_MOVE] + encode_int(1, order) + data[_TO_MOVE + INT_BYTES :]
        out.append(hand_bytes(g.hands[p], order) + data)
    return out


#: Where ``[5][2]`` (1: the player to move) is in rows 5–7's bytes.
_TO_MOVE = 2 * INT_BYTES


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
    native: bool,
) -> bytes:
    """:func:`field_table` as sent: the cached rows of the play on the field and the
    encoded rows 5–7 (every value there is a count, a rank, a player or a flag: none
    negative, so both orders send it as it is)."""
    cells, tail = _field(before, after, done, rank_of, seats)
    return cells_bytes(*cells, native) + (_NATIVE_TAIL if native else _BIG_TAIL).pack(*tail)


def accept_code(before: u.UecdaGame, done: u.Outcome) -> int:
    """9: accepted, or an empty table on an empty field; 8 otherwise (a pass)."""
    if done.accepted:
        return ACCEPTED
    empty = not (done.move.ones or done.move.twos)
    return ACCEPTED if empty and before.stage is None else REJECTED
