"""What bots ask every turn (``post_cards``, the documents), answered without Django's
request machinery.

Under ASGI, Django runs each request's view in a new thread, on a database
connection opened for the request and closed after it (closing the last
connection to a SQLite WAL file checkpoints it), behind ten middlewares. A
bot's post then costs several milliseconds before the move itself, which
costs well under one (``bench/turn.py``). Here the move runs on the database
thread of the WebSocket actions (``places.db_worker``), which keeps its
connection, and the answer is written directly.

Only the plain case a bot sends is taken: ``POST post_cards`` or ``GET`` of a
document (``get_hand``, ``get_place_info``, ``get_rank``, ``get_initial_hand``)
at a ``.json`` or ``.xml`` path, a session cookie, a form body for the post
(no body for a document), no ``Origin``, ``Referer`` or ``Accept-Language``
header, and a session that names a player. Anything else, down to a card
parameter Django would read differently, goes to Django with its body intact,
so every error keeps its code, status and format. The same session checks as
Django's are made (expiry, the user's password hash) and the answer carries the
headers Django's middlewares would add; ``tests/api/test_fast_path.py``
compares the two answer for answer.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.contrib.sessions.models import Session
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.http.cookie import parse_cookie
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.http import http_date
from django.utils.module_loading import import_string

from api import formats, views
from api.params import CARD_PARAMETER, MAX_CARDS
from api.security import PLACE_KEY
from places import db_worker, services

POST_CARDS = "post_cards"
#: The documents' readers, the views' own.
DOCUMENTS = {
    "get_hand": views.HandView.read,
    "get_place_info": views.PlaceInfoView.read,
    "get_rank": views.RankView.read,
    "get_initial_hand": views.InitialHandView.read,
}
#: (method, path) -> (what, format), at both places the API lives (``api/urls.py``).
ROUTES = {
    (method, f"{prefix}{what}.{fmt}"): (what, fmt)
    for prefix in ("/operations/", "/")
    for fmt in (formats.JSON, formats.XML)
    for method, what in [("POST", POST_CARDS), *(("GET", name) for name in DOCUMENTS)]
}
FORM_TYPE = b"application/x-www-form-urlencoded"
#: Headers whose presence sends a request to Django: the cross-site check
#: (Origin, Referer) and the language negotiation (Accept-Language) are its.
_DJANGO_HEADERS = frozenset({b"origin", b"referer", b"accept-language"})
#: What a form body may hold here; larger or more fields: Django decides.
_MAX_BODY = 64 * 1024
_MAX_FIELDS = 200


def wrap(django_app):
    """The ASGI app: the fast path in front of ``django_app``."""

    if settings.SESSION_SAVE_EVERY_REQUEST:  # every answer would carry a new cookie
        return django_app

    async def app(scope, receive, send):
        if scope["type"] == "http":
            route = ROUTES.get((scope["method"], scope["path"]))
            if route is not None:
                return await _serve(route, scope, receive, send, django_app)
        return await django_app(scope, receive, send)

    return app


async def _serve(route: tuple[str, str], scope, receive, send, django_app) -> None:
    what, fmt = route
    session_key, plain, typed = None, True, False
    too_large = False
    for name, value in scope["headers"]:
        name = name.lower()
        if name in _DJANGO_HEADERS:
            plain = False
        elif name == b"cookie":
            if session_key is not None:
                plain = False  # two Cookie headers: Django's reading decides
            session_key, language = _cookies(value)
            plain = plain and not language
        elif name == b"content-type":
            typed = True
            plain = plain and value.split(b";")[0].strip().lower() == FORM_TYPE
        elif name == b"content-length":
            too_large = not value.isdigit() or int(value) > _MAX_BODY
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
        too_large = too_large or sum(map(len, chunks)) > _MAX_BODY
        if too_large:
            break
    body = b"".join(chunks)
    if what == POST_CARDS:
        if not typed and body.strip():
            plain = False  # a body that is not a form: Django refuses it
        cards = _cards(scope.get("query_string", b""), body) if plain and not too_large else None
        plain = cards is not None
    else:
        plain = plain and not body and not typed  # a document is asked for with nothing
        cards = None
    answer = None
    if plain and session_key:
        answer = await db_worker.run(_answer, session_key, what, cards, fmt)
    if answer is None:
        return await django_app(scope, _replaying(body, more, receive), send)
    status, content = answer
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": _headers(fmt, len(content), "POST" if what == POST_CARDS else "GET, HEAD"),
        }
    )
    await send({"type": "http.response.body", "body": content})


def _replaying(body: bytes, more: bool, receive):
    """A ``receive`` that gives Django the body already read, then the rest of it."""
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replay


def _cookies(cookie_header: bytes) -> tuple[str | None, bool]:
    """The session key, and whether a language cookie is there too (Django's to read).

    Read with Django's own cookie parser, so both ways see the same session.
    """
    cookies = parse_cookie(cookie_header.decode("latin-1"))
    return cookies.get(settings.SESSION_COOKIE_NAME) or None, (
        settings.LANGUAGE_COOKIE_NAME in cookies
    )


def _cards(query: bytes, body: bytes) -> list[str] | None:
    """The ``card_`` values as ``api.params.cards`` reads them; None: let Django read them."""
    values: list[str] = []
    count = 0
    for source in (query, body):
        try:
            pairs = parse_qsl(source.decode("ascii"), keep_blank_values=True, strict_parsing=False)
        except (UnicodeDecodeError, ValueError):
            return None
        count += len(pairs)
        for name, value in pairs:
            if CARD_PARAMETER in name and value.strip():
                values.append(value)
    if count > _MAX_FIELDS or len(values) > MAX_CARDS:
        return None
    return values


#: session key -> (session_data, place_id, user_id, the user's password hash), as last
#: verified the long way; a post checks them again with one query (:func:`_still_valid`).
_verified: dict[str, tuple[str, int, int, str]] = {}
_MAX_VERIFIED = 10_000
_DEFAULT_SETUP = (
    "django.contrib.sessions.backends.db",
    ["django.contrib.auth.backends.ModelBackend"],
)


def _player(session_key: str) -> tuple[int, int] | None:
    """``(place_id, user_id)`` of a live session of a player, as Django would find it.

    With the default session engine and backend, a session verified once is
    checked again by one query per post: the session row unchanged and not
    expired, the user still active with the same password hash (which the
    session's auth hash is made from). Logging out, a new login, a password
    change or a deactivation anywhere is seen at the next post.
    """
    cacheable = (settings.SESSION_ENGINE, list(settings.AUTHENTICATION_BACKENDS)) == _DEFAULT_SETUP
    known = _verified.get(session_key) if cacheable else None
    if known is not None and _still_valid(session_key, known):
        return known[1], known[2]
    _verified.pop(session_key, None)
    found = _player_the_long_way(session_key)
    if found is not None and cacheable:
        data, place_id, user = found
        if len(_verified) >= _MAX_VERIFIED:
            _verified.clear()
        _verified[session_key] = (data, place_id, user.pk, user.password)
    return None if found is None else (found[1], found[2].pk)


def _still_valid(session_key: str, known: tuple[str, int, int, str]) -> bool:
    users = get_user_model()._meta.db_table
    sessions = Session._meta.db_table
    q = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.{q('session_data')}, u.{q('password')} FROM {q(sessions)} s, {q(users)} u "
            f"WHERE s.{q('session_key')} = %s AND s.{q('expire_date')} > %s "
            f"AND u.{q('id')} = %s AND u.{q('is_active')}",
            [
                session_key,
                connection.ops.adapt_datetimefield_value(timezone.now()),
                known[2],
            ],
        )
        row = cursor.fetchone()
    return row is not None and row[0] == known[0] and row[1] == known[3]


def _player_the_long_way(session_key: str):
    """``(session_data, place_id, user)`` through Django's session store and auth backend."""
    store = import_string(settings.SESSION_ENGINE).SessionStore(session_key)
    data = store.load()  # {} for an unknown or expired session
    if not data:
        return None
    encoded = (
        Session.objects.filter(session_key=session_key)
        .values_list("session_data", flat=True)
        .first()
    )  # what the short check compares (only read here with the default engine)
    user_id, backend_path = data.get(SESSION_KEY), data.get(BACKEND_SESSION_KEY)
    place_id = data.get(PLACE_KEY)
    if user_id is None or backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    if not isinstance(place_id, int):
        return None
    backend = load_backend(backend_path)
    user = backend.get_user(get_user_model()._meta.pk.to_python(user_id))
    if user is None:
        return None
    stored = data.get(HASH_SESSION_KEY)
    if not stored or not constant_time_compare(stored, user.get_session_auth_hash()):
        return None  # Django also tries the fallback keys, and flushes a stale session
    return encoded, place_id, user


def _answer(
    session_key: str, what: str, cards: list[str] | None, fmt: str
) -> tuple[int, bytes] | None:
    """On the database thread: the status and body, or None to leave the request to Django."""
    player = _player(session_key)
    if player is None:
        return None
    place_id, user_id = player
    try:
        services.seat_of(place_id, user_id)  # as current_player(): before anything is read
        if what == POST_CARDS:
            data = services.post_cards(place_id, user_id, cards or []).as_dict()
        else:
            data = DOCUMENTS[what](place_id, user_id)
    except services.ServiceError as e:
        return e.status, formats.error(fmt, e.code, e.message, e.status).content
    except ObjectDoesNotExist:  # the session's place was deleted (as ApiView answers it)
        return 401, formats.error(fmt, services.NOT_LOGGED_IN, views.NO_SUCH_PLACE, 401).content
    return 200, formats.document(fmt, data).content


def _headers(fmt: str, length: int, allow: str) -> list[tuple[bytes, bytes]]:
    """What Django's view and middlewares put on this answer (see the module doc)."""
    content_type = formats.XML_TYPE if fmt == formats.XML else formats.JSON_TYPE
    headers = [
        (b"Content-Type", content_type.encode()),
        (b"Allow", allow.encode()),
        (b"Expires", http_date().encode()),
        (b"Cache-Control", b"max-age=0, no-cache, no-store, must-revalidate, private"),
        (b"X-Frame-Options", settings.X_FRAME_OPTIONS.encode()),
        (b"Content-Length", str(length).encode()),
        (b"Vary", b"Accept-Language, Cookie"),
        (b"Content-Language", settings.LANGUAGE_CODE.encode()),
    ]
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append((b"X-Content-Type-Options", b"nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        headers.append((b"Referrer-Policy", settings.SECURE_REFERRER_POLICY.encode()))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(
            (b"Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode())
        )
    return headers
