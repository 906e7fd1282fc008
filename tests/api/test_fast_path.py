"""Bots' ``post_cards`` and documents by the short way (``api/fast.py``) answer exactly as
Django does.

Two identical places (same seats, same seed) get the same requests: one
through the fast path, one through Django alone. Status, body and headers
must agree (but for the value of ``Expires``, the time). Requests that are
not a bot's plain post must reach Django untouched, and a session ended
anywhere must stop working at once.
"""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async as sync_to_async
from channels.testing import HttpCommunicator
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import connections
from django.test import Client
from django.utils import timezone

from api import fast
from daihinmin.asgi import django_asgi_app
from places import services
from tests.api.conftest import NAMES
from tests.api.helpers import FORM, login, session_cookie
from tests.api.test_post_cards import a_card_not_held, a_safe_single

pytestmark = pytest.mark.django_db(transaction=True)


class CountingDjango:
    """Django's ASGI app, counting the requests that reach it."""

    def __init__(self):
        self.calls = 0

    async def __call__(self, scope, receive, send):
        self.calls += 1
        return await django_asgi_app(scope, receive, send)


@pytest.fixture(autouse=True)
async def _connections_back_to_the_pool():
    """Close what the test's helper thread holds (a pooled PostgreSQL connection kept the
    test database from being dropped)."""
    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
def django_app() -> CountingDjango:
    return CountingDjango()


@pytest.fixture
def fast_app(django_app):
    return fast.wrap(django_app)


@pytest.fixture
def twins(make_place):
    """Two places dealt alike: the first is served by the fast path, the second by Django."""
    return make_place(), make_place()


def cookie_of(name: str, place_id: int) -> str:
    client = Client()
    login(client, name, place_id)
    return session_cookie(client)


async def post(
    app,
    path: str,
    body: bytes = b"",
    headers: list | None = None,
    cookie=None,
    method: str = "POST",
):
    all_headers = [(b"host", b"testserver")]
    if method == "POST":
        all_headers.append((b"content-type", FORM.encode()))
    if cookie:
        all_headers.append((b"cookie", f"sessionid={cookie}".encode()))
    if headers is not None:
        names = {name for name, _ in headers}
        all_headers = [h for h in all_headers if h[0] not in names] + headers
    comm = HttpCommunicator(app, method, path, body=body, headers=all_headers)
    response = await comm.get_response(timeout=10)
    # let the app finish (Django returns the request's database connection at its end)
    await comm.send_input({"type": "http.disconnect"})
    await comm.wait(timeout=10)
    return response


def comparable(response: dict) -> tuple:
    headers = {}
    for name, value in response["headers"]:
        name = name.decode().lower()
        assert name not in headers, f"{name} twice"
        headers[name] = value.decode()
    assert headers.pop("expires").endswith(" GMT")
    body = response["body"]
    if headers.get("content-type", "").startswith("text/html"):  # a page: per-request tokens
        body = body[body.index(b"<title>") : body.index(b"</title>")]
        headers.pop("content-length")
        headers["set-cookie"] = headers.get("set-cookie", "").split("=")[0]  # csrftoken
    return response["status"], body, headers


def form(*cards: str) -> bytes:
    return urlencode({f"card_{i}": c for i, c in enumerate(cards)}).encode()


async def test_plays_passes_misses_and_refusals_answer_as_django_does(twins, fast_app, django_app):
    fast_place, django_place = twins
    cookies = {}
    for name in NAMES:
        cookies[name] = (
            await sync_to_async(cookie_of)(name, fast_place.id),
            await sync_to_async(cookie_of)(name, django_place.id),
        )
    lead = await sync_to_async(a_safe_single)(fast_place, "alice")
    assert lead == await sync_to_async(a_safe_single)(django_place, "alice")
    not_held = await sync_to_async(a_card_not_held)(fast_place, "charlie")
    steps = [
        ("bob", "/post_cards.json", form()),  # NOT_YOUR_TURN
        ("alice", "/post_cards.json", form("X9")),  # INVALID_CARD
        ("alice", "/operations/post_cards.xml", form("Q9")),  # INVALID_CARD, in XML
        ("alice", "/operations/post_cards.json", form(lead)),  # a play
        ("bob", "/post_cards.xml", form()),  # a pass, in XML
        ("charlie", "/post_cards.json", form(not_held, "")),  # a miss (CARD_NOT_HELD)
        ("dave", "/post_cards.json?card_0=", b"card_1=+&other=1"),  # blanks: a pass
    ]
    answers = []
    for name, path, body in steps:
        before = django_app.calls
        fast_answer = await post(fast_app, path, body, cookie=cookies[name][0])
        assert django_app.calls == before, f"{name} {path}: not served by the fast path"
        django_answer = await post(django_app, path, body, cookie=cookies[name][1])
        assert comparable(fast_answer) == comparable(django_answer), (name, path)
        answers.append((fast_answer["status"], fast_answer["body"]))
    statuses = [s for s, _ in answers]
    assert statuses == [409, 400, 400, 200, 200, 200, 200]
    assert json.loads(answers[3][1]) == {"result": "play", "reason": None, "reset_place": False}
    assert json.loads(answers[5][1])["result"] == "miss"

    def hands(place):
        return [services.hand_of(place.id, s.user_id) for s in services.seats_of(place.id)]

    assert await sync_to_async(hands)(fast_place) == await sync_to_async(hands)(django_place)


