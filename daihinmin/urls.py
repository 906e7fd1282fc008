from django.contrib import admin
from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path

from places import views as place_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", place_views.healthz, name="healthz"),
    path("", place_views.home, name="home"),
    path("", include("places.urls")),
    path("", include("api.urls")),
]

# daphne serves no static files itself; with DEBUG on, Django serves them from
# static/ and the apps (an empty list when DEBUG is off).
urlpatterns += staticfiles_urlpatterns()
