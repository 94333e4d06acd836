"""Rows for imports: which gang a source was imported as, and imports awaiting confirmation.

See docs/importing.md. A link names a gang by its domain id without a
foreign key, so callers check that the gang still exists before trusting it.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from bot.storage.codec import Row, dumps, now
from bot.storage.driver import Connection, first_row
from bot.storage.records import GangImportLink

_LINK_SELECT = (
    "SELECT source, external_id, gang_id, fighter_ids, imported_at FROM gang_imports"
)


def _link_from_row(row: Row) -> GangImportLink:
    return GangImportLink(
        source=row["source"],
        external_id=row["external_id"],
        gang_id=row["gang_id"],
        fighter_ids=json.loads(row["fighter_ids"]),
        imported_at=row["imported_at"],
    )


async def find_link(
    db: Connection, campaign_pk: int, source: str, external_id: str
) -> GangImportLink | None:
    row = await first_row(
        db, f"{_LINK_SELECT} WHERE campaign_pk = ? AND source = ? AND external_id = ?",
        (campaign_pk, source, external_id),
    )
    return None if row is None else _link_from_row(row)


async def all_links(db: Connection, campaign_pk: int) -> list[GangImportLink]:
    rows = await db.execute_fetchall(
        f"{_LINK_SELECT} WHERE campaign_pk = ? ORDER BY imported_at, source, external_id",
        (campaign_pk,),
    )
    return [_link_from_row(row) for row in rows]


async def save_links(
    db: Connection, campaign_pk: int, links: list[GangImportLink]
) -> None:
    """Insert or replace links (one source maps to one gang at a time)."""
    await db.executemany(
        "INSERT INTO gang_imports"
        " (campaign_pk, source, external_id, gang_id, fighter_ids, imported_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (campaign_pk, source, external_id) DO UPDATE"
        " SET gang_id = excluded.gang_id, fighter_ids = excluded.fighter_ids,"
        " imported_at = excluded.imported_at",
        [
            (
                campaign_pk, link.source, link.external_id, link.gang_id,
                dumps(link.fighter_ids), link.imported_at.isoformat(),
            )
            for link in links
        ],
    )


async def stage(
    db: Connection,
    campaign_pk: int,
    token: str,
    user_id: str,
    state: str,
    max_age: timedelta,
) -> None:
    """Keep ``state`` until its Confirm button; sweep what nobody confirmed in time."""
    await _sweep(db, max_age)
    await db.execute(
        "INSERT INTO staged_imports (campaign_pk, token, user_id, state, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (campaign_pk, token, user_id, state, now()),
    )


async def take(
    db: Connection, campaign_pk: int, token: str, max_age: timedelta
) -> tuple[str, str] | None:
    """(user id, state) of a staged import, deleted as it is taken; None if gone or too old."""
    found = await peek(db, campaign_pk, token, max_age)
    await db.execute(
        "DELETE FROM staged_imports WHERE campaign_pk = ? AND token = ?", (campaign_pk, token)
    )
    return found


async def peek(
    db: Connection, campaign_pk: int, token: str, max_age: timedelta
) -> tuple[str, str] | None:
    """(user id, state) of a staged import, left in place; None if gone or too old."""
    row = await first_row(
        db, "SELECT user_id, state, created_at FROM staged_imports"
        " WHERE campaign_pk = ? AND token = ?", (campaign_pk, token),
    )
    if row is None:
        return None
    if datetime.fromisoformat(row["created_at"]) < datetime.fromisoformat(now()) - max_age:
        return None
    return str(row["user_id"]), str(row["state"])


async def restage(db: Connection, campaign_pk: int, token: str, state: str) -> None:
    """Replace the state of a staged import (an answer given in its preview)."""
    await db.execute(
        "UPDATE staged_imports SET state = ? WHERE campaign_pk = ? AND token = ?",
        (state, campaign_pk, token),
    )


async def _sweep(db: Connection, max_age: timedelta) -> None:
    cutoff = (datetime.fromisoformat(now()) - max_age).isoformat(timespec="microseconds")
    # ISO timestamps of one timezone (UTC, from now()) sort as text.
    await db.execute("DELETE FROM staged_imports WHERE created_at < ?", (cutoff,))