LEFT_TO_DJANGO = [
    ("foreign Origin", "/post_cards.json", form(), [(b"origin", b"http://evil.example")]),
    ("foreign Referer", "/post_cards.json", form(), [(b"referer", b"http://evil.example/x")]),
    ("Accept-Language", "/post_cards.json", form(), [(b"accept-language", b"ja")]),
    ("language cookie", "/post_cards.json", form(), "language-cookie"),
    ("no session", "/post_cards.json", form(), "no-cookie"),
    ("unknown session", "/post_cards.json", form(), "bad-cookie"),
    ("JSON body", "/post_cards.json", b'{"cards":[]}', [(b"content-type", b"application/json")]),
    ("untyped body", "/post_cards.json", b"card_0=S3", [(b"content-type", b"")]),
    ("multipart", "/post_cards.json", b"--x--\r\n", [(b"content-type", b"multipart/form-data")]),
    ("55 cards", "/post_cards.json", form(*["S3"] * 55), []),
    ("not ASCII", "/post_cards.json", "card_0=あ".encode(), []),
    ("page path", "/operations/post_cards", form(), []),
    ("HTML path", "/post_cards", form(), [(b"accept", b"application/json")]),
]


@pytest.mark.parametrize(
    "label,path,body,extra", LEFT_TO_DJANGO, ids=[c[0] for c in LEFT_TO_DJANGO]
)
async def test_what_is_not_a_plain_bot_post_goes_to_django(
    place, fast_app, django_app, label, path, body, extra
):
    cookie = await sync_to_async(cookie_of)("bob", place.id)  # not Bob's turn: nothing changes
    headers = extra if isinstance(extra, list) else []
    if extra == "language-cookie":
        headers = [(b"cookie", f"sessionid={cookie}; django_language=ja".encode())]
    elif extra == "no-cookie":
        headers = [(b"cookie", b"other=1")]
    elif extra == "bad-cookie":
        headers = [(b"cookie", b"sessionid=0123456789abcdefghijklmnopqrstuv")]
    fast_answer = await post(fast_app, path, body, headers, cookie=cookie)
    assert django_app.calls == 1, label
    django_answer = await post(django_app, path, body, headers, cookie=cookie)
    assert comparable(fast_answer) == comparable(django_answer), label
    assert fast_answer["status"] >= 300  # all refusals or redirects: Bob cannot play now


