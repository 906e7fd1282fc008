"""ASGI entry point: HTTP through Django, WebSockets through Channels.

Run with: daphne -b 127.0.0.1 -p 8000 daihinmin.asgi:application
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "daihinmin.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

# Set Django up (apps, models) before anything imports consumers or models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from daihinmin.routing import websocket_urlpatterns  # noqa: E402

# No AllowedHostsOriginValidator: bots connect without an Origin header.
application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
    }
)
