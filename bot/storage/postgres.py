"""The PostgreSQL driver (asyncpg): a pool, one connection per transaction, and advisory
locks so that writers of one campaign wait for each other and nobody else does.

A write transaction runs at READ COMMITTED and takes ``pg_advisory_xact_lock`` of its
campaign when it first resolves it (Transaction._campaign), or of its server for the
server-wide writes (campaigns made, renamed, deleted, imported): every statement after
the lock sees what the previous holder committed, as under SQLite's one writer lock.
Reads are REPEATABLE READ, READ ONLY: one snapshot, like a SQLite read transaction.

What has no PostgreSQL twin: the online backup (use pg_dump) and ``quick_check``
(:func:`check_consistency` and amcheck instead); see docs/deploying.md.

One process per shard (:func:`claim_shards`): the counterpart of SQLite's lock file.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

import asyncpg

from bot.shards import ShardSet
from bot.storage import outbox
from bot.storage.at_once import Statement
from bot.storage.campaigns import CampaignGone
from bot.storage.database import Migration, load_migrations, migration_failed, pending
from bot.storage.driver import (
    POSTGRESQL,
    Dialect,
    IntegrityError,
    Row,
    json_rows,
    numbered,
    run_now,
)
from bot.storage.errors import DatabaseDamaged, DatabaseUnreachable, StorageError
from bot.storage.literals import inlined
from bot.storage.on_thread import Body
from bot.storage.repository import Storage
from bot.storage.transaction import KnownCampaigns, Transaction

log = logging.getLogger(__name__)
T = TypeVar("T")

# The version a fresh PostgreSQL database starts from: SQLite's schema at version 8
# (migrations 1-8 and their Python steps are SQLite history).
BASELINE = 8
# pg_advisory_lock key held while migrating, so two processes never migrate at once.
_MIGRATION_LOCK = 0x4D554E4441  # "MUNDA"
CLOSE_TIMEOUT = 10.0
# Session-level advisory locks of the two-int form (namespace, number), held by each bot
# process for its life (:func:`claim_shards`). PostgreSQL keeps two-int keys and one-bigint
# keys (the per-campaign, per-server and migration locks above and in driver.py) in key
# spaces that never meet, and the namespaces keep these apart from each other.
SHARD_LOCKS = 0x4D554E44  # "MUND": (SHARD_LOCKS, shard id), the process of that shard's
SHARD_COUNTS = 0x4D554E43  # "MUNC": (SHARD_COUNTS, shard count), shared by every process
_CLAIMING = 0x4D554E42  # "MUNB": while one starting process checks and claims (a xact lock)
# The lock connection tells the server to probe it, so a lock held by a machine that
# died (no FIN ever sent) goes after about a minute, not the system's two hours.
_KEEPALIVES = {"tcp_keepalives_idle": "30", "tcp_keepalives_interval": "10",
               "tcp_keepalives_count": "3"}
_COUNT = re.compile(r"(\d+)$")


def load_postgres_migrations() -> list[Migration]:
    """The baseline and the migrations after it, each a twin of SQLite's of that number."""
    folder = resources.files("bot.storage") / "migrations" / "postgresql"
    return load_migrations(folder, first=BASELINE)


def _integrity(error: asyncpg.IntegrityConstraintViolationError) -> IntegrityError:
    # The constraint's name says which columns clashed (gangs_campaign_pk_name_key_key).
    name = getattr(error, "constraint_name", None) or ""
    return IntegrityError(f"{error} ({name})",
                          unique=isinstance(error, asyncpg.UniqueViolationError))


