"""Personal API tokens: made, revoked, and checked when a bot sends one.

A token is ``dh_`` + a prefix + ``_`` + a secret of :data:`SECRET_BYTES` random bytes:
the prefix finds the row, the SHA-256 of the whole token is all that is stored, and
the digests are compared in constant time (``hmac.compare_digest``). The token is
shown once, when it is made. Its label names the bot's version: a seat whose owner
posts with it records it (``Player.version``, ``services.post_cards``).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from daifugo.numbers import ID_MAX, whole
from places import errors
from places.models import TOKEN_LABEL_LENGTH, ApiToken
from places.reads.tokens import REVOKED_LISTED

#: What a token's label (the bot's version) may be: ``v2``, ``greedy-1.3``, ``2026-11-28``.
LABEL_PATTERN = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._+-]{{0,{TOKEN_LABEL_LENGTH - 1}}}")
#: A user's tokens not revoked, at most: one per bot version in use is a handful.
MAX_TOKENS_PER_USER = 20
#: Tokens a user may make in :data:`MADE_WINDOW`, revoked ones too: making and revoking
#: in a loop stops here (issue 44, item 8), a person's new versions never reach it.
MAX_MADE_PER_WINDOW = 30
MADE_WINDOW = timedelta(days=1)
#: Random bytes of a token's secret (256 bits: never guessed, however many tries).
SECRET_BYTES = 32
#: A token's ``last_used_at`` is written again only when older than this: a bot's every
#: request reads its token, and need not write it.
LAST_USED_STEP = timedelta(seconds=60)

_SCHEME = "dh"
_TOKEN = re.compile(r"dh_([0-9a-f]{12})_[A-Za-z0-9_-]{43}", re.ASCII)


@dataclass(frozen=True)
class Made:
    """A new token: its row, and the token itself (shown this once)."""

    row: ApiToken
    token: str


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def read_label(value: object) -> str:
    """A token's label, stripped; INVALID_PARAMETER unless 1 to 40 letters, digits, ``.``,
    ``_``, ``+`` or ``-`` (starting with a letter or digit)."""
    label = value.strip() if isinstance(value, str) else ""
    if not LABEL_PATTERN.fullmatch(label):
        raise errors.Refused(
            errors.INVALID_PARAMETER,
            f"label: 1 to {TOKEN_LABEL_LENGTH} letters, digits, '.', '_', '+' or '-' "
            "(the bot's version, e.g. v2)",
        )
    return label


def create(user_id: int, label: object) -> Made:
    """A new token of the user, labelled (:func:`read_label`); TOO_MANY_TOKENS past
    :data:`MAX_TOKENS_PER_USER` tokens not revoked, TOO_MANY_NEW_TOKENS (with
    ``Retry-After``) past :data:`MAX_MADE_PER_WINDOW` made in :data:`MADE_WINDOW`.

    The user's tokens revoked before the window, but the latest listed
    (:data:`~places.reads.tokens.REVOKED_LISTED`), are deleted: what a user has stored
    stays bounded, whatever they made and revoked."""
    label = read_label(label)
    with transaction.atomic():
        # one at a time per user: two made at once cannot both pass the counts
        list(get_user_model().objects.select_for_update().filter(pk=user_id).values_list("pk"))
        mine = ApiToken.objects.filter(user_id=user_id)
        live = mine.filter(revoked_at__isnull=True).count()
        if live >= MAX_TOKENS_PER_USER:
            raise errors.Refused(
                errors.TOO_MANY_TOKENS,
                f"{live} tokens: at most {MAX_TOKENS_PER_USER}; revoke one first",
            )
        since = timezone.now() - MADE_WINDOW
        made = list(mine.filter(created_at__gt=since).order_by("created_at")[:MAX_MADE_PER_WINDOW])
        if len(made) >= MAX_MADE_PER_WINDOW:
            wait = max(1, math.ceil((made[0].created_at - since).total_seconds()))
            raise errors.Refused(
                errors.TOO_MANY_NEW_TOKENS,
                f"{len(made)} tokens made in {_hours(MADE_WINDOW)}: at most "
                f"{MAX_MADE_PER_WINDOW}; try again in {wait} s",
                headers={"Retry-After": str(wait)},
            )
        kept = mine.filter(revoked_at__isnull=False).order_by("-revoked_at", "-id")[:REVOKED_LISTED]
        mine.filter(revoked_at__lt=since).exclude(
            pk__in=list(kept.values_list("pk", flat=True))
        ).delete()
        while True:
            prefix = secrets.token_hex(6)
            token = f"{_SCHEME}_{prefix}_{secrets.token_urlsafe(SECRET_BYTES)}"
            try:
                with transaction.atomic():
                    row = ApiToken.objects.create(
                        user_id=user_id, label=label, prefix=prefix, digest=_digest(token)
                    )
            except IntegrityError:  # the prefix was taken (one chance in 2^48): draw again
                continue
            return Made(row, token)


def _hours(span: timedelta) -> str:
    return f"{span.total_seconds() / 3600:g} h"


def revoke(user_id: int, token_id: str | int) -> ApiToken:
    """Revoke one of the user's tokens (again: nothing more); NO_SUCH_TOKEN if not theirs,
    or if ``token_id`` (as a form or a path gives it) is no token's id at all.

    A socket using it is refused at its next frame, and closed."""
    pk = whole(str(token_id), ID_MAX)
    if pk is None:
        raise errors.Refused(errors.NO_SUCH_TOKEN)
    with transaction.atomic():
        row = ApiToken.objects.select_for_update().filter(pk=pk, user_id=user_id).first()
        if row is None:
            raise errors.Refused(errors.NO_SUCH_TOKEN)
        if row.revoked_at is None:
            row.revoked_at = timezone.now()
            row.save(update_fields=["revoked_at"])
    return row


def verify(token: str) -> ApiToken | None:
    """The token's row, its user loaded, if the token is one made here, not revoked, of an
    active user; else None. Marks it used (at most every :data:`LAST_USED_STEP`)."""
    match = _TOKEN.fullmatch(token)
    if match is None:
        return None
    row = ApiToken.objects.select_related("user").filter(prefix=match[1]).first()
    if row is None or not hmac.compare_digest(row.digest, _digest(token)):
        return None
    if row.revoked_at is not None or not row.user.is_active:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_STEP:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now
    return row


def prefix_of(token: str) -> str:
    """The part of a token that names it without giving it away (for the login limits)."""
    match = _TOKEN.fullmatch(token)
    return match[1] if match else ""
