"""Open the campaign database a target names: a SQLite file or a PostgreSQL URL.

The one place that knows both drivers: bot/storage/postgres.py builds on
bot/storage/repository.py, so the choice between them sits above both.
"""

from __future__ import annotations

from pathlib import Path

from bot.storage.database import DEFAULT_BUSY_TIMEOUT_MS
from bot.storage.driver import is_postgres_url
from bot.storage.postgres import PostgresStorage
from bot.storage.repository import Storage


async def open_storage(
    target: str | Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
) -> Storage:
    """Open (creating if needed) and migrate the database at ``target``
    (``database.target``): a ``postgresql://`` URL or a SQLite file.

    Raises DatabaseTooNew for a database written by a newer release.
    """
    if is_postgres_url(target):
        return await PostgresStorage.open_url(str(target))
    return await Storage.open(target, busy_timeout_ms=busy_timeout_ms)
