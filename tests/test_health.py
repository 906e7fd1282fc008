import pytest


@pytest.mark.django_db
def test_home_page(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "daihinmin" in body
    assert "no places yet" in body


@pytest.mark.django_db
def test_healthz_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


@pytest.mark.django_db
def test_healthz_database_down(client, monkeypatch):
    from django.db import connection

    def broken_cursor(*args, **kwargs):
        raise RuntimeError("database is down")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "error"
