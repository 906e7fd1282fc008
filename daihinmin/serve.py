"""Daphne on uvloop: ``python -m daihinmin.serve`` takes daphne's own arguments.

    python -m daihinmin.serve -b 127.0.0.1 -p 8000 daihinmin.asgi:application

Daphne runs Twisted's asyncio reactor on an event loop it makes when
``daphne.server`` is imported, so the loop's kind has to be chosen before
that: here. uvloop (libuv) is supported by that reactor since Twisted 21.7;
on this project's turn path it took a tenth off the server's CPU time a turn
(``bench/place.py``). Without uvloop installed, or with ``UVLOOP=0``, this is
plain ``daphne``; ``daphne daihinmin.asgi:application`` works as well.
"""

from __future__ import annotations

import asyncio
import os


def use_uvloop() -> bool:
    """Make uvloop the event loop of what starts next, when it is there and wanted."""
    if os.environ.get("UVLOOP", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def main() -> None:
    use_uvloop()
    from daphne.cli import CommandLineInterface  # makes the loop: after the policy

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
