"""The XML must match, byte for byte, what the 2011 Rails 3 server sent (PROTOCOL.md section 3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from places import errors
from places.wire.rails_xml import to_rails_xml

DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def card(id_: int, joker: bool, mark: int, number: int) -> dict[str, dict[str, object]]:
    return {"card": {"id": id_, "joker": joker, "mark": mark, "number": number}}


def test_get_hand_with_one_card_matches_protocol() -> None:
    assert to_rails_xml([card(20, False, 2, 7)]) == (
        DECL + '<cards type="array">\n'
        "  <card>\n"
        '    <id type="integer">20</id>\n'
        '    <joker type="boolean">false</joker>\n'
        '    <mark type="integer">2</mark>\n'
        '    <number type="integer">7</number>\n'
        "  </card>\n"
        "</cards>\n"
    )


def test_get_hand_with_several_cards_matches_the_founding_document() -> None:
    # The seed's third </card> is indented one level too deep; Builder never did that.
    hand = [
        card(20, False, 2, 7),
        card(19, False, 2, 6),
        card(6, False, 1, 6),
        card(22, False, 2, 9),
    ]
    assert to_rails_xml(hand) == DECL + (
        '<cards type="array">\n'
        "  <card>\n"
        '    <id type="integer">20</id>\n'
        '    <joker type="boolean">false</joker>\n'
        '    <mark type="integer">2</mark>\n'
        '    <number type="integer">7</number>\n'
        "  </card>\n"
        "  <card>\n"
        '    <id type="integer">19</id>\n'
        '    <joker type="boolean">false</joker>\n'
        '    <mark type="integer">2</mark>\n'
        '    <number type="integer">6</number>\n'
        "  </card>\n"
        "  <card>\n"
        '    <id type="integer">6</id>\n'
        '    <joker type="boolean">false</joker>\n'
        '    <mark type="integer">1</mark>\n'
        '    <number type="integer">6</number>\n'
        "  </card>\n"
        "  <card>\n"
        '    <id type="integer">22</id>\n'
        '    <joker type="boolean">false</joker>\n'
        '    <mark type="integer">2</mark>\n'
        '    <number type="integer">9</number>\n'
        "  </card>\n"
        "</cards>\n"
    )


def test_a_joker_is_a_true_boolean() -> None:
    assert '    <joker type="boolean">true</joker>\n' in to_rails_xml([card(53, True, 0, 0)])


def test_an_empty_hand_is_rails_nil_classes() -> None:
    assert (
        to_rails_xml([]) == '<?xml version="1.0" encoding="UTF-8"?>\n<nil-classes type="array"/>\n'
    )


def test_get_place_info_with_one_player_matches_protocol() -> None:
    info = {
        "game_count": 50,
        "player_count": 5,
        "player_infos": [{"name": "User1", "has_card": 4}],
    }
    assert to_rails_xml(info) == DECL + (
        "<hash>\n"
        '  <game-count type="integer">50</game-count>\n'
        '  <player-count type="integer">5</player-count>\n'
        '  <player-infos type="array">\n'
        "    <player-info>\n"
        "      <name>User1</name>\n"
        '      <has-card type="integer">4</has-card>\n'
        "    </player-info>\n"
        "  </player-infos>\n"
        "</hash>\n"
    )


def test_get_place_info_with_five_players_matches_the_founding_document() -> None:
    players = [("User1", 4), ("User2", 1), ("User3", 6), ("User4", 7), ("User5", 4)]
    info = {
        "game_count": 10,
        "player_count": 5,
        "player_infos": [{"name": name, "has_card": n} for name, n in players],
    }
    items = "".join(
        "    <player-info>\n"
        f"      <name>{name}</name>\n"
        f'      <has-card type="integer">{n}</has-card>\n'
        "    </player-info>\n"
        for name, n in players
    )
    assert to_rails_xml(info) == DECL + (
        "<hash>\n"
        '  <game-count type="integer">10</game-count>\n'
        '  <player-count type="integer">5</player-count>\n'
        '  <player-infos type="array">\n' + items + "  </player-infos>\n"
        "</hash>\n"
    )


def test_extra_place_info_keys_follow_dasherized() -> None:
    info = {"game_count": 1, "player_count": 0, "player_infos": [], "turn_player": None}
    assert to_rails_xml(info).endswith(
        '  <player-infos type="array"/>\n  <turn-player nil="true"/>\n</hash>\n'
    )


def test_get_rank_shows_an_unknown_rank_as_nil() -> None:
    ranks = {
        "game_no": 3,
        "ranks": [
            {"name": "User1", "rank": None, "last_rank": 2},
            {"name": "User2", "rank": 1, "last_rank": None},
        ],
    }
    assert to_rails_xml(ranks) == DECL + (
        "<hash>\n"
        '  <game-no type="integer">3</game-no>\n'
        '  <ranks type="array">\n'
        "    <rank>\n"
        "      <name>User1</name>\n"
        '      <rank nil="true"/>\n'
        '      <last-rank type="integer">2</last-rank>\n'
        "    </rank>\n"
        "    <rank>\n"
        "      <name>User2</name>\n"
        '      <rank type="integer">1</rank>\n'
        '      <last-rank nil="true"/>\n'
        "    </rank>\n"
        "  </ranks>\n"
        "</hash>\n"
    )


def test_the_error_body_matches_protocol() -> None:
    refused = errors.Refused(errors.NOT_YOUR_TURN, "It is User2's turn.")
    assert errors.xml_body(refused).decode() == DECL + (
        "<error>\n"
        "  <code>NOT_YOUR_TURN</code>\n"
        "  <message>It is User2's turn.</message>\n"
        "</error>\n"
    )


def test_it_escapes_markup_in_a_name_like_builder() -> None:
    info = {"player_infos": [{"name": 'A<&>"B', "has_card": 0}]}
    assert '      <name>A&lt;&amp;&gt;"B</name>\n' in to_rails_xml(info)


def test_it_replaces_characters_xml_forbids_and_keeps_unicode() -> None:
    assert "<name>大富豪*</name>" in to_rails_xml({"name": "大富豪\x07"})


def test_an_empty_string_is_an_open_and_close_tag_not_nil() -> None:
    assert to_rails_xml({"name": ""}) == DECL + "<hash>\n  <name></name>\n</hash>\n"


def test_floats_and_datetimes_carry_their_rails_types() -> None:
    jst = timezone(timedelta(hours=9))
    xml = to_rails_xml(
        {"ratio": 0.5, "at": datetime(2011, 5, 1, 21, 0, 30, 123, tzinfo=jst)}, root="stats"
    )
    assert xml == DECL + (
        "<stats>\n"
        '  <ratio type="float">0.5</ratio>\n'
        '  <at type="datetime">2011-05-01T12:00:30Z</at>\n'
        "</stats>\n"
    )
    assert "2011-05-01T12:00:30Z" in to_rails_xml(
        {"at": datetime(2011, 5, 1, 12, 0, 30, tzinfo=UTC)}
    )


def test_an_explicit_root_names_a_list_and_its_items() -> None:
    assert to_rails_xml([card(1, False, 1, 3)], root="initial_cards").startswith(
        DECL + '<initial-cards type="array">\n  <initial-card>\n    <id type="integer">1</id>\n'
    )
    assert to_rails_xml([], root="cards") == DECL + '<cards type="array"/>\n'


def test_it_refuses_values_rails_could_not_have_sent() -> None:
    with pytest.raises(TypeError):
        to_rails_xml({"x": object()})
    with pytest.raises(TypeError):
        to_rails_xml("cards")  # type: ignore[arg-type]
