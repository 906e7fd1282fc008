"""The HTTP answers of the player API: a document or an error, as JSON, Rails 3 XML or a page.

Key order is part of the contract (PROTOCOL.md): documents are built as dicts in
wire order (``places.reads.documents``) and written here once, without re-sorting.
Error bodies are the registry's (``places.errors``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from places import errors
from places.wire.codec import compact
from places.wire.rails_xml import to_rails_xml

JSON = "json"
XML = "xml"
HTML = "html"

JSON_TYPE = "application/json; charset=utf-8"
XML_TYPE = "application/xml; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"

_PREFERENCES = ["text/html", "application/json", "application/xml"]


def document(fmt: str, data: Any) -> HttpResponse:
    """A JSON or XML document (get_hand, get_place_info, post_cards.json, …)."""
    if fmt == XML:
        return HttpResponse(to_rails_xml(data).encode("utf-8"), content_type=XML_TYPE)
    return HttpResponse(compact(data).encode("utf-8"), content_type=JSON_TYPE)


def error(fmt: str, refused: errors.Refused, request: HttpRequest | None = None) -> HttpResponse:
    """The protocol's error body (``{"error":{"code":…,"message":…}}``, ``<error>``) or a page."""
    if fmt == XML:
        response = HttpResponse(errors.xml_body(refused), content_type=XML_TYPE)
    elif fmt == HTML:
        context = {
            "title": f"{refused.status} {refused.code}",
            "status": refused.status,
            "code": refused.code,
            "message": refused.message,
        }
        response = HttpResponse(
            render_to_string("api/error.html", context, request=request), content_type=HTML_TYPE
        )
    else:
        response = HttpResponse(errors.json_body(refused), content_type=JSON_TYPE)
    response.status_code = refused.status
    for name, value in refused.headers.items():
        response[name] = value
    return response


def preferred(request: HttpRequest) -> str:
    """What a client without a ``.json``/``.xml`` suffix wants: a page unless it asks for data.

    ``Accept: application/json`` (or ``application/xml``) asks for data; a
    browser's Accept, ``*/*`` or none at all gets the page, as in 2011.
    """
    try:
        chosen = request.get_preferred_type(_PREFERENCES)
    except (ValueError, TypeError):  # an Accept header Django cannot read
        chosen = None
    if chosen == "application/json":
        return JSON
    if chosen == "application/xml":
        return XML
    return HTML
