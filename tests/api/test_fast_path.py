"""The bots' hot routes, answered on the database thread (``api/fast.py``), answer exactly as
Django's own ASGI handler does: the same checks, the same status, body and headers.

Two identical places (same seats, same seed) get the same requests: one through
the fast path, one through Django's ASGI handler alone. Both run under
production settings (``DEBUG`` off, a secret key, narrow ``ALLOWED_HOSTS``) and
under the development ones. Status, body and headers must agree (but for the
value of ``Expires`` and the second signed into a messages cookie), for plays and refusals, hostile hosts, sessions
ended every way, a place that ended and one deleted.
"""

from __future__ import annotations

import json
import time
from types import SimpleNamespace
from urllib.parse import urlencode

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async as sync_to_async
from channels.testing import HttpCommunicator
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpRequest
from django.test import Client

from api import fast, rate
from daihinmin.asgi import django_asgi_app
from places.models import Place
from places.reads import documents, seats
from tests.api.conftest import NAMES
from tests.api.helpers import FORM, SESSION_ENDINGS, login, session_cookie, snapshot
from tests.api.test_post_cards import a_card_not_held, a_safe_single
from tests.places.drive import play_out

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]

HOST = b"127.0.0.1"


@pytest.fixture(params=["production", "development"])
def mode(request, settings):
    """Both paths under production settings, and under the development ones."""
    if request.param == "production":
        settings.DEBUG = False
        settings.SECRET_KEY = "production-only-secret-for-this-test"
        settings.ALLOWED_HOSTS = ["127.0.0.1"]
    return request.param


class CountingDjango:
    """Django's ASGI handler, counting the requests it is given whole.

    The fast path uses the handler's parts (reading the body, making the request,
    sending the response), not the handler: a request it takes is not counted.
    """

    def __init__(self):
        self.calls = 0

    async def __call__(self, scope, receive, send):
        self.calls += 1
        return await django_asgi_app(scope, receive, send)

    def __getattr__(self, name):
        return getattr(django_asgi_app, name)


@pytest.fixture
def django_app(mode) -> CountingDjango:
    return CountingDjango()


@pytest.fixture
def fast_app(django_app):
    return fast.wrap(django_app)


@pytest.fixture
def twins(make_place):
    """Two places dealt alike: the first is served by the fast path, the second by Django."""
    return make_place(), make_place()


def cookie_of(name: str, place_id: int) -> str:
    client = Client(HTTP_HOST=HOST.decode())
    login(client, name, place_id)
    return session_cookie(client)


async def request(
    app, path: str, body: bytes = b"", headers: list | None = None, cookie=None, method="POST"
):
    all_headers = [(b"host", HOST)]
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
        assert name not in headers or name == "set-cookie", f"{name} twice"
        headers[name] = value.decode()
    if "expires" in headers:
        assert headers.pop("expires").endswith(" GMT")
    if headers.get("set-cookie", "").startswith("messages="):
        headers["set-cookie"] = unsigned_messages(headers["set-cookie"])
    body = response["body"]
    if headers.get("content-type", "").startswith("text/html") and b"<title>" in body:
        body = body[body.index(b"<title>") : body.index(b"</title>")]  # a page: per-request tokens
        headers.pop("content-length", None)
        headers["set-cookie"] = headers.get("set-cookie", "").split("=")[0]  # csrftoken
    return response["status"], body, headers


def unsigned_messages(set_cookie: str) -> str:
    """The messages cookie with its signed value read back: its signature holds the second it
    was made in, which two requests may straddle."""
    value, _, attributes = set_cookie.removeprefix("messages=").partition(";")
    messages = CookieStorage(HttpRequest())._decode(value)
    assert messages is not None, "the messages cookie's signature does not verify"
    return f"messages={[(m.level, m.message, m.extra_tags) for m in messages]};{attributes}"


