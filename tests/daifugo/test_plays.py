"""RULES.md "Strength" and "Legal plays": reading cards as a play and judging it."""

from __future__ import annotations

import pytest

from daifugo.cards import index_of_number
from daifugo.plays import Kind, Miss, judge, read_play

from .helpers import NORMAL_ORDER, cards, play

ORDERS = [pytest.param(False, id="normal"), pytest.param(True, id="revolution")]


def idx(number: int) -> int:
    """Strength index of a number in the normal order (3 → 0 … 2 → 12)."""
    return index_of_number(number)


def _with_spare(played: int, spare: str | None) -> int:
    """The played cards and one more card, so that the play does not finish the hand."""
    for written in ([spare] if spare else []) + ["4-9", "1-3", "2-6"]:
        if not cards(written) & played:
            return played | cards(written)
    raise AssertionError("no spare card")


def follow(
    table_cards: tuple[str, ...],
    played: tuple[str, ...],
    revolution: bool = False,
    table_kind: Kind | None = None,
    spare: str | None = None,
):
    """Judge ``played`` against ``table_cards`` for a hand that keeps one more card."""
    table = play(*table_cards, revolution=revolution, kind=table_kind)
    m = cards(*played)
    return judge(m, _with_spare(m, spare), table, revolution)


def lead(played: tuple[str, ...], revolution: bool = False):
    m = cards(*played)
    return judge(m, _with_spare(m, None), None, revolution)


# -- strength --


def test_the_normal_order_runs_3_to_2() -> None:
    strengths = [play(f"1-{n}").strength for n in NORMAL_ORDER]
    assert strengths == sorted(strengths)
    assert len(set(strengths)) == 13


def test_a_revolution_reverses_the_order() -> None:
    strengths = [play(f"1-{n}", revolution=True).strength for n in NORMAL_ORDER]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == 13


@pytest.mark.parametrize("revolution", ORDERS)
def test_a_lone_joker_beats_every_single_card(revolution: bool) -> None:
    for m in (1, 2, 3, 4):
        for n in range(1, 14):
            p, miss = follow((f"{m}-{n}",), ("joker",), revolution)
            assert miss is None and p is not None and p.kind == Kind.SINGLE


@pytest.mark.parametrize("revolution", ORDERS)
def test_a_lone_joker_cannot_be_beaten(revolution: bool) -> None:
    for m in (1, 2, 3, 4):
        for n in range(1, 14):
            assert follow(("joker",), (f"{m}-{n}",), revolution) == (None, Miss.NOT_STRONGER)
    # not even by the other joker
    table = play("joker", revolution=revolution)
    other = 1 << 54
    assert judge(other, other | cards("4-9"), table, revolution) == (None, Miss.NOT_STRONGER)


def test_marks_do_not_matter_for_strength() -> None:
    assert {play(f"{m}-7").strength for m in (1, 2, 3, 4)} == {play("1-7").strength}
    p, miss = follow(("1-4",), ("3-5",))
    assert miss is None and p is not None


# -- singles --


def test_every_card_alone_is_a_single() -> None:
    for m in (1, 2, 3, 4):
        for n in range(1, 14):
            (p,) = read_play(cards(f"{m}-{n}"), False)
            assert (p.kind, p.size) == (Kind.SINGLE, 1)
    (p,) = read_play(cards("joker"), False)
    assert (p.kind, p.size) == (Kind.SINGLE, 1)


def test_no_cards_are_no_play() -> None:
    assert read_play(0, False) == ()
    assert judge(0, cards("1-3"), None, False)[1] == Miss.NOT_A_COMBINATION


# -- groups --


@pytest.mark.parametrize("n", [2, 3, 4])
def test_cards_of_one_number_are_a_group(n: int) -> None:
    (p,) = read_play(cards(*[f"{m}-9" for m in (1, 2, 3, 4)[:n]]), False)
    assert (p.kind, p.size, p.low, p.high) == (Kind.GROUP, n, idx(9), idx(9))


def test_cards_of_different_numbers_of_different_marks_are_no_play() -> None:
    assert read_play(cards("1-9", "2-10"), False) == ()
    assert read_play(cards("1-9", "2-9", "3-10"), False) == ()
    assert lead(("1-9", "2-10")) == (None, Miss.NOT_A_COMBINATION)


