"""``/places/ID/events.json?after=N``: the public event log's parameter is read strictly."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("after", ["0", "3", " 2 ", "-1"])
def test_after_in_ascii_digits_is_read(client, make_place, after):
    place = make_place()
    response = client.get(f"/places/{place.id}/events.json", {"after": after})
    assert response.status_code == 200
    assert json.loads(response.content)["first_seq"] == max(0, int(after)) + 1


@pytest.mark.parametrize("after", ["１", "٣", "²", "1_0", "1.0", "one", "", "9" * 5000])
def test_after_in_other_digits_is_refused(client, make_place, after):
    """Python's int() reads full-width (１) and Arabic-Indic (٣) digits and 1_0; a URL may not."""
    place = make_place()
    response = client.get(f"/places/{place.id}/events.json", {"after": after})
    assert response.status_code == 400
    error = json.loads(response.content)["error"]
    assert error == {"code": "INVALID_PARAMETER", "message": "after must be an integer"}
