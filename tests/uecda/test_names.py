"""Who a TCP client plays as in ``uecda_match`` (issue 36, item 12): a free name, or a
user who plays over UECda only; never staff, an account that logs in, or a house bot.
Like tndhms, a client is never turned away for its name: it gets another."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model

from bots.strategies import resolve
from bots.uecda import UecdaClient
from daifugo.view import BOOK_UECDA
from places.models import Place, Rating
from places.services.house import house_users
from places.services.uecda import open_match
from tests.uecda.test_match import check_stored, serve

pytestmark = pytest.mark.django_db(transaction=True)


def seated(place_id: int) -> list[str]:
    return [p.user.username for p in Place.objects.get(pk=place_id).players.order_by("seat")]


def make_users() -> None:
    model = get_user_model()
    model.objects.create_user("boss", password="pw", is_staff=True)
    model.objects.create_user("alice", password="pw")
    model.objects.create_user("victim", password="pw")
    tcp = model(username="tcpbot")  # a user a match or a log made: no usable password
    tcp.set_unusable_password()
    tcp.save()
    gone = model(username="gone", is_active=False)
    gone.set_unusable_password()
    gone.save()
    root = model(username="root", is_superuser=True)
    root.set_unusable_password()
    root.save()
    house_users("greedy", 1)  # house-greedy-1


@pytest.mark.parametrize(
    "names, expected",
    [
        (["boss", "alice", "house-greedy-1", "tcpbot", "newbie"],
         ["uecda-0", "uecda-1", "uecda-2", "tcpbot", "newbie"]),
        (["gone", "root", "v\u0456ctim", "ＴＣＰＢＯＴ", "tcpbot"],  # Cyrillic і; fullwidth
         ["uecda-0", "uecda-1", "uecda-2", "uecda-3", "tcpbot"]),
        (["bot", "bot", "bot", "uecda-4", "boss"], ["bot", "bot-1", "bot-2", "uecda-4", "uecda-4-2"]),
    ],
)  # fmt: skip
def test_a_client_plays_as_a_free_name_or_a_uecda_only_user_and_no_other(names, expected):
    make_users()
    place_id = open_match("m", 1, "s", names, rated=True)
    assert seated(place_id) == expected
    model = get_user_model()
    assert model.objects.get(username="boss").is_staff  # untouched
    for name in expected:
        assert not model.objects.get(username=name).has_usable_password()


def test_a_fallback_name_an_account_holds_is_passed_over():
    get_user_model().objects.create_user("boss", password="pw", is_staff=True)
    get_user_model().objects.create_user("uecda-0", password="pw")  # signed up so
    place_id = open_match("m", 1, "s", ["boss", "a", "b", "c", "d"], rated=True)
    assert seated(place_id)[0] == "uecda-0-2"


async def test_a_rated_match_never_moves_a_staff_user_s_rating(close_thread_connections):
    await sync_to_async(make_users)()
    task, port = await serve(2, seed="staff", rated=True, house=["greedy"] * 4)
    client = UecdaClient("127.0.0.1", port, "boss", resolve("greedy", 1, BOOK_UECDA))
    await asyncio.wait_for(client.run(), 120)
    place_id, _ = await asyncio.wait_for(task, 60)
    await sync_to_async(check_stored)(place_id, 2)
    names = await sync_to_async(seated)(place_id)
    assert names[0] == "uecda-0"
    rated = await sync_to_async(set)(Rating.objects.values_list("user__username", flat=True))
    assert "uecda-0" in rated and "boss" not in rated
