"""House bots: users the server plays itself, with the sample strategies.

A house seat has no process and no socket. When its turn opens, the server asks
:func:`decide` for the move, outside any transaction, and applies it through the
same engine functions and the same recorder as a player's post, in a change of its
own (``places/services/change.py``, ``play_on``). Only the sample strategies of
``bots.strategies.STRATEGIES`` are played, by name: nothing a request says can
make the server import a module.

A strategy is made afresh for each turn, from a seed drawn from the place's
seed, the game and the turn when the place has a seed (so a seeded place plays
the same house moves every time), from the OS's sound source otherwise.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction

from bots.strategies import ONE_BOOK_ONLY, STRATEGIES, names_for
from daifugo import place as engine
from daifugo.cards import format_card, sorted_ids
from daifugo.game import GameState
from daifugo.view import BOOK_2011, Book, answer_2011
from places import errors
from places.models import HouseBot
from places.services.accounts import check_unless_taken

logger = logging.getLogger(__name__)

#: The strategies a house bot may play, by name, under some book (``stock``, tndhms's own
#: client, plays the UECda rules alone). A place checks its house seats against its own
#: book's (:func:`check_strategy`).
STRATEGY_NAMES: tuple[str, ...] = tuple(sorted(STRATEGIES))

Action = Callable[[engine.PlaceState, int], tuple]


def check_strategy(name: str, book: Book | None = BOOK_2011, kind: str = "house strategy") -> str:
    """The name if it is a house strategy that plays ``book`` (None: any book), else
    ``UNKNOWN_STRATEGY``."""
    known = tuple(STRATEGIES) if book is None else names_for(book)
    if name not in known:
        only = ONE_BOOK_ONLY.get(name)
        other = f" (it plays the {only} rules: rules={only})" if only else ""
        raise errors.Refused(
            errors.UNKNOWN_STRATEGY,
            f"no {kind} {name[:40]!r}{other}: one of {', '.join(sorted(known))}",
        )
    return name


@dataclass(frozen=True)
class HouseMove:
    """What the house plays: an engine action ``(state, seat)`` and the cards it wrote."""

    action: Action
    written: list[str]


def turn_seed(place_seed: str, game_no: int, turn_no: int) -> int | None:
    """The strategy's seed for one turn: from the place's seed, or None (unseeded) without one."""
    if not place_seed:
        return None
    digest = hashlib.sha256(f"daihinmin-house:{place_seed}:{game_no}:{turn_no}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def decide(strategy: str, game: GameState, seat: int, place_seed: str) -> HouseMove:
    """The house's move for the open turn of ``seat``.

    A strategy that raises, or answers something that is not a set of cards, gave
    no answer: its turn times out at once (a miss, ``TIMEOUT``), logged; the place
    goes on.
    """
    try:
        choose = STRATEGIES[strategy](turn_seed(place_seed, game.game_no, game.turn_no))
        mask = answer_2011(choose, game.hands[seat], game.table, game.revolution)
    except Exception:
        logger.exception(
            "house strategy %r failed (game %s, turn %s, seat %s): a miss",
            strategy,
            game.game_no,
            game.turn_no,
            seat,
        )
        return HouseMove(engine.time_out, [])
    if not mask:
        return HouseMove(lambda state, s: engine.act(state, s, ()), [])
    return HouseMove(
        lambda state, s: engine.play_mask(state, s, mask),
        [format_card(c) for c in sorted_ids(mask)],
    )


# -- house users -------------------------------------------------------------------------------


def make_house_user(name: str, strategy: str):
    """Make ``name`` (new or not) a house bot of ``strategy``; returns ``(user, created)``.

    A house user has no usable password: nobody logs in as it, over the API or the admin.
    """
    check_strategy(strategy, None)
    model = get_user_model()
    name = check_unless_taken(name)
    with transaction.atomic():
        user, created = model.objects.select_for_update().get_or_create(
            **{model.USERNAME_FIELD: name}
        )
        if user.has_usable_password():
            user.set_unusable_password()
            user.save(update_fields=["password"])
        HouseBot.objects.update_or_create(user=user, defaults={"strategy": strategy})
    return user, created


def make_wire_user(name: str, password: str, staff: bool | None = None):
    """Make ``name`` (new or not) a user who logs in with ``password``; returns ``(user, created)``.

    A house user given a password is a house user no more: it plays over the wire.
    """
    model = get_user_model()
    name = check_unless_taken(name)
    with transaction.atomic():
        user, created = model.objects.select_for_update().get_or_create(
            **{model.USERNAME_FIELD: name}
        )
        user.set_password(password)
        if staff is not None:
            user.is_staff = staff
        user.save()
        HouseBot.objects.filter(user=user).delete()
    return user, created


def release_house_user(user_id: int) -> None:
    """The server plays this user no more (its password stays unusable until one is set)."""
    HouseBot.objects.filter(user_id=user_id).delete()


def house_users(strategy: str, count: int) -> list:
    """``count`` distinct house users of ``strategy``, made on demand: ``house-STRATEGY-1`` …

    A name taken by a user who is not a house bot of that strategy is passed over.
    """
    check_strategy(strategy, None)
    model = get_user_model()
    found = []
    no = 0
    while len(found) < count:
        no += 1
        name = f"house-{strategy}-{no}"
        with transaction.atomic():
            user, created = model.objects.get_or_create(**{model.USERNAME_FIELD: name})
            if created:
                user.set_unusable_password()
                user.save(update_fields=["password"])
                HouseBot.objects.create(user=user, strategy=strategy)
        if created or HouseBot.objects.filter(user=user, strategy=strategy).exists():
            found.append(user)
    return found
