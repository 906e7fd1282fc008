from django.contrib import admin
from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path, re_path

from places.views import health, json_not_found, pages

urlpatterns = [
    # first: a bot asks every turn (api/protocol.py), and URLs resolve in order
    path("", include("api.urls")),
    path("admin/", admin.site.urls),
    path("livez", health.livez, name="livez"),
    path("healthz", health.healthz, name="healthz"),
    path("metrics", health.metrics_view, name="metrics"),
    path("", pages.home, name="home"),
    path("cards", pages.cards, name="cards"),
    # the language switch of every page's header (Django's set_language view)
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("places.urls")),
    # last: a data URL that names nothing (a place id past any, a name no user may have)
    # answers NOT_FOUND in JSON, as the routes of data do, not Django's HTML page
    re_path(r"^[\s\S]*\.jsonl?$", json_not_found),  # ([\s\S]: a name may hold a newline)
]

# a failed view: SERVER_ERROR as JSON or XML on the routes of data, Django's page elsewhere
handler500 = "daihinmin.failures.server_error"

# daphne serves no static files itself; with DEBUG on, Django serves them from
# static/ and the apps (an empty list when DEBUG is off).
urlpatterns += staticfiles_urlpatterns()