class PostgresConnection:
    """One pooled asyncpg connection inside a transaction, in the storage modules' terms.

    With ``batching`` (a write transaction), what nobody reads the answer of is not sent
    at once but with the next statement that must go to the server:

    - the rows of an ``executemany`` that only inserts go as WITH queries of the next
      statement, or alone before it when it reads one of their tables (it would not see
      them: a statement's WITH queries and its main query share one snapshot). A
      ledger's events, say, go with the message owed after them: one round trip;
    - the statements given to :meth:`defer` (and the claims of :meth:`claim`), with
      those inserts, are kept as a script: statements with their values written in
      (bot/storage/literals.py), which PostgreSQL's simple query protocol runs in one
      round trip, in order. The script goes before the next statement whose answer is
      read, and at the latest with COMMIT (:meth:`commit`).

    ``begun`` False: BEGIN is not sent yet, but at the head of the first script (or alone
    before the first statement sent); a write transaction that sends nothing before its
    commit is then ``BEGIN; ...; COMMIT``, one round trip, and one that wrote nothing
    none at all."""

    __slots__ = ("_guards", "_later", "_script", "batching", "begun", "raw")

    def __init__(
        self, raw: asyncpg.Connection, *, batching: bool = False, begun: bool = True
    ) -> None:
        self.raw = raw
        self.batching = batching
        self.begun = begun
        # Inserts kept for the next statement (their _PLAIN_INSERT match) and their rows:
        # always newer than the script's statements (kept there before anything deferred).
        self._later: list[tuple[re.Match[str], list[tuple[Any, ...]]]] = []
        self._script: list[str] = []
        # What a deferred statement's guard raises, by the number its failure names.
        self._guards: dict[int, Exception] = {}

    @property
    def dialect(self) -> Dialect:
        return POSTGRESQL

    @property
    def defers(self) -> bool:
        return self.batching

    async def execute_fetchall(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]:
        sql, values = await self._with_later(sql, params)
        try:
            rows: list[Row] = await self.raw.fetch(numbered(sql), *values)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise _integrity(error) from error
        return rows

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        sql, values = await self._with_later(sql, params)
        try:
            status: str = await self.raw.execute(numbered(sql), *values)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise _integrity(error) from error
        found = _COUNT.search(status)
        return int(found.group(1)) if found else 0

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        batch = [tuple(row) for row in rows]
        if not batch:
            return
        insert = _PLAIN_INSERT.match(sql) if self.batching else None
        if insert is not None:
            await self._keep(insert, batch)
            return
        await self.flush()
        try:
            await self.raw.executemany(numbered(sql), batch)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise _integrity(error) from error

    async def defer(
        self, sql: str, params: Iterable[Any] = (), *, unless_empty: Exception | None = None
    ) -> None:
        if not self.batching:
            await run_now(self, sql, params, unless_empty)
            return
        text = inlined(sql, params)
        if unless_empty is not None:
            number = len(self._guards)
            self._guards[number] = unless_empty
            # No row: the cast of a text that is no number fails the script, naming this
            # guard. Not a constant, so the planner does not fold (and fail) it anyway.
            text = (f"WITH guarded AS ({text}) SELECT CASE WHEN count(*) = 0 THEN"
                    f" ('{_GUARD_WORD} {number} ' || count(*))::int END FROM guarded")
        self._script += [*_scripted(self._later), text]
        self._later = []

    async def _keep(self, insert: re.Match[str], rows: list[tuple[Any, ...]]) -> None:
        """Keep ``rows`` of ``insert`` for the next statement. The rows of one table go as
        one multi-row INSERT, in order (their keys are numbered in that order); another
        kind of insert into a table kept already is sent after it."""
        for kept, kept_rows in self._later:
            if kept.group(2) == insert.group(2):
                if kept.group(0) != insert.group(0):
                    await self.flush()
                    break
                kept_rows += rows
                return
        self._later.append((insert, rows))
        if sum(len(row) for _kept, kept_rows in self._later for row in kept_rows) > _MOST_PARAMS:
            await self.flush()

    def forget(self) -> None:
        """Drop what was kept for later (what it belonged to was rolled back)."""
        self._later.clear()
        self._script.clear()

    async def flush(self) -> None:
        """Send what waits for the next statement now (one round trip)."""
        self._script += _scripted(self._later)
        self._later = []
        if self._script:
            await self._ready()

    async def _ready(self) -> None:
        """BEGIN, when it was not sent yet, and the script kept: before a statement whose
        answer is read (in one round trip; none when neither waits)."""
        if self.begun and not self._script:
            return
        script, self._script = self._script, []
        if not self.begun:
            self.begun = True
            script.insert(0, _BEGIN_WRITE)
        await self._run(script)

    async def commit(self) -> None:
        """What waits, and COMMIT, in one round trip (none when nothing was written)."""
        self._script += _scripted(self._later)
        self._later = []
        if not self.begun:
            if not self._script:
                return
            self.begun = True
            self._script.insert(0, _BEGIN_WRITE)
        script, self._script = [*self._script, "COMMIT"], []
        await self._run(script)

    async def rollback(self) -> None:
        """Drop what waits; ROLLBACK when BEGIN was sent."""
        self.forget()
        if self.begun and not self.raw.is_closed():
            await self.raw.execute("ROLLBACK")

    async def _run(self, script: list[str]) -> None:
        """``script``'s statements in one round trip (the simple query protocol): in order,
        stopping at the first that fails (the transaction is then aborted)."""
        try:
            await self.raw.execute(";\n".join(script))
        except asyncpg.IntegrityConstraintViolationError as error:
            raise _integrity(error) from error
        except asyncpg.InvalidTextRepresentationError as error:
            found = _GUARD.search(str(error))
            if found is None:
                raise
            raise self._guards[int(found.group(1))] from None

    async def _with_later(
        self, sql: str, params: Iterable[Any]
    ) -> tuple[str, Sequence[Any]]:
        """``sql`` with the inserts kept before it as its WITH queries, when it reads
        none of their tables; otherwise they are sent first. The script kept (and BEGIN)
        goes before either."""
        await self._ready()
        if not self._later:
            return sql, tuple(params)
        later, self._later = self._later, []
        if not _PLAIN_STATEMENT.match(sql) or any(
                re.search(rf"\b{kept.group(2)}\b", sql, re.IGNORECASE) for kept, _rows in later):
            await self.execute(*_as_with(later, "SELECT 1"))
            return sql, tuple(params)
        return _as_with(later, sql, tuple(params))

    def savepoint(self) -> AbstractAsyncContextManager[None]:
        return _savepoint(self)

    async def claim(self, key: int) -> None:
        # Kept for the next statement sent: nothing is read before the lock is held.
        await self.defer("SELECT pg_advisory_xact_lock(?)", (key,))


