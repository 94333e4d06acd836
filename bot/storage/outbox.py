"""Rows of the outbox: messages the bot owes a channel, until Discord has accepted them.

See bot/outbox.py for the worker that delivers them and docs/reliability.md
for the guarantees. A row is written by :meth:`Transaction.owe_message` in the
transaction of the change that makes the message owed; the worker reads the
due rows of every server with :meth:`Storage.undelivered_messages` and writes
each outcome back through the row's own server's transaction.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.shards import SHARD_KEY_SHIFT, ShardSet
from bot.storage.at_once import Statement
from bot.storage.codec import Row, dumps, now
from bot.storage.driver import Connection, Select, first_row

# Discord takes a nonce of at most 25 characters.
NONCE_BYTES = 12
_COLUMNS = (
    "pk, guild_id, key, channel_id, fallback_channel_id, payload, nonce, link, created_at,"
    " attempts, due_at, last_error, delivered_at, message_id, delivered_channel_id, failed_at"
)


class OutboxEntry(BaseModel):
    """One owed (or delivered, or given up) message."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    guild_id: int
    key: str
    channel_id: int
    fallback_channel_id: int | None = None
    payload: dict[str, Any]
    nonce: str
    link: dict[str, Any] | None = None
    created_at: datetime
    attempts: int = 0
    due_at: float
    last_error: str | None = None
    delivered_at: datetime | None = None
    message_id: int | None = None
    delivered_channel_id: int | None = None
    failed_at: datetime | None = None

    @property
    def pending(self) -> bool:
        return self.delivered_at is None and self.failed_at is None


@dataclass(frozen=True)
class Owed:
    """What one committed write transaction did to its server's outbox: the rows it
    added (as the INSERT returned them), and whether it deleted rows (a campaign or the
    server's data forgotten). Handed to the outbox worker so that it can deliver them
    without reading them back (bot/outbox.py)."""

    guild_id: int
    rows: tuple[OutboxEntry, ...] = ()
    forgot: bool = False
    # It owed rows it cannot hand over (their inserts were not waited for): the worker
    # reads the server's outbox to find them.
    unlisted: bool = False


# Told of each committed write that changed the outbox (``Storage.on_owed``); called on
# the event loop right after the commit, it must not await nor fail.
OwedListener = Callable[[Owed], None]


def _entry(row: Row) -> OutboxEntry:
    return OutboxEntry(
        id=row["pk"], guild_id=row["guild_id"], key=row["key"], channel_id=row["channel_id"],
        fallback_channel_id=row["fallback_channel_id"], payload=json.loads(row["payload"]),
        nonce=row["nonce"], link=json.loads(row["link"]) if row["link"] else None,
        created_at=row["created_at"], attempts=row["attempts"], due_at=row["due_at"],
        last_error=row["last_error"], delivered_at=row["delivered_at"],
        message_id=row["message_id"], delivered_channel_id=row["delivered_channel_id"],
        failed_at=row["failed_at"],
    )


_OWE = (
    "INSERT INTO outbox (guild_id, key, channel_id, fallback_channel_id, payload, nonce, link,"
    " created_at, due_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, key) DO NOTHING"
)


def _owed_values(
    guild_id: int, key: str, channel_id: int, payload: dict[str, Any],
    link: dict[str, Any] | None, fallback_channel_id: int | None,
) -> tuple[Any, ...]:
    """The values of :data:`_OWE` for a new row (a fresh nonce, due now)."""
    return (guild_id, key, channel_id, fallback_channel_id, dumps(payload),
            secrets.token_hex(NONCE_BYTES), dumps(link) if link is not None else None, now(),
            time.time())


async def owe(
    db: Connection,
    guild_id: int,
    key: str,
    channel_id: int,
    payload: dict[str, Any],
    *,
    link: dict[str, Any] | None,
    fallback_channel_id: int | None,
) -> tuple[OutboxEntry, bool]:
    """Add a row unless ``key`` is owed (or was delivered) already; return the row, and
    whether it is the new one."""
    # A new row comes back from the INSERT itself; one owed already is read.
    made = owe_statement(guild_id, key, channel_id, payload, link=link,
                         fallback_channel_id=fallback_channel_id)
    inserted = await db.execute_fetchall(made.sql, made.params)
    if inserted:
        return _entry(inserted[0]), True
    found = await get(db, guild_id, key)
    assert found is not None
    return found, False


