"""UECda places: the rules on places and tournaments, and ``import_tndhms_log``.

The committed log (tests/daifugo/data/tndhms-250.log, 250 games of five stock
clients, 8 of them ended by the 20-pass draw) is imported as CI runs.
"""

from __future__ import annotations

import io
import json
import tracemalloc
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import transaction
from django.utils import timezone

from bench.tndhms_logs import junk_log, valid_log, write
from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME
from daifugo.uecda_log import parse_log, referee
from daifugo.uecda_record import record_of_logged
from places import errors, services
from places.models import Game, Place, Player, Rank, Rating, RatingChange, Tournament
from places.reads import standings
from places.reads.profiles import profile
from places.reads.tournaments import tournament
from places.services import uecda
from places.services.profiles import count_place_games, recount

FIXTURE = Path(__file__).resolve().parents[1] / "daifugo" / "data" / "tndhms-250.log"
OVERFLOW = FIXTURE.with_name("tndhms-overflow-200.log")
OVERFLOWED = [32, 73, 102, 137, 163]  # its games past tndhms's play buffer
#: The log's TOTAL_POINT, players 0-4.
TOTAL_POINT = [772, 704, 763, 748, 763]
TURNS = 18302  # submissions in the log's play lines
DRAWS = 8


def fixture_bytes() -> bytes:
    return FIXTURE.read_bytes()


def tampered(game: int, key: str, change) -> bytes:
    lines = FIXTURE.read_text(encoding="ascii").splitlines(keepends=True)
    prefix = f"%{game:05d}%{key}%"
    i = next(i for i, line in enumerate(lines) if line.startswith(prefix))
    lines[i] = change(lines[i])
    return "".join(lines).encode("ascii")


def wrong_player_in_game_3() -> bytes:
    """Game 3's second submission made by the next player: the engine says whose turn it is."""
    log = parse_log(FIXTURE.read_text(encoding="ascii").splitlines())
    second = log.games[3].plays[1]
    token = f" {second.player}{second.text}EE"
    wrong = f" {(second.player + 1) % 5}{second.text}EE"
    return tampered(3, "play", lambda line: line.replace(token, wrong, 1))


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def nothing_written() -> bool:
    return not (
        Place.objects.exists()
        or Game.objects.exists()
        or get_user_model().objects.filter(username__startswith="stock").exists()
    )


# -- the rules on the models ------------------------------------------------------------


def test_places_and_tournaments_are_played_by_the_2011_rules_unless_said(make_place, users):
    place = make_place()
    assert place.rules == DAIHINMIN_2011_NAME
    assert standings.status(place)["rules"] == DAIHINMIN_2011_NAME
    t = services.create_tournament("Cup", [u.username for u in users], game_count=1)
    assert Tournament.objects.get(pk=t.pk).rules == DAIHINMIN_2011_NAME
    assert tournament(t.pk).as_dict()["rules"] == DAIHINMIN_2011_NAME


def test_the_admin_shows_and_filters_the_rules(admin_client, make_place):
    make_place()
    uecda.import_tndhms_log(fixture_bytes())
    page = admin_client.get("/admin/places/place/", {"rules__exact": UECDA_NAME})
    text = page.content.decode()
    assert "tndhms 20261126-1134" in text and "Test place" not in text
    imported = Place.objects.get(rules=UECDA_NAME)
    page = admin_client.get(f"/admin/places/place/{imported.pk}/change/")
    assert "UECda (tndhms&#x27;s defaults)" in page.content.decode()


# -- import_tndhms_log ----------------------------------------------------------------------


