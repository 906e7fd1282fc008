"""``/account``: the logged-in user's page: the password, and the personal API tokens.

A person changes the password with Django's own form and validators
(``PasswordChangeForm``; the session stays logged in, the others end), makes a token
with a label (the bot's version), sees it once on the page that answers, and revokes
tokens. The writes are ``places.services``'; the page's forms carry Django's CSRF token.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth.forms import PasswordChangeForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from places import errors
from places.reads import tokens as tokens_read
from places.services import accounts, tokens

ACCOUNT_URL = "/account"
LOGIN_URL = "/login"


@require_http_methods(["GET", "HEAD", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return HttpResponseRedirect(LOGIN_URL)
    password_form = PasswordChangeForm(request.user)
    shown = None  # a token made by this request: on this page, this once
    status = 200
    token_error = ""
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "password":
                password_form = PasswordChangeForm(request.user, request.POST)
                if password_form.is_valid():
                    accounts.change_password(password_form)
                    update_session_auth_hash(request, password_form.user)
                    messages.success(request, _("Your password was changed."))
                    return HttpResponseRedirect(ACCOUNT_URL)
                status = 400
            elif action == "create_token":
                shown = tokens.create(request.user.pk, request.POST.get("label", "")).token
            elif action == "revoke_token":
                row = tokens.revoke(request.user.pk, request.POST.get("token_id") or "")
                messages.success(request, _("Token %(label)s revoked.") % {"label": row.label})
                return HttpResponseRedirect(ACCOUNT_URL)
            else:
                raise errors.Refused(errors.INVALID_PARAMETER, "action: no such action")
        except errors.Refused as e:
            token_error, status = e.message, e.status
    context = {
        "title": _("Account · daihinmin"),
        "password_form": password_form,
        "tokens": [tokens_read.as_dict(r) for r in tokens_read.of_user(request.user.pk)],
        "shown": shown,
        "token_error": token_error,
        "max_tokens": tokens.MAX_TOKENS_PER_USER,
    }
    response = render(request, "places/account.html", context, status=status)
    add_never_cache_headers(response)  # a new token is on it
    return response