def owe_statement(
    guild_id: int, key: str, channel_id: int, payload: dict[str, Any], *,
    link: dict[str, Any] | None = None, fallback_channel_id: int | None = None,
    returning: bool = True,
) -> Statement:
    """:func:`owe` as one statement (of a write made at once, bot/storage/at_once.py): its
    row, when it is new, is the statement's (:func:`entries`); a key owed already is
    left as it is. Without ``returning`` it returns nothing, for ``Connection.defer``."""
    return Statement(
        "INSERT INTO outbox (guild_id, key, channel_id, fallback_channel_id, payload, nonce,"
        " link, created_at, due_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, key) DO NOTHING" + (f" RETURNING {_COLUMNS}" if returning else ""),
        (guild_id, key, channel_id, fallback_channel_id, dumps(payload),
         secrets.token_hex(NONCE_BYTES), dumps(link) if link is not None else None, now(),
         time.time()),
    )


def entries(rows: Iterable[Row]) -> list[OutboxEntry]:
    """The rows of :func:`owe_statement` (or of a SELECT of every column) as entries."""
    return [_entry(row) for row in rows]


def keys_select(guild_id: int, prefix: str) -> Select:
    """The keys of the server's rows (owed, delivered or given up) that start with
    ``prefix``, as a SELECT to read with others (driver.fetch_together)."""
    return ("SELECT key FROM outbox WHERE guild_id = ? AND substr(key, 1, ?) = ?",
            (guild_id, len(prefix), prefix))


async def get(db: Connection, guild_id: int, key: str) -> OutboxEntry | None:
    row = await first_row(
        db, f"SELECT {_COLUMNS} FROM outbox WHERE guild_id = ? AND key = ?", (guild_id, key))
    return None if row is None else _entry(row)


async def get_by_id(db: Connection, guild_id: int, pk: int) -> OutboxEntry | None:
    row = await first_row(
        db, f"SELECT {_COLUMNS} FROM outbox WHERE guild_id = ? AND pk = ?", (guild_id, pk))
    return None if row is None else _entry(row)


async def of_guild(
    db: Connection, guild_id: int, *, prefix: str = "", pending_only: bool = False
) -> list[OutboxEntry]:
    """The server's rows whose key starts with ``prefix``, oldest first."""
    where = " AND delivered_at IS NULL AND failed_at IS NULL" if pending_only else ""
    rows = await db.execute_fetchall(
        f"SELECT {_COLUMNS} FROM outbox WHERE guild_id = ? AND substr(key, 1, ?) = ?{where}"
        " ORDER BY pk",
        (guild_id, len(prefix), prefix),
    )
    return [_entry(row) for row in rows]


async def undelivered(
    db: Connection, limit: int, guild_id: int | None = None,
    shards: ShardSet | None = None,
) -> list[OutboxEntry]:
    """Rows neither delivered nor given up, oldest first: of every server, or of one;
    of the servers on ``shards`` only, when given (a process holding some shards)."""
    one = "" if guild_id is None else " AND guild_id = ?"
    params: list[int] = [] if guild_id is None else [guild_id]
    held, held_params = on_shards(shards)
    one += held
    params += held_params
    rows = await db.execute_fetchall(
        f"SELECT {_COLUMNS} FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL"
        f"{one} ORDER BY pk LIMIT ?",
        (*params, limit),
    )
    return [_entry(row) for row in rows]


def on_shards(shards: ShardSet | None) -> tuple[str, list[int]]:
    """A condition (`` AND ...``) keeping the rows of the servers on ``shards`` only, and
    its parameters; nothing for every shard. For the scans of every server's rows (this
    outbox, the timers): other processes' rows must never fill their LIMIT."""
    if shards is None or shards.every_shard:
        return "", []
    # Discord's routing, (id >> 22) % count, in SQL both SQLite and PostgreSQL read
    # (bot/shards.py).
    ids = shards.sorted_ids()
    return (f" AND (guild_id >> {SHARD_KEY_SHIFT}) % ? IN ({', '.join('?' for _ in ids)})",
            [shards.count, *ids])


