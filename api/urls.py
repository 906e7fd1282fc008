"""Player API routes (PROTOCOL.md §2, §3), made from the protocol table (``api/protocol.py``)
and included from the root URLconf at "". The names are ``api:<prefix>_<name>[_<fmt>]``.

The hot routes come first, ``post_cards`` first of all: URLs resolve in order, and a bot
asks for them every turn.
"""

from django.urls import path, re_path
from drf_spectacular.utils import extend_schema_view
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from api import protocol, schema, views

app_name = "api"


def _name(route: protocol.Route, prefix: str, fmt: str | None) -> str:
    key = "operations_" if prefix == "/operations/" else ""
    return f"{key}{route.name}" + (f"_{fmt}" if fmt else "")


urlpatterns = [
    path(
        url.removeprefix("/"),
        schema.described(route, prefix, fmt).as_view(),
        name=_name(route, prefix, fmt),
    )
    for route in sorted(protocol.ROUTES, key=lambda r: (not r.hot, r.name != "post_cards"))
    for url, prefix, fmt in route.paths()
]

# not in 2011: personal API tokens (issue 38), for a logged-in session
urlpatterns += [
    path(
        "tokens.json",
        extend_schema_view(**schema.tokens_spec())(views.TokensView).as_view(),
        name="tokens_json",
    ),
    path(
        # any segment: one that is no token's id is NO_SUCH_TOKEN, in JSON like the others
        "tokens/<str:token_id>.json",
        extend_schema_view(**schema.token_spec())(views.TokenView).as_view(),
        name="token_json",
    ),
]

# not in 2011: a finished game's analysis, read, or asked for by a session or a token
urlpatterns += [
    re_path(
        r"^places/(?P<place_id>[0-9]{1,9})/games/(?P<game_no>[0-9]{1,9})/analysis\.json$",
        extend_schema_view(**schema.analysis_spec())(views.AnalysisView).as_view(),
        name="game_analysis",
    ),
]

urlpatterns += [
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI's start script as a file (?script), not inline: the pages' CSP runs no inline script
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="api:schema", template_name="api/redoc.html"),
        name="redoc",
    ),
]
