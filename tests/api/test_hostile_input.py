"""Whatever a client sends gets an answer in 4xx, never a server error, and changes nothing."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from daihinmin.bodies import stated_length
from tests.api.helpers import FORM, error_json, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def before(place):
    return snapshot(place.id)


def assert_refused(response, status, code, place, before):
    assert response.status_code == status, response.content[:200]
    error_json(code, response)
    assert snapshot(place.id) == before


def test_two_thousand_card_parameters_in_the_body_are_400(alice, place, before):
    fields = urlencode({f"card_{i}": "1-1" for i in range(2000)})
    response = alice.post("/post_cards.json", fields, content_type=FORM)
    assert_refused(response, 400, "BAD_REQUEST", place, before)


def test_two_thousand_card_parameters_in_the_query_are_400(alice, place, before):
    query = urlencode({f"card_{i}": "1-1" for i in range(2000)})
    assert_refused(alice.post(f"/post_cards.json?{query}"), 400, "BAD_REQUEST", place, before)


def test_two_thousand_blank_card_parameters_are_400_too(alice, place, before):
    fields = "&".join(f"card_{i}=" for i in range(2000))
    response = alice.post("/post_cards.json", fields, content_type=FORM)
    assert_refused(response, 400, "BAD_REQUEST", place, before)


def test_a_one_megabyte_card_value_is_invalid_card(alice, place, before):
    response = alice.post(
        "/post_cards.json", urlencode({"card_0": "2" * 1_000_000}), content_type=FORM
    )
    assert_refused(response, 400, "INVALID_CARD", place, before)


def test_a_body_over_django_s_limit_is_413(alice, place, before, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    response = alice.post(
        "/post_cards.json", urlencode({"card_0": "2" * 200_000}), content_type=FORM
    )
    assert_refused(response, 413, "REQUEST_TOO_LARGE", place, before)


@pytest.mark.parametrize("raw", [b"card_0=\xff\xfe", b"card_0=%FF%FE", b"card_\xff=2-3x"])
def test_non_utf8_bytes_in_the_body_are_refused(alice, place, before, raw):
    response = alice.post("/post_cards.json", raw, content_type=FORM)
    assert response.status_code == 400
    assert snapshot(place.id) == before


@pytest.mark.parametrize("query", ["card_0=%FF%FE", "card_0=\xff", "%FF=1&card_0=%C3%28"])
def test_non_utf8_bytes_in_the_query_are_refused(alice, place, before, query):
    response = alice.post("/post_cards.json", QUERY_STRING=query)
    assert response.status_code == 400
    assert snapshot(place.id) == before


def test_a_nul_byte_in_a_card_is_invalid_card(alice, place, before):
    response = alice.post("/post_cards.json", "card_0=2-3%00", content_type=FORM)
    assert_refused(response, 400, "INVALID_CARD", place, before)


def test_a_json_body_is_415(alice, place, before):
    response = alice.post("/post_cards.json", '{"card_0":"2-3"}', content_type="application/json")
    assert_refused(response, 415, "UNSUPPORTED_MEDIA_TYPE", place, before)


def test_an_untyped_body_is_415(alice, place, before):
    response = alice.post("/post_cards.json", "card_0=2-3", content_type="")
    assert_refused(response, 415, "UNSUPPORTED_MEDIA_TYPE", place, before)


def test_a_get_to_post_cards_is_405(alice, place, before):
    for path in ("/post_cards", "/post_cards.json", "/operations/post_cards?card_0=2-3"):
        response = alice.get(path, headers={"Accept": "application/json"})
        assert response.status_code == 405
        assert response["Allow"] == "POST"
    assert_refused(alice.get("/post_cards.json"), 405, "METHOD_NOT_ALLOWED", place, before)


@pytest.mark.parametrize("method", ["put", "patch", "delete", "options"])
def test_other_methods_are_405(alice, place, before, method):
    response = getattr(alice, method)("/post_cards.json")
    assert_refused(response, 405, "METHOD_NOT_ALLOWED", place, before)


def test_a_broken_multipart_body_is_400(alice, place, before):
    response = alice.post(
        "/post_cards.json",
        b'--x\r\nContent-Disposition: form-data; name="card_0"\r\n\r\n2-3',
        content_type="multipart/form-data",  # no boundary
    )
    assert response.status_code == 400
    assert snapshot(place.id) == before


def test_a_file_upload_named_like_a_card_is_invalid_card(alice, place, before):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = alice.post("/post_cards.json", {"card_0": SimpleUploadedFile("c.txt", b"2-3")})
    assert_refused(response, 400, "INVALID_CARD", place, before)


def test_an_unknown_charset_is_harmless(alice, place, before):
    response = alice.generic(
        "POST", "/post_cards.json", b"card_0=zz", content_type=FORM + "; charset=no-such-charset"
    )
    assert_refused(response, 400, "INVALID_CARD", place, before)


def test_a_strange_accept_header_is_harmless(alice, place, before):
    for accept in ("", ";;;", "application/json;q=abc", "*/*;q=0", "\x00"):
        response = alice.post("/post_cards", {"card_0": "zz"}, headers={"Accept": accept})
        assert response.status_code == 400


def test_hostile_logins_are_4xx(client, place):
    cases = [
        (urlencode({f"name{i}": "x" for i in range(2000)}), FORM),
        ("name=\xff&password=\xff&place_id=\xff", FORM),
        ("name=a%00b&password=x&place_id=1", FORM),
        (
            urlencode({"name": "a" * 1_000_000, "password": "p" * 100_000, "place_id": "9" * 100}),
            FORM,
        ),
        ('{"name":"alice"}', "application/json"),
    ]
    for payload, content_type in cases:
        response = client.post("/sessions.json", payload, content_type=content_type)
        assert 400 <= response.status_code < 500, (payload[:40], response.status_code)


def test_hostile_queries_to_documents_are_harmless(alice):
    query = urlencode({f"x{i}": "1" for i in range(2000)})
    assert alice.get(f"/get_hand.json?{query}").status_code in (200, 400)
    assert alice.get("/get_hand.json", QUERY_STRING="a=\xff%FF").status_code == 200


def test_a_multipart_body_cut_short_is_400_and_not_a_pass(alice, place, before):
    """``printf -- '--XX\r\nfoo'`` as a multipart body, on Alice's lead: not a pass (a miss)."""
    response = alice.post(
        "/post_cards.json", b"--XX\r\nfoo", content_type="multipart/form-data; boundary=XX"
    )
    assert_refused(response, 400, "BAD_REQUEST", place, before)


