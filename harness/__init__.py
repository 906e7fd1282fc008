"""Real servers in subprocesses, for the end-to-end tests and the benchmarks alike.

``harness.server``: daphne on a free port with a database of its own (SQLite, or
PostgreSQL when ``DATABASE_URL`` says so); ``harness.stack``: the production layout
(``deploy/serve_prod.py``: nginx in front of several processes) and a Redis of one's
own. Nothing here needs pytest: what is missing or fails raises an ordinary exception
(:class:`Missing` for a program the machine lacks), which a test or a benchmark reports
its own way.
"""

from __future__ import annotations


class Missing(RuntimeError):
    """A program this machine lacks (nginx, redis-server): what to install is the message."""