@pytest.mark.parametrize("revolution", ORDERS)
def test_a_joker_in_a_group_stands_for_its_number(revolution: bool) -> None:
    with_joker = play("1-9", "joker", revolution=revolution)
    real = play("1-9", "2-9", revolution=revolution)
    assert (with_joker.kind, with_joker.size) == (Kind.GROUP, 2)
    assert with_joker.strength == real.strength
    triple = play("1-9", "2-9", "joker", revolution=revolution)
    assert triple.strength == real.strength and triple.size == 3


@pytest.mark.parametrize("revolution", ORDERS)
def test_two_jokers_alone_are_the_strongest_pair(revolution: bool) -> None:
    jj = play("joker", "joker", revolution=revolution)
    assert (jj.kind, jj.size) == (Kind.GROUP, 2)
    for n in range(1, 14):
        assert jj.strength > play(f"1-{n}", f"2-{n}", revolution=revolution).strength
        p, miss = follow((f"1-{n}", f"2-{n}"), ("joker", "joker"), revolution)
        assert miss is None and p is not None
        assert follow(("joker", "joker"), (f"3-{n}", f"4-{n}"), revolution) == (
            None,
            Miss.NOT_STRONGER,
        )


@pytest.mark.parametrize("revolution", ORDERS)
def test_a_pair_with_one_joker_cannot_beat_two_jokers(revolution: bool) -> None:
    strongest = "1-2" if not revolution else "1-3"
    assert follow(("joker", "joker"), (strongest, "joker"), revolution) == (
        None,
        Miss.NOT_STRONGER,
    )


def test_both_jokers_may_join_a_group_of_three() -> None:
    readings = read_play(cards("1-9", "joker", "joker"), False)
    assert readings[0].kind == Kind.GROUP and readings[0].size == 3
    p, miss = lead(("1-9", "joker", "joker"))
    assert miss is None and p is not None and p.kind == Kind.GROUP


@pytest.mark.parametrize("reals", [2, 3, 4])
def test_both_jokers_may_join_a_larger_group(reals: int) -> None:
    written = tuple(f"{m}-9" for m in (1, 2, 3, 4)[:reals]) + ("joker", "joker")
    (p,) = read_play(cards(*written), False)
    assert (p.kind, p.size, p.strength) == (Kind.GROUP, reals + 2, play("1-9").strength)
    got, miss = lead(written)
    assert miss is None and got is not None


def test_a_group_of_six_is_four_of_a_number_and_both_jokers() -> None:
    p = play("1-5", "2-5", "3-5", "4-5", "joker", "joker")
    assert (p.kind, p.size) == (Kind.GROUP, 6)


# -- stairs --


def test_three_consecutive_cards_of_one_mark_are_a_stair() -> None:
    (p,) = read_play(cards("2-5", "2-6", "2-7"), False)
    assert (p.kind, p.size, p.low, p.high) == (Kind.STAIR, 3, idx(5), idx(7))


def test_two_consecutive_cards_of_one_mark_are_no_play() -> None:
    assert read_play(cards("2-5", "2-6"), False) == ()
    assert lead(("2-5", "2-6")) == (None, Miss.NOT_A_COMBINATION)


def test_a_stair_must_be_of_one_mark() -> None:
    assert read_play(cards("2-5", "2-6", "3-7"), False) == ()


def test_a_stair_must_be_consecutive() -> None:
    assert read_play(cards("2-5", "2-6", "2-8"), False) == ()


def test_a_long_stair_is_one_play() -> None:
    written = [f"4-{n}" for n in NORMAL_ORDER]
    (p,) = read_play(cards(*written), False)
    assert (p.kind, p.size, p.low, p.high) == (Kind.STAIR, 13, 0, 12)


def test_king_ace_two_is_a_stair() -> None:
    (p,) = read_play(cards("1-13", "1-1", "1-2"), False)
    assert (p.kind, p.low, p.high) == (Kind.STAIR, idx(13), idx(2))
    (p,) = read_play(cards("1-12", "1-13", "1-1", "1-2"), False)
    assert p.kind == Kind.STAIR


@pytest.mark.parametrize(
    "written",
    [("1-1", "1-2", "1-3"), ("1-2", "1-3", "1-4"), ("1-13", "1-1", "1-2", "1-3")],
)
@pytest.mark.parametrize("revolution", ORDERS)
def test_a_stair_does_not_wrap_around_from_2_to_3(
    written: tuple[str, ...], revolution: bool
) -> None:
    assert read_play(cards(*written), revolution) == ()


