"""Reading a request's parameters: a form body and the query string, as in 2011.

Whatever a client sends, reading it either succeeds or raises ``Refused`` with a
4xx code: Django's own limits (``DATA_UPLOAD_MAX_NUMBER_FIELDS``,
``DATA_UPLOAD_MAX_MEMORY_SIZE``) and bodies that cannot be read whole become
errors with stable codes, never a server error and never a move.
"""

from __future__ import annotations

from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, QueryDict
from django.http.multipartparser import MultiPartParserError

from places import errors

FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
FORM_TYPES = (FORM, MULTIPART)
CARD_PARAMETER = "card_"


def _read(load):
    try:
        return load()
    except RequestDataTooBig:
        raise errors.Refused(errors.REQUEST_TOO_LARGE) from None
    except (
        BadRequest,
        SuspiciousOperation,
        MultiPartParserError,
        UnicodeError,
        LookupError,
        ValueError,
    ) as e:
        # TooManyFieldsSent, TooManyFilesSent, a broken multipart body, a form not in UTF-8, …
        raise errors.Refused(
            errors.BAD_REQUEST, f"unreadable request: {type(e).__name__}"
        ) from None


def query(request: HttpRequest) -> QueryDict:
    return _read(lambda: request.GET)


def form(request: HttpRequest) -> QueryDict:
    """The form body; an empty one for a bodiless request; refused if the body is not a form."""
    if request.method in ("GET", "HEAD"):
        return QueryDict()
    if request.content_type == MULTIPART:
        _check_complete(request)
    if request.content_type in FORM_TYPES:
        return _read(lambda: request.POST)
    body = _read(lambda: request.body)
    if body.strip():
        raise errors.Refused(
            errors.UNSUPPORTED_MEDIA_TYPE,
            f"{errors.UNSUPPORTED_MEDIA_TYPE.message}, not as "
            f"{request.content_type or 'an untyped body'}",
        )
    return QueryDict()


def _check_complete(request: HttpRequest) -> None:
    """A multipart body must end with its closing boundary: one cut short is refused, not read.

    Django's parser reads what it can of a body cut short (a truncated upload
    gives no fields), which would make a cut post a pass. A body of the closing
    boundary alone is an empty form (browsers send it for a form without fields).
    """
    boundary = request.content_params.get("boundary", "").encode("latin-1", "replace")
    body = _read(lambda: request.body)
    if not boundary or b"--" + boundary + b"--" not in body:
        raise errors.Refused(
            errors.BAD_REQUEST, "unreadable request: the multipart body has no closing boundary"
        )


def field(request: HttpRequest, name: str) -> str:
    """One parameter, from the form body if it is there, else from the query string."""
    body = form(request)
    value = body.get(name)
    if value is None:
        value = query(request).get(name)
    return value or ""


def values(request: HttpRequest, name: str) -> list[str]:
    """Every value of a repeatable parameter: the form body's if it has any, else the query's."""
    return form(request).getlist(name) or query(request).getlist(name)


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
    uploads = _read(lambda: request.FILES) if request.content_type == MULTIPART else {}
    if any(CARD_PARAMETER in name for name in uploads):
        raise errors.Refused(errors.INVALID_CARD, "a card is a text field, not a file")
    return values