def test_the_fixture_log_becomes_a_finished_uecda_place(db):
    out, err = run("import_tndhms_log", str(FIXTURE))
    place = Place.objects.get()
    assert out.startswith(
        f"place {place.id} 'tndhms 20261126-1134': 250 of 250 games, {TURNS} turns"
    )
    assert "250/250 games" in err  # the progress line, on stderr
    assert (place.rules, place.state, place.game_count, place.rated) == (
        UECDA_NAME,
        Place.State.FINISHED,
        250,
        False,
    )
    assert place.seed == "1795692865"
    players = list(Player.objects.filter(place=place).order_by("seat"))
    assert [p.name for p in players] == ["stock0", "stock1", "stock2", "stock3", "stock4"]
    assert not any(p.user.has_usable_password() for p in players)
    games = Game.objects.filter(place=place).order_by("no")
    assert games.count() == 250 and {g.status for g in games} == {Game.FINISHED}
    records = [g.record for g in games]
    assert [r["game"] for r in records] == list(range(1, 251))
    assert {r["version"] for r in records} == {2}
    assert sum(r["end"] == "draw" for r in records) == DRAWS
    assert sum(len(r["actions"]) for r in records) == TURNS
    assert Rank.objects.filter(game__place=place).count() == 1250
    # the standings are the log's total points; the rank counts its results
    status = standings.status(place)
    assert status["rules"] == UECDA_NAME and status["games_played"] == 250
    by_name = {s["name"]: s for s in status["standings"]}
    assert [by_name[f"stock{p}"]["points"] for p in range(5)] == TOTAL_POINT
    assert all(sum(s["rank_counts"]) == 250 for s in status["standings"])
    # unrated: no rating moved
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    # the profile counts the UECda points (5 … 1), as the log does
    found = profile("stock0")
    assert (found.games, found.points) == (250, TOTAL_POINT[0])
    recount()  # added up again from the records: still the UECda points
    assert profile("stock0").as_dict() == found.as_dict()


def test_a_rated_import_rates_every_game(db):
    run("import_tndhms_log", str(FIXTURE), "--rated")
    assert Place.objects.get().rated
    assert RatingChange.objects.count() == 1250
    assert Rating.objects.get(user__username="stock0").games == 250


def test_the_same_log_twice_is_refused_and_not_doubled(db):
    run("import_tndhms_log", str(FIXTURE))
    place = Place.objects.get()
    with pytest.raises(CommandError, match=f"this log was imported as place {place.id}"):
        run("import_tndhms_log", str(FIXTURE))
    assert Place.objects.count() == 1 and Game.objects.count() == 250


def with_header(line: str, value: str) -> bytes:
    """The fixture log with one header line's value changed (in UTF-8)."""
    text = FIXTURE.read_text(encoding="ascii")
    old = next(x for x in text.splitlines() if x.startswith(f"%-----%{line}% "))
    return text.replace(old + "\n", f"%-----%{line}% {value}\n").encode()


@pytest.mark.parametrize("value", ["²", "9" * 5000])
def test_a_setting_that_is_no_ascii_number_is_invalid_log_naming_its_line(db, tmp_path, value):
    bad = tmp_path / "bad.log"
    bad.write_bytes(with_header("RULE_SEKIGAE_NUM", value))
    with pytest.raises(CommandError, match="^line 17: RULE_SEKIGAE_NUM is a number of at most"):
        run("import_tndhms_log", str(bad))
    with pytest.raises(errors.Refused) as e:
        uecda.import_tndhms_log(bad.read_bytes())
    assert e.value.code == errors.INVALID_LOG
    assert nothing_written()


def test_a_seed_that_is_no_ascii_number_is_not_followed_and_the_log_imports(db):
    """tndhms's seed is ``time(NULL)``: a ``RANDOM_SEED`` of ``²`` seeds no generator (the
    seatings and deals go unchecked, as with no seed), and the games are refereed."""
    done = uecda.import_tndhms_log(with_header("RANDOM_SEED", "²"))
    assert done.games == 250 and not done.left_out


def test_a_game_the_engine_plays_otherwise_names_it_and_writes_nothing(db, tmp_path):
    bad = tmp_path / "bad.log"
    bad.write_bytes(wrong_player_in_game_3())
    with pytest.raises(CommandError) as e:
        run("import_tndhms_log", str(bad))
    message = str(e.value)
    assert message.startswith("1 of 250 games are not as the engine plays them:")
    assert "game 00003, turn 2: the log says player" in message
    assert "is to move" in message
    assert nothing_written()


def test_the_disagreement_is_refused_with_its_code(db):
    with pytest.raises(errors.Refused) as e:
        uecda.import_tndhms_log(wrong_player_in_game_3())
    assert e.value.code == errors.LOG_DISAGREES
    assert nothing_written()


def test_keep_going_imports_the_games_that_agree_and_lists_the_others(db, tmp_path):
    bad = tmp_path / "bad.log"
    bad.write_bytes(wrong_player_in_game_3())
    out, _ = run("import_tndhms_log", str(bad), "--keep-going")
    assert ": 249 of 250 games," in out.splitlines()[0]
    assert out.splitlines()[1] == (
        "1 not imported (a garbled line, or the engine plays them otherwise):"
    )
    assert out.splitlines()[2].startswith("  game 00003, turn 2: the log says player")
    place = Place.objects.get()
    numbers = list(Game.objects.filter(place=place).values_list("no", flat=True))
    assert 4 not in numbers and len(numbers) == 249
    assert standings.status(place)["games_played"] == 250  # the last game is 250


