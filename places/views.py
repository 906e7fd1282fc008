import logging

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"title": "daihinmin"})


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database check: 200 when ``SELECT 1`` works, else 503."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        logger.exception("health check: database unreachable")
        return JsonResponse({"status": "error", "database": "error"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})
