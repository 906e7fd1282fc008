"""Game analysis (docs/analysis.md): ``manage.py analyse`` on a seeded place of each rules
profile, the jobs the replay page queues (taken again after a dead worker's lease), and
``analysis.json``: served valid against its schema, never for a game in play or held back."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from daifugo.record_schema import analysis_errors
from places import analyst, errors, services
from places.models import Game, GameAnalysis, Place
from places.services import uecda
from places.services.analysis import request_analysis

from .drive import play_out
from .test_records import play_until
from .test_uecda_import import fixture_bytes

pytestmark = pytest.mark.django_db

PLAYOUTS = "20"


def analysed(place_id: int, games: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(
        "analyse",
        str(place_id),
        "--games",
        games,
        "--playouts",
        PLAYOUTS,
        "--workers",
        "1",
        stdout=out,
        stderr=err,
    )
    return out.getvalue(), err.getvalue()


@pytest.fixture
def finished_2011(make_place) -> Place:
    place = make_place(game_count=2, seed="analysis")
    services.start_place(place.id)
    play_out(place.id)
    return place


@pytest.fixture
def imported(db) -> Place:
    return uecda.import_tndhms_log(fixture_bytes()).place


def test_analyse_a_2011_place(client, finished_2011):
    out, err = analysed(finished_2011.id, "1-2")
    assert out.count("\n") == 2 and out.startswith("game 1: ")
    assert "analyse game 2: " in err and "decisions" in err  # the progress bar
    document = client.get(f"/places/{finished_2011.id}/games/2/analysis.json").json()
    assert analysis_errors(document) == []
    assert document["rules"] == "daihinmin-2011" and document["playouts"] == 20
    assert document["policy"] == "greedy"
    judged = [d for d in document["decisions"] if "candidates" in d]
    assert document["evaluator"] == {"version": 2, "inference": False, "seed": 0}
    losses = [d for d in judged if d["loss"] is not None]
    assert losses and all(d["loss_se"] >= 0 for d in losses)
    assert all(d["loss"] > 3 * d["loss_se"] for d in losses if d["mark"])
    assert [p["name"] for p in document["players"]] == [
        s.name for s in finished_2011.players.order_by("seat")
    ]


def test_analyse_a_uecda_place_is_seeded(client, imported):
    analysed(imported.id, "3")
    first = client.get(f"/places/{imported.id}/games/3/analysis.json").json()
    assert analysis_errors(first) == [] and first["rules"] == "uecda"
    assert first["policy"] == "stock"  # as the stock client plays, the UECda profile's
    marked = [d for d in first["decisions"] if d.get("mark")]
    assert all(d["loss"] >= 0.2 for d in marked)
    player = first["players"][0]
    assert player["total_loss"] == pytest.approx(
        sum(
            d["loss"] for d in first["decisions"] if d["player"] == 0 and d.get("loss") is not None
        ),
        abs=1e-3,
    )
    analysed(imported.id, "3")  # again: the same numbers
    assert client.get(f"/places/{imported.id}/games/3/analysis.json").json() == first


@pytest.fixture
def twins(make_place) -> tuple[Place, Place]:
    """Two places dealt by one seed: the first played out, the second in its second game."""
    first = make_place(game_count=2, seed="twin")
    second = make_place(game_count=2, seed="twin", pace=None)
    services.start_place(first.id)
    play_out(first.id)
    services.start_place(second.id)
    play_until(second.id, 2)
    return first, second


@pytest.fixture
def member(db) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_user("analyst-user", password="pw-12345"))
    return client


def refused(response, code: errors.Code) -> None:
    assert response.status_code == code.status
    assert response.json()["error"]["code"] == code


def test_a_held_back_game_s_analysis_is_refused(client, member, twins):
    first, _ = twins
    analysed(first.id, "1-2")  # the operator may analyse it: staff see every game
    assert client.get(f"/places/{first.id}/games/1/analysis.json").status_code == 200
    refused(client.get(f"/places/{first.id}/games/2/analysis.json"), errors.HELD_BACK)
    GameAnalysis.objects.filter(game__place=first, game__no=2).delete()
    refused(member.post(f"/places/{first.id}/games/2/analysis.json"), errors.HELD_BACK)
    assert not GameAnalysis.objects.filter(game__place=first, game__no=2).exists()


def test_a_game_in_play_is_never_analysed(client, member, twins):
    _, second = twins
    assert Game.objects.get(place=second, no=2).status == Game.RUNNING
    refused(client.get(f"/places/{second.id}/games/2/analysis.json"), errors.NOT_FOUND)
    refused(member.post(f"/places/{second.id}/games/2/analysis.json"), errors.NOT_FOUND)
    with pytest.raises(errors.Refused) as caught:
        request_analysis(
            get_user_model().objects.get(username="analyst-user").pk, second.id, 2, staff=True
        )
    assert caught.value.code == errors.NOT_FOUND
    assert not GameAnalysis.objects.filter(game__place=second).exists()


def test_the_replay_page_s_job_is_taken_again_after_a_dead_worker_s_lease(
    client, member, imported, settings
):
    settings.ANALYSIS_PLAYOUTS = 20
    base = f"/places/{imported.id}/games"
    refused(client.post(f"{base}/4/analysis.json"), errors.NOT_LOGGED_IN)
    queued = member.post(f"{base}/4/analysis.json")
    assert queued.status_code == 202 and queued.json()["state"] == "queued"
    assert client.get(f"{base}/4/analysis.json").status_code == 202
    # one at a time per user
    refused(member.post(f"{base}/5/analysis.json"), errors.ANALYSIS_UNDER_WAY)

    job = analyst.claim("dead-process")  # a process claims it, then dies
    assert job is not None and job.state == GameAnalysis.State.RUNNING
    assert analyst.work_once("live-process") is False  # its lease holds
    GameAnalysis.objects.filter(pk=job.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert analyst.work_once("live-process") is True  # taken again, made
    done = GameAnalysis.objects.get(pk=job.pk)
    assert done.state == GameAnalysis.State.DONE and done.worker == "live-process"
    assert done.done_decisions == done.decisions > 0
    assert analyst.run(job, "dead-process") is False  # the dead worker's work is void
    document = client.get(f"{base}/4/analysis.json").json()
    assert analysis_errors(document) == [] and document == done.result


def test_analyses_a_user_asks_for_are_bounded_per_window(member, imported, settings):
    settings.ANALYSIS_PLAYOUTS = 20
    settings.ANALYSES_PER_WINDOW = 1
    base = f"/places/{imported.id}/games"
    assert member.post(f"{base}/6/analysis.json").status_code == 202
    assert analyst.work_once("worker")
    again = member.post(f"{base}/6/analysis.json")  # done: the analysis there is
    assert again.status_code == 200 and again.json()["state"] == "done"
    response = member.post(f"{base}/7/analysis.json")
    refused(response, errors.TOO_MANY_ANALYSES)
    assert 1 <= int(response["Retry-After"]) <= 3600
    assert not GameAnalysis.objects.filter(game__no=7).exists()


def test_the_results_page_and_the_profile_show_the_accuracy_of_analysed_games(
    client, finished_2011
):
    """Pooled over the games analysed: the share of judged decisions without a mark, the
    loss a decision; the same figures on the player's profile."""
    assert 'id="accuracy"' not in client.get(f"/places/{finished_2011.id}/results").content.decode()
    analysed(finished_2011.id, "1-2")
    documents = [
        client.get(f"/places/{finished_2011.id}/games/{n}/analysis.json").json() for n in (1, 2)
    ]
    name = documents[0]["players"][0]["name"]
    mine = [next(p for p in d["players"] if p["name"] == name) for d in documents]
    decisions = sum(p["decisions"] for p in mine)
    clean = decisions - sum(sum(p["marks"].values()) for p in mine)
    expected = f"{round(100 * clean / decisions, 1)} %"
    mean = f"{sum(p['total_loss'] for p in mine) / decisions:.3f}"

    page = client.get(f"/places/{finished_2011.id}/results").content.decode()
    assert "Over the 2 games analysed" in page
    row = page.split(f'<tr data-name="{name}"><td>{name}</td>', 1)[1].split("</tr>", 1)[0]
    cells = [c.split(">", 1)[1].split("<", 1)[0] for c in row.split("<td")[1:]]
    assert cells == ["2", str(decisions), expected, mean]

    profile = client.get(f"/users/{name}").content.decode()
    section = profile.split('id="accuracy"', 1)[1].split("</section>", 1)[0]
    assert f'<td class="num">{decisions}</td>' in section and expected in section


