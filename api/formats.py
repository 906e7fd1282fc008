"""The bytes the player API sends: compact JSON as Rails wrote it, Rails 3 XML, short pages.

Key order is part of the contract (PROTOCOL.md): documents are built as dicts
in wire order and encoded here once, without re-sorting.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from api.renderers import error_xml, to_rails_xml

JSON = "json"
XML = "xml"
HTML = "html"

JSON_TYPE = "application/json; charset=utf-8"
XML_TYPE = "application/xml; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"

_PREFERENCES = ["text/html", "application/json", "application/xml"]


def encode_json(data: Any) -> bytes:
    """``[{"card":{"id":20,…}}]``: no spaces, keys as given, non-ASCII as UTF-8."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def document(fmt: str, data: Any, status: int = 200) -> HttpResponse:
    """A JSON or XML document (get_hand, get_place_info, post_cards.json, …)."""
    if fmt == XML:
        return HttpResponse(
            to_rails_xml(data).encode("utf-8"), content_type=XML_TYPE, status=status
        )
    return HttpResponse(encode_json(data), content_type=JSON_TYPE, status=status)


def error(
    fmt: str,
    code: str,
    message: str,
    status: int,
    headers: dict[str, str] | None = None,
    request: HttpRequest | None = None,
) -> HttpResponse:
    """The protocol's error body: ``{"error":{"code":…,"message":…}}``, ``<error>`` or a page."""
    if fmt == XML:
        body = error_xml(code, message).encode("utf-8")
        response = HttpResponse(body, content_type=XML_TYPE, status=status)
    elif fmt == HTML:
        page = render_to_string(
            "api/error.html",
            {"title": f"{status} {code}", "status": status, "code": code, "message": message},
            request=request,
        )
        response = HttpResponse(page, content_type=HTML_TYPE, status=status)
    else:
        body = encode_json({"error": {"code": code, "message": message}})
        response = HttpResponse(body, content_type=JSON_TYPE, status=status)
    for name, value in (headers or {}).items():
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
