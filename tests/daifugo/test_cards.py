"""RULES.md "Cards": ids, written forms, and how a hand is listed."""

from __future__ import annotations

import pytest

from daifugo.cards import (
    ALL_IDS,
    DECK_MASK,
    JOKER_IDS,
    JOKER_TOKEN,
    CardFormatError,
    card_id,
    format_card,
    ids_of,
    mark_of,
    mask_of,
    number_of,
    parse_card,
    parse_cards,
    resolve_written,
    sorted_ids,
)

from .helpers import hand


def test_a_marked_card_id_is_mark_minus_one_times_thirteen_plus_number() -> None:
    assert card_id(1, 1) == 1  # spade ace
    assert card_id(1, 13) == 13  # spade king
    assert card_id(2, 3) == 16  # heart 3
    assert card_id(3, 8) == 34  # diamond 8, the id in PROTOCOL.md's example
    assert card_id(4, 13) == 52  # club king
    ids = {card_id(m, n) for m in (1, 2, 3, 4) for n in range(1, 14)}
    assert ids == set(range(1, 53))


def test_the_jokers_are_53_and_54_with_mark_and_number_zero() -> None:
    assert JOKER_IDS == (53, 54)
    for j in JOKER_IDS:
        assert mark_of(j) == 0
        assert number_of(j) == 0


def test_mark_and_number_are_read_back_from_an_id() -> None:
    for m in (1, 2, 3, 4):
        for n in range(1, 14):
            assert (mark_of(card_id(m, n)), number_of(card_id(m, n))) == (m, n)


def test_the_deck_has_54_distinct_cards() -> None:
    assert len(ALL_IDS) == 54
    assert DECK_MASK.bit_count() == 54
    assert ids_of(DECK_MASK) == tuple(range(1, 55))


@pytest.mark.parametrize("mark", [1, 2, 3, 4])
@pytest.mark.parametrize("number", range(1, 14))
def test_every_mark_number_form_is_read(mark: int, number: int) -> None:
    assert parse_card(f"{mark}-{number}") == card_id(mark, number)


def test_the_heart_3_is_written_2_3() -> None:
    assert parse_card("2-3") == 16
    assert parse_card("4-13") == 52


def test_joker_is_read_as_the_joker_token() -> None:
    assert parse_card("joker") == JOKER_TOKEN == 0


@pytest.mark.parametrize(
    "text",
    [
        "7",  # RULES.md's examples
        "5-14",
        "0-3",
        "hello",
        "",
        "   ",
        "1-0",
        "1-14",
        "5-1",
        "2-3-4",
        "2 3",
        "2_3",
        "23",
        "-3",
        "2-",
        "2--3",
        "+2-3",
        "2-+3",
        "1-03",
        "01-3",
        "jokers",
        "joker1",
        "joker-0",
        "0-0",
        "2-3,2-4",
        "２-３",  # full-width digits
    ],
)
def test_a_card_in_no_known_form_is_an_error(text: str) -> None:
    with pytest.raises(CardFormatError):
        parse_card(text)


@pytest.mark.parametrize("value", [16, None, b"2-3", ["2-3"], 0])
def test_a_card_that_is_not_a_string_is_an_error(value: object) -> None:
    with pytest.raises(CardFormatError):
        parse_card(value)  # type: ignore[arg-type]


def test_an_unknown_form_is_never_read_as_a_joker() -> None:
    # 2011 matched an unreadable string to a joker; here it must raise before any play
    for text in ("hello", "7", "0-3", "5-14"):
        with pytest.raises(CardFormatError):
            parse_card(text)


def test_parse_cards_reads_each_and_fails_on_any_unknown() -> None:
    assert parse_cards(["2-3", "joker", "4-13"]) == [16, JOKER_TOKEN, 52]
    with pytest.raises(CardFormatError):
        parse_cards(["2-3", "hello"])


def test_every_card_is_written_back_in_its_form() -> None:
    for cid in ALL_IDS:
        text = format_card(cid)
        if cid in JOKER_IDS:
            assert text == "joker"
        else:
            assert parse_card(text) == cid


def test_masks_and_ids_convert_both_ways() -> None:
    ids = (1, 16, 34, 53, 54)
    m = mask_of(ids)
    assert m == sum(1 << i for i in ids)
    assert ids_of(m) == ids
    assert ids_of(0) == ()
    assert mask_of([]) == 0


def test_the_hand_helper_gives_both_jokers_for_joker_twice() -> None:
    assert hand("joker") == 1 << 53
    assert hand("joker", "joker") == (1 << 53) | (1 << 54)
    assert hand("2-3", "joker") == (1 << 16) | (1 << 53)


def test_a_hand_is_listed_weakest_first_in_the_normal_order_with_jokers_last() -> None:
    h = hand("1-2", "joker", "4-3", "1-1", "2-3", "3-10", "joker", "1-13")
    assert sorted_ids(h) == [
        card_id(2, 3),
        card_id(4, 3),
        card_id(3, 10),
        card_id(1, 13),
        card_id(1, 1),
        card_id(1, 2),
        53,
        54,
    ]


def test_among_equal_numbers_the_lower_mark_is_listed_first() -> None:
    h = hand("4-7", "1-7", "3-7", "2-7")
    assert sorted_ids(h) == [card_id(1, 7), card_id(2, 7), card_id(3, 7), card_id(4, 7)]


# -- resolving written cards against a hand --


def test_written_cards_resolve_to_the_cards_held() -> None:
    h = hand("2-3", "1-5", "joker")
    mask, duplicate, not_held = resolve_written([16, card_id(1, 5)], h)
    assert (mask, duplicate, not_held) == (hand("2-3", "1-5"), False, False)


def test_a_written_joker_is_a_joker_the_hand_holds() -> None:
    only_54 = (1 << 54) | hand("1-5")
    mask, duplicate, not_held = resolve_written([JOKER_TOKEN], only_54)
    assert (mask, duplicate, not_held) == (1 << 54, False, False)


def test_joker_written_twice_is_both_jokers_when_both_are_held() -> None:
    h = hand("1-5", "joker", "joker")
    mask, duplicate, not_held = resolve_written([JOKER_TOKEN, JOKER_TOKEN], h)
    assert (mask, duplicate, not_held) == (hand("joker", "joker"), False, False)


def test_joker_written_twice_with_one_joker_held_is_a_card_not_held() -> None:
    h = hand("1-5", "joker")
    _, duplicate, not_held = resolve_written([JOKER_TOKEN, JOKER_TOKEN], h)
    assert not_held and not duplicate


def test_three_jokers_are_never_held() -> None:
    h = hand("1-5", "joker", "joker")
    _, _, not_held = resolve_written([JOKER_TOKEN] * 3, h)
    assert not_held


def test_a_joker_written_without_one_held_is_a_card_not_held() -> None:
    mask, _, not_held = resolve_written([JOKER_TOKEN], hand("1-5"))
    assert not_held
    assert mask  # something is named, so it can never be taken for a pass


def test_the_same_card_written_twice_is_flagged_as_a_duplicate() -> None:
    h = hand("2-3", "1-5")
    _, duplicate, _ = resolve_written([16, 16], h)
    assert duplicate


def test_a_card_written_but_not_held_is_flagged() -> None:
    _, duplicate, not_held = resolve_written([card_id(1, 6)], hand("2-3", "1-5"))
    assert not_held and not duplicate
