"""Progress of a long command on a terminal: one line redrawn in place, or lines now and then.

On a terminal the line is redrawn (``\\r``) at most ``redraw`` times a second; into a
file or a pipe (a log, CI) a line is written at most every ``every`` seconds, so a job
of hours leaves a readable log instead of a million lines. Written to stderr by the
commands, so that what they print on stdout (records, JSON) stays clean.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """``done`` of ``total`` units of ``label``, with their rate and the time left."""

    def __init__(
        self,
        stream: TextIO,
        label: str,
        total: int,
        *,
        unit: str = "",
        every: float = 5.0,
        redraw: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.stream, self.label, self.total, self.unit = stream, label, total, unit
        self.clock = clock
        self.started = clock()
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.gap = 1 / redraw if self.tty else every
        self.last_shown: float | None = None
        self.done = 0

    def update(self, done: int, note: str = "") -> None:
        """``done`` units so far; shown if the last line is old enough."""
        self.done = done
        now = self.clock()
        if self.last_shown is not None and now - self.last_shown < self.gap:
            return
        self.last_shown = now
        self._show(self.line(note, now))

    def finish(self, note: str = "") -> None:
        """The last line, always shown, ending the redrawn one."""
        self._show(self.line(note, self.clock()), end="\n")

    def line(self, note: str, now: float) -> str:
        seconds = now - self.started
        unit = f" {self.unit}" if self.unit else ""
        parts = [f"{self.label}: {self.done}/{self.total}{unit}"]
        if self.total:
            parts.append(f"({100 * self.done / self.total:.0f} %)")
        if seconds > 0 and self.done:
            rate = self.done / seconds
            parts.append(f"{rate:.1f}{unit}/s")
            if self.total > self.done:
                parts.append(f"about {_duration((self.total - self.done) / rate)} left")
        parts.append(f"{_duration(seconds)} so far")
        return " ".join(parts) + (f"; {note}" if note else "")

    def _show(self, text: str, end: str = "") -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K" + text + end)  # redraw the line in place
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
