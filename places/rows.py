"""The rows a turn touches, in SQL built once: the turn path without per-query ORM work.

A turn at pace 0 locks the place row, settles one Turn, opens the next, logs
the events and saves the place; a bot's request reads its session, its user and
the place. Through the ORM each of those statements costs
about 0.2 ms of query building before the database sees it, more than the
database then spends (``bench/turn.py``). Here each statement's text is built
once per model and connection; values still go through each field's own
``pre_save`` and ``get_db_prep_save`` on the way in and its converters on the
way out, so the rows are exactly what the ORM would write and read.

No model signals are sent (the project registers none for saving these models: only a
place's deletion has receivers, and nothing here deletes), and
only plain single-table models go through here.

On PostgreSQL each statement is also prepared once per database session and then
executed by name (:func:`_named`): parsing, analysing and planning the turn's
statements anew took 40 % of PostgreSQL's CPU a turn.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.models import Model
from django.utils import timezone
from psycopg import IsolationLevel, errors, pq

M = TypeVar("M", bound=Model)

#: Per connection (the converters and the SQL dialect are the connection's):
#: (model, purpose, field names) -> SQL text and field objects.
_built: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


#: Per database session (the driver's connection: a pool lends one to a thread at a
#: time, and Django's connection object may borrow another after a close): the names
#: of the statements prepared on it.
_prepared_on: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Sessions whose statements were found gone: whatever of ours is left there is
#: unknown, so all of it is deallocated before the next PREPARE.
_unsure: weakref.WeakSet = weakref.WeakSet()
#: A statement's SQL text -> its name, its PREPARE, and its EXECUTE (which takes the
#: statement's values, in its order).
_statements: dict[str, tuple[str, str, str]] = {}


def _named(connection, sql: str) -> str:
    """What to send for one statement of ours: on PostgreSQL, the ``EXECUTE`` of it
    prepared on this database session, which the first use prepares (a round trip of
    its own, once a session).

    The server then parses and plans it once, not at every turn. Its values still go
    as literals (client-side binding), so that several statements still share one
    query: ``BEGIN`` with the lock, the writes with the ``COMMIT``. A ``PREPARE`` is
    not undone by a rollback, so a statement once prepared stays so.
    """
    if not (_one_query_allowed(connection) and settings.DATABASE_PREPARED_STATEMENTS):
        return sql
    known = _statements.get(sql)
    if known is None:
        pieces = sql.split("%s")
        if any("%" in piece for piece in pieces):
            return sql  # a literal % (none of ours): not rewritten
        name = "daihinmin_" + hashlib.blake2s(sql.encode(), digest_size=8).hexdigest()
        body = "".join(f"{piece}${i}" for i, piece in enumerate(pieces[:-1], 1)) + pieces[-1]
        args = f"({', '.join(['%s'] * (len(pieces) - 1))})" if len(pieces) > 1 else ""
        known = _statements[sql] = (name, f"PREPARE {name} AS {body}", f"EXECUTE {name}{args}")
    name, prepare, execute = known
    if connection.connection is None:
        connection.ensure_connection()
    done = _prepared_on.get(connection.connection)
    if done is None:
        done = _prepared_on[connection.connection] = set()
    if name not in done:
        with connection.cursor() as cursor:
            if connection.connection in _unsure:
                cursor.execute("DEALLOCATE ALL")
                _unsure.discard(connection.connection)
            cursor.execute(prepare)
        done.add(name)
    return execute


@contextmanager
def _prepared_checked(connection) -> Iterator[None]:
    """A session whose prepared statements are gone (a ``DEALLOCATE``, a pooler that
    switched server sessions) is forgotten, so that its next use prepares them again
    instead of failing until the pool retires the connection. The change that met it
    fails as on any database error, and changed nothing."""
    try:
        yield
    except DatabaseError as error:
        driver = connection.connection
        if isinstance(error.__cause__, errors.InvalidSqlStatementName) and driver is not None:
            _prepared_on.pop(driver, None)
            _unsure.add(driver)
        raise


def _db() -> tuple:
    """This thread's connection and what has been built for it."""
    connection = connections[DEFAULT_DB_ALIAS]
    cache = _built.get(connection)
    if cache is None:
        cache = _built[connection] = {}
    return connection, cache


def lock(model: type[M], pk: object, only: tuple[str, ...] | None = None) -> M:
    """``model.objects.select_for_update().get(pk=pk)``: the row, locked until commit;
    ``only``: the fields read (``.only(…)``: the others are deferred), for a caller
    that needs few (each value read is converted, a time parsed on SQLite)."""
    return _by_pk(model, pk, for_update=True, only=only)[0]


