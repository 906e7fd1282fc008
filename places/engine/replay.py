"""Game records, format version 1: what they are called, and replaying one through the engine.

A record is one finished game as plain data (``docs/records.md``). This module is
pure: it reads the record, deals, exchanges and plays it again with the engine's
own functions, and names the first place where the record and the engine part.
"""

from __future__ import annotations

FORMAT = "daihinmin-record"
VERSION = 1
RULES = "daihinmin-2011"
#: The order in force at a game's end, as a record names it.
NORMAL, REVOLUTION = "Normal", "Revolution"


def order_name(revolution: bool) -> str:
    return REVOLUTION if revolution else NORMAL
