"""The home page's lists: tournaments in play, then places by state, a page at a time.

A tournament's tables are listed under the tournament (its own page lists them all),
not among the places: a tournament of thirty tables once made the home page 4,000 px
tall. Each list shows a page of ``PAGE_SIZE`` places, newest first; the page numbers
ride in the query string (``?running=2``), one a list, so paging one list keeps the
others where they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Count, Prefetch, Q, QuerySet

from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME
from places.models import ENDED, Game, Place, Player, Tournament
from places.reads.position import state_of

#: Places a list shows a page; the admin has them all.
PAGE_SIZE = 20
#: The lists of places, in the order the page shows them; each is also its query parameter
#: (the finished list holds the aborted places too).
STATES = (Place.State.RUNNING, Place.State.WAITING, Place.State.FINISHED)


@dataclass
class PlaceRow:
    id: int
    title: str
    state: str
    players: list[str]
    game_no: int
    game_count: int
    pace: float | None
    leader: str = ""
    leader_points: int = 0
    rules: str = DAIHINMIN_2011_NAME

    @property
    def uecda(self) -> bool:
        """A ``uecda`` place: played as fast as its clients answer, not at a pace."""
        return self.rules == UECDA_NAME


@dataclass
class TournamentRow:
    """A tournament in play, as the home page shows it: its tables' progress."""

    id: int
    title: str
    format: str
    state: str
    tables: int
    tables_running: int
    tables_finished: int
    games_finished: int
    games_total: int


@dataclass
class PlaceList:
    """One state's page of places."""

    state: str
    rows: list[PlaceRow]
    page: Page
    previous_url: str = ""  # set by the view, which knows the query string
    next_url: str = ""

    @property
    def total(self) -> int:
        return self.page.paginator.count


@dataclass
class HomeLists:
    tournaments: list[TournamentRow] = field(default_factory=list)
    places: dict[str, PlaceList] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.tournaments and not any(lst.total for lst in self.places.values())

    # the template names them
    @property
    def running(self) -> PlaceList:
        return self.places[Place.State.RUNNING]

    @property
    def waiting(self) -> PlaceList:
        return self.places[Place.State.WAITING]

    @property
    def finished(self) -> PlaceList:
        return self.places[Place.State.FINISHED]


def home_lists(pages: dict[str, str] | None = None) -> HomeLists:
    """Tournaments in play, and a page of the places of each state outside tournaments.

    ``pages``: the query string's page numbers by state; a number out of range or not a
    number gives the nearest page, as a reader who edited the address would expect.
    """
    pages = pages or {}
    players = Prefetch("players", queryset=Player.objects.select_related("user").order_by("seat"))
    base = Place.objects.filter(tournament__isnull=True).prefetch_related(players).order_by("-id")
    out = HomeLists(tournaments=tournaments_in_play())
    for state in STATES:
        shown = base.filter(state__in=ENDED if state == Place.State.FINISHED else (state,))
        page = Paginator(shown, PAGE_SIZE).get_page(pages.get(state))
        out.places[state] = PlaceList(state, [_row(p) for p in page.object_list], page)
    return out


def tournaments_in_play() -> list[TournamentRow]:
    """Waiting and running tournaments, newest first, with their tables' progress."""
    found = (
        Tournament.objects.exclude(state__in=ENDED)
        .annotate(
            table_count=Count("places", distinct=True),
            running=Count("places", filter=Q(places__state=Place.State.RUNNING), distinct=True),
            finished=Count("places", filter=Q(places__state__in=ENDED), distinct=True),
        )
        .order_by("-id")
    )
    rows = list(found)
    done = games_finished_by_tournament([t.id for t in rows])
    return [
        TournamentRow(
            id=t.id,
            title=t.title,
            format=t.format,
            state=t.state,
            tables=t.table_count,
            tables_running=t.running,
            tables_finished=t.finished,
            games_finished=done.get(t.id, 0),
            games_total=t.game_count * t.table_count,
        )
        for t in rows
    ]


def games_finished_by_tournament(ids: list[int]) -> dict[int, int]:
    """Finished games of each of these tournaments, in one query."""
    if not ids:
        return {}
    counts: QuerySet = (
        Game.objects.filter(place__tournament_id__in=ids, status=Game.FINISHED)
        .values_list("place__tournament_id")
        .annotate(n=Count("id"))
    )
    return dict(counts)


def _row(place: Place) -> PlaceRow:
    state = state_of(place)
    names = [p.name for p in place.players.all()]
    row = PlaceRow(
        id=place.id,
        title=place.title,
        state=place.state,
        players=names,
        game_no=state.game_no if state else 0,
        game_count=place.game_count,
        pace=place.pace,
        rules=place.rules,
    )
    if state is not None and any(state.points) and len(names) == len(state.points):
        best = max(range(len(names)), key=lambda s: (state.points[s], -s))
        row.leader, row.leader_points = names[best], state.points[best]
    return row