_BEGIN_WRITE = "BEGIN ISOLATION LEVEL READ COMMITTED"
# A deferred statement's guard fails with a cast of this text and its number.
_GUARD_WORD = "munda-guard"
_GUARD = re.compile(rf"{_GUARD_WORD} (\d+) ")


def _scripted(later: Sequence[tuple[re.Match[str], list[tuple[Any, ...]]]]) -> list[str]:
    """Inserts kept for the next statement, each one INSERT of all its rows, values
    written in."""
    statements = []
    for insert, rows in later:
        head, _table, row = insert.groups()
        statements.append(head + ", ".join(inlined(row, values) for values in rows))
    return statements


# An insert of rows given whole, which reads nothing (no SELECT) and can clash with
# nothing but a constraint (no ON CONFLICT): it may wait for the next statement.
# Its groups: the text up to its row of placeholders, the table, that row.
_PLAIN_INSERT = re.compile(
    r"(\s*INSERT\s+INTO\s+(\w+)\s*\([^()]*\)\s*VALUES\s*)(\([?,\s]*\))\s*$", re.IGNORECASE)
# A statement the inserts kept may go with. Not a DELETE nor an UPDATE: a key they
# change could cascade to rows the inserts make, which they would not see.
_PLAIN_STATEMENT = re.compile(r"\s*(SELECT|INSERT)\b", re.IGNORECASE)
_MOST_PARAMS = 30_000  # PostgreSQL takes at most 65,535 parameters per statement


def _as_with(
    later: Sequence[tuple[re.Match[str], list[tuple[Any, ...]]]], sql: str,
    params: Sequence[Any] = (),
) -> tuple[str, Sequence[Any]]:
    """``later``'s inserts (each one INSERT of all its rows) as the WITH queries of ``sql``
    (``?`` placeholders: their parameters come first, in order)."""
    queries = []
    values: list[Any] = []
    for at, (insert, rows) in enumerate(later):
        head, _table, row = insert.groups()
        queries.append(f"l{at} AS ({head}{', '.join([row] * len(rows))})")
        values += [value for one in rows for value in one]
    return f"WITH {', '.join(queries)} {sql}", [*values, *params]


class _SecondStatement(BaseException):
    """A read run outside a transaction asked for a second statement: run it in one.
    Not an Exception, so that no ``except Exception`` of the body keeps it."""


