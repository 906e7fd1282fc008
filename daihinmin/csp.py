"""The Content-Security-Policy header on every answer (``settings.CONTENT_SECURITY_POLICY``).

The pages run only the scripts the site serves (``static/js``, the admin's, the
bundled Swagger UI): no inline script, no event-handler attribute, nothing from
another host. A page that ever wrote text it was given as markup (a crafted
record file on the replay page, issue 28) would still run nothing. Styles may be
inline (``style=""``: seat colours, chart geometry); sockets and fetches go to
this host only.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin

HEADER = "Content-Security-Policy"


class ContentSecurityPolicy(MiddlewareMixin):
    """Add the policy to an answer that has none (an empty setting turns it off)."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        policy = settings.CONTENT_SECURITY_POLICY
        if policy and HEADER not in response:
            response[HEADER] = policy
        return response