def test_the_accuracy_leaves_out_the_games_held_back(client, twins):
    first, _ = twins
    analysed(first.id, "1-2")  # game 2 is still to be played in the twin place
    page = client.get(f"/places/{first.id}/results").content.decode()
    assert "Over the 1 game analysed" in page
    name = first.players.order_by("seat").first().user.username
    section = client.get(f"/users/{name}").content.decode().split('id="accuracy"', 1)[1]
    assert '<td class="num">1</td>' in section.split("</tr>", 2)[1]  # one game analysed


# -- the queue's bounds per address and its order (issue 44, items 4 and 5) ----------------


def accounts(n: int, address: str = "127.0.0.1", prefix: str = "sock") -> list[Client]:
    """``n`` new accounts, each logged in from ``address``."""
    model = get_user_model()
    clients = []
    for i in range(n):
        client = Client(REMOTE_ADDR=address)
        client.force_login(model.objects.create_user(f"{prefix}-{i}", password="pw-12345"))
        clients.append(client)
    return clients


def test_ten_accounts_of_one_address_queue_two_analyses_and_the_rest_wait(imported, settings):
    """Before: ten accounts of one address queued ten analyses, and a victim's waited for all
    ten (about 12 minutes at the default playouts)."""
    settings.ANALYSIS_PLAYOUTS = 20
    assert settings.ANALYSES_UNDER_WAY_PER_ADDRESS == 2  # the default
    base = f"/places/{imported.id}/games"
    answers = [c.post(f"{base}/{10 + i}/analysis.json") for i, c in enumerate(accounts(10))]
    assert [a.status_code for a in answers] == [202] * 2 + [409] * 8
    for response in answers[2:]:
        refused(response, errors.ADDRESS_ANALYSES_UNDER_WAY)
    assert GameAnalysis.objects.filter(state=GameAnalysis.State.QUEUED).count() == 2
    assert set(GameAnalysis.objects.values_list("requested_from", flat=True)) == {"127.0.0.1"}
    # another address is not held by this one's
    (victim,) = accounts(1, "192.0.2.7", "victim")
    assert victim.post(f"{base}/30/analysis.json").status_code == 202
    # one of the address's jobs done: it may queue one more
    assert analyst.work_once("worker")
    (late,) = accounts(1, prefix="late")
    assert late.post(f"{base}/31/analysis.json").status_code == 202
    (later,) = accounts(1, prefix="later")
    refused(later.post(f"{base}/32/analysis.json"), errors.ADDRESS_ANALYSES_UNDER_WAY)