class _OneStatement(PostgresConnection):
    """A connection outside any transaction that lets one statement through: one
    statement is a consistent snapshot of its own, two are not."""

    __slots__ = ("made",)

    def __init__(self, raw: asyncpg.Connection) -> None:
        super().__init__(raw)
        self.made = 0

    def _next(self) -> None:
        self.made += 1
        if self.made > 1:
            raise _SecondStatement

    async def execute_fetchall(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]:
        self._next()
        return await super().execute_fetchall(sql, params)

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        self._next()
        return await super().execute(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        self._next()
        await super().executemany(sql, rows)


@asynccontextmanager
async def _savepoint(conn: PostgresConnection) -> AsyncIterator[None]:
    """A SAVEPOINT sent with what waits before it (whose errors are not the savepoint's:
    they come before it is made); what waits inside it is sent before it is released."""
    name = "munda_savepoint"  # a name used again names the newest savepoint: nesting works
    conn._script += [*_scripted(conn._later), f"SAVEPOINT {name}"]
    conn._later = []
    await conn._ready()
    try:
        yield
        await conn.flush()
    except BaseException:
        conn.forget()  # kept inside the savepoint, undone with it
        await conn.raw.execute(f"ROLLBACK TO SAVEPOINT {name}")
        raise
    conn._script.append(f"RELEASE SAVEPOINT {name}")


async def schema_version(raw: asyncpg.Connection) -> int:
    await raw.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    found = await raw.fetchval("SELECT max(version) FROM schema_version")
    return int(found or 0)


async def migrate(raw: asyncpg.Connection, where: str, migrations: list[Migration]) -> int:
    """Apply the migrations newer than the database, each in its own transaction with
    the bump of ``schema_version``; return the resulting version."""
    await raw.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
    try:
        current = await schema_version(raw)
        for migration in pending(migrations, current, where):
            try:
                async with raw.transaction():
                    await raw.execute(migration.sql)
                    if migration.shared_step is not None:
                        await migration.shared_step(PostgresConnection(raw))
                    await raw.execute("DELETE FROM schema_version")
                    await raw.execute("INSERT INTO schema_version VALUES ($1)",
                                      migration.version)
            except asyncpg.PostgresError as error:
                raise migration_failed(migration, where, error, current) from error
            current = migration.version
        return current
    finally:
        await raw.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)


# Rows whose references do not resolve: what the foreign keys forbid, checked anyway at
# start-up as PostgreSQL's stand-in for SQLite's quick_check (amcheck checks the pages).
_DANGLING = {
    "ledger events of a missing action": (
        "SELECT count(*) FROM ledger_events e WHERE e.action_pk IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.pk = e.action_pk)"),
    "ledger events of a missing campaign": (
        "SELECT count(*) FROM ledger_events e"
        " WHERE NOT EXISTS (SELECT 1 FROM campaigns c WHERE c.pk = e.campaign_pk)"),
    "actions of a missing campaign": (
        "SELECT count(*) FROM actions a"
        " WHERE NOT EXISTS (SELECT 1 FROM campaigns c WHERE c.pk = a.campaign_pk)"),
    "undo of a missing action": (
        "SELECT count(*) FROM actions a WHERE a.undoes_pk IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM actions b WHERE b.pk = a.undoes_pk)"),
    "fighters of a missing gang": (
        "SELECT count(*) FROM fighters f"
        " WHERE NOT EXISTS (SELECT 1 FROM gangs g WHERE g.pk = f.gang_pk)"),
    "items of a missing gang": (
        "SELECT count(*) FROM items i"
        " WHERE NOT EXISTS (SELECT 1 FROM gangs g WHERE g.pk = i.gang_pk)"),
}


async def check_consistency(raw: asyncpg.Connection, where: str) -> None:
    """Refuse a database whose ledger or rosters point at rows that are not there."""
    problems = []
    for what, sql in _DANGLING.items():
        count = int(await raw.fetchval(sql))
        if count:
            problems.append(f"{count} {what}")
    if problems:
        raise DatabaseDamaged(where, "; ".join(problems))


def _shown(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)


_RETURNS_ROWS = re.compile(r"^\s*SELECT\b|\bRETURNING\b", re.IGNORECASE)


