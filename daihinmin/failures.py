"""The answer to a request whose view failed (``handler500``), in the form its path asks for.

A client of a ``.json`` route (a bot, a page's script, the staff tools) reads the
body as JSON: it gets the registry's ``SERVER_ERROR`` in the shape of every other
error (``{"error":{"code":…,"message":…}}``), and a ``.xml`` route the same in XML.
Everything else gets Django's plain 500 page. Only when ``DEBUG`` is off: with it
on, Django shows its technical page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views import defaults

from api import formats
from places import errors

#: The ends of a path that says its answer's form, and that form.
DATA_SUFFIXES = {".json": formats.JSON, ".jsonl": formats.JSON, ".xml": formats.XML}


def server_error(request: HttpRequest) -> HttpResponse:
    suffix = "." + request.path.rpartition(".")[2]
    if suffix in DATA_SUFFIXES:
        return formats.error(DATA_SUFFIXES[suffix], errors.Refused(errors.SERVER_ERROR))
    return defaults.server_error(request)