def test_an_empty_multipart_form_is_an_empty_form(bob, place, before):
    """The closing boundary alone: what a browser sends for a form without fields."""
    response = bob.post(
        "/post_cards.json", b"--XX--\r\n", content_type="multipart/form-data; boundary=XX"
    )
    assert_refused(response, 409, "NOT_YOUR_TURN", place, before)  # read, and refused as a pass


@pytest.mark.parametrize("path", ["/post_cards.json", "/post_cards.xml"])
def test_a_form_in_another_charset_is_the_api_s_400(alice, place, before, path):
    response = alice.post(path, b"card_0=", content_type=FORM + "; charset=utf-16")
    assert response.status_code == 400
    assert b"BAD_REQUEST" in response.content and b"<!doctype" not in response.content.lower()
    assert snapshot(place.id) == before


@pytest.mark.parametrize(
    ("header", "length"),
    [
        (b"12", 12),
        (b" 12 ", 12),
        (b"", None),
        (b"\xc2\xb2", None),
        (b"-1", None),
        (b"9" * 5000, None),
    ],
)
def test_a_content_length_is_read_as_ascii_digits_or_not_at_all(header, length):
    """An unreadable length (5,000 digits: beyond int's own limit) is as none: the body is
    then read up to the limit, never whole."""
    assert stated_length([(b"Content-Length", header)]) == length