def as_one_statement(statements: Sequence[Statement]) -> tuple[str, list[Any]]:
    """Several statements as one: each a WITH query, the rows of those that return any
    aggregated into a JSON array text per statement (their columns TEXT or integers,
    as driver.fetch_together's). One statement is one round trip and all or nothing.

    PostgreSQL runs the WITH queries on one snapshot, in no set order, so the
    statements of a write made at once must not touch each other's rows (they write
    different tables: a delivery's mark and the run it is recorded in). A required
    statement that returns no row must undo the others: the statement then divides by
    its row count, zero, and fails whole (a count is not folded into a constant when
    the query is planned, so the division happens only then)."""
    queries: list[str] = []
    answers: list[str] = []
    checks: list[str] = []
    params: list[Any] = []
    for at, statement in enumerate(statements):
        sql, values = statement.for_dialect(POSTGRESQL)
        queries.append(f"w{at} AS ({sql})")
        params += values
        if _RETURNS_ROWS.search(sql) is None:
            if statement.required:
                raise StorageError(f"A required statement returns no rows: {sql[:60]!r}")
            answers.append("'[]'")
            continue
        answers.append(f"(SELECT COALESCE(json_agg(w{at})::text, '[]') FROM w{at})")
        if statement.required:
            checks.append(f"(SELECT 1 / count(*) FROM w{at})")
    return f"WITH {', '.join(queries)} SELECT {', '.join([*answers, *checks])}", params


# Connection failures worth trying again: no route, refused, timed out, the server
# starting up or shutting down, or out of connections. A refused password or a
# missing database would fail the same way every time.
_UNREACHABLE = (OSError, asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError,
                asyncpg.AdminShutdownError, asyncpg.CrashShutdownError)


async def _returned_clean(_raw: asyncpg.Connection) -> None:
    """What a pooled connection needs before its next use: nothing, so no round trip.

    asyncpg's default reset (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET
    ALL``) undoes session state, one round trip per transaction, and this storage makes
    none: a transaction's advisory locks are ``pg_advisory_xact_lock`` (gone at COMMIT or
    ROLLBACK), no cursor outlives its transaction, nothing LISTENs and nothing SETs a
    session setting; the session locks (migration, shard claims) are taken on
    connections of their own, never pooled. A transaction left open (a task cancelled
    mid-way) is still rolled back by asyncpg before this is called."""


class _OneRead:
    """What ``PostgresStorage.read(guild_id)`` returns: each Transaction method called on
    it is a read of its own, made by ``read_whole`` and known by the method."""

    def __init__(self, storage: PostgresStorage, guild_id: int) -> None:
        self._storage, self._guild_id = storage, guild_id

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(Transaction, name)
        storage, guild_id = self._storage, self._guild_id

        @functools.wraps(method)
        async def read(*args: Any, **kwargs: Any) -> Any:
            async def body(tx: Transaction) -> Any:
                return await method(tx, *args, **kwargs)

            return await storage._read_known(guild_id, body, method)

        return read


