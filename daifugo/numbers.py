"""Reading a number someone wrote: ASCII digits only, a whole one within a bound.

``str.isdigit`` says yes to ``²`` (which ``int`` then refuses with a ``ValueError``)
and to ``٣`` (which ``int`` reads as 3); ``int`` also takes spaces, ``_`` and a sign,
and refuses 4,300 digits or more with a ``ValueError`` of its own. So every reading
of a number that a person or a file gives (a rules variant, a tndhms cfg or log, a
query parameter, a command's option, a client's ``--server``) goes through
:func:`whole` (:func:`decimal` for seconds and the like), and each caller refuses
``None`` with its own clear error.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

_ASCII_DIGITS = frozenset("0123456789")
#: A decimal or exponent form; nan and inf are read too (the ranges refuse them by name).
_DECIMAL = re.compile(
    r"[+-]?(?:(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,4})?"
    r"|nan|inf|infinity)",
    re.ASCII | re.IGNORECASE,
)


def whole(text: str, high: int, low: int = 0, *, digits: int | None = None) -> int | None:
    """The number ``text`` writes in ASCII digits alone if it lies in ``low``-``high``,
    else None. Leading zeros are read, up to ``digits`` characters in all when given
    (tndhms's ``isint`` takes at most 5); the digits are counted before the number is
    made, so no text reaches ``int``'s own limit."""
    if not text or not _ASCII_DIGITS.issuperset(text):
        return None
    if digits is not None and len(text) > digits:
        return None
    significant = text.lstrip("0")
    if len(significant) > len(str(high)):
        return None
    value = int(significant or "0")
    return value if low <= value <= high else None


def decimal(text: str) -> float | None:
    """The number ``text`` writes in ASCII (``0.5``, ``1e3``, ``nan``) as a float, else
    None: ``float`` also reads ``１０`` and ``1_0``. Its range is the caller's to judge."""
    return float(text) if _DECIMAL.fullmatch(text) else None


#: The largest number a TCP port is.
PORT_MAX = 65_535
#: The largest row id a database keeps (a signed 64-bit integer).
ID_MAX = 2**63 - 1


def option(high: int, low: int = 0) -> Callable[[str], int]:
    """:func:`whole` as an ``argparse`` ``type``: a command's number option, refused in
    argparse's words (its one-line usage error, never a traceback)."""

    def read(text: str) -> int:
        value = whole(text, high, low)
        if value is None:
            raise argparse.ArgumentTypeError(f"a whole number {low}-{high}, not {text[:20]!r}")
        return value

    return read
