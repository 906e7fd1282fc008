"""No import runs up the layers (docs/architecture.md, "Layers"): each module imports only
modules of its own layer or of the layers below it, at any depth (inside functions too).

The table below is the one the architecture page shows, row for row; a module belongs to the
layer of the longest prefix that names it. A new module of ``places/`` starts in the game
layer, the strictest: name it here if it belongs higher.
"""

from __future__ import annotations

import re

from tests.imports import ROOT, graph, imported_names, modules

#: The server's layers, bottom first, and the modules (dotted prefixes) in each.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "game",
        (
            "daifugo",
            "places",
            "places.wire",
            "places.confusable",
            "bots.strategies",
            "bots.stats",
            "bots.verify",
        ),
    ),
    (
        "models and reads",
        (
            "places.models",
            "places.reads",
            "places.presentation",
            "places.errors",
            "places.rows",
            "places.logs",
            "places.leases",
            "places.locked",
            "places.background",
            "places.origins",
            "places.sessions",
            "places.metrics",
            "daihinmin.ports",
            "daihinmin.postgresql",
        ),
    ),
    ("services", ("places.services",)),
    (
        "realtime",
        ("places.realtime", "places.dealer", "places.analyst", "places.uecda"),
    ),
    ("API", ("api", "daihinmin.auth", "daihinmin.bodies", "daihinmin.failures")),
    (
        "pages and commands",
        (
            "places.views",
            "places.urls",
            "places.admin",
            "places.apps",
            "places.management",
            "places.uecda.watch_pages",
            "daihinmin",
            "manage",
            "deploy",
            "harness",
        ),
    ),
)
#: The bots' client: it speaks only the wire, so it imports the game layer and itself only,
#: and nothing of the server imports it.
CLIENT = ("client", ("bots",))
GAME = LAYERS[0][0]

RANK = {layer: rank for rank, (layer, _) in enumerate(LAYERS)}
PREFIXES = {prefix: layer for layer, prefixes in (*LAYERS, CLIENT) for prefix in prefixes}


def layer_of(module: str) -> str:
    """The layer of the longest prefix of the table that names ``module``."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if (layer := PREFIXES.get(".".join(parts[:end]))) is not None:
            return layer
    raise AssertionError(f"{module} is in no layer: name it in tests/test_layers.py's LAYERS")


def may_import(importer: str, imported: str) -> bool:
    if CLIENT[0] in (importer, imported):
        return importer == CLIENT[0] and imported in (CLIENT[0], GAME)
    return RANK[imported] <= RANK[importer]


def upward_imports() -> list[str]:
    """Each import that runs up: importer, its line, the module it imports, their layers."""
    return [
        f"{module}:{line} imports {target} ({layer_of(module)} -> {layer_of(target)})"
        for module, targets in sorted(graph().items())
        for target, line in sorted(targets.items())
        if not may_import(layer_of(module), layer_of(target))
    ]


def test_no_import_runs_up_the_layers() -> None:
    assert upward_imports() == []


#: What the game layer and the client never import: the game is pure Python, and the bots
#: speak the wire without the server's frameworks.
SERVER_FRAMEWORKS = {"django", "rest_framework", "channels", "daphne", "drf_spectacular"}


def test_the_game_layer_and_the_client_import_no_server_framework() -> None:
    bad = [
        f"{module}:{line} imports {name}"
        for module, path in sorted(modules().items())
        if layer_of(module) in (GAME, CLIENT[0])
        for name, line in imported_names(module, path)
        if name.split(".")[0] in SERVER_FRAMEWORKS
    ]
    assert bad == []


def test_every_prefix_of_the_table_names_a_module() -> None:
    modules = graph()
    stale = [p for p in PREFIXES if not any(m == p or m.startswith(p + ".") for m in modules)]
    assert stale == []


def test_the_table_finds_an_import_that_runs_up() -> None:
    """The check itself: a read that called a service, a service the sockets, the game a
    model, the client the server would each be refused; the ordinary directions are not."""
    assert not may_import(layer_of("places.reads.games"), layer_of("places.services.moves"))
    assert not may_import(layer_of("places.services.change"), layer_of("places.realtime.wake"))
    assert not may_import(layer_of("daifugo.game"), layer_of("places.models"))
    assert not may_import(layer_of("bots.client"), layer_of("places.reads.seats"))
    assert not may_import(layer_of("places.services.house"), layer_of("bots.client"))
    assert may_import(layer_of("bots.client"), layer_of("daifugo.cards"))
    assert may_import(layer_of("places.views.pages"), layer_of("places.reads.games"))
    assert may_import(layer_of("api.views"), layer_of("places.services.moves"))


def test_the_architecture_page_shows_the_same_layers() -> None:
    """docs/architecture.md's table of layers lists these layers, in this order, with these
    modules: the picture and the check are one table."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page.split("<!-- layers -->")[1]
    rows = re.findall(r"^\| (?:\d+|–) \| ([^|]+) \| ([^|]+) \|", section, re.MULTILINE)
    shown = [(layer.strip(), tuple(re.findall(r"`([\w.]+)`", modules))) for layer, modules in rows]
    assert shown == [*LAYERS, CLIENT]