class PostgresStorage(Storage):
    """The campaign database on PostgreSQL: open with ``await open_storage(url)``
    (bot/storage/opening.py)."""

    driver = "postgresql"

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        # Not Storage.__init__: no SQLite connection, lanes nor writer lock here.
        self.url = url
        self.path = Path(_shown(url))
        self._pool = pool
        self._closed = False
        self._writes: dict[int, int] = {}
        # Tasks inside a transaction: a call of Storage from one would take a second
        # connection, not see its own writes, and may wait for its own advisory lock.
        self._owners: set[asyncio.Task[Any]] = set()
        # The code of the read bodies that make more than one statement (read_whole).
        self._snapshot_reads: set[object] = set()
        self._known = KnownCampaigns()

    @classmethod
    async def open_url(
        cls, url: str, *, migrations: list[Migration] | None = None, pool_size: int = 10
    ) -> PostgresStorage:
        where = _shown(url)
        try:
            # Migrated on a connection of its own: the migration lock is a session lock,
            # and the pool's connections must never hold one (see _returned_clean).
            raw = await asyncpg.connect(url)
        except _UNREACHABLE as error:
            raise DatabaseUnreachable(where, error) from error
        except (OSError, asyncpg.PostgresError) as error:
            raise StorageError(f"Cannot connect to the database {where}: {error}") from error
        try:
            await migrate(raw, where, load_postgres_migrations()
                          if migrations is None else migrations)
            await check_consistency(raw, where)
        finally:
            await raw.close()
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size,
                                             reset=_returned_clean)
        except _UNREACHABLE as error:
            raise DatabaseUnreachable(where, error) from error
        except (OSError, asyncpg.PostgresError) as error:
            raise StorageError(f"Cannot connect to the database {where}: {error}") from error
        return cls(pool, url)

    @asynccontextmanager
    async def read_only(
        self, guild_id: int, *, background: bool = False
    ) -> AsyncIterator[Transaction]:
        """A read transaction (a snapshot) on a pooled connection of its own: reads
        never wait for writers here, background or not."""
        async with self._scope(guild_id, write=False) as tx:
            yield tx

    async def close(self) -> None:
        self._closed = True
        try:
            await asyncio.wait_for(self._pool.close(), CLOSE_TIMEOUT)
        except TimeoutError:
            # A transaction still open (a task not yet cancelled) must not hold up the exit.
            log.warning("closing the PostgreSQL pool took too long; connections terminated")
            self._pool.terminate()

    @property
    def writer_busy(self) -> bool:
        """Never: there is no one writer lock (writers of other campaigns go on)."""
        return False

    async def schema_version(self) -> int:
        async with self._pool.acquire() as raw:
            return await schema_version(raw)

    async def read_whole(self, guild_id: int, body: Body[T], *, background: bool = False) -> T:
        """``body(tx)`` as a read, in one round trip when it makes one statement.

        One statement is a snapshot of its own: no BEGIN nor COMMIT is needed around it
        (two round trips of three). A body is first run so, on a connection that refuses
        a second statement; one that makes more is run again in a REPEATABLE READ
        transaction (the statement it made was a read: nothing to undo), and from then on
        straight away (each body is known by its code)."""
        return await self._read_known(guild_id, body, getattr(body, "__code__", body),
                                      background=background)

    def read(self, guild_id: int) -> Transaction:
        """As ``Storage.read``: each call of a Transaction method on it a read of its own,
        here by :meth:`read_whole` (one round trip when the method makes one statement)."""
        return cast(Transaction, _OneRead(self, guild_id))

    async def _read_known(
        self, guild_id: int, body: Body[T], code: object, *, background: bool = False
    ) -> T:
        """:meth:`read_whole`, the body known by ``code``."""
        if code not in self._snapshot_reads:
            try:
                async with self._connection(write=False, whole=False) as raw:
                    tx = Transaction(_OneStatement(raw), guild_id, writable=False,
                                     known_campaigns=self._known)
                    try:
                        return await body(tx)
                    finally:
                        tx.close()
            except _SecondStatement:
                self._snapshot_reads.add(code)
        async with self.read_only(guild_id, background=background) as snapshot:
            return await body(snapshot)

    @asynccontextmanager
    async def _connection(
        self, *, write: bool, whole: bool = True
    ) -> AsyncIterator[asyncpg.Connection]:
        if self._closed:
            raise RuntimeError("Storage is closed.")
        task = asyncio.current_task()
        if task is not None and task in self._owners:
            raise RuntimeError(
                "Storage was called inside its own transaction; use the transaction object."
            )
        if task is not None:
            self._owners.add(task)
        try:
            async with self._held(write=write, whole=whole) as raw:
                yield raw
        finally:
            self._owners.discard(task)

    @asynccontextmanager
    async def _held(self, *, write: bool, whole: bool) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection in a transaction; with ``whole`` False, in none (each
        statement is then a transaction of its own, at the server's READ COMMITTED)."""
        async with self._pool.acquire() as raw:
            if not whole:
                yield raw
                return
            transaction = raw.transaction(
                isolation="read_committed" if write else "repeatable_read", readonly=not write)
            await transaction.start()
            try:
                yield raw
            except BaseException:
                await transaction.rollback()
                raise
            await transaction.commit()

    @asynccontextmanager
    async def _read_scope(
        self, guild_id: int, pool: Any = None
    ) -> AsyncIterator[Transaction | None]:
        async with self._scope(guild_id, write=False) as tx:
            yield tx

    @asynccontextmanager
    async def _scope(self, guild_id: int, *, write: bool) -> AsyncIterator[Transaction]:
        if write:
            async with self._write_scope(guild_id) as tx:
                yield tx
            return
        read: Transaction | None = None
        try:
            async with self._connection(write=False) as raw:
                read = Transaction(PostgresConnection(raw), guild_id, writable=False,
                                   known_campaigns=self._known)
                yield read
        finally:
            if read is not None:
                read.close()

    @asynccontextmanager
    async def _write_scope(self, guild_id: int) -> AsyncIterator[Transaction]:
        """A write transaction whose BEGIN goes with its first statement sent and whose
        COMMIT goes with what waits at its end (PostgresConnection): a transaction that
        reads once and writes is two round trips, its claim of the campaign included."""
        tx: Transaction | None = None
        try:
            async with self._connection(write=True, whole=False) as raw:
                conn = PostgresConnection(raw, batching=True, begun=False)
                tx = Transaction(conn, guild_id, writable=True, known_campaigns=self._known)
                try:
                    yield tx
                    await conn.commit()
                except BaseException as error:
                    if isinstance(error, CampaignGone):
                        self._known.forget(error.guild_id, error.campaign_id)
                    try:
                        await conn.rollback()
                    except Exception:  # the connection broke: the pool closes it
                        log.warning("ROLLBACK failed", exc_info=True)
                    raise
        finally:
            if tx is not None:
                tx.close()
        self._writes[guild_id] = self._writes.get(guild_id, 0) + 1

    async def transaction_whole(self, guild_id: int, body: Body[T]) -> T:
        """``body(tx)`` in a write transaction; once more when the campaign's key known
        from before turned out to name no campaign now (nothing was written: the check
        goes with BEGIN), the key then read afresh."""
        try:
            async with self.transaction(guild_id) as tx:
                return await body(tx)
        except CampaignGone:
            async with self.transaction(guild_id) as tx:
                return await body(tx)

    async def write_at_once(
        self, guild_id: int, statements: Sequence[Statement]
    ) -> list[list[Any]] | None:
        """The statements as ONE statement (data-modifying WITH queries, see
        :func:`as_one_statement`): one round trip, a transaction of its own; None
        (nothing written) when a required one returned no row. The revision guards in
        the statements themselves keep concurrent writers apart (no advisory lock is
        needed)."""
        if len(statements) == 1:
            sql, params = statements[0].for_dialect(POSTGRESQL)
            found = [list(await self._fetch_alone(sql, params))]
            if statements[0].required and not found[0]:
                return None
        else:
            sql, params = as_one_statement(statements)
            try:
                answers = await self._fetch_alone(sql, params)
            except asyncpg.DivisionByZeroError:
                return None  # a required statement returned no row: all rolled back
            row = list(answers[0])[:len(statements)]  # the checks' columns after them
            found = [list(json_rows(text)) for text in row]
        self._writes[guild_id] = self._writes.get(guild_id, 0) + 1
        return found

    async def _fetch_alone(self, sql: str, params: Sequence[Any]) -> Sequence[Row]:
        """One statement outside any transaction (a transaction of its own)."""
        async with self._connection(write=True, whole=False) as raw:
            try:
                rows: Sequence[Row] = await raw.fetch(numbered(sql), *params)
            except asyncpg.IntegrityConstraintViolationError as error:
                raise _integrity(error) from error
        return rows

    async def backup(self, target: str | Path) -> Path:
        raise StorageError(
            "The bot does not back up a PostgreSQL database itself: use pg_dump "
            "(docs/deploying.md)."
        )

    async def prune_outbox(self, older_than: timedelta) -> int:
        async with self._connection(write=True) as raw:
            return await outbox.prune(PostgresConnection(raw), older_than)


# --------------------------------------------------------------------------- one process per shard


class ShardInUse(StorageError):
    """Another bot process on this database holds one of this process's shards."""

    def __init__(self, where: str, shard: int, count: int, holder: str) -> None:
        super().__init__(
            f"Shard {shard} of {count} is held by another Munda Arbitrator process on the "
            f"database {where} ({holder}). Stop that process first: two processes for one "
            "shard would both answer its servers' commands."
        )
        self.shard = shard


class ShardCountInUse(StorageError):
    """Another bot process on this database was given another shard count."""

    def __init__(self, where: str, count: int, other: int, holder: str) -> None:
        super().__init__(
            f"Another Munda Arbitrator process on the database {where} holds shards of "
            f"{other}, not of {count} ({holder}): every server is on a shard of each count, "
            "so both processes could answer it. To change shard_count, stop every process "
            "and start them all with the new one (docs/deploying.md)."
        )
        self.other = other


# The advisory locks of one namespace held by other sessions on this database, with who
# holds them: pg_locks shows the two-int form as classid (namespace) and objid (number).
_HOLDERS = """
SELECT l.objid::bigint AS number, l.pid, a.application_name, host(a.client_addr) AS client,
       a.backend_start
FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid::bigint = $1 AND l.pid <> pg_backend_pid()
ORDER BY a.backend_start
"""


def _process_name() -> str:
    """The lock connection's application_name, so a refusal can say who holds a shard
    (PostgreSQL keeps 63 bytes of it)."""
    return f"munda-arbitrator pid {os.getpid()} on {socket.gethostname()}"[:63]


def _holder(row: Row | None) -> str:
    if row is None:
        return "a session that has just ended"
    said = [row["application_name"] or "a session not named",
            f"PostgreSQL backend pid {row['pid']}"]
    if row["client"]:
        said.append(f"from {row['client']}")
    if row["backend_start"] is not None:
        said.append(f"connected {row['backend_start']:%Y-%m-%d %H:%M:%S %Z}")
    return ", ".join(said)


class ShardClaim:
    """This process's shards, held as advisory locks on a connection kept for its life.

    The locks belong to the connection's session: they go when it closes, and so when
    the process ends however it ends (SIGKILL included; a dead machine's connection
    is noticed by the server's keepalive probes within about a minute).
    """

    def __init__(self, raw: asyncpg.Connection, shards: ShardSet, where: str) -> None:
        self._raw = raw
        self.shards = shards
        self.where = where
        self._released = False

    def when_lost(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` if the connection ends before :meth:`release` (the server
        restarted, the network dropped): the locks are gone, another process may start."""

        def ended(_connection: object) -> None:
            if not self._released:
                callback()

        self._raw.add_termination_listener(ended)

    @property
    def lost(self) -> bool:
        return not self._released and self._raw.is_closed()

    async def release(self) -> None:
        self._released = True
        if not self._raw.is_closed():
            await self._raw.close(timeout=CLOSE_TIMEOUT)


async def claim_shards(url: str, shards: ShardSet) -> ShardClaim:
    """Hold ``shards`` on the database at ``url`` for as long as the returned claim lives.

    Refused (nothing held) with :class:`ShardInUse` when another process holds one of
    them, and with :class:`ShardCountInUse` when another process runs with another
    shard count: shard 1 of 2 and shard 3 of 4 share servers although their numbers
    differ, so the shard lock alone could not see them clash (docs/deploying.md).
    """
    where = _shown(url)
    try:
        raw = await asyncpg.connect(
            url, server_settings={"application_name": _process_name(), **_KEEPALIVES})
    except _UNREACHABLE as error:
        raise DatabaseUnreachable(where, error) from error
    except (OSError, asyncpg.PostgresError) as error:
        raise StorageError(f"Cannot connect to the database {where}: {error}") from error
    try:
        async with raw.transaction():
            # One starting process at a time between the count check and the claims.
            await raw.execute("SELECT pg_advisory_xact_lock($1, 0)", _CLAIMING)
            for row in await raw.fetch(_HOLDERS, SHARD_COUNTS):
                if row["number"] != shards.count:
                    raise ShardCountInUse(where, shards.count, row["number"], _holder(row))
            for shard in shards.sorted_ids():
                if not await raw.fetchval("SELECT pg_try_advisory_lock($1, $2)",
                                          SHARD_LOCKS, shard):
                    holders = [r for r in await raw.fetch(_HOLDERS, SHARD_LOCKS)
                               if r["number"] == shard]
                    raise ShardInUse(where, shard, shards.count,
                                     _holder(holders[0] if holders else None))
            await raw.execute("SELECT pg_advisory_lock_shared($1, $2)",
                              SHARD_COUNTS, shards.count)
    except BaseException:
        # Session locks outlive a rolled-back transaction: closing drops those taken.
        await raw.close()
        raise
    return ShardClaim(raw, shards, where)
