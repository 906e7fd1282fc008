"""Long commands show their progress on a terminal (``places/management/progress.py``)."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from places import dealer, services
from places.management.commands import tournament_status
from places.management.progress import Progress
from tests.places.drive import play_out

from .test_tournaments import house_entrants


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_into_a_log_a_line_at_most_every_few_seconds_and_always_the_last():
    out, clock = io.StringIO(), Clock()
    progress = Progress(out, "job", 100, unit="games", every=5, clock=clock)
    for done in range(1, 101):
        clock.now = done * 0.5  # two games a second: 50 s in all
        progress.update(done)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 11  # at 0.5 s, then every 5 s, then the last
    assert lines[0].startswith("job: 1/100 games (1 %)")
    assert lines[-1].startswith("job: 100/100 games (100 %) 2.0 games/s 50 s so far")
    assert lines[5] == "job: 51/100 games (51 %) 2.0 games/s about 24 s left 26 s so far"
    assert "\r" not in out.getvalue()


def test_on_a_terminal_the_line_is_redrawn_in_place():
    out, clock = Terminal(), Clock()
    progress = Progress(out, "job", 3, clock=clock)
    for done in (1, 2, 3):
        clock.now += 1
        progress.update(done, "busy")
    progress.finish("done")
    text = out.getvalue()
    assert text.count("\r") == 4 and text.endswith("; done\n") and text.count("\n") == 1
    assert "job: 2/3 (67 %) 1.0/s about 1 s left 2 s so far; busy" in text


@pytest.mark.django_db
def test_an_export_to_a_file_reports_its_progress_on_stderr(make_place, tmp_path):
    place = make_place(game_count=3)
    services.start_place(place.id)
    play_out(place.id)
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "records.jsonl"
    call_command("export_records", str(place.id), "--out", str(target), stdout=out, stderr=err)
    assert err.getvalue().splitlines()[-1].startswith("export_records: 3/3 games (100 %)")
    assert out.getvalue().strip() == f"3 records of place {place.id} written to {target}"


@pytest.mark.django_db
def test_an_export_to_stdout_keeps_stderr_quiet_unless_it_is_a_terminal(make_place):
    place = make_place(game_count=2)
    services.start_place(place.id)
    play_out(place.id)
    quiet, loud = io.StringIO(), Terminal()
    call_command("export_records", str(place.id), stdout=io.StringIO(), stderr=quiet)
    call_command("export_records", str(place.id), stdout=io.StringIO(), stderr=loud)
    assert quiet.getvalue() == ""
    last_line = loud.getvalue().rsplit("\r", 1)[1]
    assert last_line.startswith("\x1b[2Kexport_records: 2/2 games (100 %)")
    assert last_line.endswith("\n")


@pytest.mark.django_db
def test_follow_shows_a_tournament_s_games_until_it_is_over(monkeypatch):
    t = services.create_tournament("Watched", house_entrants(5), game_count=2, max_running=5)
    services.start_tournament(t.id)
    rounds = []

    def a_dealer_round(_seconds: float) -> None:  # what the server does while we wait
        rounds.append(dealer.tick("test-driver"))

    monkeypatch.setattr(tournament_status, "time", SimpleNamespace(sleep=a_dealer_round))
    out, err = io.StringIO(), io.StringIO()
    call_command("tournament_status", str(t.id), "--follow", "--interval=0", stdout=out, stderr=err)
    lines = err.getvalue().splitlines()
    assert rounds and lines[0].startswith(f"tournament {t.id}: 0/10 games (0 %)")
    assert lines[-1].startswith(f"tournament {t.id}: 10/10 games (100 %)")
    assert lines[-1].endswith("; over")
    assert out.getvalue().startswith(f"tournament {t.id} 'Watched': finished")
