"""daifugo, the game package: the rules of RULES.md as a pure, immutable Python library,
which the server (``places``) and the bots' client (``bots``) both import and which imports
neither. It holds the cards, the rule books, the referees, the deal and the exchange, the
records of both versions, the UECda wire (``uecda_wire.py``), the information set, the
evaluator and the solver.

Two rules profiles (``rules.py``): ``daihinmin-2011``, the default, played by
``game.py`` and ``place.py``; ``uecda``, the UECda contest as tndhms plays it,
played by ``uecda.py`` (docs/rules.md §14).

No Django, no I/O, no clock; randomness only through the generator passed in.
A test fails if anything here imports Django.
"""

from .cards import CardFormatError, format_card, parse_card, parse_cards, sorted_ids
from .game import ActionError, GameState, NoTurnOpen, NotYourTurn, TurnResult
from .legal import legal_plays
from .place import PlaceState
from .plays import Kind, Miss, Play, judge, read_play

__all__ = [
    "ActionError",
    "CardFormatError",
    "GameState",
    "Kind",
    "Miss",
    "NoTurnOpen",
    "NotYourTurn",
    "Play",
    "PlaceState",
    "TurnResult",
    "format_card",
    "judge",
    "legal_plays",
    "parse_card",
    "parse_cards",
    "read_play",
    "sorted_ids",
]