@pytest.mark.parametrize("revolution", ORDERS)
def test_one_joker_fills_one_gap(revolution: bool) -> None:
    (p,) = read_play(cards("3-5", "joker", "3-7"), revolution)
    assert (p.kind, p.low, p.high) == (Kind.STAIR, idx(5), idx(7))


@pytest.mark.parametrize("revolution", ORDERS)
def test_one_joker_cannot_fill_two_gaps(revolution: bool) -> None:
    assert read_play(cards("3-5", "joker", "3-8"), revolution) == ()
    assert read_play(cards("3-5", "3-7", "joker", "3-9"), revolution) == ()


@pytest.mark.parametrize("revolution", ORDERS)
def test_two_jokers_fill_two_gaps(revolution: bool) -> None:
    (p,) = read_play(cards("3-5", "joker", "joker", "3-8"), revolution)
    assert (p.kind, p.size, p.low, p.high) == (Kind.STAIR, 4, idx(5), idx(8))
    (p,) = read_play(cards("3-5", "3-7", "joker", "joker", "3-9"), revolution)
    assert (p.low, p.high) == (idx(5), idx(9))


def test_a_spare_joker_extends_a_stair_towards_the_stronger_end_in_the_normal_order() -> None:
    p = play("1-5", "1-6", "joker")
    assert (p.low, p.high) == (idx(5), idx(7))
    assert p.strength == play("1-5", "1-6", "1-7").strength


def test_a_spare_joker_extends_a_stair_towards_the_stronger_end_in_a_revolution() -> None:
    p = play("1-5", "1-6", "joker", revolution=True)
    assert (p.low, p.high) == (idx(4), idx(6))
    assert p.strength == play("1-4", "1-5", "1-6", revolution=True).strength


def test_a_spare_joker_goes_to_the_weaker_end_when_the_stronger_end_is_2() -> None:
    p = play("1-1", "1-2", "joker")
    assert (p.low, p.high) == (idx(13), idx(2))
    assert p.strength == play("1-13", "1-1", "1-2").strength


def test_a_spare_joker_goes_to_the_weaker_end_when_the_stronger_end_is_3_in_a_revolution() -> None:
    p = play("1-3", "1-4", "joker", revolution=True)
    assert (p.low, p.high) == (idx(3), idx(5))
    assert p.strength == play("1-3", "1-4", "1-5", revolution=True).strength


def test_two_spare_jokers_both_extend_towards_the_stronger_end() -> None:
    p = play("1-7", "joker", "joker", kind=Kind.STAIR)
    assert (p.low, p.high) == (idx(7), idx(9))
    p = play("1-7", "joker", "joker", kind=Kind.STAIR, revolution=True)
    assert (p.low, p.high) == (idx(5), idx(7))


def test_two_spare_jokers_split_when_the_stronger_end_is_one_step_away() -> None:
    p = play("1-13", "1-1", "joker", "joker")
    assert (p.low, p.high) == (idx(12), idx(2))  # Q K A 2
    p = play("1-4", "1-5", "joker", "joker", revolution=True)
    assert (p.low, p.high) == (idx(3), idx(6))  # 3 4 5 6: in a revolution 3 is the stronger end


def test_a_joker_filling_a_gap_and_a_spare_one_extending() -> None:
    p = play("2-5", "joker", "2-7", "joker")
    assert (p.size, p.low, p.high) == (4, idx(5), idx(8))
    p = play("2-5", "joker", "2-7", "joker", revolution=True)
    assert (p.low, p.high) == (idx(4), idx(7))


# -- one card with two jokers --


def test_one_card_with_two_jokers_has_two_readings_group_first() -> None:
    readings = read_play(cards("1-7", "joker", "joker"), False)
    assert [p.kind for p in readings] == [Kind.GROUP, Kind.STAIR]
    assert all(p.size == 3 for p in readings)


def test_only_one_card_with_two_jokers_has_two_readings() -> None:
    for written in [
        ("1-7", "joker"),
        ("joker", "joker"),
        ("1-7", "2-7", "joker"),
        ("1-7", "1-8", "joker"),
        ("1-7", "joker", "1-9"),
        ("1-7", "2-7", "joker", "joker"),
        ("1-7", "1-8", "joker", "joker"),
    ]:
        for revolution in (False, True):
            assert len(read_play(cards(*written), revolution)) == 1, written


