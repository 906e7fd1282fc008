"""tndhms's cfg file (``server/src/tndhms.cfg``), read as tndhms reads it (``daihu.c:211-640``).

A bot author's tndhms setup is such a file: ``uecda_match --config tndhms.cfg`` takes
its rules, ``GAME_NUMBER`` and ``PORT_NUMBER`` from it unchanged. tndhms reads a line
at a time: a line that begins with ``#`` is blank, the rest of a line from a ``#`` on is
a comment, the line is upper-cased, its first word (words part at spaces, tabs and line
ends) is the key and its second the value. A key it does not know is passed over
(the window's, the logger's, the players' names …: nothing a match here reads). A
known key with a value it cannot read makes tndhms print ``I found error in line N``
and keep the value it had; one without a value crashes it. Here both refuse the file,
naming the line: a typo in a rule would otherwise play another game than the author
meant, silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .rules import TNDHMS_DEFAULTS, Rules, TndhmsSettingError, from_tndhms, tndhms_number

_WORDS = re.compile(r"[^ \t\r\n]+")
#: The keys read besides the rules: a number of at most five digits each (``isint``).
NUMBERS = ("GAME_NUMBER", "PORT_NUMBER")
#: tndhms's own ``GAME_NUMBER`` and port when its cfg does not set them (``daihu.c:95, 131``).
DEFAULT_GAMES = 100
DEFAULT_PORT = 42485


class CfgError(ValueError):
    """A cfg line tndhms could not read (or would read as another game); names the line."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class TndhmsCfg:
    """What a match here takes from a tndhms cfg: the rules, the games and the port."""

    rules: Rules
    games: int
    port: int


def read_cfg(text: str) -> TndhmsCfg:
    """The rules, ``GAME_NUMBER`` and ``PORT_NUMBER`` of a cfg file's text (a key left
    out takes tndhms's own default; a key given twice, its last value, as tndhms)."""
    values: dict[str, str] = {}
    line_of: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        words = _WORDS.findall(line.partition("#")[0].upper())
        if not words or (words[0] not in TNDHMS_DEFAULTS and words[0] not in NUMBERS):
            continue
        key = words[0]
        if len(words) < 2:
            raise CfgError(n, f"{key} has no value (tndhms crashes on it)")
        values[key] = words[1]
        line_of[key] = n
    numbers = {}
    for key, default in zip(NUMBERS, (DEFAULT_GAMES, DEFAULT_PORT), strict=True):
        try:
            numbers[key] = tndhms_number(key, values.get(key, str(default)))
        except TndhmsSettingError as e:
            raise CfgError(line_of[key], str(e)) from None
    try:
        rules = from_tndhms(values)
    except TndhmsSettingError as e:
        raise CfgError(line_of.get(e.key, 0), str(e)) from None
    return TndhmsCfg(rules, numbers["GAME_NUMBER"], numbers["PORT_NUMBER"])
