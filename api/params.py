"""Reading a request's parameters: a form body and the query string, as in 2011.

Whatever a client sends, reading it either succeeds or raises :class:`ApiError`
with a 4xx status: Django's own limits (``DATA_UPLOAD_MAX_NUMBER_FIELDS``,
``DATA_UPLOAD_MAX_MEMORY_SIZE``) and broken bodies become errors with stable
codes, never a server error.
"""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, QueryDict
from django.http.multipartparser import MultiPartParserError

from api.errors import (
    BAD_REQUEST,
    INVALID_CARD,
    REQUEST_TOO_LARGE,
    UNSUPPORTED_MEDIA_TYPE,
    ApiError,
)

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
#: A play has at most 54 cards: more card parameters than that cannot be a move.
MAX_CARDS = 54
CARD_PARAMETER = "card_"


def _read(load):
    try:
        return load()
    except RequestDataTooBig:
        raise ApiError(REQUEST_TOO_LARGE, "the request body is too large") from None
    except (SuspiciousOperation, MultiPartParserError, UnicodeError, ValueError) as e:
        # TooManyFieldsSent, TooManyFilesSent, a broken multipart body, …
        raise ApiError(BAD_REQUEST, f"unreadable request: {type(e).__name__}") from None


def query(request: HttpRequest) -> QueryDict:
    return _read(lambda: request.GET)


def form(request: HttpRequest) -> QueryDict:
    """The form body; an empty one for a bodiless request; refused if the body is not a form."""
    if request.method in ("GET", "HEAD"):
        return QueryDict()
    if request.content_type in FORM_TYPES:
        return _read(lambda: request.POST)
    body = _read(lambda: request.body)
    if body.strip():
        raise ApiError(
            UNSUPPORTED_MEDIA_TYPE,
            "send parameters as a form (application/x-www-form-urlencoded) "
            f"or in the query string, not as {request.content_type or 'an untyped body'}",
        )
    return QueryDict()


def field(request: HttpRequest, name: str) -> str:
    """One parameter, from the form body if it is there, else from the query string."""
    body = form(request)
    value = body.get(name)
    if value is None:
        value = query(request).get(name)
    return value or ""


def cards(request: HttpRequest) -> list[str]:
    """The values of every parameter whose name contains ``card_`` (query string, then body).

    Blank values are dropped (the 2011 page sent all its fields, most of them empty).
    """
    body = form(request)
    values: list[str] = []
    for source in (query(request), body):
        for name, items in source.lists():
            if CARD_PARAMETER in name:
                values.extend(v for v in items if v.strip())
    uploads = _read(lambda: request.FILES) if request.content_type == FORM_TYPES[1] else {}
    if any(CARD_PARAMETER in name for name in uploads):
        raise ApiError(INVALID_CARD, "a card is a text field, not a file")
    if len(values) > MAX_CARDS:
        raise ApiError(INVALID_CARD, f"{len(values)} cards: a play has at most {MAX_CARDS}")
    return values
