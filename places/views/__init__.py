"""The site's own endpoints: the pages, the staff endpoints and the event log.

They parse, call ``places.reads`` or ``places.services``, and render; a refusal
is a ``places.errors.Refused``, written as JSON by :func:`json_response`.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from places import errors
from places.wire.codec import compact

JSON_TYPE = "application/json"


def json_response(data: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(compact(data), status=status, content_type=JSON_TYPE)


def refusal(refused: errors.Refused) -> HttpResponse:
    """A refusal as JSON, with its status and headers."""
    response = HttpResponse(errors.json_body(refused), status=refused.status, content_type=JSON_TYPE)
    for name, value in refused.headers.items():
        response[name] = value
    return response


def is_staff(request: HttpRequest) -> bool:
    """Whether the reader is active staff: staff see hands, seeds and held-back records."""
    user = request.user
    return bool(user.is_authenticated and user.is_active and user.is_staff)
