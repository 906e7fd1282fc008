"""What players do: post cards (or pass)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from daifugo import place as engine
from daifugo.cards import ALL_IDS, CardFormatError, parse_card
from daifugo.game import NoTurnOpen, NotYourTurn
from places import errors, locked, metrics, rows
from places.models import Place, Player
from places.reads.seats import seat_of
from places.services.change import Change, Precondition, changing, play_on_after


@dataclass(frozen=True)
class PostResult:
    """What the server made of a player's action (the post_cards JSON answer)."""

    result: str  # "play", "pass" or "miss"
    reason: str | None
    reset_place: bool

    def as_dict(self) -> dict:
        return {"result": self.result, "reason": self.reason, "reset_place": self.reset_place}


#: A play has at most 54 cards: more cards than that cannot be a move.
MAX_CARDS = len(ALL_IDS)

#: The optional parameter (HTTP) or field (socket) that makes a post safe to retry.
IDEMPOTENCY_KEY = "idempotency_key"
#: What a key may be: a UUID's hex fits, and so does any counter or timestamp of a bot's.
KEY_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,64}")
#: How many keyed posts of each seat the server remembers: a retry of one of them is
#: recognised even after the bot's next post (one still retrying while the next is made).
KEYS_KEPT = 4


def read_key(value: object) -> str | None:
    """A post's idempotency key (None: none, or blank); INVALID_PARAMETER on anything
    but 1 to 64 letters, digits, ``.``, ``_``, ``:`` or ``-``."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not KEY_PATTERN.fullmatch(value):
        raise errors.Refused(
            errors.INVALID_PARAMETER,
            f"{IDEMPOTENCY_KEY}: 1 to 64 letters, digits, '.', '_', ':' or '-'",
        )
    return value


class _Repeated(Exception):
    """The post repeats the key of one of the seat's last keyed posts: answered as then."""

    def __init__(self, result: PostResult):
        self.result = result


def parse_written(cards: object) -> list[int]:
    """Parse a post's card strings (blank ones dropped); INVALID_CARD on anything but a
    list of strings, any unknown form, or more cards than a deck holds."""
    if not isinstance(cards, list | tuple) or not all(isinstance(c, str) for c in cards):
        raise errors.Refused(errors.INVALID_CARD, "cards must be a list of strings")
    written = [c for c in cards if c.strip()]
    if len(written) > MAX_CARDS:
        raise errors.Refused(
            errors.INVALID_CARD, f"{len(written)} cards: a play has at most {MAX_CARDS}"
        )
    tokens = []
    for text in written:
        try:
            tokens.append(parse_card(text))
        except CardFormatError as e:
            raise errors.Refused(errors.INVALID_CARD, str(e)) from None
    return tokens


def post_cards(
    place_id: int,
    user_id: int,
    cards: object,
    precondition: Precondition | None = None,
    key: str | None = None,
    version: str | None = None,
) -> PostResult:
    """A player's action, timed for ``/metrics`` (``daihinmin_post_seconds``).

    With an idempotency ``key`` (:func:`read_key`), a post that repeats the key of the
    seat's last ``KEYS_KEPT`` keyed posts is answered as that post was and changes
    nothing: a bot may retry a post whose answer it never got (a 500, a dropped
    connection) without playing twice. A bot gives each move a new key.

    ``version``: the label of the token the post came with; a post it makes is the seat's
    version from then on (``Player.version``). None (a session's post) leaves it as it is.
    """
    started = time.perf_counter()
    try:
        result, change = locked.retried(
            _post_cards, place_id, user_id, cards, precondition, key, version
        )
    except _Repeated as repeated:  # the transaction rolled back: nothing was written
        return repeated.result
    else:
        # the house turns that opened, one change each: the post's change tells whether
        # one did, without a round trip of its own
        play_on_after(place_id, change)
        return result
    finally:
        metrics.POST_SECONDS.observe(time.perf_counter() - started)


def _post_cards(
    place_id: int,
    user_id: int,
    cards: object,
    precondition: Precondition | None,
    key: str | None,
    version: str | None = None,
) -> tuple[PostResult, Change]:
    """A player's action: cards to play, none for a pass; with the change it committed.

    Illegal actions are misses (a result); requests that are not moves raise
    ``Refused`` and change nothing (the engine decides whose turn it is). A post
    after the turn's deadline is the timeout it arrived too late to prevent.
    With a ``precondition`` (whom the caller's session plays for, checked with
    the lock: ``Stale`` when it changed), the cards are read only once it holds,
    so that a refused session is told so before anything about its cards.
    """
    tokens = parse_written(cards) if precondition is None else None
    seat = seat_of(place_id, user_id).no
    with changing(place_id, precondition) as change:
        kept = change.posts.get(seat, ()) if key is not None else ()
        for before in kept:
            if before[0] == key:
                raise _Repeated(PostResult(*before[1:]))
        if tokens is None:
            tokens = parse_written(cards)
        change.submitted = [c.strip() for c in cards if c and c.strip()]
        if change.place.state != Place.State.RUNNING or change.state is None:
            raise errors.Refused(errors.NO_TURN_OPEN)
        deadline = change.place.turn_deadline
        late = deadline is not None and change.now > deadline
        try:
            if late:
                result = change.apply(engine.time_out, seat)
            else:
                result = change.apply(lambda s, seat: engine.act(s, seat, tokens), seat)
        except NoTurnOpen:
            raise errors.Refused(errors.NO_TURN_OPEN) from None
        except NotYourTurn:
            raise errors.Refused(errors.NOT_YOUR_TURN) from None
        if key is not None:
            post = (key, result.outcome, result.reason, result.reset)
            change.posts[seat] = (*kept, post)[-KEYS_KEPT:]
        if version is not None:
            # sent with the change's writes and COMMIT: no round trip of its own
            rows.update_where(Player, {"place_id": place_id, "user_id": user_id}, version=version)
        change.run_on()
    return PostResult(result.outcome, result.reason, result.reset), change
