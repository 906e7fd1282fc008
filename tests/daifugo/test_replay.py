"""Replaying game records through the engine: a true record replays to its ranks, and a
record changed anywhere is refused at the first place it parts from the engine."""

from __future__ import annotations

import copy

import pytest

from daifugo.cards import format_card, parse_card, sorted_ids
from daifugo.deal import exchange
from daifugo.replay import Diverged, Replayed, replay_game, replay_records

from .helpers import hand
from .recorded import play_place


@pytest.fixture(scope="module")
def seeded() -> list[dict]:
    return play_place("fixed", games=4, rng_seed=1)


@pytest.fixture
def records(seeded) -> list[dict]:
    """A copy to corrupt."""
    return copy.deepcopy(seeded)


def diverged(record: dict, last_ranks=None) -> Diverged:
    with pytest.raises(Diverged) as e:
        replay_game(record, last_ranks)
    assert str(e.value) == f"game {record['game']}, {e.value.where}: {e.value.message}"
    return e.value


def action_where(record: dict, test) -> dict:
    """The first action of the middle of the game that passes ``test``."""
    actions = record["actions"]
    return next(a for a in actions[len(actions) // 4 :] + actions if test(a))


def holder_of(record: dict, card: str) -> int:
    return next(s for s, h in enumerate(record["hands"]) if card in h)


# -- true records -------------------------------------------------------------------------


def test_the_records_hold_every_kind_of_turn(seeded):
    kinds = {(a["verdict"], a["reason"]) for r in seeded for a in r["actions"]}
    assert {("play", None), ("pass", None), ("timeout", "TIMEOUT")} <= kinds
    assert any(verdict == "miss" for verdict, _ in kinds)
    assert any("JOKER" in a["cards"] for r in seeded for a in r["actions"])


def test_every_game_of_a_place_replays_to_its_recorded_ranks(seeded):
    outcomes = list(replay_records(seeded))
    assert outcomes == [Replayed(r["game"], tuple(r["ranks"])) for r in seeded]
    assert str(outcomes[1]) == f"ok: game 2, ranks {' '.join(map(str, seeded[1]['ranks']))}"


def test_a_game_replays_alone_its_exchange_telling_the_ranks_of_the_game_before(seeded):
    assert replay_game(seeded[2]).ranks == tuple(seeded[2]["ranks"])


def test_a_game_replays_without_a_seed(records):
    for r in records:
        r["seed"] = None
    assert all(isinstance(o, Replayed) for o in replay_records(records))


def test_game_one_starts_with_the_holder_of_the_heart_3(seeded):
    first = seeded[0]
    assert first["actions"][0]["seat"] == holder_of(first, "2-3")


def test_a_later_game_starts_with_the_last_of_the_game_before(seeded):
    assert seeded[2]["actions"][0]["seat"] == seeded[1]["ranks"].index(5)


# -- the turns ------------------------------------------------------------------------------


def test_a_card_changed_in_a_play_is_named_at_its_turn(records):
    record = records[1]
    action = action_where(record, lambda a: a["verdict"] == "play")
    stranger = next(
        c for s, h in enumerate(record["hands"]) if s != action["seat"] for c in h if c != "joker"
    )
    action["cards"][0] = stranger
    e = diverged(record)
    assert e.where == f"turn {action['turn']}"
    assert e.message == "recorded play, the engine says miss (CARD_NOT_HELD)"


def test_a_seat_swapped_is_named_at_its_turn(records):
    record = records[2]
    action = action_where(record, lambda a: True)
    seat = action["seat"]
    action["seat"] = (seat + 1) % 5
    e = diverged(record)
    assert e.where == f"turn {action['turn']}"
    assert e.message == f"recorded seat {(seat + 1) % 5}, the engine says seat {seat}"


def test_a_first_turn_given_to_another_seat_is_named_at_turn_1(records):
    record = records[0]
    record["actions"][0]["seat"] = (record["actions"][0]["seat"] + 2) % 5
    assert diverged(record).where == "turn 1"


def test_a_verdict_changed_is_named_at_its_turn(records):
    record = records[1]
    action = action_where(record, lambda a: a["verdict"] == "play")
    action["verdict"] = "pass"
    e = diverged(record)
    assert (e.where, e.message) == (f"turn {action['turn']}", "recorded pass, the engine says play")


def test_a_reason_changed_is_named_at_its_turn(records):
    record, action = next((r, a) for r in records for a in r["actions"] if a["verdict"] == "miss")
    reason = action["reason"]
    action["reason"] = "NOT_STRONGER"
    e = diverged(record)
    assert e.where == f"turn {action['turn']}"
    assert e.message == f"recorded miss (NOT_STRONGER), the engine says miss ({reason})"


def test_a_reset_changed_is_named_at_its_turn(records):
    record = records[3]
    action = action_where(record, lambda a: a["verdict"] == "pass" and not a["reset"])
    action["reset"] = True
    e = diverged(record)
    assert (e.where, e.message) == (
        f"turn {action['turn']}",
        "recorded reset true, the engine says false",
    )


def test_an_action_removed_is_named_at_its_turn(records):
    record = records[1]
    action = action_where(record, lambda a: True)
    record["actions"].remove(action)
    e = diverged(record)
    assert e.where == f"turn {action['turn']}"


def test_an_action_removed_and_the_turns_renumbered_is_named_where_they_part(records):
    record = records[1]
    action = action_where(record, lambda a: a["verdict"] == "play")
    at = record["actions"].index(action)
    del record["actions"][at]
    for later in record["actions"][at:]:
        later["turn"] -= 1
    e = diverged(record)
    assert e.where == f"turn {action['turn']}"


def test_a_record_that_stops_early_says_whose_turn_the_engine_waits_for(records):
    record = records[0]
    last = record["actions"].pop()
    e = diverged(record)
    assert e.where == f"turn {last['turn']}"
    assert e.message == f"the record ends; the engine waits for seat {last['seat']}"


def test_a_record_that_goes_on_after_the_end_is_named_at_the_extra_turn(records):
    record = records[0]
    extra = dict(record["actions"][-1], turn=record["actions"][-1]["turn"] + 1)
    record["actions"].append(extra)
    e = diverged(record)
    assert e.where == f"turn {extra['turn']}"


def test_a_card_in_no_known_form_is_named_at_its_turn(records):
    record = records[0]
    action = action_where(record, lambda a: a["verdict"] == "play")
    action["cards"][0] = "5-1"
    assert diverged(record).where == f"turn {action['turn']}"


# -- the end ------------------------------------------------------------------------------


def test_a_rank_changed_is_named_at_the_end(records):
    record = records[2]
    ranks = record["ranks"]
    ranks[0], ranks[1] = ranks[1], ranks[0]
    e = diverged(record)
    assert e.where == "end"
    assert e.message.startswith(f"recorded ranks {ranks}, the engine says ")


def test_points_that_are_not_five_minus_the_rank_are_refused(records):
    record = records[2]
    record["points"] = [p + 1 if p < 4 else p for p in record["points"]]
    assert diverged(record).where == "end"


def test_an_order_changed_is_named_at_the_end(records):
    record = records[1]
    record["order"] = "Revolution" if record["order"] == "Normal" else "Normal"
    assert diverged(record).where == "end"


# -- the deal and the exchange -------------------------------------------------------------


def test_a_dealt_hand_altered_is_not_the_seeds_deal(records):
    record = records[1]
    a, b = record["dealt"][0][0], record["dealt"][1][0]
    record["dealt"][0][0], record["dealt"][1][0] = b, a
    e = diverged(record)
    assert (e.where, e.message) == ("deal", "seat 0's dealt hand is not the seed's deal")


def test_a_dealt_hand_altered_without_a_seed_is_caught_by_the_hands(records):
    record = dict(records[0], seed=None)
    a, b = record["dealt"][0][0], record["dealt"][1][0]
    record["dealt"][0][0], record["dealt"][1][0] = b, a
    e = diverged(record)
    assert (e.where, e.message) == (
        "hands",
        "seat 0's hand is not its dealt hand after the exchange",
    )


def test_a_deal_that_names_a_card_twice_is_no_partition(records):
    record = dict(records[0], seed=None)
    record["dealt"][1][0] = record["dealt"][0][0]
    e = diverged(record)
    assert e.where == "deal"
    assert e.message == f"{record['dealt'][0][0]} is dealt twice (seat 1)"


def test_a_deal_of_wrong_sizes_is_refused(records):
    record = dict(records[0], seed=None)
    eleven = [s for s in range(5) if len(record["dealt"][s]) == 11]
    record["dealt"][eleven[1]].append(record["dealt"][eleven[0]].pop())  # 10 and 12 cards
    e = diverged(record)
    assert (e.where, e.message) == (
        "deal",
        "hands of [10, 10, 11, 11, 12] cards: a deal gives 10 or 11",
    )


def test_an_exchange_altered_is_not_the_one_the_rules_make(records):
    record = records[1]
    move = record["exchange"][0]  # rank 1 gives its two weakest
    dealt = record["dealt"][move["from"]]
    move["cards"] = dealt[-2:]
    e = diverged(record)
    assert e.where == "exchange"
    assert e.message.startswith(f"recorded {move['from']}→{move['to']} ")
    assert "the rules make" in e.message


def test_an_exchange_of_cards_the_giver_was_not_dealt_is_refused(records):
    record = records[1]
    move = record["exchange"][0]
    other = record["dealt"][move["to"]][0]
    move["cards"][0] = other
    e = diverged(record)
    assert (e.where, e.message) == (
        "exchange",
        f"seat {move['from']} gives {other}, not dealt to it",
    )


def test_an_exchange_out_of_the_rules_order_is_refused(records):
    record = records[2]
    record["exchange"].reverse()
    assert diverged(record).where == "exchange"


def test_game_one_has_no_exchange(records):
    record = records[0]
    record["exchange"] = [{"from": 0, "to": 1, "cards": [record["dealt"][0][0]]}]
    e = diverged(record)
    assert (e.where, e.message) == ("exchange", "game 1 has no exchange")


def test_hands_altered_after_a_true_exchange_are_refused(records):
    record = records[1]
    a, b = record["hands"][2][0], record["hands"][3][0]
    record["hands"][2][0], record["hands"][3][0] = b, a
    e = diverged(record)
    assert (e.where, e.message) == (
        "hands",
        "seat 2's hand is not its dealt hand after the exchange",
    )


def test_an_exchange_is_checked_against_the_ranks_of_the_record_before_it(records):
    before, record = records[1], records[2]
    dealt = [hand(*h) for h in record["dealt"]]
    other_ranks = list(reversed(before["ranks"]))
    hands, moves = exchange(dealt, other_ranks)
    record["exchange"] = [
        {"from": m.giver, "to": m.receiver, "cards": [format_card(c) for c in m.cards]}
        for m in moves
    ]
    record["hands"] = [[format_card(c) for c in sorted_ids(h)] for h in hands]
    alone = diverged(record)  # the exchange is self-consistent: the play parts
    assert alone.where.startswith("turn ")
    outcomes = list(replay_records([before, record]))
    assert isinstance(outcomes[0], Replayed)
    assert isinstance(outcomes[1], Diverged) and outcomes[1].where == "exchange"


def test_a_diverged_game_does_not_vouch_for_the_ranks_of_the_next(records):
    records[1]["ranks"][0], records[1]["ranks"][1] = records[1]["ranks"][1], records[1]["ranks"][0]
    outcomes = list(replay_records(records))
    assert [type(o) for o in outcomes] == [Replayed, Diverged, Replayed, Replayed]


def test_the_joker_written_in_any_case_is_the_joker(records):
    assert parse_card("JOKER") == parse_card("joker")
    record, action = next((r, a) for r in records for a in r["actions"] if "JOKER" in a["cards"])
    assert replay_game(record).game == record["game"]
    action["cards"] = ["JOKERS" if c == "JOKER" else c for c in action["cards"]]
    assert diverged(record).where == f"turn {action['turn']}"
