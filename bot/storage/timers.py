"""Rows of the timers: things due at a time of the bot's clock, until they have fired.

See bot/timers.py for the worker that fires them and docs/reliability.md for the
guarantees. A timer is set by :meth:`Transaction.set_timer` in the transaction of the
change that makes it due (a battle agreed), and fired by :func:`take` in the
transaction its handler writes in: either both are committed or neither is.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.shards import ShardSet
from bot.storage.codec import Row, dumps, now
from bot.storage.driver import Connection, first_row
from bot.storage.outbox import on_shards

_COLUMNS = ("pk, guild_id, key, kind, due_at, args, created_at, attempts, retry_at,"
            " last_error, fired_at")


class Timer(BaseModel):
    """One timer: due (``fired_at`` None) or fired."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    guild_id: int
    key: str
    kind: str
    due_at: datetime
    args: dict[str, Any]
    attempts: int = 0
    last_error: str | None = None
    fired_at: datetime | None = None

    @property
    def pending(self) -> bool:
        return self.fired_at is None


def epoch(when: datetime) -> float:
    """``when`` as stored: seconds since the epoch. A time without a zone is UTC."""
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def _moment(seconds: float | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def _timer(row: Row) -> Timer:
    due = _moment(row["due_at"])
    assert due is not None
    return Timer(id=row["pk"], guild_id=row["guild_id"], key=row["key"], kind=row["kind"],
                 due_at=due, args=json.loads(row["args"]), attempts=row["attempts"],
                 last_error=row["last_error"], fired_at=_moment(row["fired_at"]))


async def set_timer(db: Connection, guild_id: int, key: str, kind: str, due_at: datetime,
                    args: dict[str, Any]) -> Timer:
    """Set ``key``'s timer; setting it again with the same time and arguments changes
    nothing (a fired one stays fired), with another time or arguments moves it (due
    again)."""
    text = dumps(args)
    rows = await db.execute_fetchall(
        "INSERT INTO timers (guild_id, key, kind, due_at, args, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, key) DO UPDATE SET"
        # Same time and arguments: the timer as it was, fired or not (idempotent).
        " fired_at = CASE WHEN timers.due_at = excluded.due_at AND timers.args = excluded.args"
        " AND timers.kind = excluded.kind THEN timers.fired_at ELSE NULL END,"
        " attempts = CASE WHEN timers.due_at = excluded.due_at AND timers.args = excluded.args"
        " AND timers.kind = excluded.kind THEN timers.attempts ELSE 0 END,"
        # Moved: a failure's retry time and error were of the timer as it was.
        " retry_at = CASE WHEN timers.due_at = excluded.due_at AND timers.args = excluded.args"
        " AND timers.kind = excluded.kind THEN timers.retry_at ELSE NULL END,"
        " last_error = CASE WHEN timers.due_at = excluded.due_at"
        " AND timers.args = excluded.args AND timers.kind = excluded.kind"
        " THEN timers.last_error ELSE NULL END,"
        " kind = excluded.kind, due_at = excluded.due_at, args = excluded.args"
        f" RETURNING {_COLUMNS}",
        (guild_id, key, kind, epoch(due_at), text, now()),
    )
    return _timer(rows[0])


async def cancel(db: Connection, guild_id: int, key: str) -> bool:
    """Forget ``key``'s timer; False when there was none."""
    return await db.execute("DELETE FROM timers WHERE guild_id = ? AND key = ?",
                            (guild_id, key)) > 0


async def get(db: Connection, guild_id: int, key: str) -> Timer | None:
    row = await first_row(
        db, f"SELECT {_COLUMNS} FROM timers WHERE guild_id = ? AND key = ?", (guild_id, key))
    return None if row is None else _timer(row)


async def of_guild(db: Connection, guild_id: int, prefix: str = "") -> list[Timer]:
    """The server's timers whose key starts with ``prefix``, soonest first."""
    rows = await db.execute_fetchall(
        f"SELECT {_COLUMNS} FROM timers WHERE guild_id = ? AND substr(key, 1, ?) = ?"
        " ORDER BY due_at, pk",
        (guild_id, len(prefix), prefix),
    )
    return [_timer(row) for row in rows]


def _due_where(kinds: Collection[str], shards: ShardSet | None) -> tuple[str, list[Any]]:
    held, params = on_shards(shards)
    marks = ", ".join("?" for _ in kinds)
    return (f"fired_at IS NULL AND kind IN ({marks}){held}", [*kinds, *params])


async def due(db: Connection, at: datetime, kinds: Collection[str], limit: int,
              shards: ShardSet | None = None) -> list[Timer]:
    """Timers of every server (on ``shards``) due at ``at`` whose kind has a handler,
    soonest first; a timer whose handler failed waits for its retry time."""
    if not kinds:
        return []
    where, params = _due_where(kinds, shards)
    moment = epoch(at)
    rows = await db.execute_fetchall(
        f"SELECT {_COLUMNS} FROM timers WHERE {where} AND due_at <= ?"
        " AND (retry_at IS NULL OR retry_at <= ?) ORDER BY due_at, pk LIMIT ?",
        (*params, moment, moment, limit),
    )
    return [_timer(row) for row in rows]


async def next_due(db: Connection, kinds: Collection[str],
                   shards: ShardSet | None = None) -> datetime | None:
    """When the soonest timer not fired yet is due (its retry time, after a failure)."""
    if not kinds:
        return None
    where, params = _due_where(kinds, shards)
    row = await first_row(
        db, "SELECT MIN(CASE WHEN retry_at IS NOT NULL AND retry_at > due_at THEN retry_at"
        f" ELSE due_at END) AS soonest FROM timers WHERE {where}", params)
    return None if row is None else _moment(row["soonest"])


async def take(db: Connection, guild_id: int, pk: int, at: datetime) -> Timer | None:
    """Mark the timer fired at ``at``; None when it fired already, moved or is gone (then
    its handler must not run). Called in the handler's own transaction."""
    rows = await db.execute_fetchall(
        "UPDATE timers SET fired_at = ?, attempts = attempts + 1, last_error = NULL,"
        " retry_at = NULL WHERE guild_id = ? AND pk = ? AND fired_at IS NULL AND due_at <= ?"
        f" RETURNING {_COLUMNS}",
        (epoch(at), guild_id, pk, epoch(at)),
    )
    return _timer(rows[0]) if rows else None


async def failed(db: Connection, guild_id: int, pk: int, error: str, retry_at: datetime) -> None:
    """Count a failed run of the handler and set when to try again."""
    await db.execute(
        "UPDATE timers SET attempts = attempts + 1, last_error = ?, retry_at = ?"
        " WHERE guild_id = ? AND pk = ? AND fired_at IS NULL",
        (error[:500], epoch(retry_at), guild_id, pk),
    )


async def forget(db: Connection, guild_id: int, campaign_id: str | None) -> int:
    """Delete the server's timers (those whose arguments name one campaign, when named)."""
    if campaign_id is None:
        return await db.execute("DELETE FROM timers WHERE guild_id = ?", (guild_id,))
    return await db.execute(
        f"DELETE FROM timers WHERE guild_id = ? AND {db.dialect.json_text('args', 'campaign')} = ?",
        (guild_id, campaign_id),
    )
