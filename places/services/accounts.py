"""Accounts: the rule a new user's name must follow, signing up, disabling.

A user's name is in the paths of their profile (``/users/NAME`` and
``/users/NAME.json``, ``places/urls.py``): a name ending in a suffix the site
serves (``x.json``) would have its page answered by another user's document, and
a name of dots only would be folded away by every browser (``/users/..``). Every
way a user is made takes its name through :func:`check_new_name` and
:func:`check_name_free` (together :func:`check_unless_taken`): the ``create_user``
command (through :func:`places.services.house.make_wire_user` and
``make_house_user``), the admin's user forms, :func:`sign_up`, and the players of a
UECda match or an imported log (:mod:`places.services.uecda`).

A name is checked as it will be stored: Django stores a user name in NFKC
(``ＶＩＣＴＩＭ`` is ``VICTIM``, ``ﬀ`` is ``ff``), so the checks read that form and
return it to be stored. A name that looks like a user's (the same UTS #39
skeleton, in any case: :mod:`places.confusable`) is refused, found through the
users' :class:`~places.models.NameKey` rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from places import errors
from places.confusable import name_keys
from places.models import NameKey

#: The suffixes of the site's documents: no name may end in one, in any case.
ROUTE_SUFFIXES = (".json", ".jsonl", ".xml", ".csv")


def stored_name(name: str) -> str:
    """The name as a user would be stored with it: Django's NFKC (``normalize_username``)."""
    return get_user_model().normalize_username(name)


def check_new_name(name: str) -> str:
    """The name as stored (:func:`stored_name`) if a new user may take it, else
    ``INVALID_NAME`` saying why.

    Django's own rule for user names first (at most 150 letters, digits and
    ``@ . + - _``), then the site's: no route suffix, not dots only.
    """
    model = get_user_model()
    name = stored_name(name)
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
    ``INVALID_NAME``, ``NAME_TAKEN`` and ``NAME_CONFUSABLE`` (:func:`check_name_free`:
    one must not pass for another), ``INVALID_PASSWORD`` (Django's password validators,
    settings ``AUTH_PASSWORD_VALIDATORS``). The user is no staff and no house bot.
    """
    check_sign_up_open()
    name = check_new_name(name)
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
    except IntegrityError:
        # one like it signed up at the same moment: the name, or one of its keys, is taken
        # now (unique in the database); say which, as the check before would have
        check_name_free(name)
        raise errors.Refused(errors.NAME_TAKEN, f"the name {name[:150]!r} is taken") from None


def check_name_free(name: str, user_id: int | None = None) -> None:
    """Refused if a user (other than ``user_id``) has a name that ``name``, as stored,
    could pass for on a results page: ``NAME_TAKEN`` for the same name in any case
    (``Alice`` and ``alice``), ``NAME_CONFUSABLE`` for one that looks the same
    (``vіctim`` with a Cyrillic ``і`` and ``victim``; :func:`places.confusable.name_keys`)."""
    name = stored_name(name)
    found = NameKey.objects.filter(key__in=name_keys(name)).exclude(user_id=user_id)
    other = found.values_list(f"user__{get_user_model().USERNAME_FIELD}", flat=True).first()
    if other is None:
        return
    if other.casefold() == name.casefold():
        raise errors.Refused(errors.NAME_TAKEN, f"the name {name[:150]!r} is taken")
    raise errors.Refused(
        errors.NAME_CONFUSABLE,
        f"the name {name[:150]!r} looks like {other!r}, a user's name: choose another",
    )


def check_unless_taken(name: str) -> str:
    """The name to store: a user's who has exactly this name, or who has it as stored
    (the command changes that user, it makes none); else :func:`check_new_name` and
    :func:`check_name_free`."""
    model = get_user_model()
    for candidate in dict.fromkeys((name, stored_name(name))):
        if model.objects.filter(**{model.USERNAME_FIELD: candidate}).exists():
            return candidate
    name = check_new_name(name)
    check_name_free(name)
    return name


def keep_name_keys(sender, instance, created: bool, update_fields, **kwargs) -> None:
    """A user's :class:`NameKey` rows follow its name (``post_save`` of the user model):
    made with the user, made again when its name may have changed.

    A key is one user's (unique in the database): a new user's or a renamed user's key
    that another user holds fails the save with ``IntegrityError`` (two look-alikes signed
    up at the same moment: the second is refused, :func:`sign_up`). A user saved under
    the name it had keeps what it has: a key of a user from before the keys that another
    user holds stays that user's (migration 0018)."""
    field = get_user_model().USERNAME_FIELD
    if update_fields is not None and field not in update_fields:
        return
    keys = name_keys(instance.get_username())
    held = set(NameKey.objects.filter(user=instance).values_list("key", flat=True))
    renamed = bool(held - keys)
    if renamed:
        NameKey.objects.filter(user=instance, key__in=held - keys).delete()
    NameKey.objects.bulk_create(
        [NameKey(user=instance, key=k) for k in sorted(keys - held)],
        ignore_conflicts=not (created or renamed),
    )


def connect_signals() -> None:
    """Keep the name keys with the users (``PlacesConfig.ready``)."""
    from django.db.models.signals import post_save

    post_save.connect(keep_name_keys, sender=get_user_model(), dispatch_uid="name-keys")


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
