"""Staff endpoints (PROTOCOL.md §5) and the public event log, included from the root URLconf at ""."""

from django.urls import re_path

from places import event_views, staff_views

ID = r"^places/(?P<place_id>[0-9]{1,18})/"  # longer ids overflow the database's integers

urlpatterns = [
    re_path(ID + r"start(?:\.json)?$", staff_views.start, name="staff-start"),
    re_path(ID + r"next_turn(?:\.json)?$", staff_views.next_turn, name="staff-next-turn"),
    re_path(ID + r"info\.json$", staff_views.info, name="staff-info"),
    re_path(ID + r"players_card\.json$", staff_views.players_card, name="staff-players-card"),
    re_path(ID + r"graph\.json$", staff_views.graph, name="staff-graph"),
    re_path(ID + r"events\.json$", event_views.events, name="place-events"),
]
