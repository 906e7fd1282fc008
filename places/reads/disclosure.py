"""What of a place anyone may read, and from when: the one rule every route that
shows a record, a seed, a hand dealt or a finished place's plays asks
(``docs/records.md``, "Who sees what, and when").

A seed fixes every deal of every place that carries it: the same seed deals game k
the same hands, seat by seat, wherever it is played (the five rotations of a
duplicate deal set share theirs on purpose). So, for anyone but staff:

- game k's record is public once **every** place with the seed has finished game k
  (a place without a seed: once its own game k is over);
- the seed is public once every place with it is over;
- the event log of a place that is over is public once every place with its seed is
  over too: its plays would show the hands still to be played elsewhere. While a
  place runs, its log is as public as its live stream (its players need it).

Staff see every finished game's record, the seed and every log at any time.

Only places staff made (a tournament's tables, ``create_place``, the admin, an imported
log) hold back another place's deals: a practice (``POST /practice``, which anyone may
make, at any time, with any seed) never does. Its seed is its maker's choice, so its deals
are no secret to its maker whatever is held back; and letting it hold back would let
anyone hide a finished place's records by starting a practice with their published seed.
A practice is still held back by a staff place that deals its seed and still plays.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from places.models import ENDED, Game, Place
from places.reads.position import finished_games, state_of


@dataclass(frozen=True, slots=True)
class Disclosure:
    played: int  # games 1 … played are finished
    public: int  # games 1 … public have records this reader may read (≤ played)
    seed: str | None  # the seed, if this reader may read it (and the place has one)
    log: bool  # whether this reader may read the place's event log


def disclosure(place: Place, *, staff: bool = False) -> Disclosure:
    """What of ``place`` a reader (staff or not) may read now."""
    played = finished_games(state_of(place))
    over = place.state in ENDED  # an aborted place is over too
    if staff:
        return Disclosure(played, played, place.seed or None, True)
    if not place.seed:
        return Disclosure(played, played, None, True)
    others = dict(
        Place.objects.filter(seed=place.seed, practice=False)
        .exclude(pk=place.pk)
        .values_list("id", "state")
    )
    if not others:
        return Disclosure(played, played, place.seed if over else None, True)
    done = dict(
        Game.objects.filter(place_id__in=others, status=Game.FINISHED)
        .values_list("place_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    public = min(played, *(done.get(pk, 0) for pk in others))
    every_over = over and all(state in ENDED for state in others.values())
    return Disclosure(played, public, place.seed if every_over else None, every_over or not over)