async def both(fast_app, django_app, path, body=b"", headers=None, cookies=(None, None), **kw):
    """The same request to both apps: the fast path must take it and answer as Django does."""
    before = django_app.calls
    fast_answer = await request(fast_app, path, body, headers, cookies[0], **kw)
    assert django_app.calls == before, f"{path}: not served by the fast path"
    django_answer = await request(django_app, path, body, headers, cookies[1], **kw)
    assert comparable(fast_answer) == comparable(django_answer), path
    return fast_answer


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
        answer = await both(fast_app, django_app, path, body, cookies=cookies[name])
        answers.append((answer["status"], answer["body"]))
    assert [s for s, _ in answers] == [409, 400, 400, 200, 200, 200, 200]
    assert json.loads(answers[3][1]) == {"result": "play", "reason": None, "reset_place": False}
    assert json.loads(answers[5][1])["result"] == "miss"

    def hands(place):
        return [documents.hand_ids(place.id, s.user_id) for s in seats.seats_of(place.id)]

    assert await sync_to_async(hands)(fast_place) == await sync_to_async(hands)(django_place)


@pytest.mark.parametrize(
    "method,path,body",
    [
        ("GET", "/get_hand.json", b""),
        ("GET", "/operations/get_place_info.xml", b""),
        ("POST", "/post_cards.json", b""),
        ("POST", "/operations/post_cards", b""),
    ],
)
@pytest.mark.parametrize("host", [b"evil.example", b"127.0.0.1.evil.example", b"", b"[::1"])
async def test_a_hostile_host_is_400_from_both_paths_and_changes_nothing(
    mode, place, fast_app, django_app, method, path, body, host
):
    cookie = await sync_to_async(cookie_of)("alice", place.id)  # Alice's turn: a pass would count
    before = await sync_to_async(snapshot)(place.id)
    headers = [(b"host", host)]
    answer = await both(fast_app, django_app, path, body, headers, (cookie, cookie), method=method)
    if mode == "production" or host != b"":
        assert answer["status"] == 400
        assert b'"card"' not in answer["body"] and b"<card>" not in answer["body"]
    assert await sync_to_async(snapshot)(place.id) == before


@pytest.mark.parametrize("end", SESSION_ENDINGS)
async def test_a_session_ended_anywhere_is_refused_by_both_paths(
    mode, twins, fast_app, django_app, end
):
    fast_place, django_place = twins
    cookies = (
        await sync_to_async(cookie_of)("bob", fast_place.id),
        await sync_to_async(cookie_of)("bob", django_place.id),
    )
    first = await both(fast_app, django_app, "/post_cards.json", form(), cookies=cookies)
    assert first["status"] == 409  # NOT_YOUR_TURN: Bob's session works
    for cookie in cookies:
        await sync_to_async(end)(cookie)
    again = await both(fast_app, django_app, "/post_cards.json", form(), cookies=cookies)
    assert again["status"] == 401
    assert json.loads(again["body"])["error"]["code"] == "NOT_LOGGED_IN"
    hand = await both(fast_app, django_app, "/get_hand.json", cookies=cookies, method="GET")
    assert hand["status"] == 401  # and no hand to read


async def test_a_keyed_post_and_its_retry_answer_alike(mode, twins, fast_app, django_app):
    """``idempotency_key``: the retry of a played post is answered as then on both paths,
    and a key of no valid form is refused alike (tests/api/test_post_retry.py has the rest)."""
    fast_place, django_place = twins
    cookies = (
        await sync_to_async(cookie_of)("alice", fast_place.id),
        await sync_to_async(cookie_of)("alice", django_place.id),
    )
    lead = await sync_to_async(a_safe_single)(fast_place, "alice")
    keyed = form(lead) + b"&idempotency_key=k-1"
    bad = await both(fast_app, django_app, "/post_cards.json", form(lead) + b"&idempotency_key=a+b",
                     cookies=cookies)  # fmt: skip
    assert bad["status"] == 400
    first = await both(fast_app, django_app, "/post_cards.json", keyed, cookies=cookies)
    assert first["status"] == 200
    before = [await sync_to_async(snapshot)(p.id) for p in twins]
    again = await both(fast_app, django_app, "/post_cards.json", keyed, cookies=cookies)
    assert (again["status"], again["body"]) == (first["status"], first["body"])
    assert [await sync_to_async(snapshot)(p.id) for p in twins] == before


