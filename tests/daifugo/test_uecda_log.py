"""The tndhms log reader and referee, on a log of 250 games of five stock clients.

``data/tndhms-250.log`` was written by tndhms 0.37 (built from the public copy
named in UECDA.md) with FLAG_LOGGER on, between five stock clients 0.21: see
docs/rules.md "UECda" for the commands. It holds 8 games ended by the 20-pass draw.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from daifugo.rules import UECDA
from daifugo.tndhms_random import TndhmsRandom
from daifugo.uecda_log import (
    Disagreement,
    LogError,
    LoggedGame,
    LogReader,
    Refereed,
    Skipped,
    overflowed,
    parse_log,
    referee,
    rules_of_log,
    seeded_stream,
)

FIXTURE = Path(__file__).parent / "data" / "tndhms-250.log"


def fixture_lines() -> list[str]:
    return FIXTURE.read_text(encoding="ascii").splitlines(keepends=True)


def refereed(lines: list[str], rules=UECDA) -> list[Refereed | Disagreement]:
    return list(referee(parse_log(lines), rules))


def test_every_game_of_the_fixture_log_is_refereed_with_no_disagreement():
    results = refereed(fixture_lines())
    disagreements = [r for r in results if isinstance(r, Disagreement)]
    assert disagreements == []
    assert len(results) == 250
    assert sum(r.turns for r in results) == 18302
    assert sum(r.drawn for r in results) == 8  # the 20-pass draws are in it


def test_the_reader_keeps_what_the_log_says():
    log = parse_log(fixture_lines())
    assert log.names == ("stock0", "stock1", "stock2", "stock3", "stock4")
    first = log.games[0]
    assert first.ranks_before is None  # 22222: the first game of a rank period
    assert first.exchange == ()
    assert sum(h.bit_count() for h in first.dealt) == 53
    second = log.games[1]
    assert second.ranks_before == tuple(first.result.index(p) for p in range(5))
    assert [(x.giver, x.receiver) for x in second.exchange] == [
        (first.result[4], first.result[0]),
        (first.result[3], first.result[1]),
        (first.result[0], first.result[4]),
        (first.result[1], first.result[3]),
    ]
    # game 100 starts the second rank period
    assert log.games[100].ranks_before is None and log.games[100].exchange == ()


def _tamper(lines: list[str], game: int, key: str, change) -> list[str]:
    prefix = f"%{game:05d}%{key}%"
    out = list(lines)
    i = next(i for i, line in enumerate(out) if line.startswith(prefix))
    out[i] = change(out[i])
    return out


def test_a_submission_changed_in_the_log_is_named_by_game_turn_and_both_sides():
    lines = fixture_lines()
    log = parse_log(lines)
    game = log.games[3]
    second = game.plays[1]  # the second submission of game 3, as logged
    token = f" {second.player}{second.text}EE"
    wrong = f" {(second.player + 1) % 5}{second.text}EE"
    tampered = _tamper(lines, 3, "play", lambda line: line.replace(token, wrong, 1))
    results = refereed(tampered)
    bad = [r for r in results if isinstance(r, Disagreement)]
    assert bad[0].game == 3 and bad[0].turn == 2
    assert bad[0].log_says.startswith(f"player {(second.player + 1) % 5} submits")
    assert bad[0].engine_says == f"player {second.player} is to move"
    assert "game 00003, turn 2: the log says player" in str(bad[0])
    # the other games are still refereed
    assert sum(isinstance(r, Refereed) for r in results) >= 240


def test_a_result_the_engine_does_not_reach_is_a_disagreement():
    lines = fixture_lines()
    log = parse_log(lines)
    game = next(g for g in log.games if not any(p.text == "" for p in g.plays[-1:]))
    swapped = game.result[1::-1] + game.result[2:]
    text = "".join(map(str, swapped))
    tampered = _tamper(
        lines, game.number, "result", lambda line: line.rsplit(" ", 1)[0] + f" {text}\n"
    )
    bad = [r for r in refereed(tampered) if isinstance(r, Disagreement)]
    assert bad[0].game == game.number
    assert bad[0].log_says == f"result {text}"


def test_a_rule_turned_off_makes_the_log_disagree():
    bad = [
        r for r in refereed(fixture_lines(), UECDA.but(pass_draw=0)) if isinstance(r, Disagreement)
    ]
    assert len(bad) == 8
    assert all(d.log_says == "the game ends here" for d in bad)


def test_a_log_cut_short_is_an_error_naming_its_last_line():
    lines = fixture_lines()
    cut = lines[:1000]
    with pytest.raises(LogError, match="^line 1000: the log is cut short in game") as e:
        parse_log(cut)
    assert e.value.line == 1000


def test_a_log_without_its_end_is_cut_short():
    lines = [
        line for line in fixture_lines() if "TIME_END" not in line and "TOTAL_POINT" not in line
    ]
    with pytest.raises(LogError, match="cut short: no TIME_END line"):
        parse_log(lines)


def test_a_malformed_line_is_named():
    lines = fixture_lines()
    lines[40] = "%00002%play% 0S3S3XXEE\n"
    with pytest.raises(LogError, match="^line 41: "):
        parse_log(lines)
    lines = fixture_lines()
    lines[41] = "garbage\n"
    with pytest.raises(LogError, match="^line 42: not a log line"):
        parse_log(lines)


def test_a_game_out_of_order_is_named():
    lines = fixture_lines()
    i = next(i for i, line in enumerate(lines) if line.startswith("%00004%mibun%"))
    lines[i] = lines[i].replace("%00004%", "%00005%")
    with pytest.raises(LogError, match=f"^line {i + 1}: game 00005 where game 00004 was expected"):
        parse_log(lines)


def test_the_header_s_rules_referee_the_log():
    """The same games under a header that says 8s did not cut: refereed so, they part
    from the log at the first 8 played, where the log's trick was cleared."""
    lines = [line.replace("RULE_8GIRI% YES", "RULE_8GIRI% NO") for line in fixture_lines()]
    assert rules_of_log(parse_log(lines)) == UECDA.but(eight_cut=False)
    first = next(r for r in refereed(lines, None) if isinstance(r, Disagreement))
    assert first.turn > 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("RULE_11BACK% MAYBE", "^line 15: RULE_11BACK is YES or NO, not 'MAYBE'"),
        ("FLASH_MIBUN_NUMBER% 0", "^line 19: FLASH_MIBUN_NUMBER 0: tndhms divides by it"),
        ("RULE_SEKIGAE_NUM% 0", "^line 17: RULE_SEKIGAE_NUM 0 with RULE_SEKIGAE YES"),
        ("RULE_SEKIGAE_NUM% ²", "^line 17: RULE_SEKIGAE_NUM is a number of at most 5 digits"),
        ("FLASH_MIBUN_NUMBER% 999999", "^line 19: FLASH_MIBUN_NUMBER is a number of at most 5"),
    ],
)
def test_a_setting_no_match_here_plays_is_refused_naming_its_line(line, message):
    key = line.split("%")[0]
    lines = [f"%-----%{line}\n" if f"%{key}%" in x else x for x in fixture_lines()]
    with pytest.raises(LogError, match=message):
        refereed(lines, None)


