"""Accounts: the rule a new user's name must follow, and signing up.

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

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

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


def check_unless_taken(name: str) -> None:
    """:func:`check_new_name`, unless a user already has the name (changed, not made)."""
    model = get_user_model()
    if not model.objects.filter(**{model.USERNAME_FIELD: name}).exists():
        check_new_name(name)


def disable(user_ids: Iterable[int]) -> int:
    """Disable these accounts: their sessions end at their next request (the auth backend
    refuses inactive users, ``daihinmin.auth``) and they cannot log in. Returns how many."""
    return get_user_model().objects.filter(pk__in=list(user_ids), is_active=True).update(
        is_active=False
    )