def test_a_card_with_a_joker_is_a_pair_never_a_two_card_stair() -> None:
    for revolution in (False, True):
        assert [p.kind for p in read_play(cards("3-5", "joker"), revolution)] == [Kind.GROUP]


@pytest.mark.parametrize("revolution", ORDERS)
def test_one_card_with_two_jokers_leads_as_a_group(revolution: bool) -> None:
    p, miss = lead(("1-7", "joker", "joker"), revolution)
    assert miss is None and p is not None and p.kind == Kind.GROUP


@pytest.mark.parametrize("revolution", ORDERS)
def test_one_card_with_two_jokers_follows_a_stair_as_a_stair(revolution: bool) -> None:
    weak = ("1-3", "1-4", "1-5") if not revolution else ("1-13", "1-1", "1-2")
    p, miss = follow(weak, ("3-9", "joker", "joker"), revolution)
    assert miss is None and p is not None and p.kind == Kind.STAIR


@pytest.mark.parametrize("revolution", ORDERS)
def test_one_card_with_two_jokers_follows_a_group_of_three_as_a_group(revolution: bool) -> None:
    weak = ("1-4", "2-4", "3-4") if not revolution else ("1-1", "2-1", "3-1")
    p, miss = follow(weak, ("3-9", "joker", "joker"), revolution)
    assert miss is None and p is not None and p.kind == Kind.GROUP


def test_one_card_with_two_jokers_following_a_stair_is_compared_as_a_stair() -> None:
    # 7 + two jokers as a stair is 7-8-9: it beats 6-7-8 but not 7-8-9
    assert follow(("4-6", "4-7", "4-8"), ("1-7", "joker", "joker"))[1] is None
    assert follow(("4-7", "4-8", "4-9"), ("1-7", "joker", "joker"), spare="2-9") == (
        None,
        Miss.NOT_STRONGER,
    )


def test_one_card_with_two_jokers_does_not_follow_a_single_or_a_pair() -> None:
    assert follow(("1-3",), ("3-9", "joker", "joker"))[1] == Miss.KIND_MISMATCH
    assert follow(("1-3", "2-3"), ("3-9", "joker", "joker"))[1] == Miss.SIZE_MISMATCH


def test_one_card_with_two_jokers_does_not_follow_a_longer_stair() -> None:
    assert follow(("1-3", "1-4", "1-5", "1-6"), ("3-9", "joker", "joker"))[1] == Miss.SIZE_MISMATCH


# -- following --


@pytest.mark.parametrize(
    ("table", "played", "miss"),
    [
        (("1-4",), ("2-5", "3-5"), Miss.KIND_MISMATCH),
        (("1-4", "2-4"), ("2-5",), Miss.KIND_MISMATCH),
        (("1-4", "2-4"), ("2-5", "2-6", "2-7"), Miss.KIND_MISMATCH),
        (("1-4", "2-4", "3-4"), ("2-5", "2-6", "2-7"), Miss.KIND_MISMATCH),
        (("2-5", "2-6", "2-7"), ("1-9", "2-9", "3-9"), Miss.KIND_MISMATCH),
        (("1-4", "2-4"), ("1-5", "2-5", "3-5"), Miss.SIZE_MISMATCH),
        (("1-4", "2-4", "3-4"), ("1-5", "2-5"), Miss.SIZE_MISMATCH),
        (("2-5", "2-6", "2-7"), ("1-8", "1-9", "1-10", "1-11"), Miss.SIZE_MISMATCH),
        (("2-5", "2-6", "2-7", "2-8"), ("1-9", "1-10", "1-11"), Miss.SIZE_MISMATCH),
    ],
)
def test_a_follow_must_match_the_kind_and_size_of_the_table(
    table: tuple[str, ...], played: tuple[str, ...], miss: str
) -> None:
    assert follow(table, played) == (None, miss)


@pytest.mark.parametrize("revolution", ORDERS)
def test_a_follow_must_be_strictly_stronger(revolution: bool) -> None:
    assert follow(("1-9",), ("2-9",), revolution) == (None, Miss.NOT_STRONGER)
    assert follow(("1-9", "2-9"), ("3-9", "4-9"), revolution) == (
        None,
        Miss.NOT_STRONGER,
    )
    weaker, stronger = ("1-8", "1-10") if not revolution else ("1-10", "1-8")
    assert follow((weaker,), (stronger,), revolution)[1] is None
    assert follow((stronger,), (weaker,), revolution) == (None, Miss.NOT_STRONGER)


