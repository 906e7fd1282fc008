"""The player API's table (PROTOCOL.md §2–§3): every route, its methods, formats, who may
call it and what answers it.

``api/urls.py`` makes the URL patterns from it, ``api/schema.py`` describes each path
from it, and ``api/fast.py`` takes the routes marked ``hot`` (what a bot asks every
turn) to the database thread. A route lives at each of its ``prefixes`` (the 2011
server served the documents under ``/operations/``, the founding document's headings
put them at the root), once per format: no suffix, ``.json`` or ``.xml``.
"""

from __future__ import annotations

from dataclasses import dataclass

from api import views
from api.security import Access

JSON, XML = "json", "xml"
ALL_FORMATS = (None, JSON, XML)
BOTH_PREFIXES = ("/operations/", "/")


@dataclass(frozen=True)
class Route:
    name: str
    methods: tuple[str, ...]
    view: type[views.ApiView]
    access: Access
    formats: tuple[str | None, ...] = ALL_FORMATS
    prefixes: tuple[str, ...] = ("/",)
    #: Without a suffix: pages and redirects for people (else the JSON document).
    pages: bool = False
    #: Asked by bots every turn: answered on the database thread (``api/fast.py``).
    hot: bool = False

    def paths(self) -> list[tuple[str, str, str | None]]:
        """``(path, prefix, format)`` of every place this route lives at."""
        return [
            (f"{prefix}{self.name}{'.' + fmt if fmt else ''}", prefix, fmt)
            for prefix in self.prefixes
            for fmt in self.formats
        ]


READ = ("GET", "HEAD")

ROUTES: tuple[Route, ...] = (
    *(
        Route(name, READ, view, Access.PLAYER, prefixes=BOTH_PREFIXES, hot=True)
        for name, view in views.DOCUMENT_VIEWS.items()
    ),
    Route(
        "post_cards",
        ("POST",),
        views.PostCardsView,
        Access.PLAYER,
        prefixes=BOTH_PREFIXES,
        pages=True,
        hot=True,
    ),
    Route(
        "login", ("GET", "POST"), views.LoginFormView, Access.ANYONE, formats=(None,), pages=True
    ),
    Route("login", ("POST",), views.LoginView, Access.ANYONE, formats=(JSON, XML), pages=True),
    Route("sessions", ("POST",), views.LoginView, Access.ANYONE, pages=True),
    Route("logout", ("GET", "POST"), views.LogoutView, Access.ANYONE, pages=True),
    # not in 2011: a new account, made by its user (issue 27), unless SIGN_UP is off
    Route(
        "signup", ("GET", "POST"), views.SignUpFormView, Access.ANYONE, formats=(None,), pages=True
    ),
    Route("signup", ("POST",), views.SignUpView, Access.ANYONE, formats=(JSON, XML), pages=True),
    Route("operations", READ, views.OperationsView, Access.PLAYER, formats=(None,), pages=True),
    # not in 2011: a place of the user and four house bots, started (issue 13)
    Route("practice", ("POST",), views.PracticeView, Access.USER, pages=True),
    # not a 2011 document: the manual-play page's legal plays
    Route(
        "legal_plays",
        READ,
        views.LegalPlaysView,
        Access.PLAYER,
        formats=(JSON,),
        prefixes=("/operations/",),
    ),
)


def hot_paths() -> frozenset[tuple[str, str]]:
    """``(method, path)`` of every hot route."""
    return frozenset(
        (method, path)
        for route in ROUTES
        if route.hot
        for path, _prefix, _fmt in route.paths()
        for method in route.methods
    )
