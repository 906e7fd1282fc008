"""The UECda wire, byte for byte, on hand-made positions (UECDA.md §1–4)."""

from __future__ import annotations

import struct
import sys

import pytest

from places.engine import uecda as u
from places.engine.rules import UECDA
from places.engine.uecda_legal import legal_moves
from places.uecda import wire as w

SEATS = (0, 1, 2, 3, 4)


def at(table: list[int], row: int, col: int) -> int:
    return table[row * 15 + col]


def game(*hands: str, seats=SEATS) -> u.UecdaGame:
    return u.new_game(UECDA, [u.parse_hand(h) for h in hands], seats)


def test_a_table_is_480_big_endian_bytes_and_a_negative_goes_out_as_0():
    table = [0] * w.CELLS
    table[0], table[1], table[119] = 20070, -2, 7
    data = w.encode(table)
    assert len(data) == 480
    assert data[:8] == b"\x00\x00\x4e\x66\x00\x00\x00\x00"
    assert data[-4:] == b"\x00\x00\x00\x07"
    assert w.decode(data)[:2] == [20070, 0]


def test_20060_is_the_native_byte_order_and_keeps_negatives():
    table = list(range(-60, 60))
    data = w.encode(table, native=True)
    assert data[:4] == struct.pack("=i", -60)
    assert w.decode(data, native=True) == table
    assert w.encode_int(1, native=True) == (1).to_bytes(4, sys.byteorder)
    assert w.encode_int(2) == b"\x00\x00\x00\x02"
    assert w.decode_int(b"\xff\xff\xff\xff") == -1


def test_the_handshake_names_the_version_and_the_name_cut_to_9_characters():
    table = w.handshake("abcdefghijklm")
    assert table[0] == 20070
    assert table[15:28] == [ord(c) for c in "abcdefghijklm"]
    assert w.handshake_name(table) == "abcdefghi"
    assert w.handshake_name(w.handshake("bot")) == "bot"


#: A value of each class a name cell may hold (any 32-bit int), and what the name reads.
NAME_CELLS = [
    (ord("a"), "a"), (ord("~"), "~"),  # ASCII
    (1, "?"), (0x1F, "?"),  # control characters (0, NUL, ends the name)
    (0x7F, "\x7f"), (0x85, "\x85"),  # DEL and C1: text, refused as a user name
    (0xE9, "é"), (0x3042, "あ"),  # the BMP
    (0x1F600, "\U0001f600"), (0x10FFFF, "\U0010ffff"),  # beyond it
    (0xD800, "?"), (0xDBFF, "?"), (0xDC00, "?"), (0xDFFF, "?"),  # surrogates: no text alone
    (0xFDD0, "\ufdd0"), (0xFFFE, "\ufffe"), (0xFFFF, "\uffff"),  # noncharacters
    (0x110000, "?"), (0x7FFFFFFF, "?"), (-1, "?"), (-(2**31), "?"),  # no code point
]  # fmt: skip


@pytest.mark.parametrize("value, read", NAME_CELLS)
def test_any_value_of_a_name_cell_reads_as_text_that_can_be_stored(value, read):
    table = w.handshake("")
    table[15:18] = [ord("x"), value, ord("y")]
    name = w.handshake_name(table)
    assert name == f"x{read}y"
    name.encode("utf-8")  # a lone surrogate made UnicodeEncodeError in the database
    table[16] = 0
    assert w.handshake_name(table) == "x"  # a NUL ends the name


def test_a_hand_puts_each_card_in_its_cell_and_the_joker_at_4_1():
    table = [0] * w.CELLS
    w.put_cells(table, *w.hand_cells(u.parse_hand("S3D8C2J3")))
    assert at(table, 0, 1) == 1  # ♠3
    assert at(table, 2, 6) == 1  # ♦8
    assert at(table, 3, 13) == 1  # ♣2
    assert at(table, 4, 1) == 2  # the joker
    assert sum(table) == 5


def test_turn_tables_flag_the_player_to_move_and_carry_row_6():
    g = game("S3S4", "D3", "H5H6H7", "C9", "CT", seats=(2, 0, 4, 1, 3))
    tables = w.turn_tables(g, None, (2, 0, 4, 1, 3))
    assert g.turn == 1
    for p, t in enumerate(tables):
        assert at(t, 5, 2) == (p == 1)
        assert [at(t, 5, c) for c in (0, 1, 3, 4, 5, 6, 7)] == [0, 0, 1, 1, 0, 0, 0]
        assert t[90:95] == [2, 1, 3, 1, 1]
        assert t[95:100] == [0] * 5
        assert t[100:105] == [2, 0, 4, 1, 3]
        assert t[105:] == [0] * 15
    assert at(tables[0], 0, 1) == at(tables[0], 0, 2) == 1 and sum(tables[0][:75]) == 2