async def test_a_place_that_ended_answers_alike(mode, twins, fast_app, django_app):
    fast_place, django_place = twins
    cookies = (
        await sync_to_async(cookie_of)("alice", fast_place.id),
        await sync_to_async(cookie_of)("alice", django_place.id),
    )
    for place in twins:
        await sync_to_async(play_out)(place.id, seed=3)
    answer = await both(fast_app, django_app, "/post_cards.json", form(), cookies=cookies)
    assert answer["status"] == 409
    assert json.loads(answer["body"])["error"]["code"] == "NO_TURN_OPEN"
    for path in ("/get_hand.json", "/get_place_info.xml", "/get_rank.json"):
        answer = await both(fast_app, django_app, path, cookies=cookies, method="GET")
        assert answer["status"] == 200


@pytest.mark.parametrize(
    "method,path,status",
    [("GET", "/get_hand.json", 401), ("POST", "/post_cards.json", 404)],  # NOT_LOGGED_IN, NOT_FOUND
)
async def test_a_session_whose_place_was_deleted_is_refused_alike(
    mode, place, fast_app, django_app, method, path, status
):
    cookie = await sync_to_async(cookie_of)("alice", place.id)
    await sync_to_async(Place.objects.filter(pk=place.id).delete)()
    answer = await both(fast_app, django_app, path, cookies=(cookie, cookie), method=method)
    assert answer["status"] == status


async def test_documents_read_as_django_reads_them(twins, fast_app, django_app):
    fast_place, django_place = twins
    for name in ("alice", "bob"):
        cookies = (
            await sync_to_async(cookie_of)(name, fast_place.id),
            await sync_to_async(cookie_of)(name, django_place.id),
        )
        for doc in ("get_hand", "get_place_info", "get_rank", "get_initial_hand"):
            for path in (f"/operations/{doc}.json", f"/{doc}.xml", f"/{doc}"):
                before = django_app.calls
                fast_answer = await request(fast_app, path, method="GET", cookie=cookies[0])
                assert django_app.calls == before, path
                django_answer = await request(django_app, path, method="GET", cookie=cookies[1])
                status, body, headers = comparable(fast_answer)
                if "place_info" in path:  # each place has its own id
                    body = body.replace(str(fast_place.id).encode(), str(django_place.id).encode())
                assert (status, body, headers) == comparable(django_answer), path
                assert status == 200


HOSTILE_BODIES = [
    ("foreign Origin", "/post_cards.json", form(), [(b"origin", b"http://evil.example")]),
    ("foreign Referer", "/post_cards.json", form(), [(b"referer", b"http://evil.example/x")]),
    ("Accept-Language", "/post_cards.json", form(), [(b"accept-language", b"ja")]),
    ("JSON body", "/post_cards.json", b'{"cards":[]}', [(b"content-type", b"application/json")]),
    ("untyped body", "/post_cards.json", b"card_0=S3", [(b"content-type", b"")]),
    ("no boundary", "/post_cards.json", b"--x--\r\n", [(b"content-type", b"multipart/form-data")]),
    (
        "cut multipart",
        "/post_cards.json",
        b"--XX\r\nfoo",
        [(b"content-type", b"multipart/form-data; boundary=XX")],
    ),
    (
        "utf-16 form",
        "/post_cards.json",
        form(),
        [(b"content-type", FORM.encode() + b"; charset=utf-16")],
    ),
    ("55 cards", "/post_cards.json", form(*["S3"] * 55), []),
    ("not UTF-8", "/post_cards.json", "card_0=あ".encode("shift_jis"), []),
    ("a 2011 form", "/operations/post_cards", form(), []),
]


