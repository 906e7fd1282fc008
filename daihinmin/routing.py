"""WebSocket URL routing (Channels). Consumers are added here as they are written."""

websocket_urlpatterns: list = []