def delivered_statement(guild_id: int, pk: int, message_id: int, channel_id: int) -> Statement:
    """:func:`delivered` as a statement of a write made at once (bot/storage/at_once.py):
    required, so nothing else of that write is kept when the row was settled already."""
    return Statement(
        "UPDATE outbox SET delivered_at = ?, message_id = ?, delivered_channel_id = ?,"
        " attempts = attempts + 1, last_error = NULL"
        " WHERE guild_id = ? AND pk = ? AND delivered_at IS NULL AND failed_at IS NULL"
        " RETURNING pk",
        (now(), message_id, channel_id, guild_id, pk), required=True,
    )


async def delivered(
    db: Connection, guild_id: int, pk: int, message_id: int, channel_id: int
) -> bool:
    """Record Discord's acceptance; False if the row was delivered or given up already."""
    changed = await db.execute(
        "UPDATE outbox SET delivered_at = ?, message_id = ?, delivered_channel_id = ?,"
        " attempts = attempts + 1, last_error = NULL"
        " WHERE guild_id = ? AND pk = ? AND delivered_at IS NULL AND failed_at IS NULL",
        (now(), message_id, channel_id, guild_id, pk),
    )
    return changed > 0


async def retry_later(
    db: Connection, guild_id: int, pk: int, error: str, due_at: float
) -> None:
    """Count a failed attempt and set when to try again."""
    await db.execute(
        "UPDATE outbox SET attempts = attempts + 1, last_error = ?, due_at = ?"
        " WHERE guild_id = ? AND pk = ? AND delivered_at IS NULL AND failed_at IS NULL",
        (error[:500], due_at, guild_id, pk),
    )


async def redirect(db: Connection, guild_id: int, pk: int, error: str) -> bool:
    """Send the row to its fallback channel from now on; False if it has none."""
    changed = await db.execute(
        "UPDATE outbox SET attempts = attempts + 1, last_error = ?,"
        " channel_id = fallback_channel_id, fallback_channel_id = NULL, due_at = ?"
        " WHERE guild_id = ? AND pk = ? AND delivered_at IS NULL AND failed_at IS NULL"
        " AND fallback_channel_id IS NOT NULL",
        (error[:500], time.time(), guild_id, pk),
    )
    return changed > 0


async def give_up(db: Connection, guild_id: int, pk: int, error: str) -> None:
    await db.execute(
        "UPDATE outbox SET attempts = attempts + 1, last_error = ?, failed_at = ?"
        " WHERE guild_id = ? AND pk = ? AND delivered_at IS NULL AND failed_at IS NULL",
        (error[:500], now(), guild_id, pk),
    )


async def forget(db: Connection, guild_id: int, campaign_id: str | None) -> int:
    """Delete the server's rows (those of one campaign, when named), owed or delivered.

    A row belongs to a campaign through its link (bot/battle names the campaign
    there); its payload holds names from that campaign, so it goes with it.
    """
    if campaign_id is None:
        return await db.execute("DELETE FROM outbox WHERE guild_id = ?", (guild_id,))
    return await db.execute(
        f"DELETE FROM outbox WHERE guild_id = ? AND {db.dialect.json_text('link', 'campaign')} = ?",
        (guild_id, campaign_id),
    )


async def prune(db: Connection, older_than: timedelta) -> int:
    """Forget delivered and given-up rows older than ``older_than``; returns how many."""
    cutoff = (datetime.fromisoformat(now()) - older_than).isoformat(timespec="microseconds")
    return await db.execute(
        "DELETE FROM outbox WHERE (delivered_at IS NOT NULL AND delivered_at < ?)"
        " OR (failed_at IS NOT NULL AND failed_at < ?)",
        (cutoff, cutoff),
    )