@pytest.mark.parametrize(
    "label,path,body,extra", HOSTILE_BODIES, ids=[c[0] for c in HOSTILE_BODIES]
)
async def test_odd_requests_are_answered_alike_and_change_nothing(
    mode, twins, fast_app, django_app, label, path, body, extra
):
    fast_place, django_place = twins
    cookies = (
        await sync_to_async(cookie_of)("alice", fast_place.id),  # her turn: a pass would count
        await sync_to_async(cookie_of)("alice", django_place.id),
    )
    before = await sync_to_async(snapshot)(fast_place.id)
    answer = await both(fast_app, django_app, path, body, extra, cookies)
    if label in ("Accept-Language", "a 2011 form"):  # ordinary posts: a move (a pass on lead)
        assert answer["status"] == (200 if label == "Accept-Language" else 302)
        return
    assert await sync_to_async(snapshot)(fast_place.id) == before, label
    assert 400 <= answer["status"] < 500, label
    assert json.loads(answer["body"])["error"]["code"], label  # the API's error document


async def test_a_body_sent_in_pieces_is_read_whole(place, fast_app, django_app):
    cookie = await sync_to_async(cookie_of)("alice", place.id)
    lead = await sync_to_async(a_safe_single)(place)
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
            (b"host", HOST),
            (b"content-type", FORM.encode()),
            (b"cookie", f"sessionid={cookie}".encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
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


async def test_other_requests_go_to_django(place, fast_app, django_app):
    cookie = await sync_to_async(cookie_of)("alice", place.id)
    for method, path in [
        ("GET", "/operations"),
        ("GET", "/operations/legal_plays.json"),
        ("GET", f"/places/{place.id}/state.json"),
        ("POST", "/logout.json"),
    ]:
        before = django_app.calls
        await request(fast_app, path, cookie=cookie, method=method)
        assert django_app.calls == before + 1, path


def test_the_fast_path_can_be_turned_off(settings):
    settings.FAST_PATH = False
    assert fast.wrap(django_asgi_app) is django_asgi_app


async def test_the_rate_limit_answers_alike_on_both_paths(
    mode, settings, twins, fast_app, django_app, monkeypatch
):
    """One source for the limit (``ApiView.initial``): the fast path counts and refuses as
    Django does, before anything is read or changed."""
    settings.API_RATE_LIMIT, settings.API_RATE_WINDOW = 3, 3600
    # The wait in the answer is counted from the clock: held still, or the two answers,
    # made a moment apart, would tell different waits whenever a second ticks between them.
    now = time.time()
    monkeypatch.setattr(rate, "time", SimpleNamespace(time=lambda: now))
    fast_place, django_place = twins
    cookies = (
        await sync_to_async(cookie_of)("bob", fast_place.id),
        await sync_to_async(cookie_of)("bob", django_place.id),
    )
    for _ in range(3):
        await both(fast_app, django_app, "/get_hand.json", cookies=cookies, method="GET")
    before = await sync_to_async(snapshot)(fast_place.id)
    answers = []
    for app, cookie in ((fast_app, cookies[0]), (django_app, cookies[1])):
        answers.append(await request(app, "/post_cards.json", form(), cookie=cookie))
    assert [a["status"] for a in answers] == [429, 429]
    assert comparable(answers[0]) == comparable(answers[1])  # Retry-After too
    assert json.loads(answers[0]["body"])["error"]["code"] == "RATE_LIMITED"
    assert 0 < int(comparable(answers[0])[2]["retry-after"]) <= 3600
    assert await sync_to_async(snapshot)(fast_place.id) == before


@pytest.mark.parametrize(
    "path,body",
    [
        ("/get_place_info.json", b'{"error":{"code":"SERVER_ERROR","message":"the server failed'),
        ("/get_place_info.xml", b"<code>SERVER_ERROR</code>"),
    ],
)
async def test_a_view_that_fails_answers_alike_in_its_route_s_form(
    mode, monkeypatch, twins, fast_app, django_app, path, body
):
    """Under production settings a failure on a data route is the registry's SERVER_ERROR in
    the route's form (daihinmin/failures.py), not Django's HTML page; both paths alike."""
    from places.reads import documents as reads

    def fails(place_id):
        raise RuntimeError("a bug")

    monkeypatch.setattr(reads, "place_info", fails)
    cookies = (
        await sync_to_async(cookie_of)("alice", twins[0].id),
        await sync_to_async(cookie_of)("alice", twins[1].id),
    )
    answer = await both(fast_app, django_app, path, cookies=cookies, method="GET")
    assert answer["status"] == 500
    if mode == "production":
        assert body in answer["body"]
