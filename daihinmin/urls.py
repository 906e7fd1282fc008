from django.contrib import admin
from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path

from api import views as api_views
from places import views as place_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", place_views.healthz, name="healthz"),
    path("", place_views.home, name="home"),
    path("cards", place_views.cards, name="cards"),
    # the language switch of every page's header (Django's set_language view)
    path("i18n/", include("django.conf.urls.i18n")),
    # a player's legal plays, for the manual-play page (not part of the 2011 protocol)
    path("operations/legal_plays.json", api_views.legal_plays, name="operations_legal_plays"),
    path("", include("places.urls")),
    path("", include("api.urls")),
]

# daphne serves no static files itself; with DEBUG on, Django serves them from
# static/ and the apps (an empty list when DEBUG is off).
urlpatterns += staticfiles_urlpatterns()