def test_a_pair_with_a_joker_beats_a_weaker_pair_by_the_number_it_stands_for() -> None:
    assert follow(("1-9", "2-9"), ("1-10", "joker"))[1] is None
    assert follow(("1-10", "2-10"), ("1-9", "joker")) == (None, Miss.NOT_STRONGER)
    assert follow(("1-10", "2-10"), ("3-10", "joker")) == (None, Miss.NOT_STRONGER)


def test_a_stair_is_compared_by_its_weakest_card_in_the_normal_order() -> None:
    assert follow(("1-5", "1-6", "1-7"), ("2-6", "2-7", "2-8"))[1] is None
    assert follow(("1-5", "1-6", "1-7"), ("2-5", "2-6", "2-7")) == (None, Miss.NOT_STRONGER)
    assert follow(("1-5", "1-6", "1-7"), ("2-4", "2-5", "2-6")) == (None, Miss.NOT_STRONGER)
    assert follow(("1-5", "1-6", "1-7"), ("2-13", "2-1", "2-2"))[1] is None


def test_a_stair_is_compared_by_its_weakest_card_in_a_revolution() -> None:
    # in a revolution the weakest card of 5-6-7 is the 7
    assert follow(("1-5", "1-6", "1-7"), ("2-4", "2-5", "2-6"), True)[1] is None
    assert follow(("1-5", "1-6", "1-7"), ("2-5", "2-6", "2-7"), True) == (None, Miss.NOT_STRONGER)
    assert follow(("1-5", "1-6", "1-7"), ("2-6", "2-7", "2-8"), True) == (None, Miss.NOT_STRONGER)
    assert follow(("1-5", "1-6", "1-7"), ("2-3", "2-4", "2-5"), True)[1] is None


def test_a_joker_in_a_stair_counts_as_the_number_it_stands_for() -> None:
    # 5-joker-7 is 5-6-7; 5-6-joker is 5-6-7 as well (the joker extends upwards)
    assert follow(("1-4", "1-5", "1-6"), ("2-5", "joker", "2-7"))[1] is None
    assert follow(("1-4", "1-5", "1-6"), ("2-5", "2-6", "joker"))[1] is None
    assert follow(("1-5", "1-6", "1-7"), ("2-5", "2-6", "joker")) == (None, Miss.NOT_STRONGER)
    # A-2-joker can only be K-A-2: it beats Q-K-A, not K-A-2
    assert follow(("1-12", "1-13", "1-1"), ("2-1", "2-2", "joker"))[1] is None
    assert follow(("1-13", "1-1", "1-2"), ("2-1", "2-2", "joker")) == (None, Miss.NOT_STRONGER)


def test_a_joker_in_a_stair_counts_as_the_number_it_stands_for_in_a_revolution() -> None:
    # 5-6-joker is 4-5-6 in a revolution: it beats 5-6-7 and ties with 4-5-6
    assert follow(("1-5", "1-6", "1-7"), ("2-5", "2-6", "joker"), True)[1] is None
    assert follow(("1-4", "1-5", "1-6"), ("2-5", "2-6", "joker"), True) == (
        None,
        Miss.NOT_STRONGER,
    )
    # 3-4-joker can only be 3-4-5
    assert follow(("1-4", "1-5", "1-6"), ("2-3", "2-4", "joker"), True)[1] is None
    assert follow(("1-3", "1-4", "1-5"), ("2-3", "2-4", "joker"), True) == (
        None,
        Miss.NOT_STRONGER,
    )


def test_a_stair_with_a_joker_on_the_table_is_beaten_by_the_number_the_joker_stood_for() -> None:
    table = ("1-5", "1-6", "joker")  # 5-6-7
    assert follow(table, ("2-5", "2-6", "2-7")) == (None, Miss.NOT_STRONGER)
    assert follow(table, ("2-6", "2-7", "2-8"))[1] is None


def test_marks_need_not_match_the_table() -> None:
    assert follow(("1-4", "2-4"), ("3-5", "4-5"))[1] is None
    assert follow(("1-4", "1-5", "1-6"), ("4-5", "4-6", "4-7"))[1] is None


