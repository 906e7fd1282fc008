"""The UECda wire, byte for byte, on hand-made positions (UECDA.md §1–4)."""

from __future__ import annotations

import struct
import sys

import pytest

from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.rules import UECDA
from daifugo.uecda_legal import legal_moves

SEATS = (0, 1, 2, 3, 4)
#: Rows 0–4 as each protocol sends them: 75 ints, or 20140's first 15 characters.
ROWS_BYTES = {w.PROTOCOL_20060: 300, w.PROTOCOL_20070: 300, w.PROTOCOL_20140: 15}
#: Players of each protocol at one table.
MIXED = [w.PROTOCOL_20070, w.PROTOCOL_20060, w.PROTOCOL_20140, w.PROTOCOL_20060, w.PROTOCOL_20070]


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
    data = w.encode(table, w.PROTOCOL_20060)
    assert data[:4] == struct.pack("=i", -60)
    assert w.decode(data, w.PROTOCOL_20060) == table
    assert w.encode_int(1, w.PROTOCOL_20060) == (1).to_bytes(4, sys.byteorder)
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
        assert w.cells_of_bytes(native, w.PROTOCOL_20060) == expected


def test_rows_made_as_one_integer_are_the_rows_encoded_in_both_orders():
    """``cells_bytes`` (and the hands' bytes made of it) are :func:`cell_rows` encoded."""
    import random

    rng = random.Random(27)
    for _ in range(2000):
        hand = rng.getrandbits(54) & u.DECK_MASK | rng.choice((0, u.JOKER_BIT))
        ones, twos = rng.getrandbits(75), rng.getrandbits(75)
        twos &= ~ones
        for protocol in w.PROTOCOLS:
            rows = w.encode([*w.hand_rows(hand), *[0] * 45], protocol)[: ROWS_BYTES[protocol]]
            assert w.hand_bytes(hand, protocol) == rows
            rows = w.encode([*w.cell_rows(ones, twos), *[0] * 45], protocol)
            assert w.cells_bytes(ones, twos, protocol) == rows[: ROWS_BYTES[protocol]]


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
    tables = w.turn_tables(g, ranks, (2, 0, 4, 1, 3))
    assert g.turn == 3
    mover_20140 = [*MIXED[:3], w.PROTOCOL_20140, MIXED[4]]
    for protocols in (MIXED, mover_20140, [w.PROTOCOL_20140] * 5):
        assert w.turn_table_bytes(g, ranks, (2, 0, 4, 1, 3), protocols) == [
            w.encode(t, p) for t, p in zip(tables, protocols, strict=True)
        ]
    assert w.turn_table_bytes(g, None, SEATS, [w.PROTOCOL_20070] * 5) == [
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
            for protocol in w.PROTOCOLS:
                table = w.field_table(before, g, done, rank_of, (2, 0, 4, 1, 3))
                assert w.field_table_bytes(
                    before, g, done, rank_of, (2, 0, 4, 1, 3), protocol
                ) == w.encode(table, protocol)
    assert shown == {True, False}  # plays on the field and passes both sent


# -- protocol 20140: a table as 33 hexadecimal characters ------------------------------------

V20140 = w.PROTOCOL_20140


def test_20140_a_delivery_table_with_the_joker_in_33_characters():
    hand = u.parse_hand("S3H3D3C3HAC2J3")
    table = w.delivery_table(hand, 2, [11, 11, 11, 10, 10], [0, 1, 4, 3, 2], SEATS)
    data = w.encode(table, V20140)
    assert data == (
        b"F0000000000"
        b"28"  # columns 1-13: the 3 of all four suits, HA (2), C2 (8)
        b"3D"  # the joker at [4][1]: cell 61
        b"C"  # 8 ([5][0] 1) + 2 (to give) + 2
        b"6"  # [5][3] 6, not to move
        b"0"  # no flag
        b"BBBAA"
        b"01432"
        b"01234"  # row 6: the counts, the ranks, the seats
    )
    assert len(data) == w.STRING_CHARS == w.table_bytes(V20140)
    assert w.decode(data, V20140) == table
    assert u.cards_of_cells(*w.cells_of_bytes(data, V20140)) == hand


def test_20140_sends_what_20070_sends_as_0_the_poor_s_cards_to_give():
    for to_give, char in ((1, b"B"), (0, b"A"), (-1, b"9"), (-2, b"8")):
        table = w.delivery_table(u.parse_hand("S3"), to_give, [11] * 5, None, SEATS)
        data = w.encode(table, V20140)
        assert data[15:16] == char
        assert w.decode(data, V20140)[76] == to_give  # 20070 sends -1 and -2 as 0


def test_20140_a_turn_table_on_an_empty_field_with_every_flag():
    table = [0] * w.CELLS
    table[3 * 15 + 1] = 1  # C3
    table[0 * 15 + 13] = 1  # S2
    table[75:83] = [0, 0, 1, 4, 1, 0, 1, 1]  # to move, player 4, empty field, revolution, lock
    table[90:105] = [1, 0, 3, 11, 2, 4, 3, 2, 1, 0, 4, 3, 2, 1, 0]
    data = w.encode(table, V20140)
    assert (
        data
        == (
            b"8" + b"0" * 11 + b"1"  # column 1 (the 3s): C is 8; column 13 (the 2s): S is 1
            b"FF"  # no joker
            b"2"  # not the delivery, nothing to give
            b"C"  # 8 (to move) + player 4
            b"D"  # 1 (empty field) + 4 (revolution) + 8 (lock)
            b"103B2"
            b"43210"
            b"43210"  # row 6
        )
    )
    assert w.decode(data, V20140) == table
    nothing = w.encode([0] * w.CELLS, V20140)
    assert nothing == w.PASS_TABLES[V20140] == b"0000000000000FF200000000000000000"
    assert w.move_of_bytes(nothing, V20140).kind == u.PASS


def test_20140_a_field_table_of_a_stair_with_the_joker_inside():
    before = game("D3D4J3", "S4", "H5H6H7", "C9", "CT")  # player 0 holds D3: it leads
    g, done = u.submit(before, 0, u.move_of_text("D3D4M5"))
    assert done.accepted
    field = w.field_table(before, g, done, None, SEATS)
    data = w.field_table_bytes(before, g, done, None, SEATS, V20140)
    assert data == w.encode(field, V20140)
    assert data[:15] == b"440000000000021"  # D3 D4 (♦ is 4), the joker at [2][3]: cell 33
    assert data[15:18] == b"200"  # not the delivery, player 0 not to move, no flag
    assert w.move_of_bytes(data, V20140) == u.move_of_text("D3D4M5")


def test_20140_the_joker_on_a_cell_the_suits_fill_takes_it():
    """tndhms writes the 2 over the 1 (``conv_table_to_20140.c:67-69``): a joker for S3."""
    data = b"100000000000001" + b"2" + b"0" * 17
    assert w.decode(data, V20140)[1] == 2
    assert w.move_of_bytes(data, V20140) == u.move_of_text("K3")


def random_20140_table(rng) -> list[int]:
    """A table 20140 sends whole: 1s in rows 0-3, columns 1-13, at most one 2 in rows
    0-4, row 5's sent cells and row 6 in their ranges, the rest 0."""
    table = [0] * w.CELLS
    for c in range(1, 14):
        for r in range(4):
            table[r * 15 + c] = int(rng.random() < 0.3)
    if rng.random() < 0.5:
        table[rng.randrange(75)] = 2
    table[75], table[76] = rng.randrange(2), rng.randrange(-2, 6)
    table[77], table[78] = rng.randrange(2), rng.randrange(8)
    table[79:83] = [rng.randrange(2) for _ in range(4)]
    table[90:105] = [rng.randrange(16) for _ in range(15)]
    return table


def test_20140_round_trips_and_reads_a_submission_as_its_table_reads():
    import random

    rng = random.Random(20140)
    for _ in range(2000):
        table = random_20140_table(rng)
        data = w.encode(table, V20140)
        assert len(data) == 33 and data.isascii() and data == data.upper()
        assert w.decode(data, V20140) == table
        assert w.decode(data.lower(), V20140) == table  # strtol reads either case
        assert w.cells_of_bytes(data, V20140) == w.cells_of_table(table)


#: 20140 messages that are no table: cut short, too long, a byte that is no hex digit
#: (what ``strtol`` reads as 0 or as a sign), the joker's cell past rows 0–4.
MALFORMED = [
    b"",
    b"0000000000000FF20000000000000000",  # 32
    b"0000000000000FF2000000000000000000",  # 34
    bytes(33),
    b"G000000000000FF200000000000000000",
    b"100000000000 FF200000000000000000",
    b"1000000000000-1200000000000000000",
    b"10000000000000x200000000000000000",
    b"1000000000000\xff\xff200000000000000000",
    b"10000000000004B200000000000000000",  # cell 75: row 5
    b"100000000000077200000000000000000",  # cell 119
    b"1000000000000FE200000000000000000",  # cell 254: past tndhms's table
]


@pytest.mark.parametrize("data", MALFORMED)
def test_20140_a_malformed_message_is_refused_and_reads_as_a_pass(data):
    with pytest.raises(w.TableError):
        w.decode(data, V20140)
    assert w.cells_of_bytes(data, V20140) == (0, 0)
    assert w.move_of_bytes(data, V20140).kind == u.PASS
    assert u.cards_of_cells(*w.cells_of_bytes(data, V20140)) == 0


def test_20140_a_submission_s_rows_5_and_6_are_ignored_whatever_they_hold():
    data = b"1000000000000FF" + b"zz\x00" + b"-" * 15
    with pytest.raises(w.TableError):
        w.decode(data, V20140)
    assert w.move_of_bytes(data, V20140) == u.move_of_text("S3")


def test_20140_refuses_to_send_a_value_it_has_no_one_character_for():
    table = [0] * w.CELLS
    table[90] = 16
    with pytest.raises(w.TableError):
        w.encode(table, V20140)
    table[90], table[77], table[78] = 0, 1, 8  # 8 + 8: past F
    with pytest.raises(w.TableError):
        w.encode(table, V20140)
