"""The site's own endpoints: the pages, the staff endpoints and the event log.

They parse, call ``places.reads`` or ``places.services``, and render; a refusal
is a ``places.errors.Refused``, written as JSON by :func:`json_response`.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from places import errors
from places.wire.codec import compact

JSON_TYPE = "application/json"
CSV_TYPE = "text/csv; charset=utf-8"

#: A text cell starting with one of these is read as a formula by spreadsheets (OWASP's
#: "CSV Injection": = + - @, tab and carriage return).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def read_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """GET and HEAD only; any other method gets Django's bare ``405`` (``Allow: GET, HEAD``).

    The CSRF check guards the unsafe methods, and such a view serves none of them: exempt
    from it, a POST, PUT or DELETE is answered 405 (docs/protocol.md) rather than CSRF's 403.
    A page's forms keep their protection: they post to views that check the token.
    """
    return csrf_exempt(require_safe(view))


def json_response(data: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(compact(data), status=status, content_type=JSON_TYPE)


def refusal(refused: errors.Refused) -> HttpResponse:
    """A refusal as JSON, with its status and headers."""
    response = HttpResponse(
        errors.json_body(refused), status=refused.status, content_type=JSON_TYPE
    )
    for name, value in refused.headers.items():
        response[name] = value
    return response


@csrf_exempt  # it changes nothing: a POST is answered NOT_FOUND too, not CSRF's HTML 403
def json_not_found(request: HttpRequest) -> HttpResponse:
    """A data URL (``.json``, ``.jsonl``) that no route takes: ``NOT_FOUND`` in JSON, as the
    routes of data answer a place or a name that is not there (``daihinmin/urls.py``), for
    any method (``POST /places/x/games/1/analysis.json`` as ``GET``)."""
    return refusal(errors.Refused(errors.NOT_FOUND, "no such data: nothing answers at this URL"))


def spreadsheet_cell(value: object) -> object:
    """A cell a spreadsheet reads as written: text that would start a formula gets a leading ``'``.

    Only text is touched (a user name such as ``-1`` or ``@home``); numbers keep their sign.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_response(filename: str, rows: Iterable[Iterable[object]]) -> HttpResponse:
    """A CSV download of ``rows``, every text cell made safe to open in a spreadsheet."""
    response = HttpResponse(content_type=CSV_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response, lineterminator="\n")
    writer.writerows([spreadsheet_cell(cell) for cell in row] for row in rows)
    return response
