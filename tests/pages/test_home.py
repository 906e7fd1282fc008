"""The home page lists running, waiting and finished places with their links."""

from __future__ import annotations

import pytest

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