def lock_and_read(model: type[M], pk: object, sql: str, params: Sequence) -> tuple[M, tuple | None]:
    """:func:`lock`, then the first row of another query (``sql``, a single statement),
    in the same round trip where the lock carries the transaction's BEGIN: the place
    and what a caller checked before acting on it, read again with the place locked."""
    return _by_pk(model, pk, for_update=True, along=(sql, params))


def read(model: type[M], pk: object) -> M:
    """``model.objects.get(pk=pk)``."""
    return _by_pk(model, pk, for_update=False)[0]


def _by_pk(
    model: type[M],
    pk: object,
    for_update: bool,
    along: tuple[str, Sequence] | None = None,
    only: tuple[str, ...] | None = None,
) -> tuple[M, tuple | None]:
    key = (model, "lock" if for_update else "read", only)
    connection, cache = _db()
    built = cache.get(key)
    if built is None:
        q = connection.ops.quote_name
        fields = [
            f for f in model._meta.concrete_fields
            if only is None or f.primary_key or f.name in only
        ]  # fmt: skip
        table = model._meta.db_table
        sql = (
            f"SELECT {', '.join(q(f.column) for f in fields)} FROM {q(table)} "
            f"WHERE {q(model._meta.pk.column)} = %s"
        )
        if for_update and connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        built = cache[key] = (sql, [f.attname for f in fields], _converters(fields, connection))
    sql, names, converters = built
    also = None
    with connection.cursor() as cursor, _prepared_checked(connection):
        begin = _begin_to_carry(connection) if for_update else None
        # prepared after: a PREPARE then goes outside the transaction the BEGIN opens
        sql = _named(connection, sql)
        if along is not None:
            along = (_named(connection, along[0]), along[1])
        if begin is None:
            cursor.execute(sql, [pk])
            row = cursor.fetchone()
            if along is not None:
                cursor.execute(*along)
                also = cursor.fetchone()
        else:
            statements = [begin, sql] if along is None else [begin, sql, along[0]]
            cursor.execute("; ".join(statements), [pk, *(along[1] if along else ())])
            cursor.nextset()  # past the BEGIN's empty result to the row's
            row = cursor.fetchone()
            if along is not None:
                cursor.nextset()
                also = cursor.fetchone()
    if row is None:
        raise model.DoesNotExist(f"no {model.__name__} {pk}")
    return model.from_db(connection.alias, names, _converted(row, converters, connection)), also


def _converters(fields: Sequence, connection) -> list[tuple]:
    """Each field's column and the converters its values go through on the way out."""
    converters = []
    for f in fields:
        col = f.get_col(f.model._meta.db_table)
        found = connection.ops.get_db_converters(col) + f.get_db_converters(connection)
        converters.append((col, found))
    return converters


def _converted(row: Sequence, converters: list[tuple], connection) -> list:
    values = []
    for value, (col, found) in zip(row, converters, strict=True):
        for convert in found:
            value = convert(value, col, connection)
        values.append(value)
    return values


def lock_many(model: type[Model], key: str, keys: Sequence, names: Sequence[str]) -> list[list]:
    """``model.objects.select_for_update().filter(key__in=keys).order_by(key)
    .values_list(key, *names)`` as lists: the rows, locked in ``key`` order (so that
    two transactions locking some of the same rows wait rather than deadlock)."""
    connection, cache = _db()
    built_key = (model, "lock_many", key, tuple(names), len(keys))
    built = cache.get(built_key)
    if built is None:
        q = connection.ops.quote_name
        fields = [model._meta.get_field(n) for n in (key, *names)]
        column = q(fields[0].column)
        sql = (
            f"SELECT {', '.join(q(f.column) for f in fields)} FROM {q(model._meta.db_table)} "
            f"WHERE {column} IN ({', '.join(['%s'] * len(keys))}) ORDER BY {column}"
        )
        if connection.features.has_select_for_update:
            sql += " FOR UPDATE"
        built = cache[built_key] = (sql, _converters(fields, connection))
    sql, converters = built
    with connection.cursor() as cursor:
        cursor.execute(sql, list(keys))
        found = cursor.fetchall()
    return [_converted(row, converters, connection) for row in found]


