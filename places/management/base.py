"""What every places command shares: bad input is one line on stderr, never a usage dump."""

from __future__ import annotations

import math
import string

from django.core.management.base import BaseCommand, CommandError, CommandParser

from daifugo.numbers import ID_MAX, decimal, whole
from places.errors import Refused
from places.models import PLAYERS_PER_PLACE


class OneLineCommand(BaseCommand):
    """A command whose every refusal is one line on stderr and a non-zero exit.

    Django already prints a ``CommandError`` as one line; argparse's own errors
    (a missing argument, an unknown option) would print the usage first, so
    they are cut down to the one line too.
    """

    def create_parser(self, prog_name: str, subcommand: str, **kwargs) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)

        def error(message: str) -> None:
            if parser.called_from_command_line:
                parser.exit(2, f"{parser.prog}: error: {message}\n")
            raise CommandError(f"Error: {message}")

        parser.error = error
        return parser


def columns(rows: list[list[str]]) -> list[str]:
    """Rows of cells as aligned text lines: the second column (a name) to the left,
    the others (figures) to the right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(w) if i == 1 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]


ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")


def standings_lines(standings: list[dict]) -> list[str]:
    """Standings (``Standing.as_dict``) as aligned lines: position, player, points, and
    how many games each ended 1st … 5th (``place_status``, the end of ``uecda_match``)."""
    rows = [["#", "player", "points", *ORDINALS[:PLAYERS_PER_PLACE]]]
    for s in standings:
        rows.append([str(s["position"]), s["name"], str(s["points"]), *map(str, s["rank_counts"])])
    return columns(rows)


def refused(e: Refused) -> CommandError:
    """A service's refusal as a command's one-line error."""
    return CommandError(e.message.replace("\n", " "))


def place_id(text: str | int, kind: str = "place") -> int:
    """The id of a place (or of a ``kind`` of row: a tournament) as a whole number."""
    text = str(text)
    if not text or text.strip(string.digits):
        raise CommandError(f"a {kind} id is a whole number, not {text[:40]!r}")
    value = whole(text, ID_MAX, 1)
    if value is None:  # 0, or beyond the database's integers: surely no such row
        raise CommandError(f"no {kind} {text.lstrip('0')[:40] or 0}")
    return value


def whole_number(option: str, text: str | int) -> int:
    value = whole(str(text), ID_MAX)
    if value is None:
        raise CommandError(f"{option} must be a whole number, not {str(text)[:40]!r}")
    return value


def seconds(option: str, text: str | float) -> float:
    """A finite number of seconds (its sign is the service's to judge)."""
    value = decimal(str(text))
    if value is None or not math.isfinite(value):
        raise CommandError(f"{option} must be a number of seconds, not {str(text)!r}")
    return value