def test_keep_going_imports_a_log_with_tndhms_s_overflow_and_names_each_game_left_out(db, client):
    """tests/daifugo/data/tndhms-overflow-200.log: a real tndhms log whose five long games
    overflowed its logger's play buffer (tests/daifugo/test_uecda_log.py says how it was made)."""
    out, _ = run("import_tndhms_log", str(OVERFLOW), "--keep-going")
    lines = out.splitlines()
    assert ": 195 of 200 games," in lines[0]
    assert lines[1] == "5 not imported (a garbled line, or the engine plays them otherwise):"
    assert [line[:13] for line in lines[2:]] == [f"  game {n:05d}:" for n in OVERFLOWED]
    assert lines[2] == (
        "  game 00032: a garbled line: line 249: tndhms's logger overflowed: the game's plays"
        " take 1118 bytes, more than its 1000-byte buffer (server/src/logger.c), so its"
        " change_cards line is the tail of its plays and its exchange is lost"
    )
    place = Place.objects.get()
    numbers = set(Game.objects.filter(place=place).values_list("no", flat=True))
    assert numbers == set(range(1, 201)) - {n + 1 for n in OVERFLOWED}  # the log counts from 0
    assert Rank.objects.filter(game__place=place).count() == 195 * 5
    page = client.get(f"/places/{place.id}/results").content.decode()
    assert "195 of 200 games played" in page
    assert "These standings cover the 195 games imported of the log's 200" in page


def test_without_keep_going_the_overflow_is_named_and_nothing_written(db):
    with pytest.raises(CommandError, match="^line 249: tndhms's logger overflowed: "):
        run("import_tndhms_log", str(OVERFLOW))
    assert nothing_written()


def test_a_whole_import_says_nothing_of_games_left_out(db, client):
    place = uecda.import_tndhms_log(fixture_bytes()).place
    assert 'id="left-out"' not in client.get(f"/places/{place.id}/results").content.decode()


@pytest.mark.parametrize(
    ("cut", "line"),
    [(1000, "line 1000: the log is cut short in game"), (30, "line 30: the log is cut short")],
)
def test_a_log_cut_short_names_its_line_and_writes_nothing(db, tmp_path, cut, line):
    short = tmp_path / "short.log"
    short.write_bytes(b"".join(fixture_bytes().splitlines(keepends=True)[:cut]))
    with pytest.raises(CommandError, match=f"^{line}"):
        run("import_tndhms_log", str(short))
    assert nothing_written()


def test_a_malformed_line_is_named(db, tmp_path):
    bad = tmp_path / "bad.log"
    bad.write_bytes(tampered(7, "seat", lambda line: line.replace("seat% ", "seat% 9")))
    with pytest.raises(CommandError, match=r"^line \d+: seat is not five digits"):
        run("import_tndhms_log", str(bad))
    assert nothing_written()


def test_a_log_that_is_not_utf8_names_the_line(db):
    data = fixture_bytes().replace(b"stock2", b"stock\xff", 1)
    with pytest.raises(errors.Refused, match="^line 3: not UTF-8 text") as e:
        uecda.import_tndhms_log(data)
    assert e.value.code == errors.INVALID_LOG


def test_a_player_name_the_site_refuses_names_its_line(db):
    """The one rule of new names (``accounts.check_new_name``): ``x.json`` would have a
    profile no route reaches."""
    data = fixture_bytes().replace(b"stock2", b"stock2.json", 1)
    with pytest.raises(errors.Refused, match="^line 3: 'stock2.json' is no user name") as e:
        uecda.import_tndhms_log(data)
    assert e.value.code == errors.INVALID_LOG
    assert nothing_written()


def test_an_unreadable_file_is_one_line(db, tmp_path):
    with pytest.raises(CommandError, match="^cannot read .*missing.log"):
        run("import_tndhms_log", str(tmp_path / "missing.log"))


def test_known_users_keep_their_password(db):
    user = get_user_model().objects.create_user("stock1", password="pw")
    uecda.import_tndhms_log(fixture_bytes(), title="Known")
    user.refresh_from_db()
    assert user.check_password("pw")
    assert Player.objects.get(user=user).seat == 1


def test_the_place_status_json_of_an_imported_place(db):
    run("import_tndhms_log", str(FIXTURE))
    place = Place.objects.get()
    data = json.loads(run("place_status", str(place.id), "--json")[0])
    assert (data["rules"], data["state"], data["games_played"]) == (UECDA_NAME, "finished", 250)


