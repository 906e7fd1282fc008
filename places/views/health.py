"""What operators and load balancers ask: ``/livez``, ``/healthz``, ``/metrics``.

``/livez`` says the process answers (nothing else is touched: a load balancer
should not restart a process because the database is down). ``/healthz`` says it
is ready: the database answers and, when the processes share Redis, Redis does.
``/metrics`` is for staff, or for a scraper with ``Authorization: Bearer
METRICS_TOKEN`` (``places/metrics.py``).
"""

from __future__ import annotations

import hmac
import logging

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from prometheus_client import CONTENT_TYPE_LATEST

from places import errors, metrics
from places.views import read_only, refusal

logger = logging.getLogger(__name__)


@never_cache
@read_only
def livez(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _redis() -> str:
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


@never_cache
@read_only
def healthz(request: HttpRequest) -> JsonResponse:
    """Readiness: 200 when everything the process needs answers, else 503 naming what not."""
    checks = {"database": _database}
    if settings.REDIS_URL:
        checks["redis"] = _redis
    report: dict[str, str] = {}
    for name, check in checks.items():
        try:
            report[name] = check()
        except Exception as e:
            logger.exception("health check: %s unreachable", name)
            report[name] = f"error: {type(e).__name__}"
    ok = all(v == "ok" for v in report.values())
    return JsonResponse({"status": "ok" if ok else "error", **report}, status=200 if ok else 503)


def _may_scrape(request: HttpRequest) -> bool:
    user = request.user
    if user.is_authenticated and user.is_active and user.is_staff:
        return True
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


@never_cache
@read_only
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not _may_scrape(request):
        return refusal(
            errors.Refused(errors.STAFF_ONLY, "log in as staff, or send Authorization: Bearer")
        )
    return HttpResponse(metrics.exposition(), content_type=CONTENT_TYPE_LATEST)