def test_a_header_without_a_rule_line_is_refused():
    lines = [x for x in fixture_lines() if "%RULE_6REVERS%" not in x]
    with pytest.raises(LogError, match="^line 1: the header has no RULE_6REVERS line"):
        refereed(lines, None)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("%00002%mibun%", "%0000²%mibun%", "not a header or game key: '0000²'"),
        ("%-----%GAME_NUMBER% 250", "%-----%GAME_NUMBER% 25²", "GAME_NUMBER is 25²"),
        ("%00001%points% ", "%00001%points% ² ", "points are not five numbers"),
    ],
)
def test_a_number_in_the_log_that_is_not_ascii_digits_is_named(old, new, message):
    lines = [line.replace(old, new) if line.startswith(old) else line for line in fixture_lines()]
    assert lines != fixture_lines()
    with pytest.raises(LogError, match=message):
        parse_log(lines)


@pytest.mark.parametrize("seed", ["²", "9" * 5000])
def test_a_seed_that_is_no_number_seeds_nothing_and_the_games_still_referee(seed):
    lines = [
        f"%-----%RANDOM_SEED% {seed}\n" if "%RANDOM_SEED%" in line else line
        for line in fixture_lines()
    ]
    log = parse_log(lines)
    assert seeded_stream(log) is None
    assert all(isinstance(r, Refereed) for r in referee(log, rules_of_log(log)))


# -- tndhms's generator: the seed in the log tells every seating, deal and draw --


def test_the_generator_is_mt19937_seeded_by_init_genrand():
    gen = TndhmsRandom(5489)  # the reference seed: its first int32 is 3499211612
    assert gen.real1() == 3499211612 / 4294967295


