"""Every page in English and Japanese: chosen by Accept-Language, switched by set_language."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from tests.pages.conftest import player_client

pytestmark = pytest.mark.django_db

JA = {"HTTP_ACCEPT_LANGUAGE": "ja,en;q=0.5"}


def page(client, path: str, **headers) -> str:
    response = client.get(path, **headers)
    assert response.status_code == 200, path
    return response.content.decode()


@pytest.mark.parametrize(
    ("path", "english", "japanese"),
    [
        ("/", "Places", "場の一覧"),
        ("/cards", "Cards", "カード"),
        ("/login", "Leave it empty to log in to the site only", "サイトにだけログイン"),
        ("/games", "No finished game is as asked.", "条件に合う終了済みのゲームはありません。"),
    ],
)
def test_a_page_follows_the_browser_s_language(client, path, english, japanese):
    assert english in page(client, path)
    ja = page(client, path, **JA)
    assert japanese in ja
    assert '<html lang="ja">' in ja


def test_the_live_and_results_pages_speak_japanese(client, finished_place):
    live = page(client, f"/places/{finished_place.id}/", **JA)
    assert "順位表" in live
    config = json.loads(
        live.split('<script id="live-config" type="application/json">')[1].split("</script>")[0]
    )
    assert config["strings"]["game_of"] == "第%(no)sゲーム / 全%(count)sゲーム"
    assert config["strings"]["ranks"]["1"] == "大富豪"
    results = page(client, f"/places/{finished_place.id}/results", **JA)
    assert "得点の推移" in results and "大富豪" in results


def test_the_manual_play_page_speaks_japanese_and_keeps_its_first_form(place):
    alice = player_client("alice", place.id)
    text = page(alice, "/operations", **JA)
    assert "あなたの手札" in text
    assert text.index('action="/operations/post_cards"') < text.index('action="/i18n/setlang/"')


def test_the_header_form_switches_the_language_and_it_sticks(client):
    response = client.post("/i18n/setlang/", {"language": "ja", "next": "/cards"})
    assert response.status_code == 302
    assert response["Location"] == "/cards"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ja"
    assert "カード" in page(client, "/cards")
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert "場の一覧" not in page(client, "/", **JA)  # the choice beats the browser's


def test_every_page_has_the_switch(client):
    text = page(client, "/")
    assert 'form="language-form"' in text
    assert '<option value="ja">日本語</option>' in text


def test_the_translation_is_compiled_and_committed():
    from pathlib import Path

    mo = Path(settings.BASE_DIR) / "locale" / "ja" / "LC_MESSAGES" / "django.mo"
    po = mo.with_suffix(".po")
    assert mo.exists() and po.exists()
    assert mo.stat().st_size > 1000
