"""Player API routes (PROTOCOL.md §2, §3), included from the root URLconf at "".

Every document and ``post_cards`` exists under ``/operations/`` (where the 2011
server served it) and at the root (where the founding document's headings put
it), with no suffix, ``.json`` or ``.xml``. Each path is its own described
view class (``api/schema.py``); the names are ``api:<prefix>_<name>[_<fmt>]``.
"""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api import schema, views

app_name = "api"

FORMATS = (None, "json", "xml")
DOCUMENTS = {
    "get_hand": views.HandView,
    "get_place_info": views.PlaceInfoView,
    "get_rank": views.RankView,
    "get_initial_hand": views.InitialHandView,
}


def _route(url: str, view_cls, label: str, spec: dict, name: str, **attrs):
    view = schema.described(view_cls, label, spec, **attrs)
    return path(url, view.as_view(), name=name)


def _suffix(fmt):
    return f".{fmt}" if fmt else ""


def _name(base, fmt):
    return f"{base}_{fmt}" if fmt else base


urlpatterns = [
    _route("login", views.LoginFormView, "page", schema.login_spec("login", None, True), "login"),
    *(
        _route(
            f"{base}{_suffix(fmt)}",
            views.LoginView,
            f"{base}_{fmt or 'plain'}",
            schema.login_spec(base, fmt, False),
            _name(base, fmt),
            fmt=fmt,
        )
        for base in ("login", "sessions")
        for fmt in FORMATS
        if (base, fmt) != ("login", None)
    ),
    *(
        _route(
            f"logout{_suffix(fmt)}",
            views.LogoutView,
            fmt or "plain",
            schema.logout_spec(fmt),
            _name("logout", fmt),
            fmt=fmt,
        )
        for fmt in FORMATS
    ),
    _route("operations", views.OperationsView, "page", schema.operations_spec(), "operations"),
]

for prefix in ("operations/", ""):
    key = "operations_" if prefix else ""
    for fmt in FORMATS:
        for doc, view_cls in DOCUMENTS.items():
            urlpatterns.append(
                _route(
                    f"{prefix}{doc}{_suffix(fmt)}",
                    view_cls,
                    f"{key}{fmt or 'plain'}",
                    schema.document_spec(doc, prefix, fmt),
                    _name(key + doc, fmt),
                    fmt=fmt,
                )
            )
        urlpatterns.append(
            _route(
                f"{prefix}post_cards{_suffix(fmt)}",
                views.PostCardsView,
                f"{key}{fmt or 'plain'}",
                schema.post_cards_spec(prefix, fmt),
                _name(key + "post_cards", fmt),
                fmt=fmt,
            )
        )

urlpatterns += [
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
]
