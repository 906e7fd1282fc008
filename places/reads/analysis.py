"""A game's analysis as a reader may read it (``docs/analysis.md``): only a finished game
whose record the reader may read (``places.reads.disclosure``), so never a game in play
nor a deal held back; the document itself, or how far its job is."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model

from daifugo.rules import DAIHINMIN_2011_NAME
from places import errors
from places.models import Game, GameAnalysis, GameEntry, Place
from places.reads.disclosure import disclosure
from places.reads.records import place_head


def finished_game(place_id: int, game_no: int, *, staff: bool = False) -> Game:
    """The finished game whose record this reader may read, or the refusal the record
    route gives (``NOT_FOUND``, ``HELD_BACK``)."""
    head = place_head(place_id, staff=staff)
    if head is not None and head.played >= game_no > head.finished:
        raise errors.Refused(
            errors.HELD_BACK,
            f"game {game_no} of place {head.id} is held back until every place dealing "
            "its cards has played it",
        )
    game = None
    if head is not None and 1 <= game_no <= head.finished:
        game = Game.objects.filter(place_id=place_id, no=game_no, status=Game.FINISHED).first()
    if game is None:
        raise errors.Refused(errors.NOT_FOUND, f"no finished game {game_no} in place {place_id}")
    return game


def status_of(analysis: GameAnalysis) -> dict:
    """A job's state as the page follows it: ``state``, ``done`` of ``decisions``."""
    status = {
        "state": analysis.state,
        "done": analysis.done_decisions,
        "decisions": analysis.decisions,
        "playouts": analysis.playouts,
    }
    if analysis.state == GameAnalysis.State.FAILED:
        status["error"] = analysis.error
    return status


def game_analysis(place_id: int, game_no: int, *, staff: bool = False) -> GameAnalysis:
    """The analysis of a game this reader may read, or a refusal: ``NOT_FOUND`` (no such
    finished game), ``HELD_BACK``, ``NOT_ANALYSED``."""
    game = finished_game(place_id, game_no, staff=staff)
    found = GameAnalysis.objects.filter(game=game).first()
    if found is None:
        raise errors.Refused(
            errors.NOT_ANALYSED, f"game {game_no} of place {place_id} has not been analysed"
        )
    return found


@dataclass(frozen=True)
class Accuracy:
    """A player's decisions over analysed games, pooled: how many were judged, how many
    had no mark, and the expected points they lost in all (``docs/analysis.md``)."""

    name: str
    games: int
    decisions: int
    clean: int
    total_loss: float

    @property
    def accuracy(self) -> float | None:
        """The share (in %) of judged decisions without a mark, as one game's is."""
        return round(100 * self.clean / self.decisions, 1) if self.decisions else None

    @property
    def mean_loss(self) -> float | None:
        """The expected points lost a decision."""
        return round(self.total_loss / self.decisions, 4) if self.decisions else None


def pooled(results: Iterable[dict], names: Collection[str] | None = None) -> list[Accuracy]:
    """Each player's (of ``names``, or every one) :class:`Accuracy` over analyses'
    documents, in the order they first appear."""
    totals: dict[str, list] = {}
    for result in results:
        for p in result["players"]:
            if names is not None and p["name"] not in names:
                continue
            t = totals.setdefault(p["name"], [0, 0, 0, 0.0])
            t[0] += 1
            t[1] += p["decisions"]
            t[2] += p["decisions"] - sum(p["marks"].values())
            t[3] += p["total_loss"]
    return [Accuracy(name, *t) for name, t in totals.items()]


def place_accuracy(place: Place, *, staff: bool = False) -> tuple[int, list[Accuracy]]:
    """The place's analysed games this reader may read (never one held back) and each
    player's accuracy over them."""
    public = disclosure(place, staff=staff).public
    results = list(
        GameAnalysis.objects.filter(
            game__place=place, game__no__lte=public, state=GameAnalysis.State.DONE
        )
        .order_by("game__no")
        .values_list("result", flat=True)
    )
    return len(results), pooled(results)


def user_accuracy(name: str) -> list[tuple[str, Accuracy]]:
    """A player's accuracy by rule book over every analysed game of theirs anyone may
    read (a place's games held back are left out), the 2011 book first."""
    user_id = get_user_model().objects.filter(username=name).values_list("id", flat=True).first()
    analysed = (
        GameAnalysis.objects.filter(
            state=GameAnalysis.State.DONE,
            game_id__in=GameEntry.objects.filter(user_id=user_id).values("game_id"),
        )
        .values_list("game__place_id", "game__no", "game__place__rules", "result")
        .order_by("game__place_id", "game__no")
    )
    rows = list(analysed)
    places = Place.objects.in_bulk({place_id for place_id, *_ in rows})
    public = {place_id: disclosure(place).public for place_id, place in places.items()}
    by_rules: dict[str, list[dict]] = {}
    for place_id, no, rules, result in rows:
        if no <= public[place_id]:
            by_rules.setdefault(rules, []).append(result)
    books = sorted(by_rules, key=lambda rules: rules != DAIHINMIN_2011_NAME)
    return [(rules, a) for rules in books for a in pooled(by_rules[rules], {name})]
