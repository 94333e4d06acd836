"""Storage: the per-server campaign database behind the bot.

One :class:`Storage` holds one SQLite connection for writes and a few for
reads (WAL lets them read the last commit while a write is in progress).
Every call runs in its own transaction; writes are serialised on the
writer's connection by an asyncio lock (the busy timeout does the same
between processes). A caller that must load, decide
and write without anyone writing in between opens a write transaction::

    async with storage.transaction(guild_id) as tx:
        world = await tx.load_world(campaign_id, battle.gang_ids)
        result = collect_income(world, battle, roller)
        await tx.apply(campaign_id, result, actor=str(user.id), battle_id=battle.id)

Callers speak to the data through :class:`Transaction`'s methods alone. One
question or one change in a transaction of its own is ``await
storage.read(guild_id).get_gang(campaign_id, gang_id)`` (a read transaction)
or ``await storage.write(guild_id).update_gang(...)`` (BEGIN IMMEDIATE).
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar, cast

import aiosqlite
from pydantic import BaseModel

from bot.shards import ShardSet
from bot.storage import outbox, sequences
from bot.storage.at_once import Statement, run_all
from bot.storage.backup import backup_database
from bot.storage.database import DEFAULT_BUSY_TIMEOUT_MS, connect, on_disk, schema_version
from bot.storage.driver import IntegrityError, is_postgres_url
from bot.storage.errors import StaleSequence
from bot.storage.on_thread import Body, run_whole
from bot.storage.outbox import OutboxEntry, Owed, OwedListener
from bot.storage.sqlite_driver import SqliteConnection
from bot.storage.transaction import Transaction

T = TypeVar("T")


class _OneTransaction:
    """What ``storage.read(guild_id)`` and ``storage.write(guild_id)`` return: each method of
    :class:`Transaction` called on it runs in a transaction of its own, on that server's
    data. The type checker is told it is a Transaction: it takes the same calls."""

    def __init__(self, storage: Storage, guild_id: int, write: bool) -> None:
        self._storage, self._guild_id, self._write = storage, guild_id, write

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        method = getattr(Transaction, name)
        storage, guild_id, write = self._storage, self._guild_id, self._write

        @functools.wraps(method)
        async def in_its_own_transaction(*args: Any, **kwargs: Any) -> Any:
            scope = storage.transaction(guild_id) if write else storage._scope(guild_id,
                                                                               write=False)
            async with scope as tx:
                return await method(tx, *args, **kwargs)

        return in_its_own_transaction


class _ReadLane:
    """A read-only connection of its own (opened on first use), with its lock and the
    task reading on it."""

    def __init__(self) -> None:
        self.conn: aiosqlite.Connection | None = None
        self.db: SqliteConnection | None = None
        self.lock = asyncio.Lock()
        self.owner: asyncio.Task[Any] | None = None

    async def connection(self, path: Path, busy_timeout_ms: int) -> aiosqlite.Connection:
        if self.conn is None:
            conn = await aiosqlite.connect(str(path), isolation_level=None)
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await conn.execute("PRAGMA query_only = ON")
            self.conn = conn
            self.db = SqliteConnection(conn)
        return self.conn

    async def close(self) -> None:
        async with self.lock:
            if self.conn is not None:
                await self.conn.close()
                self.conn = None
                self.db = None


class _ReadPool:
    """A few lanes: a read takes whichever is free, so one read held open across a
    dozen awaits (each a turn of a busy event loop) does not hold up the others."""

    def __init__(self, size: int) -> None:
        self.lanes = [_ReadLane() for _ in range(size)]
        self._free: asyncio.Queue[_ReadLane] = asyncio.Queue()
        for lane in self.lanes:
            self._free.put_nowait(lane)

    @asynccontextmanager
    async def lane(self) -> AsyncIterator[_ReadLane]:
        lane = await self._free.get()
        try:
            yield lane
        finally:
            self._free.put_nowait(lane)


@dataclass
class WriterLockTimes:
    """How long the writer lock was waited for and held, over every Storage of the
    process (seconds). Two clock reads per write; bench/bot_bench.py reports them."""

    holds: int = 0
    waited: float = 0.0
    held: float = 0.0
    longest_wait: float = 0.0
    longest_hold: float = 0.0

    def record(self, waited: float, held: float) -> None:
        self.holds += 1
        self.waited += waited
        self.held += held
        self.longest_wait = max(self.longest_wait, waited)
        self.longest_hold = max(self.longest_hold, held)


WRITER_LOCK = WriterLockTimes()


# Checks before an answer: enough lanes that clicks arriving together rarely wait for
# each other (measured in docs/benchmarks.md); each is a connection and a thread.
ANSWERING_LANES = 3


class Storage:
    """The campaign database: open with ``await open_storage(target)``
    (bot/storage/opening.py), or a SQLite file with ``await Storage.open(path)``."""

    # Which driver: "sqlite" (this class) or "postgresql" (bot/storage/postgres.py).
    driver = "sqlite"
    # Told of the outbox rows each committed write owed (``on_owed``).
    _owed_listeners: tuple[OwedListener, ...] = ()

    def __init__(
        self, conn: aiosqlite.Connection, path: Path,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> None:
        self.path = path
        self._conn = conn
        self._db = SqliteConnection(conn)
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        # Reads get connections of their own, so a click's checks never queue behind
        # the write transactions of other clicks: with WAL a reader sees the last
        # commit while the writer works. Redraws after a commit read on a second one,
        # so they never hold up the checks a click makes before it answers
        # (docs/benchmarks.md). An in-memory database has only the one connection.
        self._busy_timeout_ms = busy_timeout_ms
        self._answering = _ReadPool(ANSWERING_LANES)
        self._background = _ReadPool(1)
        self._closed = False
        self._writes: dict[int, int] = {}

    @classmethod
    async def open(
        cls, path: str | Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
    ) -> Storage:
        """Open (creating if needed) and migrate the SQLite file at ``path``. A target that
        may be a ``postgresql://`` URL too opens with :func:`bot.storage.opening.open_storage`.

        Raises DatabaseTooNew for a database written by a newer release.
        """
        if is_postgres_url(path):
            # Not a file name: SQLite would only fail to open it, with a puzzling message.
            raise ValueError("Storage.open opens a SQLite file; open a PostgreSQL URL with "
                             "bot.storage.opening.open_storage")
        conn = await connect(path, busy_timeout_ms=busy_timeout_ms)
        return cls(conn, Path(path), busy_timeout_ms)

    async def close(self) -> None:
        self._closed = True
        for lane in (*self._answering.lanes, *self._background.lanes):
            await lane.close()
        async with self._locked():
            await self._conn.close()

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    def writes(self, guild_id: int) -> int:
        """How many write transactions on ``guild_id``'s data this Storage has committed:
        what was read at one count is still what is stored while the count is the same
        (one process per database), so it can be kept in memory until then."""
        return self._writes.get(guild_id, 0)

    @property
    def writer_busy(self) -> bool:
        """Whether a write transaction is open now (a new one would wait for it)."""
        return self._lock.locked()

    async def schema_version(self) -> int:
        async with self._locked():
            return await schema_version(self._conn)

    @asynccontextmanager
    async def read_only(
        self, guild_id: int, *, background: bool = False
    ) -> AsyncIterator[Transaction]:
        """A read transaction on ``guild_id``'s data that never waits for writers.

        It sees what was committed when it began. For checks made before an
        interaction is answered (a refusal must come at once); whatever
        decides a write reads again inside ``transaction()``. ``background``
        reads (a redraw after an answer) have a connection of their own, so
        they never hold up those checks.
        """
        if background:
            async with self._read_scope(guild_id, self._background) as tx:
                if tx is not None:
                    yield tx
                    return
        async with self._scope(guild_id, write=False) as tx:
            yield tx

    def read(self, guild_id: int) -> Transaction:
        """``guild_id``'s data, each call of a Transaction method on it in a read
        transaction of its own: ``await storage.read(guild_id).get_gang(campaign, gang)``."""
        return cast(Transaction, _OneTransaction(self, guild_id, write=False))

    def write(self, guild_id: int) -> Transaction:
        """``guild_id``'s data, each call of a Transaction method on it in a write
        transaction of its own (committed when it returns, rolled back when it raises)."""
        return cast(Transaction, _OneTransaction(self, guild_id, write=True))

    def on_owed(self, listener: OwedListener) -> None:
        """Call ``listener`` with the outbox rows each write transaction owed (and whether
        it deleted some), right after it has committed (bot/outbox.py): rows a commit
        owed need not be read back to be delivered."""
        self._owed_listeners = (*self._owed_listeners, listener)

    def _committed(self, tx: Transaction) -> None:
        """``tx`` has committed: tell the listeners what it did to the outbox."""
        changes = tx.outbox_changes()
        if changes is not None:
            self.tell_owed(changes)

    def tell_owed(self, changes: Owed) -> None:
        """Tell the listeners (``on_owed``) what a committed write did to the outbox: a
        write made at once (``write_at_once``) that owed rows says so itself."""
        if changes.rows or changes.forgot or changes.unlisted:
            for listener in self._owed_listeners:
                listener(changes)

    @asynccontextmanager
    async def transaction(self, guild_id: int) -> AsyncIterator[Transaction]:
        """A write transaction on ``guild_id``'s data: committed if the block ends
        normally, rolled back (nothing written, ledger included) if it raises."""
        async with self._scope(guild_id, write=True) as tx:
            yield tx
        self._committed(tx)

    async def write_at_once(
        self, guild_id: int, statements: Sequence[Statement]
    ) -> list[list[Any]] | None:
        """One write transaction of ``statements`` in one round trip to the database
        thread (bot/storage/at_once.py): each one's rows, or None when a required one
        returned no row (then nothing was written)."""
        try:
            done = await self._one_trip(run_all, self._conn._conn, statements)
        except sqlite3.IntegrityError as error:
            raise IntegrityError(str(error), unique="UNIQUE" in str(error)) from error
        if done is not None:
            self._writes[guild_id] = self._writes.get(guild_id, 0) + 1
        return done

    async def save_sequence_at_once(
        self, guild_id: int, campaign_id: str, key: str, state: BaseModel, *,
        battle_id: str | None, revision: int,
    ) -> int:
        """``Transaction.save_sequence(..., revision=)`` as a write transaction of its own,
        in one round trip to the database thread; returns the new revision, or raises
        StaleSequence (nothing written) when the stored one is no longer at ``revision``."""
        done = await self.write_at_once(guild_id, [sequences.save_statement(
            guild_id, campaign_id, key, state, battle_id, revision=revision)])
        if done is None:
            raise StaleSequence(sequences.STALE)
        return int(done[0][0][0])

    async def transaction_whole(self, guild_id: int, body: Body[T]) -> T:
        """``body(tx)`` in a write transaction, as ``transaction()`` does, but run whole on
        the database thread (bot/storage/on_thread.py): one round trip while the writer
        lock is held. ``body`` may await nothing but ``tx``. On PostgreSQL, an ordinary
        transaction."""
        if self.driver != "sqlite":
            async with self.transaction(guild_id) as tx:
                return await body(tx)
        made: list[Transaction] = []
        done: T = await self._one_trip(functools.partial(run_whole, write=True, made=made),
                                       self._conn._conn, guild_id, body)
        self._writes[guild_id] = self._writes.get(guild_id, 0) + 1
        self._committed(made[0])
        return done

    async def _one_trip(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` on the writer's thread, a whole transaction in one call.

        aiosqlite runs a connection's calls on its own thread one after another, in the
        order they were queued (there is no public name for queueing a function). Once
        this call is queued, whatever a later holder of the writer lock sends runs after
        it, so the lock is let go then, not when the answer is back: under load the
        event loop's turn to take that answer was most of the time the lock was held.
        """
        async with self._locked():
            call: asyncio.Future[T] = asyncio.ensure_future(
                self._conn._execute(function, *args))  # type: ignore[no-untyped-call]
            await asyncio.sleep(0)  # the call queues itself in its first step, before this
        return await call

    async def read_whole(self, guild_id: int, body: Body[T], *, background: bool = False) -> T:
        """``body(tx)`` in a read transaction, as ``read_only()`` does (it never waits for
        the writer), but run whole on a reader's thread: one round trip. ``body`` may
        await nothing but ``tx``. On PostgreSQL, an ordinary read."""
        if self.driver != "sqlite":
            async with self.read_only(guild_id, background=background) as tx:
                return await body(tx)
        pool = self._background if background else self._answering
        async with pool.lane() as lane, lane.lock:
            reader = await self._reading_connection(lane)
            if reader is not None:
                found: T = await reader._execute(  # type: ignore[no-untyped-call]
                    functools.partial(run_whole, write=False), reader._conn, guild_id, body)
                return found
        async with self._locked():  # :memory: has only the writer's connection
            kept: T = await self._conn._execute(  # type: ignore[no-untyped-call]
                functools.partial(run_whole, write=False), self._conn._conn, guild_id, body)
            return kept

    async def backup(self, target: str | Path) -> Path:
        """Copy the whole database, online, to ``target`` (replaced when complete)."""
        async with self._locked():
            return await backup_database(self._conn, target)

    async def undelivered_messages(
        self, limit: int = 500, *, guild_id: int | None = None, shards: ShardSet | None = None,
    ) -> list[OutboxEntry]:
        """Owed messages of every server (or of ``guild_id``; of ``shards``' servers only,
        when given), oldest first (the outbox worker's scan). A read: it never waits for,
        nor holds up, a writer."""
        async def undelivered(tx: Transaction) -> list[OutboxEntry]:
            return await tx.undelivered_messages(limit, guild_id=guild_id, shards=shards)

        return await self.read_whole(guild_id or 0, undelivered, background=True)

    async def prune_outbox(self, older_than: timedelta) -> int:
        """Forget outbox rows delivered or given up longer than ``older_than`` ago."""
        async with self._locked():
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                count = await outbox.prune(self._db, older_than)
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")
            return count

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        task = asyncio.current_task()
        if task is not None and task is self._owner:
            # asyncio.Lock is not re-entrant: waiting here would hang for ever.
            raise RuntimeError(
                "Storage was called inside its own transaction; use the transaction object."
            )
        asked = time.perf_counter()
        async with self._lock:
            self._owner = task
            taken = time.perf_counter()
            try:
                yield
            finally:
                self._owner = None
                WRITER_LOCK.record(taken - asked, time.perf_counter() - taken)

    async def _reading_connection(self, lane: _ReadLane) -> aiosqlite.Connection | None:
        """The lane's connection (held under its lock); None for ``:memory:``."""
        if not on_disk(self.path):
            return None
        if self._closed:
            raise RuntimeError("Storage is closed.")
        return await lane.connection(self.path, self._busy_timeout_ms)

    @asynccontextmanager
    async def _read_scope(
        self, guild_id: int, pool: _ReadPool | None = None
    ) -> AsyncIterator[Transaction | None]:
        task = asyncio.current_task()
        lanes = (*self._answering.lanes, *self._background.lanes)
        if task is not None and (task is self._owner or any(lane.owner is task for lane in lanes)):
            # Inside its own write it would not see that transaction's writes; inside
            # its own read it could wait for itself for ever.
            raise RuntimeError(
                "Storage was called inside its own transaction; use the transaction object."
            )
        async with (pool or self._answering).lane() as lane, lane.lock:
            reader = await self._reading_connection(lane)
            if reader is None:
                yield None
                return
            lane.owner = task
            await reader.execute("BEGIN")
            assert lane.db is not None
            tx = Transaction(lane.db, guild_id, writable=False)
            try:
                yield tx
            finally:
                tx.close()
                lane.owner = None
                if reader.in_transaction:
                    await reader.execute("ROLLBACK")

    @asynccontextmanager
    async def _scope(self, guild_id: int, *, write: bool) -> AsyncIterator[Transaction]:
        if not write:
            async with self._read_scope(guild_id) as read_tx:
                if read_tx is not None:
                    yield read_tx
                    return
        async with self._locked():
            # Reads take a snapshot (deferred BEGIN); writes take the write
            # lock up front so they never fail half-way on an upgrade.
            await self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            tx = Transaction(self._db, guild_id, writable=write)
            try:
                yield tx
                await self._conn.execute("COMMIT")
                if write:
                    self._writes[guild_id] = self._writes.get(guild_id, 0) + 1
            except BaseException:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                raise
            finally:
                tx.close()