def test_the_field_table_shows_an_8_cut_before_the_clear_and_the_next_turn_the_empty_field():
    before = game("S3S4", "D3D8S9", "H5H6H7", "C9", "CT")
    g, done = u.submit(before, 1, u.move_of_text("D8"))
    assert done.cleared and done.eight_cut
    field = w.field_table(before, g, done, None, SEATS)
    assert at(field, 2, 6) == 1 and sum(field[:75]) == 1
    assert [at(field, 5, c) for c in (3, 4)] == [1, 0]
    assert at(field, 6, 1) == 2  # player 1's cards after the play
    nxt = w.turn_tables(g, None, SEATS)[1]
    assert [at(nxt, 5, c) for c in (2, 3, 4)] == [1, 1, 1]
    assert w.accept_code(before, done) == w.ACCEPTED


def test_a_lock_shows_in_the_field_table_and_is_gone_after_the_clear():
    g = game("S3S4", "D3D9", "D5S6", "C9", "CT")
    g, _ = u.submit(g, 1, u.move_of_text("D3"))
    before = g
    g, done = u.submit(g, 2, u.move_of_text("D5"))
    assert g.locked
    field = w.field_table(before, g, done, None, SEATS)
    assert at(field, 5, 7) == 1 and at(field, 2, 3) == 1
    # everyone else passes: the field table still shows D5 and the lock
    for p in (3, 4, 0, 1):
        before = g
        g, done = u.submit(g, p, u.analyze(0, 0))
        field = w.field_table(before, g, done, None, SEATS)
        assert at(field, 2, 3) == 1 and at(field, 5, 4) == 0 and at(field, 5, 3) == p
        assert w.accept_code(before, done) == w.REJECTED
    assert done.cleared
    assert at(field, 5, 7) == 1
    assert [at(t, 5, 7) for t in w.turn_tables(g, None, SEATS)] == [0] * 5
    assert at(w.turn_tables(g, None, SEATS)[2], 5, 4) == 1


def test_accept_codes_a_pass_on_an_empty_field_is_9_a_rejected_play_8():
    g = game("S3S4", "D3", "H5H6H7", "C9", "CT")
    g2, done = u.submit(g, 1, u.analyze(0, 0))
    assert w.accept_code(g, done) == w.ACCEPTED
    g3, done = u.submit(g, 1, u.move_of_text("S4"))  # not in the hand
    assert not done.accepted and w.accept_code(g, done) == w.REJECTED
    g4, done = u.submit(g, 1, u.move_of_text("D3"))
    assert w.accept_code(g, done) == w.ACCEPTED


def test_the_delivery_table_byte_for_byte():
    table = w.delivery_table(u.parse_hand("S3J3"), 2, [11, 11, 11, 10, 10], [1, 0, 4, 3, 2], SEATS)
    expected = [0] * 120
    expected[1] = 1  # ♠3
    expected[61] = 2  # the joker at [4][1]
    expected[75:79] = [1, 2, 0, 6]
    expected[90:105] = [11, 11, 11, 10, 10, 1, 0, 4, 3, 2, 0, 1, 2, 3, 4]
    assert w.encode(table) == struct.pack(">120i", *expected)
    hinmin = w.delivery_table(u.parse_hand("S3"), -1, [11] * 5, None, SEATS)
    assert w.decode(w.encode(hinmin))[76] == 0  # tndhms's -1 goes out as 0


def test_a_submission_with_a_value_but_0_1_2_reads_as_a_pass():
    table = w.table_of_move(u.move_of_text("S3"))
    assert w.move_of_table(table) == u.move_of_text("S3")
    table[2] = 3
    assert w.move_of_table(table).kind == u.PASS
    joker = w.table_of_move(u.move_of_text("KT"))
    assert at(joker, 0, 8) == 2 and w.move_of_table(joker).kind == u.JOKER_SINGLE


