"""A write transaction made of known statements, run in ONE round trip to the database
thread.

Each ``await`` on the writer's connection is a trip to aiosqlite's thread and back,
and under load every trip back waits its turn on the busy event loop while the
writer lock is held (bench/bot_bench.py reports how long it is held). A write
that needs no reading between its statements (saving a decided run over the
revision it was read at, recording a delivery) is sent whole instead: BEGIN
IMMEDIATE, the statements and COMMIT run on the thread one after another, and
the whole is rolled back when a statement that must change a row changes none.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.driver import Dialect

CAMPAIGN_PK = "(SELECT pk FROM campaigns WHERE guild_id = ? AND id = ?)"


@dataclass(frozen=True)
class Statement:
    sql: str
    params: Sequence[Any]
    # The statement must return a row (RETURNING), or nothing of the write is kept.
    required: bool = False
    # For SQL with dialect fragments: the text and parameters in a dialect (``sql`` and
    # ``params`` are SQLite's).
    render: Callable[[Dialect], tuple[str, Sequence[Any]]] | None = None

    def for_dialect(self, dialect: Dialect) -> tuple[str, Sequence[Any]]:
        if self.render is None:
            return self.sql, self.params
        return self.render(dialect)


def run_all(conn: sqlite3.Connection, statements: Sequence[Statement]) -> list[list[Any]] | None:
    """On the database thread: the statements in one transaction; each one's rows, or
    None (rolled back) when a required statement returned none."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        found: list[list[Any]] = []
        for statement in statements:
            rows = conn.execute(statement.sql, tuple(statement.params)).fetchall()
            if statement.required and not rows:
                conn.execute("ROLLBACK")
                return None
            found.append(rows)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return found
