"""Player API routes, included from the root URLconf at ""."""

urlpatterns: list = []
