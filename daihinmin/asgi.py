"""ASGI entry point: HTTP through Django (bots' hot routes on the database thread:
``api/fast.py``), WebSockets through Channels, and the dealer.

Run with: python -m daihinmin.serve -b 127.0.0.1 -p 8000 daihinmin.asgi:application
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "daihinmin.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

# Set Django up (apps, models) before anything imports consumers or models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from api import fast  # noqa: E402
from daihinmin.bodies import BodyLimit  # noqa: E402
from daihinmin.pacing import Paced  # noqa: E402
from daihinmin.routing import websocket_urlpatterns  # noqa: E402
from places import analyst, dealer, metrics  # noqa: E402
from places.realtime import broadcast  # noqa: E402
from places.realtime.auth import SocketHandshake  # noqa: E402

# No AllowedHostsOriginValidator: bots connect without an Origin header. The
# handshake's Host is checked against ALLOWED_HOSTS by SocketHandshake.
router = ProtocolTypeRouter(
    {
        # streamed answers at the client's pace (daihinmin/pacing.py)
        "http": Paced(BodyLimit(fast.wrap(django_asgi_app))),
        "websocket": SocketHandshake(URLRouter(websocket_urlpatterns)),
    }
)


async def application(scope, receive, send):
    """The router, with this process's event sender, loop probe and dealer started on the first
    connection.

    Daphne has no lifespan events; starting on first use also keeps the dealer
    out of processes that merely import this module (tests, management commands).
    """
    await broadcast.attach()
    metrics.watch_loop_lag()
    if settings.DEALER_AUTOSTART:
        dealer.start()
    if settings.ANALYST_AUTOSTART:
        analyst.start()
    return await router(scope, receive, send)
