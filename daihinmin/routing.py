"""WebSocket URL routing: one place's stream, and every place's stream on any other path."""

from django.urls import path, re_path

from places.consumers import AllPlacesConsumer, LiveConsumer, PlaceConsumer

websocket_urlpatterns = [
    path("ws/places/<int:place_id>/", PlaceConsumer.as_asgi()),
    path("ws/places/<int:place_id>/live/", LiveConsumer.as_asgi()),
    re_path(r"", AllPlacesConsumer.as_asgi()),  # ws://HOST/ and any path not listed (2011)
]
