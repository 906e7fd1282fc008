"""Numbers as a request writes them: ASCII digits only.

Python's ``int()`` and ``float()`` also read full-width and other Unicode digits
(``int("１０") == 10``) and underscores (``int("1_0") == 10``); a parameter
read with them would take ``games=１０`` as 10. These read the ASCII forms alone
and raise ``ValueError`` for anything else, as ``int()`` does for a word.
"""

from __future__ import annotations

import re

_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: A decimal or exponent form; nan and inf are read too (the ranges refuse them by name).
_DECIMAL = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)",
    re.ASCII | re.IGNORECASE,
)


def ascii_integer(text: str) -> int:
    """``text`` (no white space) as an integer, if written in ASCII digits."""
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"not an integer in ASCII digits: {text!r}")
    return int(text)


def ascii_decimal(text: str) -> float:
    """``text`` (no white space) as a float, if written in ASCII."""
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"not a number in ASCII digits: {text!r}")
    return float(text)