def test_what_one_address_asks_for_is_bounded_per_window(imported, settings):
    settings.ANALYSIS_PLAYOUTS = 20
    settings.ANALYSES_UNDER_WAY_PER_ADDRESS = 10
    settings.ANALYSES_PER_ADDRESS = 3
    base = f"/places/{imported.id}/games"
    answers = [c.post(f"{base}/{40 + i}/analysis.json") for i, c in enumerate(accounts(4))]
    assert [a.status_code for a in answers[:3]] == [202] * 3
    refused(answers[3], errors.TOO_MANY_ADDRESS_ANALYSES)
    assert 1 <= int(answers[3]["Retry-After"]) <= settings.ANALYSES_WINDOW
    assert not GameAnalysis.objects.filter(game__no=43).exists()


def test_staff_are_not_bounded_per_address(imported, settings):
    settings.ANALYSIS_PLAYOUTS = 20
    settings.ANALYSES_UNDER_WAY_PER_ADDRESS = 1
    base = f"/places/{imported.id}/games"
    (user,) = accounts(1)
    assert user.post(f"{base}/50/analysis.json").status_code == 202
    boss = Client()
    boss.force_login(get_user_model().objects.create_superuser("boss", password="boss-pw"))
    assert boss.post(f"{base}/51/analysis.json").status_code == 202


def test_the_queue_serves_staff_first_then_the_askers_own_games(make_place, settings):
    """Whoever asked first, the analyst takes staff's job, then the one of a game its asker
    played in, then the rest; a job asked for again by one who comes first moves up."""
    settings.ANALYSIS_PLAYOUTS = 20
    settings.ANALYSES_UNDER_WAY_PER_ADDRESS = 10
    place = make_place(game_count=4, seed="queue")
    services.start_place(place.id)
    play_out(place.id)
    base = f"/places/{place.id}/games"
    stranger, other = accounts(2, prefix="stranger")
    assert stranger.post(f"{base}/1/analysis.json").status_code == 202
    assert other.post(f"{base}/4/analysis.json").status_code == 202
    alice = Client()
    alice.force_login(get_user_model().objects.get(username="alice"))  # she played game 2
    assert alice.post(f"{base}/2/analysis.json").status_code == 202
    boss = Client()
    boss.force_login(get_user_model().objects.create_superuser("boss", password="boss-pw"))
    assert boss.post(f"{base}/3/analysis.json").status_code == 202
    bob = Client()
    bob.force_login(get_user_model().objects.get(username="bob"))
    assert bob.post(f"{base}/4/analysis.json").status_code == 202  # moves game 4 up
    Priority = GameAnalysis.Priority
    assert dict(GameAnalysis.objects.values_list("game__no", "priority")) == {
        1: Priority.OTHER,
        2: Priority.OWN_GAME,
        3: Priority.STAFF,
        4: Priority.OWN_GAME,
    }
    order = []
    while (job := analyst.claim("worker")) is not None:
        order.append(job.game.no)
    assert order == [3, 4, 2, 1]  # game 4, moved up, was asked for before game 2
