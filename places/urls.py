"""Staff endpoints (PROTOCOL.md §5), the public event log and the place pages, included at ""."""

from django.urls import re_path

from places import event_views, staff_views, views

ID = r"^places/(?P<place_id>[0-9]{1,18})/"  # longer ids overflow the database's integers

urlpatterns = [
    re_path(ID + r"start(?:\.json)?$", staff_views.start, name="staff-start"),
    re_path(ID + r"next_turn(?:\.json)?$", staff_views.next_turn, name="staff-next-turn"),
    re_path(ID + r"info\.json$", staff_views.info, name="staff-info"),
    re_path(ID + r"players_card\.json$", staff_views.players_card, name="staff-players-card"),
    re_path(ID + r"graph\.json$", staff_views.graph, name="staff-graph"),
    re_path(ID + r"events\.json$", event_views.events, name="place-events"),
    # pages (read-only)
    re_path(ID + r"$", views.live, name="place-live"),
    re_path(ID + r"state\.json$", views.state, name="place-state"),
    re_path(ID + r"results$", views.results, name="place-results"),
    re_path(ID + r"results\.csv$", views.results_csv, name="place-results-csv"),
]
