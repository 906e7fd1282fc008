"""The arena (``bots/arena.py``): in-process games on the engine, fair seats, repeatable."""

from __future__ import annotations

import sys
import textwrap

import pytest

from bots import __main__ as bots_cli
from bots.arena import Run, entrant_names, main, standings
from bots.stats import mean_interval
from bots.strategies import ONE_BOOK_ONLY, STRATEGIES, resolve
from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME
from daifugo.view import BOOK_UECDA

SAMPLES = ["greedy", "shedder", "random", "random", "greedy"]


@pytest.fixture
def my_module(tmp_path, monkeypatch):
    """A bot author's module in the current directory: ``mybot:play`` passes when it can."""
    (tmp_path / "mybot.py").write_text(
        textwrap.dedent(
            """
            calls = 0

            def play(hand, table, revolution):
                global calls
                calls += 1
                return None if table is not None else hand & -hand

            def crash(hand, table, revolution):
                raise RuntimeError("my bug")

            def weakest(view):
                return min(view.moves, key=view.strength) if view.moves else None

            not_a_function = 3
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "mybot"
    sys.modules.pop("mybot", None)


def test_the_same_seed_gives_the_same_standings():
    first = Run(SAMPLES, games=60, seed=7, games_per_place=20).play()
    again = Run(SAMPLES, games=60, seed=7, games_per_place=20).play()
    other = Run(SAMPLES, games=60, seed=8, games_per_place=20).play()
    assert [e.points for e in first] == [e.points for e in again]
    assert [e.points for e in first] != [e.points for e in other]


def test_every_game_hands_out_ten_points_and_one_of_each_rank():
    entrants = Run(SAMPLES, games=45, seed=1, games_per_place=10).play()
    assert all(e.games == 45 for e in entrants)
    for game in range(45):
        assert sum(e.points[game] for e in entrants) == 10
    for rank in range(5):
        assert sum(e.ranks[rank] for e in entrants) == 45


def test_each_entrant_sits_in_each_seat_equally_over_five_places():
    entrants = Run(SAMPLES, games=50, seed=1, games_per_place=10).play()
    assert [e.seats for e in entrants] == [[1, 1, 1, 1, 1]] * 5


def test_a_spec_given_twice_is_two_entrants():
    assert entrant_names(SAMPLES) == ["greedy", "shedder", "random", "random#2", "greedy#2"]


def test_a_module_function_of_one_view_is_the_strategy_itself_under_both_books(my_module):
    import mybot

    assert resolve("mybot:weakest") is mybot.weakest
    assert resolve("mybot:weakest", 0, BOOK_UECDA) is mybot.weakest
    for rules in (DAIHINMIN_2011_NAME, UECDA_NAME):
        entrants = Run(["mybot:weakest", *SAMPLES[1:]], 10, 3, 10, rules).play()
        assert entrants[0].games == 10 and entrants[0].failures == 0


def test_a_function_of_the_first_2011_interface_plays_the_2011_book_alone(my_module):
    """``f(hand, table, revolution) -> mask``, the client's first interface, still plays
    2011; under UECda's book it is refused with a reason, not a ``TypeError`` mid-game."""
    import mybot

    entrants = Run(["mybot:play", *SAMPLES[1:]], games=10, seed=3, games_per_place=10).play()
    assert mybot.calls > 0
    assert entrants[0].games == 10 and entrants[0].failures == 0
    with pytest.raises(ValueError, match=r"the 2011 client's first interface.*one view"):
        resolve("mybot:play", 0, BOOK_UECDA)


@pytest.mark.parametrize(
    "spec",
    ["nosuch", "mybot:", ":play", "no_module_here:play", "mybot:missing", "mybot:not_a_function"],
)
def test_specs_that_name_no_strategy_are_refused(my_module, spec):
    with pytest.raises(ValueError):
        resolve(spec)
    with pytest.raises(SystemExit) as exit_:
        main(["--player", spec, *(a for s in SAMPLES[1:] for a in ("--player", s))])
    assert exit_.value.code == 2


def test_the_wire_bot_takes_the_same_specs(my_module, monkeypatch):
    made = {}

    class FakeBot:
        turns_played, results = 0, []

        def __init__(self, server, place, name, password, strategy, **options):
            made["strategy"] = strategy

        def summary(self) -> str:
            return "a: 0 turns"

        async def run(self):
            return None

    monkeypatch.setattr(bots_cli, "Bot", FakeBot)
    monkeypatch.setattr(bots_cli, "run", lambda coroutine: coroutine.close())
    import mybot

    bots_cli.main(["--place", "1", "--name", "a", "--password", "p", "--strategy", "mybot:weakest"])
    assert made["strategy"] is mybot.weakest
    with pytest.raises(SystemExit):
        bots_cli.main(["--place", "1", "--name", "a", "--password", "p", "--strategy", "nosuch"])


def test_a_strategy_that_raises_times_out_and_is_reported(my_module, caplog):
    entrants = Run(["mybot:crash", *SAMPLES[1:]], games=5, seed=2, games_per_place=5).play()
    crashing = entrants[0]
    assert crashing.failures > 0
    assert crashing.misses >= crashing.failures  # each failure is a timeout, a miss
    assert "mybot:crash failed" in caplog.text
    assert "mybot:crash raised or answered no cards" in standings(entrants)


def test_the_command_prints_the_standings(capsys):
    main(
        [
            "--games",
            "20",
            "--games-per-place",
            "10",
            "--seed",
            "5",
            "--quiet",
            *(a for s in SAMPLES for a in ("--player", s)),
        ]
    )
    out = capsys.readouterr().out
    assert "20 games in 2 places" in out and "seed 5" in out
    for name in ["greedy", "shedder", "random", "random#2", "greedy#2"]:
        assert f" {name} " in out
    assert "95% interval" in out


def test_five_players_exactly():
    with pytest.raises(SystemExit):
        main(["--player", "greedy", "--games", "5"])


def test_the_interval_of_a_known_sample():
    # mean 2, sample sd sqrt(2.5) = 1.5811, n 5: 1.96 * 1.5811 / sqrt(5) = 1.3859
    i = mean_interval([0, 1, 2, 3, 4])
    assert i.mean == 2
    assert i.half_width == pytest.approx(1.38590, abs=1e-4)
    assert mean_interval([3]).low == mean_interval([3]).high == 3


def test_every_sample_strategy_is_resolved_by_name_under_the_books_its_moves_exist_in():
    for name in STRATEGIES:
        assert callable(resolve(name, 1, BOOK_UECDA))
        if name in ONE_BOOK_ONLY:
            with pytest.raises(ValueError, match="plays the uecda rules only"):
                resolve(name, 1)
        else:
            assert callable(resolve(name, 1))


def test_the_standings_say_why_an_entrant_missed(my_module, tmp_path):
    (tmp_path / "passer.py").write_text("def play(hand, table, revolution):\n    return None\n")
    entrants = Run(["passer:play", *SAMPLES[1:]], games=10, seed=4, games_per_place=10).play()
    passer = entrants[0]
    assert passer.misses > 0
    assert passer.miss_reasons == {"PASS_ON_LEAD": passer.misses}  # it never plays: it leads
    assert f"passer:play missed: PASS_ON_LEAD {passer.misses}" in standings(entrants)
    sys.modules.pop("passer", None)


def test_every_option_of_both_commands_says_what_it_does(monkeypatch):
    import argparse

    parsers = []
    parse = argparse.ArgumentParser.parse_args

    def keep(parser, args=None, namespace=None):
        parsers.append(parser)
        return parse(parser, args, namespace)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", keep)
    for command in (main, bots_cli.main):
        with pytest.raises(SystemExit):
            command(["--help"])
    assert [p.prog for p in parsers] == ["python -m bots.arena", "python -m bots"]
    for parser in parsers:
        silent = [a.option_strings for a in parser._actions if not a.help]
        assert not silent, f"{parser.prog}: no help for {silent}"


def test_the_wire_bot_ends_with_its_ranks_and_points():
    from bots.client import Bot

    bot = Bot("http://s", 1, "alice", "pw", resolve("greedy"))
    bot.turns_played, bot.results = 12, {"play": 9, "pass": 3}
    for rank in (1, 3, 1, 5):
        bot.on_event(
            {"player": "alice", "rank": {"rank": {"rank": rank}}, "operation": "end_player",
             "place": 1}
        )  # fmt: skip
    bot.on_event({"player": "bob", "rank": {"rank": {"rank": 2}}, "operation": "end_player",
                  "place": 1})  # fmt: skip
    assert bot.summary() == (
        "alice: 12 turns (play 9, pass 3, miss 0); 4 games (1st 2, 2nd 0, 3rd 1, 4th 0, 5th 1);"
        " 10 points (2.50 a game)"
    )


@pytest.mark.parametrize("server", ["127.0.0.1:4248²", "127.0.0.1:٣", "127.0.0.1:" + "9" * 5000])
def test_a_uecda_port_that_is_no_ascii_number_is_a_usage_error(server, capsys):
    with pytest.raises(SystemExit) as e:
        bots_cli.main(["--transport", "uecda", "--server", server])
    assert e.value.code == 2 and "not HOST:PORT" in capsys.readouterr().err
