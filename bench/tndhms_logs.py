"""Large tndhms FLAG_LOGGER logs for the import's figures (``bench/import_logs.py``) and its
memory tests: a valid log of any number of games, and a junk one of any size.

    python bench/tndhms_logs.py valid GAMES OUT
    python bench/tndhms_logs.py junk GAMES OUT

The valid log repeats the first rank period (100 games) of the committed log
(tests/daifugo/data/tndhms-250.log): each period begins anew (``mibun 22222``), so
its games are the engine's as logged, with the game numbers and the points carried
on. Its header says ``RAND_TYPE 0``: the repeated deals are no longer the seed's.
The junk log has a valid log's size (seven lines a game, about 670 bytes) and no
log line at all, from its first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "daifugo" / "data" / "tndhms-250.log"
#: The games of a rank period (the log's FLASH_MIBUN_NUMBER).
PERIOD = 100


def valid_log(games: int, fixture: Path = FIXTURE) -> Iterator[str]:
    """The lines of a valid log of ``games`` games (a multiple of 100), newline-ended."""
    if games <= 0 or games % PERIOD:
        raise ValueError(f"games: a positive multiple of {PERIOD}, not {games}")
    lines = fixture.read_text(encoding="ascii").splitlines()
    head = [line for line in lines if line.startswith("%-----%") and "TIME_END" not in line]
    head = [line for line in head if "TOTAL_POINT" not in line]
    period = [line for line in lines if line[1:6].isdigit() and int(line[1:6]) < PERIOD]
    last = next(line for line in period if line.startswith(f"%{PERIOD - 1:05d}%points%"))
    per_period = [int(p) for p in last.split("% ", 1)[1].split()]
    for line in head:
        if "%GAME_NUMBER%" in line:
            line = f"%-----%GAME_NUMBER% {games}"
        elif "%RAND_TYPE%" in line:
            line = "%-----%RAND_TYPE% 0"
        yield line + "\n"
    points = per_period
    for p in range(games // PERIOD):
        for line in period:
            number = p * PERIOD + int(line[1:6])
            key, value = line[7:].split("% ", 1) if "% " in line[7:] else (line[7:-1], "")
            if key == "points":
                shifted = (int(x) + p * s for x, s in zip(value.split(), per_period, strict=True))
                points = list(shifted)
                value = " ".join(map(str, points))
            yield f"%{number:05d}%{key}% {value}\n"
    yield "%-----%TIME_END% 2026/11/26 11:40:00\n"
    yield f"%-----%TOTAL_POINT% {' '.join(map(str, points))}\n"


def junk_log(games: int) -> Iterator[str]:
    """Seven lines a game of no log at all, a valid log's size."""
    for n in range(games):
        for k in range(7):
            yield f"junk {n:05d} {k} " + "x" * 85 + "\n"


def write(lines: Iterator[str], out: Path) -> int:
    """Write ``lines`` to ``out``; its size in bytes."""
    with out.open("w", encoding="ascii") as f:
        for line in lines:
            f.write(line)
    return out.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kind", choices=("valid", "junk"))
    parser.add_argument("games", type=int)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    lines = valid_log(args.games) if args.kind == "valid" else junk_log(args.games)
    size = write(lines, args.out)
    print(f"{args.out}: {args.kind}, {args.games:,} games, {size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