def _begin_to_carry(connection) -> str | None:
    """The BEGIN the driver is about to send alone before the first query of a transaction,
    when that query (a lock) can carry it instead: one round trip instead of two.

    psycopg sends a transaction's BEGIN as a query of its own and waits for its
    answer (in pipeline mode too). When Django's ``atomic`` has begun and nothing
    has been sent yet, the driver is told to leave the BEGIN to us (autocommit,
    in psycopg's sense: it sends no BEGIN of its own); the same statement then
    goes in the lock's query. The server is in the transaction from there on,
    so every later query is in it too; Django's commit or rollback ends it as
    always (psycopg sends either whenever the server is in a transaction), and
    the end of ``atomic`` sets the driver's autocommit as Django wants it. Only
    on PostgreSQL with client-side binding (a query of several statements), and
    with the driver's defaults but the isolation level, which the BEGIN states
    as psycopg's would.
    """
    if not (_one_query_allowed(connection) and connection.in_atomic_block):
        return None
    driver = connection.connection
    if (
        driver.autocommit
        or driver.info.transaction_status != pq.TransactionStatus.IDLE
        or driver.read_only is not None
        or driver.deferrable is not None
    ):
        return None
    level = driver.isolation_level
    driver.autocommit = True
    if level is None:
        return "BEGIN"
    return f"BEGIN ISOLATION LEVEL {IsolationLevel(level).name.replace('_', ' ')}"


#: Fields whose Python value is already what the database driver takes (ints,
#: floats, strings, booleans, foreign keys as ids): no preparing call needed.
_PLAIN = {
    "AutoField",
    "BigAutoField",
    "BigIntegerField",
    "BooleanField",
    "CharField",
    "FloatField",
    "ForeignKey",
    "IntegerField",
    "PositiveIntegerField",
    "PositiveSmallIntegerField",
    "SmallIntegerField",
    "TextField",
}


def preparer(field, connection):
    """How a value of ``field`` goes to the driver: None when it goes as it is."""
    if field.get_internal_type() in _PLAIN:
        return None
    return lambda value: field.get_db_prep_save(value, connection)


def prepared(preparers: list, values: Iterable) -> list:
    return [v if p is None else p(v) for p, v in zip(preparers, values, strict=True)]


def save(obj: Model, update_fields: Sequence[str]) -> None:
    """``obj.save(update_fields=…)`` of an existing row (``auto_now`` fields included)."""
    model = type(obj)
    fields = [model._meta.get_field(name) for name in update_fields]
    values = [f.pre_save(obj, False) for f in fields]
    _update(model, {model._meta.pk.attname: obj.pk}, tuple(update_fields), values)


def update_where(model: type[Model], where: dict[str, object], **values: object) -> None:
    """``model.objects.filter(**where).update(**values)``, ``where`` by plain equalities."""
    _update(model, where, tuple(values), list(values.values()))


def _update(model: type[Model], where: dict, names: tuple[str, ...], values: list) -> None:
    key = (model, "update", names, tuple(where))
    connection, cache = _db()
    built = cache.get(key)
    if built is None:
        q = connection.ops.quote_name
        fields = [model._meta.get_field(name) for name in names]
        sets = ", ".join(f"{q(f.column)} = %s" for f in fields)
        keys = " AND ".join(f"{q(model._meta.get_field(n).column)} = %s" for n in where)
        sql = f"UPDATE {q(model._meta.db_table)} SET {sets} WHERE {keys}"
        built = cache[key] = (sql, [preparer(f, connection) for f in fields])
    sql, preparers = built
    params = prepared(preparers, values)
    params.extend(where.values())
    _write(connection, sql, params)


# -- writes sent together --------------------------------------------------------

_pending = threading.local()


@contextmanager
def together(commit: bool = False) -> Iterator[None]:
    """Hold this thread's writes (``save``, ``update_where``, ``insert_many``) and send them at
    the end, in order; dropped if the block raises.

    On PostgreSQL they go as one multi-statement query, one round trip instead
    of one each (Django's default client-side binding allows it); elsewhere
    one after the other. Nothing in the block may read what they write.

    With ``commit``, at the end of an outermost ``atomic`` block with nothing after
    it, the transaction's COMMIT goes in the same query: if any write fails, the
    server skips the rest and the COMMIT, and the block rolls back as usual;
    otherwise Django's own commit finds the transaction ended and sends nothing
    (psycopg skips a COMMIT outside a transaction), then runs the ``on_commit``
    hooks. The commit is the same statement, as durable as Django's.
    """
    if getattr(_pending, "writes", None) is not None:
        yield  # already inside one: the outer block sends
        return
    _pending.writes = writes = []
    try:
        yield
    except BaseException:
        _pending.writes = None
        raise
    _pending.writes = None
    _send(writes, commit)


@contextmanager
def at_once() -> Iterator[None]:
    """Inside :func:`together`, writes that a later read of the same block depends on:
    what is held goes first, then these as they come, and the block holds again after."""
    writes = getattr(_pending, "writes", None)
    if writes is None:
        yield
        return
    _pending.writes = None
    try:
        _send(writes)
        writes.clear()  # the same list: ``together`` sends what it holds at its end
        yield
    finally:
        _pending.writes = writes


