"""The OpenAPI description (/api/schema/) and its page (/api/docs/), served without internet."""

from __future__ import annotations

import io

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client

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
    assert "/get_hand{format}" in doc["paths"]


def test_the_docs_page_uses_the_bundled_swagger_ui(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in text
    assert "cdn" not in text.lower() and "unpkg" not in text.lower()
    # the files themselves ship in drf-spectacular-sidecar, found by the staticfiles finders
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert finders.find("drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")


def test_one_operation_a_route_and_method_its_formats_as_alternatives(schema):
    """Each route of the table once, whatever formats and prefixes it is served at (it was 48)."""
    from api import protocol

    paths = schema["paths"]
    operations = [(path, method) for path, ops in paths.items() for method in ops]
    routes = [(r, m) for r in protocol.ROUTES for m in r.methods if m != "HEAD"]
    routes += [(p, "GET") for p in READ_PATHS]  # api.schema.read_paths
    tokens = [
        ("/tokens.json", "get"),
        ("/tokens.json", "post"),
        ("/tokens/{token_id}.json", "delete"),
    ]
    routes += tokens  # outside the table: the token routes (issue 38)
    routes += [(ANALYSIS, "get"), (ANALYSIS, "post")]  # and a game's analysis (issue 44)
    assert len(operations) == len(routes) == len({o["operationId"] for o in _ops(schema)})
    assert set(paths) == {
        *(f"/{name}{{format}}" for name in DOCUMENTS + ["post_cards", "logout", "practice"]),
        "/login", "/login{format}", "/sessions{format}", "/operations",
        "/operations/legal_plays.json", "/signup", "/signup{format}", *READ_PATHS,
        "/tokens.json", "/tokens/{token_id}.json", ANALYSIS,
    }  # fmt: skip
    for d in DOCUMENTS:
        op = paths[f"/{d}{{format}}"]["get"]
        assert _format_values(op) == SUFFIXES
        assert f"`/operations/{d}.json`" in op["description"]
    # two routes of the table: the login page (and its form's post), and the documents' login
    assert set(paths["/login"]) == {"get", "post"}
    assert set(paths["/login{format}"]) == {"post"}
    assert _format_values(paths["/login{format}"]["post"]) == [".json", ".xml"]
    assert set(paths["/logout{format}"]) == {"get", "post"}


def test_every_path_apart_on_request(client):
    """``?paths=each``: the 44 concrete paths, for tools that want them (and the fuzzer)."""
    doc = yaml.safe_load(client.get("/api/schema/", {"paths": "each"}).content)
    paths = doc["paths"]
    expected = {"/login", "/operations", "/operations/legal_plays.json"}
    expected |= {f"/{b}{s}" for b in ("login", "sessions", "logout") for s in SUFFIXES}
    for prefix in ("/operations/", "/"):
        expected |= {f"{prefix}{d}{s}" for d in DOCUMENTS + ["post_cards"] for s in SUFFIXES}
    expected |= {f"/practice{s}" for s in SUFFIXES}
    expected |= {"/signup", "/signup.json", "/signup.xml", *READ_PATHS}
    expected |= {"/tokens.json", "/tokens/{token_id}.json", ANALYSIS}
    assert set(paths) == expected
    assert set(paths["/login"]) == {"get", "post"} and set(paths["/login.json"]) == {"post"}


#: A finished game's analysis: read by anyone, asked for by a session or a token (issue 44).
ANALYSIS = "/places/{place_id}/games/{game_no}/analysis.json"

#: The site's read routes the description holds (``api.schema.read_paths``).
READ_PATHS = [
    "/games.json", "/ratings.json", "/places/{place_id}/events.json",
    "/places/{place_id}/games/{game_no}/record.json", "/places/{place_id}/records.jsonl",
    "/users/{name}.json", "/tournaments/{tournament_id}.json",
    "/tournaments/{tournament_id}/records.jsonl",
]  # fmt: skip


def test_a_data_url_that_names_nothing_is_not_found_in_json(client):
    """The described read routes answer NOT_FOUND in JSON for any segment (the fuzzer's
    ``null,null``, a name with a newline), not Django's HTML page."""
    for url in (
        "/places/null,null/events.json",
        "/users/a%0Ab.json",
        "/users/a b.json",
        "/tournaments/x/records.jsonl",
        "/places/1/games/x/record.json",
        "/no.json",
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response.json()["error"]["code"] == "NOT_FOUND", url
    assert client.get("/places/null,null/").status_code == 404  # a page: Django's own


def test_a_post_to_a_data_url_that_names_nothing_is_not_found_in_json(client, django_user_model):
    """The fuzzer's ``POST /places/null,null/games/1/analysis.json`` with a session's cookie
    met Django's CSRF check, an HTML 403, not the route's JSON."""
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(django_user_model.objects.create_user("poster", password="pw-12345"))
    for url in ("/places/null,null/games/1/analysis.json", "/places/1/games/x/analysis.json"):
        response = csrf.post(url)
        assert response.status_code == 404, url
        assert response.json()["error"]["code"] == "NOT_FOUND", url


def _ops(schema) -> list[dict]:
    return [op for ops in schema["paths"].values() for op in ops.values()]


def _format_values(op: dict) -> list[str]:
    (parameter,) = [p for p in op["parameters"] if p["in"] == "path"]
    assert parameter["name"] == "format" and parameter["required"]
    return parameter["schema"]["enum"]


def test_a_format_the_route_lacks_is_described_as_404(schema):
    op = schema["paths"]["/get_hand{format}"]["get"]
    assert set(op["responses"]["404"]["content"]) == {"text/html"}


def test_no_description_loses_markup_to_the_docs_page(schema):
    """Swagger UI reads descriptions as Markdown with HTML: a bare tag vanished ("(XML: )")."""
    import re

    texts = [schema["info"]["description"]]
    for op in _ops(schema):
        texts.append(op.get("description", ""))
        texts += [r.get("description", "") for r in op["responses"].values()]
    for text in texts:
        outside_code = re.sub(r"`[^`]*`", "", text)
        assert not re.search(r"<[a-zA-Z/!?]", outside_code), text


def test_cookie_authentication_is_an_api_key_in_the_sessionid_cookie(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes == {
        "cookieAuth": {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": schemes["cookieAuth"]["description"],
        },
        "bearerAuth": {
            "type": "http",
            "scheme": "bearer",
            "description": schemes["bearerAuth"]["description"],
        },
    }
    either = [{"bearerAuth": []}, {"cookieAuth": []}]
    assert schema["paths"]["/get_hand{format}"]["get"]["security"] == either
    assert schema["paths"]["/post_cards{format}"]["post"]["security"] == either
    assert "security" not in schema["paths"]["/sessions{format}"]["post"]


def test_the_token_routes_are_described(schema):
    """Issue 38: the routes for scripts, their answers and their stable codes."""
    paths = schema["paths"]
    assert set(paths["/tokens.json"]) == {"get", "post"}
    assert set(paths["/tokens/{token_id}.json"]) == {"delete"}
    made = paths["/tokens.json"]["post"]["responses"]
    assert made["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/NewToken"
    }
    assert "TOO_MANY_TOKENS" in made["409"]["description"]
    assert "TOO_MANY_NEW_TOKENS" in made["429"]["description"]
    assert (
        "NO_SUCH_TOKEN"
        in paths["/tokens/{token_id}.json"]["delete"]["responses"]["404"]["description"]
    )
    hand = paths["/get_hand{format}"]["get"]
    assert "INVALID_TOKEN" in hand["responses"]["401"]["description"]
    assert "place_id" in {p["name"] for p in hand["parameters"]}


def test_documents_answer_their_format_and_the_error_body(schema):
    paths = schema["paths"]
    ok = paths["/get_hand{format}"]["get"]["responses"]
    assert ok["200"]["content"]["application/json"]["schema"] == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/Card"},
    }
    assert ok["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    assert set(ok["200"]["content"]) == {"application/json", "application/xml"}
    assert (
        '<cards type="array">'
        in ok["200"]["content"]["application/xml"]["examples"]["Document"]["value"]
    )
    assert set(ok["401"]["content"]) == {"application/json", "application/xml"}


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
    op = schema["paths"]["/post_cards{format}"]["post"]
    query = {p["name"] for p in op["parameters"] if p["in"] == "query"}
    assert {f"card_{i}" for i in range(14)} <= query
    form = op["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    assert form == {"$ref": "#/components/schemas/CardsForm"}
    assert set(op["responses"]) >= {"200", "400", "401", "403", "405", "409", "413", "415"}
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PostResult"
    }
    responses = op["responses"]
    assert "302" in responses and "Location" in responses["302"]["headers"]
    assert set(responses["409"]["content"]) == {
        "application/json", "application/xml", "text/html"
    }  # fmt: skip


def test_login_describes_its_fields_429_and_retry_after(schema):
    op = schema["paths"]["/sessions{format}"]["post"]
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
    assert set(schema["paths"]["/practice{format}"]) == {"post"}
    op = schema["paths"]["/practice{format}"]["post"]
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
        "rules",
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
        "rules",
        "uecda",
    ]
    assert set(practice["required"]) == set(list(practice["properties"])[:9])  # uecda's: new keys
    uecda = schema["components"]["schemas"]["PracticeUecda"]
    assert list(uecda["properties"]) == ["join_code", "host", "port", "client", "bot"]
    assert "UNKNOWN_STRATEGY" in op["responses"]["400"]["description"]
    assert "TOO_MANY_PRACTICES" in op["responses"]["409"]["description"]
    # issue 44: a bot's token starts a practice too, as a session or a name and password do
    assert op["security"] == [{"bearerAuth": []}, {"cookieAuth": []}]  # or name and password
    assert "INVALID_TOKEN" in op["responses"]["401"]["description"]
    assert "Location" in op["responses"]["302"]["headers"]
    xml = op["responses"]["200"]["content"]
    assert '<players type="array">' in xml["application/xml"]["examples"]["Document"]["value"]


def test_the_place_info_shape_keeps_the_contract_keys_first(schema):
    props = list(schema["components"]["schemas"]["PlaceInfo"]["properties"])
    assert props[:3] == ["game_count", "player_count", "player_infos"]


def test_the_leaderboards_are_described_as_answered(schema, client):
    op = schema["paths"]["/ratings.json"]["get"]
    (rules,) = op["parameters"]
    assert rules["name"] == "rules" and rules["schema"]["enum"] == ["daihinmin-2011", "uecda"]
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert set(body["required"]) == set(client.get("/ratings.json?rules=uecda").json())


def test_the_game_search_is_described_with_every_parameter_it_takes(schema, client):
    """``/games.json`` in the description: its parameters are those the search reads, and
    an answer has the described shape."""
    from places.reads.games import PARAMETERS

    op = schema["paths"]["/games.json"]["get"]
    assert [p["name"] for p in op["parameters"]] == list(PARAMETERS)
    assert set(op["responses"]) == {"200", "400", "405"}
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    doc = client.get("/games.json").json()
    assert set(body["required"]) == set(doc)


def test_the_analysis_route_is_described_with_its_codes(schema):
    """Issue 44 item 13: a script reads and asks for an analysis, by session or token."""
    route = schema["paths"][ANALYSIS]
    either = [{"bearerAuth": []}, {"cookieAuth": []}]
    assert route["post"]["security"] == either
    assert route["get"]["security"] == [*either, {}]  # anyone reads
    asked = route["post"]["responses"]
    assert set(asked) == {"200", "202", "401", "403", "404", "409", "429"}
    assert asked["202"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/AnalysisStatus"
    }
    for status, codes in {
        "401": ["NOT_LOGGED_IN", "INVALID_TOKEN"],
        "403": ["CROSS_SITE", "HELD_BACK"],
        "409": ["ANALYSIS_UNDER_WAY", "ADDRESS_ANALYSES_UNDER_WAY"],
        "429": ["TOO_MANY_ANALYSES", "TOO_MANY_ADDRESS_ANALYSES", "TOO_MANY_ATTEMPTS"],
    }.items():
        assert all(code in asked[status]["description"] for code in codes), status
    assert "NOT_ANALYSED" in route["get"]["responses"]["404"]["description"]
    assert "Retry-After" in asked["429"]["headers"]