async def test_a_body_sent_in_pieces_is_read_whole(place, fast_app, django_app):
    cookie = await sync_to_async(cookie_of)("alice", place.id)
    lead = await sync_to_async(a_safe_single)(place, "alice")
    body = form(lead)
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "path": "/post_cards.json",
        "raw_path": b"/post_cards.json",
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", FORM.encode()),
            (b"cookie", f"sessionid={cookie}".encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    comm = ApplicationCommunicator(fast_app, scope)
    await comm.send_input({"type": "http.request", "body": body[:4], "more_body": True})
    await comm.send_input({"type": "http.request", "body": body[4:], "more_body": False})
    start = await comm.receive_output(10)
    content = await comm.receive_output(10)
    await comm.wait(10)
    assert start["status"] == 200
    assert json.loads(content["body"])["result"] == "play"
    assert django_app.calls == 0


async def test_a_large_body_goes_to_django_whole(place, fast_app, django_app):
    cookie = await sync_to_async(cookie_of)("alice", place.id)
    lead = await sync_to_async(a_safe_single)(place, "alice")
    body = form(lead) + b"&padding=" + b"x" * (fast._MAX_BODY + 10)
    answer = await post(fast_app, "/post_cards.json", body, cookie=cookie)
    assert django_app.calls == 1
    assert answer["status"] == 200
    assert json.loads(answer["body"])["result"] == "play"  # Django read the card from it


DOCUMENT_PATHS = [
    f"{prefix}{name}.{fmt}"
    for name in ("get_hand", "get_place_info", "get_rank", "get_initial_hand")
    for prefix, fmt in (("/operations/", "json"), ("/", "xml"), ("/", "json"), ("/operations/", "xml"))
]


async def test_documents_read_as_django_reads_them(twins, fast_app, django_app):
    fast_place, django_place = twins
    for name in ("alice", "bob"):
        fast_cookie = await sync_to_async(cookie_of)(name, fast_place.id)
        django_cookie = await sync_to_async(cookie_of)(name, django_place.id)
        for path in DOCUMENT_PATHS:
            before = django_app.calls
            fast_answer = await post(fast_app, path, method="GET", cookie=fast_cookie)
            assert django_app.calls == before, f"{name} {path}: not served by the fast path"
            django_answer = await post(django_app, path, method="GET", cookie=django_cookie)
            status, body, headers = comparable(fast_answer)
            expected = comparable(django_answer)
            if "place_info" in path:  # each place has its own id (and title)
                body = body.replace(str(fast_place.id).encode(), str(django_place.id).encode())
            assert (status, body, headers) == expected, (name, path)
            assert status == 200


async def test_a_document_of_a_player_no_longer_seated_is_refused_as_django_refuses_it(
    place, fast_app, django_app
):
    cookie = await sync_to_async(cookie_of)("bob", place.id)
    await sync_to_async(services.forget_seats)()
    from places.models import Player

    await sync_to_async(Player.objects.filter(place=place, user__username="bob").delete)()
    fast_answer = await post(fast_app, "/get_hand.json", method="GET", cookie=cookie)
    assert django_app.calls == 0
    django_answer = await post(django_app, "/get_hand.json", method="GET", cookie=cookie)
    assert comparable(fast_answer) == comparable(django_answer)
    assert fast_answer["status"] == 401


DOCUMENTS_LEFT_TO_DJANGO = [
    ("HEAD", "HEAD", "/get_hand.json", b"", []),
    ("a body", "GET", "/get_hand.json", b"card_0=S3", []),
    ("a content type", "GET", "/get_hand.json", b"", [(b"content-type", FORM.encode())]),
    ("no suffix", "GET", "/get_hand", b"", []),
    ("Accept-Language", "GET", "/get_hand.json", b"", [(b"accept-language", b"ja")]),
    ("another document", "GET", "/operations/legal_plays.json", b"", []),
]


@pytest.mark.parametrize(
    "label,method,path,body,extra",
    DOCUMENTS_LEFT_TO_DJANGO,
    ids=[c[0] for c in DOCUMENTS_LEFT_TO_DJANGO],
)
async def test_what_is_not_a_plain_document_read_goes_to_django(
    place, fast_app, django_app, label, method, path, body, extra
):
    cookie = await sync_to_async(cookie_of)("bob", place.id)
    fast_answer = await post(fast_app, path, body, extra, cookie=cookie, method=method)
    assert django_app.calls == 1, label
    django_answer = await post(django_app, path, body, extra, cookie=cookie, method=method)
    assert comparable(fast_answer) == comparable(django_answer), label


def _end_by_logout(cookie: str, place_id: int) -> None:
    client = Client()
    client.cookies["sessionid"] = cookie
    assert client.post("/logout.json").status_code == 204


def _end_by_password_change(cookie: str, place_id: int) -> None:
    user = get_user_model().objects.get(username="bob")
    user.set_password("another")
    user.save()


def _end_by_deactivation(cookie: str, place_id: int) -> None:
    get_user_model().objects.filter(username="bob").update(is_active=False)


def _end_by_expiry(cookie: str, place_id: int) -> None:
    Session.objects.filter(session_key=cookie).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )


def _end_by_new_login_elsewhere(cookie: str, place_id: int) -> None:
    """The same key now holds another place's session: it must be read again."""
    Session.objects.filter(session_key=cookie).update(session_data="tampered")


@pytest.mark.parametrize(
    "end",
    [
        _end_by_logout,
        _end_by_password_change,
        _end_by_deactivation,
        _end_by_expiry,
        _end_by_new_login_elsewhere,
    ],
)
async def test_a_session_ended_anywhere_is_refused_at_the_next_post(place, fast_app, end):
    cookie = await sync_to_async(cookie_of)("bob", place.id)
    first = await post(fast_app, "/post_cards.json", form(), cookie=cookie)
    assert first["status"] == 409  # NOT_YOUR_TURN: Bob's session is known and remembered
    assert cookie in fast._verified
    await sync_to_async(end)(cookie, place.id)
    again = await post(fast_app, "/post_cards.json", form(), cookie=cookie)
    assert again["status"] == 401
    assert json.loads(again["body"])["error"]["code"] == "NOT_LOGGED_IN"
    hand = await post(fast_app, "/get_hand.json", method="GET", cookie=cookie)
    assert hand["status"] == 401  # and no hand to read


@pytest.mark.parametrize(
    "method,path,status",
    [("GET", "/get_hand.json", 401), ("POST", "/post_cards.json", 404)],  # NOT_LOGGED_IN, NOT_FOUND
)
async def test_a_session_whose_place_was_deleted_is_refused_as_django_refuses_it(
    place, fast_app, django_app, method, path, status
):
    cookie = await sync_to_async(cookie_of)("alice", place.id)
    assert (await post(fast_app, path, method=method, cookie=cookie))["status"] == 200
    from places.models import Place

    await sync_to_async(Place.objects.filter(pk=place.id).delete)()
    fast_answer = await post(fast_app, path, method=method, cookie=cookie)
    django_answer = await post(django_app, path, method=method, cookie=cookie)
    assert comparable(fast_answer) == comparable(django_answer)
    assert fast_answer["status"] == status
