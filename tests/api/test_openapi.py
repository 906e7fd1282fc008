"""The OpenAPI description (/api/schema/) and its page (/api/docs/), served without internet."""

from __future__ import annotations

import io

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.core.management import call_command

pytestmark = pytest.mark.django_db

DOCUMENTS = ["get_hand", "get_place_info", "get_rank", "get_initial_hand"]
SUFFIXES = ["", ".json", ".xml"]


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        out = io.StringIO()
        call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    return yaml.safe_load(out.getvalue())


def test_the_schema_is_served_at_api_schema(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    doc = yaml.safe_load(response.content)
    assert doc["openapi"].startswith("3.")
    assert "/operations/get_hand.json" in doc["paths"]


def test_the_docs_page_uses_the_bundled_swagger_ui(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in text
    assert "cdn" not in text.lower() and "unpkg" not in text.lower()
    # the files themselves ship in drf-spectacular-sidecar, found by the staticfiles finders
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert finders.find("drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")


def test_every_player_api_path_is_described(schema):
    paths = schema["paths"]
    expected = {"/login", "/operations"}
    expected |= {f"/{b}{s}" for b in ("login", "sessions", "logout") for s in SUFFIXES}
    for prefix in ("/operations/", "/"):
        expected |= {f"{prefix}{d}{s}" for d in DOCUMENTS + ["post_cards"] for s in SUFFIXES}
    assert expected <= set(paths)
    assert set(paths["/login"]) == {"get", "post"}
    assert set(paths["/sessions"]) == {"post"}
    assert set(paths["/logout"]) == {"get", "post"}
    for d in DOCUMENTS:
        assert set(paths[f"/{d}.json"]) == {"get"}
    assert set(paths["/post_cards.json"]) == {"post"}


def test_cookie_authentication_is_an_api_key_in_the_sessionid_cookie(schema):
    assert schema["components"]["securitySchemes"] == {
        "cookieAuth": {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": schema["components"]["securitySchemes"]["cookieAuth"]["description"],
        }
    }
    assert schema["paths"]["/operations/get_hand.json"]["get"]["security"] == [{"cookieAuth": []}]
    assert schema["paths"]["/operations/post_cards"]["post"]["security"] == [{"cookieAuth": []}]
    assert "security" not in schema["paths"]["/sessions.json"]["post"]


def test_documents_answer_their_format_and_the_error_body(schema):
    paths = schema["paths"]
    ok = paths["/operations/get_hand.json"]["get"]["responses"]
    assert ok["200"]["content"]["application/json"]["schema"] == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/Card"},
    }
    assert ok["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    xml = paths["/get_hand.xml"]["get"]["responses"]
    assert set(xml["200"]["content"]) == {"application/xml"}
    assert (
        '<cards type="array">'
        in xml["200"]["content"]["application/xml"]["examples"]["Document"]["value"]
    )
    assert set(xml["401"]["content"]) == {"application/xml"}


def test_the_error_shape_lists_every_code(schema):
    components = schema["components"]["schemas"]
    assert components["Error"]["properties"]["error"] == {
        "$ref": "#/components/schemas/ErrorDetail"
    }
    code_ref = components["ErrorDetail"]["properties"]["code"]["$ref"].split("/")[-1]
    assert set(components[code_ref]["enum"]) >= {
        "NOT_LOGGED_IN",
        "LOGIN_FAILED",
        "INVALID_CARD",
        "NO_TURN_OPEN",
        "NOT_YOUR_TURN",
        "CROSS_SITE",
        "TOO_MANY_ATTEMPTS",
    }


def test_post_cards_describes_its_card_parameters_and_every_error_status(schema):
    op = schema["paths"]["/operations/post_cards.json"]["post"]
    query = {p["name"] for p in op["parameters"] if p["in"] == "query"}
    assert {f"card_{i}" for i in range(14)} <= query
    form = op["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    assert form == {"$ref": "#/components/schemas/CardsForm"}
    assert set(op["responses"]) >= {"200", "400", "401", "403", "405", "409", "413", "415"}
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PostResult"
    }
    plain = schema["paths"]["/post_cards"]["post"]["responses"]
    assert "302" in plain and "Location" in plain["302"]["headers"]
    assert set(plain["409"]["content"]) == {"application/json", "application/xml", "text/html"}


def test_login_describes_its_fields_429_and_retry_after(schema):
    op = schema["paths"]["/sessions.json"]["post"]
    assert {p["name"] for p in op["parameters"] if p["in"] == "query"} == {
        "name",
        "password",
        "place_id",
    }
    assert set(op["requestBody"]["content"]) == {"application/x-www-form-urlencoded"}
    assert set(op["responses"]) >= {"200", "401", "403", "429"}
    assert "Retry-After" in op["responses"]["429"]["headers"]
    assert schema["paths"]["/login"]["get"]["responses"]["200"]["content"] == {
        "text/html": {"schema": {"type": "string", "description": "an HTML page"}}
    }


def test_practice_describes_its_answer_its_parameters_and_its_errors(schema):
    for suffix in SUFFIXES:
        assert set(schema["paths"][f"/practice{suffix}"]) == {"post"}
    op = schema["paths"]["/practice.json"]["post"]
    assert {p["name"] for p in op["parameters"] if p["in"] == "query"} == {
        "name",
        "password",
        "bots",
        "games",
        "pace",
        "time_limit",
        "time_bank",
        "rated",
        "seed",
    }
    assert set(op["responses"]) >= {"200", "400", "401", "403", "405", "409", "429"}
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Practice"
    }
    practice = schema["components"]["schemas"]["Practice"]
    assert list(practice["properties"]) == [
        "player",
        "place",
        "seat",
        "players",
        "game_count",
        "pace",
        "time_limit",
        "state",
        "urls",
    ]
    assert "UNKNOWN_STRATEGY" in op["responses"]["400"]["description"]
    assert "TOO_MANY_PRACTICES" in op["responses"]["409"]["description"]
    plain = schema["paths"]["/practice"]["post"]["responses"]
    assert "Location" in plain["302"]["headers"]
    xml = schema["paths"]["/practice.xml"]["post"]["responses"]["200"]["content"]
    assert '<players type="array">' in xml["application/xml"]["examples"]["Document"]["value"]


def test_the_place_info_shape_keeps_the_contract_keys_first(schema):
    props = list(schema["components"]["schemas"]["PlaceInfo"]["properties"])
    assert props[:3] == ["game_count", "player_count", "player_infos"]