def test_finished_games_are_stored_one_unit_at_a_time(db):
    """The unit a UECda server writes as each game ends: the Game row with its record,
    its Rank rows and the points, the place running until the last."""
    log = parse_log(FIXTURE.read_text(encoding="ascii").splitlines())
    done = list(referee(log))[:3]
    model = get_user_model()
    users = [model.objects.create_user(name) for name in log.names]
    place = Place.objects.create(title="Live", game_count=3, rules=UECDA_NAME)
    players = Player.objects.bulk_create(
        Player(place=place, user=user, seat=p) for p, user in enumerate(users)
    )
    head = {"id": place.id, "title": place.title, "games": 3}
    for i, game in enumerate(done):
        with transaction.atomic():
            locked = Place.objects.select_for_update().get(pk=place.pk)
            record = record_of_logged(log, game, head)
            uecda.store_finished_games(locked, players, [record], timezone.now(), over=i == 2)
        status = standings.status(Place.objects.get(pk=place.pk))
        assert status["games_played"] == i + 1
        by_name = {s["name"]: s["points"] for s in status["standings"]}
        assert [by_name[n] for n in log.names] == list(log.games[i].points)
    assert RatingChange.objects.count() == 15  # a place is rated unless said otherwise
    assert Game.objects.get(place=place, no=2).record["ranks_before"] is not None


def test_a_match_counts_its_games_in_profiles_in_batches_and_its_abort_the_rest(db):
    """A TCP match stores each game as it ends and counts them in its players' profiles
    once in a while (``count``): what a player's row counts tells which are left, so a
    write that counts, and the abort of a match cut short, count each game once."""
    log = parse_log(FIXTURE.read_text(encoding="ascii").splitlines())
    place_id = uecda.open_match("Batches", 10, "", log.names, False)
    head = {"id": place_id, "title": "Batches", "games": 10}
    records = [record_of_logged(log, game, head) for game in list(referee(log))[:4]]

    def counted() -> tuple[list[int], int]:
        games = sorted(Player.objects.filter(place_id=place_id).values_list("games", flat=True))
        return games, profile("stock0").games

    players = uecda.store_match_games(place_id, records[:1], False, count=False)
    uecda.store_match_games(place_id, records[1:2], False, players, count=False)
    assert counted() == ([0] * 5, 0)
    uecda.store_match_games(place_id, records[2:3], False, players)  # counts the three
    assert counted() == ([3] * 5, 3)
    uecda.store_match_games(place_id, records[3:4], False, players, count=False)
    services.stop_place(place_id)
    assert counted() == ([4] * 5, 4)
    assert count_place_games(place_id) == 0  # nothing is counted twice
    found = profile("stock0").as_dict()
    recount()
    assert profile("stock0").as_dict() == found


def test_a_long_log_is_written_a_part_at_a_time_to_the_same_end(db, monkeypatch):
    monkeypatch.setattr(uecda, "WRITTEN_AT_ONCE", 100)  # 250 games: three parts
    place = uecda.import_tndhms_log(fixture_bytes()).place
    status = standings.status(place)
    assert (status["state"], status["games_played"]) == ("finished", 250)
    by_name = {s["name"]: s["points"] for s in status["standings"]}
    assert [by_name[f"stock{p}"] for p in range(5)] == TOTAL_POINT
    assert Game.objects.filter(place=place).count() == 250


def test_a_log_of_rules_no_match_here_plays_names_the_setting_and_writes_nothing(db, tmp_path):
    other = tmp_path / "other.log"
    other.write_bytes(fixture_bytes().replace(b"FLASH_MIBUN_NUMBER% 100", b"FLASH_MIBUN_NUMBER% 0"))
    with pytest.raises(CommandError, match=r"^line 19: FLASH_MIBUN_NUMBER 0: tndhms divides by it"):
        run("import_tndhms_log", str(other))
    assert nothing_written()


def test_a_log_of_a_variant_makes_a_place_of_that_variant(db, tmp_path):
    """The header says the lock was off; the stock clients never submit what a lock
    refuses, so the same games referee alike without it."""
    other = tmp_path / "other.log"
    other.write_bytes(fixture_bytes().replace(b"RULE_SHIBARI% YES", b"RULE_SHIBARI% NO"))
    imported = uecda.import_tndhms_log(other.read_bytes())
    place = imported.place
    assert (place.rules, place.variant, place.rules_label) == ("uecda", "no-lock", "uecda+no-lock")
    record = place.games.order_by("no").first().record
    assert (record["rules"], record["variant"]) == ("uecda", "no-lock")


