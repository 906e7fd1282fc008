"""The home page lists running, waiting and finished places with their links."""

from __future__ import annotations

import pytest

from places import services
from places.models import Place
from places.reads.lists import PAGE_SIZE

pytestmark = pytest.mark.django_db


def section(text: str, name: str) -> str:
    return text.split(f'<section id="{name}">', 1)[1].split("</section>", 1)[0]


def test_an_empty_site_says_so(client):
    text = client.get("/").content.decode()
    assert "There are no places yet." in text


def test_each_place_is_listed_under_its_state_with_its_links(client, make_place, finished_place):
    running = make_place(title="Now")
    waiting = make_place(title="Later", start=False)
    text = client.get("/").content.decode()
    assert f'data-place="{running.id}"' in section(text, "running")
    assert f'data-place="{waiting.id}"' in section(text, "waiting")
    assert f'data-place="{finished_place.id}"' in section(text, "finished")
    assert f'href="/places/{running.id}/"' in text
    assert f'href="/places/{running.id}/results"' in text
    assert f'href="/places/{finished_place.id}/results"' in text
    assert f'href="/places/{waiting.id}/results"' not in text  # nothing to show yet
    assert "Game 1 of 3" in section(text, "running")
    for name in ("alice", "bob", "charlie", "dave", "eve"):
        assert name in section(text, "running")


def test_a_finished_place_names_its_leader(client, finished_place):
    text = section(client.get("/").content.decode(), "finished")
    assert "leading:" in text


def test_staff_see_the_admin_link_and_others_do_not(client, staff_client, pat_client):
    assert 'href="/admin/"' in staff_client.get("/").content.decode()
    assert 'href="/admin/"' not in client.get("/").content.decode()
    assert 'href="/admin/"' not in pat_client.get("/").content.decode()


def test_the_live_page_of_each_place_loads(client, place, finished_place):
    for p in (place, finished_place):
        response = client.get(f"/places/{p.id}/")
        assert response.status_code == 200
        text = response.content.decode()
        assert f'"state_url": "/places/{p.id}/state.json"' in text
        assert f'"ws_path": "/ws/places/{p.id}/live/"' in text
        assert 'id="staff"' not in text


def test_staff_get_the_buttons_on_the_live_page(staff_client, place):
    text = staff_client.get(f"/places/{place.id}/").content.decode()
    assert 'id="btn-start"' in text and 'id="btn-next"' in text
    assert f'"next_url": "/places/{place.id}/next_turn.json"' in text


def test_the_card_page_draws_54_faces_and_a_back(client, db):
    text = client.get("/cards").content.decode()
    assert text.count('<svg class="card') == 55
    assert text.count("card-back") >= 1
    assert text.count('data-card="joker"') == 2
    assert 'data-card="2-3"' in text and 'aria-label="♥3"' in text


def test_a_tournament_s_tables_are_grouped_under_it_not_listed_as_places(client, users):
    names = ["alice", "bob", "charlie", "dave", "eve", "pat", "sam"]
    t = services.create_tournament("Cup", names, game_count=2, seed="s", max_running=2)
    services.start_tournament(t.id)
    tables = list(Place.objects.filter(tournament=t).values_list("id", "state"))
    assert len(tables) > 2 and any(state == "running" for _, state in tables)
    text = client.get("/").content.decode()
    for place_id, _state in tables:
        assert f'data-place="{place_id}"' not in text
    group = section(text, "tournaments")
    assert f'data-tournament="{t.id}"' in group and f'href="/tournaments/{t.id}/"' in group
    running = sum(state == "running" for _, state in tables)
    assert f"{len(tables)} tables: {running} running, 0 finished" in group
    assert f"0 of {2 * len(tables)} games played" in group


def test_a_long_list_is_paged_and_paging_one_list_keeps_the_others(client, make_place):
    waiting = [make_place(title=f"W{i}", start=False) for i in range(PAGE_SIZE + 5)]
    running = make_place(title="Now")
    first = client.get("/").content.decode()
    shown = [p for p in waiting[::-1] if f'data-place="{p.id}"' in section(first, "waiting")]
    assert shown == waiting[::-1][:PAGE_SIZE]  # newest first, one page
    assert "Page 1 of 2" in section(first, "waiting")
    assert 'href="?waiting=2#waiting"' in section(first, "waiting")
    assert "Page 1 of" not in section(first, "running")  # one page: no pager

    second = client.get("/?waiting=2&finished=7").content.decode()
    rest = [p for p in waiting[::-1] if f'data-place="{p.id}"' in section(second, "waiting")]
    assert rest == waiting[::-1][PAGE_SIZE:]
    assert f'data-place="{running.id}"' in section(second, "running")
    assert 'href="?waiting=1&amp;finished=7#waiting"' in section(second, "waiting")
    # a page out of range or not a number: the nearest page, never an error
    for query in ("?waiting=99", "?waiting=x", "?waiting=-1"):
        assert client.get("/" + query).status_code == 200
    assert f'data-place="{waiting[0].id}"' in section(
        client.get("/?waiting=99").content.decode(), "waiting"
    )