def _send(writes: list[tuple[str, list]], commit: bool = False) -> None:
    if not writes:
        return
    connection = connections[DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor, _prepared_checked(connection):
        if _one_query_allowed(connection):
            statements = [sql for sql, _ in writes]
            if commit and _outermost(connection):
                statements.append("COMMIT")
            cursor.execute("; ".join(statements), [p for _, ps in writes for p in ps])
        else:
            for sql, params in writes:
                cursor.execute(sql, params)


def _one_query_allowed(connection) -> bool:
    return connection.vendor == "postgresql" and not connection.settings_dict.get(
        "OPTIONS", {}
    ).get("server_side_binding")


def _outermost(connection) -> bool:
    """Inside exactly one ``atomic`` block, its transaction healthy: a COMMIT ends it."""
    return (
        connection.in_atomic_block
        and len(connection.atomic_blocks) == 1
        and not connection.savepoint_ids
        and not connection.needs_rollback
    )


def execute(sql: str, params: Sequence) -> None:
    """A write of the caller's own SQL (one whose values the database adds up, say), held
    inside :func:`together` like the others, else sent at once. Not prepared: its text may
    change with its number of rows."""
    writes = getattr(_pending, "writes", None)
    if writes is not None:
        writes.append((sql, list(params)))
        return
    connection = connections[DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def insert_returning_ids(model: type[Model], rows: Sequence[dict]) -> list:
    """``bulk_create`` of rows (as :func:`insert_many`) whose keys the caller needs: sent at
    once (after what :func:`together` holds), their primary keys in the rows' order."""
    connection, cache = _db()
    key = (model, "insert_returning_ids", len(rows))
    built = cache.get(key)
    if built is None:
        sql, columns = _insert_plan(model, connection, len(rows))
        pk = connection.ops.quote_name(model._meta.pk.column)
        built = cache[key] = (f"{sql} RETURNING {pk}", columns)
    sql, columns = built
    now, stamps = timezone.now(), {}
    params = [value for given in rows for value in _row(columns, given, now, stamps)]
    with at_once(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [pk for (pk,) in cursor.fetchall()]


def _write(connection, sql: str, params: list) -> None:
    sql = _named(connection, sql)
    writes = getattr(_pending, "writes", None)
    if writes is not None:
        writes.append((sql, params))
        return
    with connection.cursor() as cursor, _prepared_checked(connection):
        cursor.execute(sql, params)


def _insert_plan(model: type[Model], connection, rows: int) -> tuple:
    """The INSERT of ``rows`` rows, and how to fill in a row from the given values.

    A field not given takes its default, or the time for ``auto_now(_add)``
    fields, as ``Model.save`` would: the same time for all of them, prepared once a
    statement for each kind of field (:func:`_row`).
    """
    q = connection.ops.quote_name
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    one = f"({', '.join(['%s'] * len(fields))})"
    sql = (
        f"INSERT INTO {q(model._meta.db_table)} ({', '.join(q(f.column) for f in fields)}) "
        f"VALUES {', '.join([one] * rows)}"
    )
    columns = [
        (
            f.attname,
            f.get_internal_type()
            if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
            else None,
            f.get_default,
            preparer(f, connection),
        )
        for f in fields
    ]
    return sql, columns


def _row(columns: list, given: dict, now, stamps: dict) -> list:
    """A row's values as the driver takes them; ``stamps``: ``now`` prepared, by kind of
    field, shared by the statement's rows (a ``DateTimeField``'s took 10 µs a value)."""
    row = []
    for name, timed, default, prepare in columns:
        if name in given:
            value = given[name]
        elif timed:
            value = stamps.get(timed)
            if value is None:
                value = stamps[timed] = now if prepare is None else prepare(now)
            row.append(value)
            continue
        else:
            value = default()
        row.append(value if prepare is None else prepare(value))
    return row


def insert_many(model: type[Model], rows: Sequence[dict]) -> None:
    """``bulk_create`` of rows (dicts of values by attribute name: ``game_id``) whose keys
    nobody needs."""
    if not rows:
        return
    connection, cache = _db()
    key = (model, "insert_many", len(rows))
    built = cache.get(key)
    if built is None:
        built = cache[key] = _insert_plan(model, connection, len(rows))
    sql, columns = built
    now, stamps = timezone.now(), {}
    params = [value for given in rows for value in _row(columns, given, now, stamps)]
    _write(connection, sql, params)