def test_the_bytes_read_as_their_decoded_table_reads_in_both_orders():
    """``cells_of_bytes`` reads rows 0–4 as one integer; ``cells_of_table`` cell by cell.
    They agree on plays, on values other than 0, 1 and 2 (a negative, 3, one above
    2^31) and on the rows 5–7 that neither reads."""
    import random

    rng = random.Random(26)
    odd = (3, 4, -1, -2, 1 << 31, (1 << 32) - 1, 257, 1 << 24)
    for n in range(3000):
        table = [0] * w.CELLS
        for i in rng.sample(range(75), rng.randint(0, 6)):
            table[i] = rng.choice((1, 1, 1, 2))
        if n % 3 == 0:
            table[rng.randrange(75)] = rng.choice(odd)
        table[75 + rng.randrange(45)] = rng.choice((0, 1, -7, 99))
        table = [v - (1 << 32) if v >= 1 << 31 else v for v in table]  # as C ints
        big = struct.pack(f">{w.CELLS}I", *(v & 0xFFFFFFFF for v in table))
        native = struct.pack(f"={w.CELLS}i", *table)
        expected = w.cells_of_table(table)
        assert w.cells_of_bytes(big) == w.cells_of_table(w.decode(big)) == expected
        assert w.cells_of_bytes(native, True) == expected


def test_rows_made_as_one_integer_are_the_rows_encoded_in_both_orders():
    """``cells_bytes`` (and the hands' bytes made of it) are :func:`cell_rows` encoded."""
    import random

    rng = random.Random(27)
    for _ in range(2000):
        hand = rng.getrandbits(54) & u.DECK_MASK | rng.choice((0, u.JOKER_BIT))
        ones, twos = rng.getrandbits(75), rng.getrandbits(75)
        twos &= ~ones
        for native in (False, True):
            rows = w.encode([*w.hand_rows(hand), *[0] * 45], native)[:300]
            assert w.hand_bytes(hand, native) == rows
            rows = w.encode([*w.cell_rows(ones, twos), *[0] * 45], native)[:300]
            assert w.cells_bytes(ones, twos, native) == rows


def test_rank_cells_follow_mibun_as_players_go_out():
    mibun = [3, 1, 0, 4, 2]
    assert w.rank_cells(mibun) == [2, 1, 4, 0, 3]
    mibun[0] = 2  # player 2 went out first: its old rank (4) is written last, player 3 reads 0
    assert w.rank_cells(mibun) == [2, 1, 4, 0, 3]


def test_an_exchange_table_gives_its_cards_a_joker_only_cell_none():
    assert w.cards_of_table(w.table_of_move(u.move_of_text("S3H3"))) == u.parse_hand("S3H3")
    bad = [0] * w.CELLS
    bad[0] = 1  # [0][0]: a joker-only cell
    assert w.cards_of_table(bad) & 1


def test_the_turn_tables_bytes_are_the_turn_tables_encoded():
    g = game("S3S4J3", "D3D8S9", "H5H6H7", "C9", "CT", seats=(2, 0, 4, 1, 3))
    g, _ = u.submit(g, 1, u.move_of_text("D3"))
    ranks = [1, 0, 4, 3, 2]
    native = [False, True, False, True, False]
    tables = w.turn_tables(g, ranks, (2, 0, 4, 1, 3))
    assert w.turn_table_bytes(g, ranks, (2, 0, 4, 1, 3), native) == [
        w.encode(t, n) for t, n in zip(tables, native, strict=True)
    ]
    assert w.turn_table_bytes(g, None, SEATS, [False] * 5) == [
        w.encode(t) for t in w.turn_tables(g, None, SEATS)
    ]


def test_the_field_tables_bytes_are_the_field_tables_encoded():
    g = game("S3S4J3", "D3D8S9", "H5H6H7", "C9", "CTCQ", seats=(2, 0, 4, 1, 3))
    ranks = [1, 0, 4, 3, 2]
    shown = set()
    for i in range(12):
        if g.phase != u.TURN:
            break
        moves = legal_moves(g, g.turn)
        move = moves[i % len(moves)] if moves and i % 3 else u.analyze(0, 0)
        before = g
        g, done = u.submit(g, g.turn, move)
        shown.add(done.accepted)
        for rank_of in (None, ranks):
            for native in (False, True):
                table = w.field_table(before, g, done, rank_of, (2, 0, 4, 1, 3))
                assert w.field_table_bytes(
                    before, g, done, rank_of, (2, 0, 4, 1, 3), native
                ) == w.encode(table, native)
    assert shown == {True, False}  # plays on the field and passes both sent
