"""What every page's template reads besides the request and the user (settings ``TEMPLATES``)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict:
    """``sign_up_open``: whether the header links the sign-up (the ``SIGN_UP`` setting)."""
    return {"sign_up_open": settings.SIGN_UP}
