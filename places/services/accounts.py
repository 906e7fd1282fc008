"""Accounts: the rule a new user's name must follow, signing up, disabling.

A user's name is in the paths of their profile (``/users/NAME`` and
``/users/NAME.json``, ``places/urls.py``): a name ending in a suffix the site
serves (``x.json``) would have its page answered by another user's document, and
a name of dots only would be folded away by every browser (``/users/..``). Every
way a user is made takes its name through :func:`check_new_name`: the
``create_user`` command (through :func:`places.services.house.make_wire_user`
and ``make_house_user``), the admin's user forms and :func:`sign_up`.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from places import errors

#: The suffixes of the site's documents: no name may end in one, in any case.
ROUTE_SUFFIXES = (".json", ".jsonl", ".xml", ".csv")


def check_new_name(name: str) -> str:
    """The name if a new user may take it, else ``INVALID_NAME`` saying why.

    Django's own rule for user names first (at most 150 letters, digits and
    ``@ . + - _``), then the site's: no route suffix, not dots only.
    """
    model = get_user_model()
    field = model._meta.get_field(model.USERNAME_FIELD)
    try:
        field.clean(name, None)
    except ValidationError as e:
        reason = " ".join(e.messages)
    else:
        if name.lower().endswith(ROUTE_SUFFIXES):
            reason = f"it may not end in {', '.join(ROUTE_SUFFIXES)} (the site's documents)"
        elif not name.strip("."):
            reason = "it may not be dots only"
        else:
            return name
    raise errors.Refused(errors.INVALID_NAME, f"bad user name {name[:150]!r}: {reason}")


def check_sign_up_open() -> None:
    """``SIGN_UP_CLOSED`` unless the server takes sign-ups (the ``SIGN_UP`` setting)."""
    if not settings.SIGN_UP:
        raise errors.Refused(errors.SIGN_UP_CLOSED)


def sign_up(name: str, password: str):
    """A new user, made by the person who will use it (``/signup``); returns it.

    Refused: ``SIGN_UP_CLOSED`` when the server takes none (``SIGN_UP`` off),
    ``INVALID_NAME``, ``NAME_TAKEN`` (by a name that differs only in case too: one
    must not pass for another), ``INVALID_PASSWORD`` (Django's password validators,
    settings ``AUTH_PASSWORD_VALIDATORS``). The user is no staff and no house bot.
    """
    check_sign_up_open()
    check_new_name(name)
    check_name_free(name)
    model = get_user_model()
    field = model.USERNAME_FIELD
    try:
        validate_password(password, model(**{field: name}))
    except ValidationError as e:
        raise errors.Refused(errors.INVALID_PASSWORD, " ".join(e.messages)) from None
    try:
        with transaction.atomic():
            return model.objects.create_user(name, password=password)
    except IntegrityError:  # the same name, signed up at the same moment
        raise errors.Refused(errors.NAME_TAKEN, f"the name {name[:150]!r} is taken") from None


def check_name_free(name: str) -> None:
    """``NAME_TAKEN`` if a user has this name in any case: ``Alice`` must not pass for
    ``alice`` on a results page (Django's admin form refuses such a name too)."""
    model = get_user_model()
    if model.objects.filter(**{f"{model.USERNAME_FIELD}__iexact": name}).exists():
        raise errors.Refused(errors.NAME_TAKEN, f"the name {name[:150]!r} is taken")


def check_unless_taken(name: str) -> None:
    """:func:`check_new_name` and :func:`check_name_free`, unless a user already has
    exactly this name (the command changes that user, it makes none)."""
    model = get_user_model()
    if not model.objects.filter(**{model.USERNAME_FIELD: name}).exists():
        check_new_name(name)
        check_name_free(name)


def disable(user_ids: Iterable[int]) -> int:
    """Disable these accounts: their sessions end at their next request (the auth backend
    refuses inactive users, ``daihinmin.auth``) and they cannot log in. Returns how many."""
    return (
        get_user_model()
        .objects.filter(pk__in=list(user_ids), is_active=True)
        .update(is_active=False)
    )


def change_password(form) -> None:
    """Save a bound, valid ``PasswordChangeForm`` (Django's validators passed): the user's
    other sessions end (their auth hash no longer matches); the caller keeps its own
    (``update_session_auth_hash``). The user's API tokens stay: they are revoked one by one."""
    with transaction.atomic():
        form.save()