def test_a_title_too_long_is_refused_before_anything_is_written(db):
    with pytest.raises(errors.Refused, match="the title must have 1 to 20 characters") as e:
        uecda.import_tndhms_log(fixture_bytes(), title="x" * 21)
    assert e.value.code == errors.INVALID_PLACE
    assert nothing_written()


def test_the_tournament_admin_shows_the_rules(admin_client, users):
    services.create_tournament("Cup", [u.username for u in users], game_count=1)
    page = admin_client.get("/admin/places/tournament/").content.decode()
    assert "column-rules" in page and "daihinmin 2011 (the platform&#x27;s rules)" in page


def test_a_match_s_players_take_names_the_site_allows(db):
    """A client's name the site refuses becomes ``uecda-P``; a name taken earlier in the
    match ``NAME-P`` (``places.services.uecda.open_match``)."""
    place_id = uecda.open_match("TCP", 2, "", ["x.json", "stock", "stock", "..", "eve"], False)
    names = list(Player.objects.filter(place_id=place_id).order_by("seat").values_list(
        "user__username", flat=True
    ))  # fmt: skip
    assert names == ["uecda-0", "stock", "stock-2", "uecda-3", "eve"]
    assert not any(p.user.has_usable_password() for p in Player.objects.filter(place_id=place_id))


# -- a log of any size, read as it goes (issue 36, item 10) --------------------------------


class Tripwire(io.BytesIO):
    """A log that may be read only up to byte ``limit``: reading past it fails the test."""

    def __init__(self, data: bytes, limit: int):
        super().__init__(data)
        self.limit = limit

    def _checked(self, got):
        if self.tell() > self.limit:
            raise AssertionError(f"read to byte {self.tell()}, past {self.limit}")
        return got

    def read(self, size=-1):
        return self._checked(super().read(size))

    def readline(self, size=-1):
        return self._checked(super().readline(size))

    def readlines(self, hint=-1):
        return self._checked(super().readlines(hint))

    def __next__(self):
        return self._checked(super().__next__())


def test_a_log_whose_first_line_is_junk_is_refused_at_line_1_unread_past_it(db):
    junk = "".join(junk_log(10_000)).encode("ascii")  # 7 MB of no log at all
    with pytest.raises(errors.Refused, match=r"^line 1: not a log line") as e:
        uecda.import_tndhms_log(Tripwire(junk, limit=4096))
    assert e.value.code == errors.INVALID_LOG
    assert nothing_written()


def test_a_large_junk_log_is_refused_in_a_few_hundred_kilobytes(db, tmp_path):
    path = tmp_path / "junk.log"
    write(junk_log(30_000), path)  # 21 MB
    tracemalloc.start()
    try:
        with pytest.raises(CommandError, match=r"^line 1: not a log line"):
            run("import_tndhms_log", str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 512 * 1024, f"{peak:,} bytes at most"
    assert nothing_written()


def test_a_line_longer_than_any_log_line_is_refused_unread(db, monkeypatch):
    monkeypatch.setattr(uecda, "MAX_LOG_LINE", 1000)
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    lines[2] = b"%-----%palyer_name% " + b"x" * 100_000 + b"\n"
    with pytest.raises(errors.Refused, match=r"^line 3: longer than 1000 bytes") as e:
        uecda.import_tndhms_log(Tripwire(b"".join(lines), limit=4096))
    assert e.value.code == errors.INVALID_LOG
    assert nothing_written()


def peak_of_import(data: bytes, title: str) -> int:
    tracemalloc.start()
    try:
        done = uecda.import_tndhms_log(data, title=title)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert done.games == Game.objects.filter(place=done.place).count()
    return peak


def test_the_memory_of_an_import_does_not_grow_with_the_games(db, monkeypatch):
    """Five times the games, about the same peak: a log is read, refereed and written a
    part at a time (here parts of 20 games, to keep the test short)."""
    monkeypatch.setattr(uecda, "WRITTEN_AT_ONCE", 20)
    small = "".join(valid_log(100)).encode("ascii")
    large = "".join(valid_log(500)).encode("ascii")
    peak_small = peak_of_import(small, "small")  # imported first: what is made once, counted
    peak_large = peak_of_import(large, "large")
    assert peak_large < 1.5 * peak_small, (
        f"{peak_large:,} bytes for 500 games, {peak_small:,} for 100"
    )
