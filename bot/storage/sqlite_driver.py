"""The SQLite driver: an aiosqlite connection as a :class:`bot.storage.driver.Connection`.

A thin wrapper: each call is the one aiosqlite call (one trip to the connection's
thread) it always was; constraint errors become driver.IntegrityError.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

import aiosqlite

from bot.storage.driver import SQLITE, Dialect, IntegrityError, NoSavepoint, Row, run_now

_NO_SAVEPOINT = NoSavepoint()


def integrity_error(error: sqlite3.IntegrityError) -> IntegrityError:
    """SQLite's constraint failure as the storage modules know it."""
    return IntegrityError(str(error), unique="UNIQUE" in str(error))


class SqliteTerms:
    """What every SQLite connection wrapper says alike, on the event loop or on the
    database's own thread (bot/storage/on_thread.py)."""

    __slots__ = ()

    @property
    def dialect(self) -> Dialect:
        return SQLITE

    @property
    def defers(self) -> bool:
        return False

    def savepoint(self) -> AbstractAsyncContextManager[None]:
        return _NO_SAVEPOINT

    async def claim(self, key: int) -> None:
        """Nothing: every SQLite write already holds the one writer lock."""


class SqliteConnection(SqliteTerms):
    """One aiosqlite connection, in the storage modules' terms."""

    __slots__ = ("raw",)

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self.raw = raw

    async def execute_fetchall(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]:
        try:
            rows = await self.raw.execute_fetchall(sql, params)
        except sqlite3.IntegrityError as error:
            raise integrity_error(error) from error
        return rows  # type: ignore[return-value]  # a list, typed Iterable by aiosqlite

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        try:
            cursor = await self.raw.execute(sql, params)
        except sqlite3.IntegrityError as error:
            raise integrity_error(error) from error
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        try:
            await self.raw.executemany(sql, rows)
        except sqlite3.IntegrityError as error:
            raise integrity_error(error) from error

    async def defer(
        self, sql: str, params: Iterable[Any] = (), *, unless_empty: Exception | None = None
    ) -> None:
        await run_now(self, sql, params, unless_empty)
