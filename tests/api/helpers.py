"""Helpers of the player API tests: logging in, reading forms like Mechanize, snapshots."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from places.models import Place, PlaceEvent, Player
from places.reads import seats

FORM = "application/x-www-form-urlencoded"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def login(client: Client, name: str, place_id: int, **extra):
    """Log ``name`` in to the place the way a form does; the client keeps the cookie."""
    response = client.post(
        "/sessions", {"name": name, "password": f"{name}-pw", "place_id": place_id}, **extra
    )
    assert response.status_code == 302, response.content
    return response


def body(response) -> str:
    return response.content.decode("utf-8")


def data(response):
    return json.loads(response.content)


def error_json(code: str, response) -> None:
    """The response is the protocol's JSON error body with this code."""
    assert response["Content-Type"] == "application/json; charset=utf-8"
    doc = data(response)
    assert list(doc) == ["error"]
    assert list(doc["error"]) == ["code", "message"]
    assert doc["error"]["code"] == code
    assert doc["error"]["message"]


def error_xml(code: str, response) -> None:
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    text = body(response)
    assert text.startswith(DECL + f"<error>\n  <code>{code}</code>\n  <message>")
    assert text.endswith("</message>\n</error>\n")


def snapshot(place_id: int) -> tuple[int, dict]:
    """What must not change when a request is refused: the event log and the engine state."""
    place = Place.objects.get(pk=place_id)
    return PlaceEvent.objects.filter(place_id=place_id).count(), place.engine_state


def session_cookie(client: Client) -> str:
    return client.cookies["sessionid"].value


@dataclass
class Form:
    action: str
    method: str
    fields: dict[str, str] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    submits: int = 0


class _FormParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms: list[Form] = []
        self._open: Form | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._open = Form(a.get("action", ""), (a.get("method") or "get").lower())
            self.forms.append(self._open)
        elif tag == "input" and self._open is not None:
            kind = (a.get("type") or "text").lower()
            if kind == "submit":
                self._open.submits += 1
                if not a.get("name"):
                    return
            if a.get("name"):
                self._open.fields[a["name"]] = a.get("value") or ""
                self._open.types[a["name"]] = kind

    def handle_endtag(self, tag):
        if tag == "form":
            self._open = None


def forms(html: str) -> list[Form]:
    """The forms of a page, in order (Mechanize's ``page.forms``)."""
    parser = _FormParser()
    parser.feed(html)
    return parser.forms


def submit(client: Client, form: Form, values: dict[str, str], **extra):
    """Fill the form and submit it as Mechanize's ``form.submit`` does (every field sent)."""
    fields = dict(form.fields)
    fields.update(values)
    if form.method == "post":
        return client.post(form.action, urlencode(fields), content_type=FORM, **extra)
    return client.get(form.action, fields, **extra)


# -- ending a session, every way (the name is Bob's) ----------------------------------


def end_by_logout(cookie: str) -> None:
    client = Client(HTTP_HOST="127.0.0.1")  # allowed under any test settings
    client.cookies["sessionid"] = cookie
    assert client.post("/logout.json").status_code == 204


def end_by_password_change(cookie: str) -> None:
    user = get_user_model().objects.get(username="bob")
    user.set_password("another")
    user.save()


def end_by_deactivation(cookie: str) -> None:
    get_user_model().objects.filter(username="bob").update(is_active=False)


def end_by_deleting_the_user(cookie: str) -> None:
    Player.objects.filter(user__username="bob").delete()
    seats.forget()
    get_user_model().objects.filter(username="bob").delete()


def end_by_expiry(cookie: str) -> None:
    Session.objects.filter(session_key=cookie).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )


def end_by_tampering(cookie: str) -> None:
    Session.objects.filter(session_key=cookie).update(session_data="tampered")


SESSION_ENDINGS = [
    end_by_logout,
    end_by_password_change,
    end_by_deactivation,
    end_by_deleting_the_user,
    end_by_expiry,
    end_by_tampering,
]
