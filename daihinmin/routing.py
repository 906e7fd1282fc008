"""WebSocket URL routing: one place's stream, and every place's stream on any other path."""

from django.urls import re_path

from places.realtime.consumers import AllPlacesConsumer, LiveConsumer, PlaceConsumer
from places.urls import PLACE_ID as ID

websocket_urlpatterns = [
    re_path(rf"^ws/places/{ID}/$", PlaceConsumer.as_asgi()),
    re_path(rf"^ws/places/{ID}/live/$", LiveConsumer.as_asgi()),
    re_path(r"", AllPlacesConsumer.as_asgi()),  # ws://HOST/ and any path not listed (2011)
]
