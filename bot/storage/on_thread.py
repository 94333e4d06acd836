"""A whole transaction run on the database thread: one round trip however many statements.

Each ``await`` on an aiosqlite connection is a trip to its thread and back: the
thread is woken, and its answer waits for a turn of the event loop. A click's
read makes five or more of them, and a write that stores a step's rolls a
dozen, all while holding the writer lock (docs/benchmarks.md). Here the
transaction's body, an ordinary ``async`` function of a
:class:`~bot.storage.transaction.Transaction`, is driven to its end on the
connection's own thread over a :class:`ThreadConnection`, whose calls run the
statement at once and never suspend: the event loop sees one trip.

The body may await nothing but the transaction (no Discord, no sleep, no lock):
anything that would suspend it is refused with nothing written. Its pure work
(decoding rows, rendering what a commit owes) runs on that thread too, which
leaves the event loop free meanwhile.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from bot.storage.driver import Row, run_now
from bot.storage.sqlite_driver import SqliteTerms, integrity_error
from bot.storage.transaction import Transaction

T = TypeVar("T")

Body = Callable[[Transaction], Awaitable[T]]

class ThreadConnection(SqliteTerms):
    """A sqlite3 connection, on its own thread, in the storage modules' terms: each call
    runs its statement straight away (the coroutine never suspends)."""

    __slots__ = ("raw",)

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    async def execute_fetchall(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]:
        try:
            rows: list[Row] = self.raw.execute(sql, tuple(params)).fetchall()
        except sqlite3.IntegrityError as error:
            raise integrity_error(error) from error
        return rows

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        try:
            return self.raw.execute(sql, tuple(params)).rowcount
        except sqlite3.IntegrityError as error:
            raise integrity_error(error) from error

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        try:
            self.raw.executemany(sql, (tuple(row) for row in rows))
        except sqlite3.IntegrityError as error:
            raise integrity_error(error) from error

    async def defer(
        self, sql: str, params: Iterable[Any] = (), *, unless_empty: Exception | None = None
    ) -> None:
        await run_now(self, sql, params, unless_empty)


def _drive(awaitable: Awaitable[T]) -> T:
    """Run a coroutine that never suspends to its end, here and now."""
    coroutine = awaitable.__await__()
    try:
        coroutine.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    coroutine.close()
    raise RuntimeError("A transaction run on the database thread awaited something other "
                       "than the database; nothing was written.")


def run_whole(conn: sqlite3.Connection, guild_id: int, body: Body[T], *, write: bool,
              made: list[Transaction] | None = None) -> T:
    """On the database thread: ``body`` in one transaction on ``conn`` (a write takes the
    database's write lock up front, as ``Storage.transaction`` does), committed when it
    returns, rolled back when it raises. ``made`` gets the transaction (what it owed the
    outbox is read from it once it has committed)."""
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    tx = Transaction(ThreadConnection(conn), guild_id, writable=write)
    if made is not None:
        made.append(tx)
    try:
        result = _drive(body(tx))
        conn.execute("COMMIT" if write else "ROLLBACK")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        tx.close()
    return result