def test_any_legal_play_may_lead() -> None:
    for written in [
        ("1-4",),
        ("joker",),
        ("1-4", "2-4"),
        ("1-4", "1-5", "1-6"),
        ("joker", "joker"),
        ("1-4", "2-4", "3-4", "4-4"),
    ]:
        p, miss = lead(written)
        assert miss is None and p is not None


# -- forbidden finishes --


@pytest.mark.parametrize("revolution", ORDERS)
@pytest.mark.parametrize(
    "last",
    [
        ("joker",),
        ("joker", "joker"),
        ("1-9", "joker"),
        ("1-4", "1-5", "joker"),
        ("1-9", "joker", "joker"),
    ],
)
def test_finishing_with_a_joker_is_forbidden(revolution: bool, last: tuple[str, ...]) -> None:
    m = cards(*last)
    assert judge(m, m, None, revolution) == (None, Miss.FORBIDDEN_FINISH)


@pytest.mark.parametrize("last", [("1-2",), ("1-2", "2-2"), ("3-13", "3-1", "3-2")])
def test_finishing_with_a_2_is_forbidden_in_the_normal_order(last: tuple[str, ...]) -> None:
    m = cards(*last)
    assert judge(m, m, None, False) == (None, Miss.FORBIDDEN_FINISH)


@pytest.mark.parametrize("last", [("1-3",), ("1-3", "2-3"), ("3-3", "3-4", "3-5")])
def test_finishing_with_a_3_is_forbidden_in_a_revolution(last: tuple[str, ...]) -> None:
    m = cards(*last)
    assert judge(m, m, None, True) == (None, Miss.FORBIDDEN_FINISH)


def test_finishing_with_a_3_is_allowed_in_the_normal_order_and_a_2_in_a_revolution() -> None:
    assert judge(cards("1-3"), cards("1-3"), None, False)[1] is None
    assert judge(cards("1-2"), cards("1-2"), None, True)[1] is None
    assert judge(cards("3-13", "3-1", "3-2"), cards("3-13", "3-1", "3-2"), None, True)[1] is None


@pytest.mark.parametrize("revolution", ORDERS)
def test_finishing_on_an_8_is_allowed(revolution: bool) -> None:
    for last in [("1-8",), ("1-8", "2-8"), ("1-7", "1-8", "1-9")]:
        m = cards(*last)
        p, miss = judge(m, m, None, revolution)
        assert miss is None and p is not None


def test_a_following_finish_with_a_2_is_forbidden() -> None:
    table = play("1-13")
    assert judge(cards("2-2"), cards("2-2"), table, False) == (None, Miss.FORBIDDEN_FINISH)


def test_a_joker_or_a_2_that_does_not_empty_the_hand_is_fine() -> None:
    assert lead(("joker",))[1] is None
    assert lead(("1-2",))[1] is None
    assert judge(cards("1-3"), cards("1-3", "1-4"), None, True)[1] is None


# -- what makes a revolution and an 8-cut --


def test_a_group_of_four_or_more_is_a_revolution() -> None:
    assert play("1-5", "2-5", "3-5", "4-5").is_revolution
    assert play("1-5", "2-5", "3-5", "joker").is_revolution
    assert play("1-5", "2-5", "joker", "joker").is_revolution
    assert play("1-5", "2-5", "3-5", "4-5", "joker").is_revolution
    assert play("1-5", "2-5", "3-5", "4-5", "joker", "joker").is_revolution


def test_smaller_groups_and_stairs_are_no_revolution() -> None:
    assert not play("1-5", "2-5", "3-5").is_revolution
    assert not play("1-5", "joker", "joker").is_revolution
    assert not play("joker", "joker").is_revolution
    assert not play("1-5", "1-6", "1-7", "1-8").is_revolution
    assert not play("1-5", "1-6", "1-7", "1-8", "1-9").is_revolution
    assert not play("1-5", "1-6", "joker", "joker").is_revolution


def test_a_real_8_makes_an_8_cut() -> None:
    assert play("3-8").has_eight
    assert play("3-8", "4-8").has_eight
    assert play("3-8", "joker").has_eight
    assert play("3-7", "3-8", "3-9").has_eight


def test_a_joker_standing_for_an_8_makes_no_8_cut() -> None:
    assert not play("3-7", "joker", "3-9").has_eight
    assert not play("3-6", "3-7", "joker").has_eight  # 6-7-8
    assert not play("joker").has_eight
    assert not play("3-7").has_eight