def test_a_seed_other_than_the_logs_parts_at_the_first_seating():
    seed = parse_log(fixture_lines()).header["RANDOM_SEED"]
    lines = [
        line.replace(f"RANDOM_SEED% {seed}", f"RANDOM_SEED% {int(seed) + 1}")
        for line in fixture_lines()
    ]
    results = refereed(lines)
    first = results[0]
    assert isinstance(first, Disagreement) and (first.game, first.turn) == (0, 0)
    assert first.engine_says.endswith("(tndhms's generator from RANDOM_SEED)")
    # after a disagreement the generator is no longer followed: the rest referee
    assert all(isinstance(r, Refereed) for r in results[1:])


def test_two_cards_swapped_between_hands_are_not_the_deal_of_the_seed():
    lines = fixture_lines()
    i = next(i for i, line in enumerate(lines) if line.startswith("%00005%palyer_cards%"))
    prefix, text = lines[i].split("% ", 1)
    first, second, *rest = text.split(" ")
    a, b = first[:2], second[:2]
    lines[i] = f"{prefix}% " + " ".join([b + first[2:], a + second[2:], *rest])
    bad = [r for r in refereed(lines) if isinstance(r, Disagreement)]
    assert (bad[0].game, bad[0].turn) == (5, 0)
    assert bad[0].log_says.startswith("player 0 is dealt")


# -- tndhms's logger overflow, and --keep-going ---------------------------------------------

#: A real log of tndhms 0.37 (FLAG_LOGGER), 200 games of four stock clients 0.21 and a client
#: submitting random subsets of its hand (most rejected, each logged): five of its games
#: (32, 73, 102, 137, 163) take more than the logger's 1,000-byte play buffer, so their
#: change_cards lines are the tails of their plays (docs/rules.md "UECda").
OVERFLOW = Path(__file__).parent / "data" / "tndhms-overflow-200.log"
OVERFLOWED = [32, 73, 102, 137, 163]


def overflow_lines() -> list[str]:
    return OVERFLOW.read_text(encoding="ascii").splitlines(keepends=True)


def kept_going(lines: list[str]) -> list[Refereed | Disagreement | Skipped]:
    header = LogReader(lines, keep_going=True)
    for _ in header.games():
        pass
    return list(referee(header.log, games=LogReader(lines, keep_going=True).games()))


def test_a_game_past_tndhms_s_play_buffer_is_named_as_its_overflow():
    with pytest.raises(LogError, match="^line 249: tndhms's logger overflowed: the game's plays "
                       "take 1118 bytes, more than its 1000-byte buffer"):  # fmt: skip
        parse_log(overflow_lines())


def test_keep_going_skips_the_overflowed_games_and_referees_the_others():
    results = kept_going(overflow_lines())
    skipped = [r for r in results if isinstance(r, Skipped)]
    assert [s.number for s in skipped] == OVERFLOWED
    assert all("change_cards line is the tail of its plays" in s.reason for s in skipped)
    # the games after them follow on from their results, points and seats: all agree
    assert [r for r in results if isinstance(r, Disagreement)] == []
    assert sum(isinstance(r, Refereed) for r in results) == 195


def test_the_overflow_is_the_play_line_from_byte_1000_on():
    line = next(x for x in overflow_lines() if x.startswith("%00102%play%"))
    play = line.rstrip("\n").split("% ", 1)[1]  # as written: from the space that begins it
    assert len(play) == 1010
    assert overflowed(play, play[1000:])
    assert overflowed(play[:1000], "NULL")  # a buffer exactly full: its tail is empty
    assert not overflowed(play[:999], "NULL")
    assert not overflowed(play, play[999:])


def test_an_overflow_in_a_rank_period_s_first_game_loses_nothing():
    """A period's first game has no exchange: its overflowed change_cards line is read as NULL."""
    lines = overflow_lines()
    at = next(i for i, x in enumerate(lines) if x.startswith("%00032%mibun%"))
    lines[at] = "%00032%mibun% 22222\n"
    game = next(g for g in LogReader(lines, keep_going=True).games() if g.number == 32)
    assert isinstance(game, LoggedGame) and game.exchange == ()


def test_keep_going_skips_a_game_with_a_garbled_line_and_referees_the_next_unchained():
    lines = fixture_lines()
    at = next(i for i, x in enumerate(lines) if x.startswith("%00007%seat%"))
    lines[at] = lines[at].replace("seat% ", "seat% 9")
    results = kept_going(lines)
    assert str(results[7]).startswith("game 00007: a garbled line: line ")
    assert "seat is not five digits" in str(results[7])
    assert results[7].game is None
    assert [r for r in results if not isinstance(r, Refereed)] == [results[7]]
