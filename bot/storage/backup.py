"""Online backup of the whole database file with SQLite's backup API."""

from __future__ import annotations

import os
from pathlib import Path

import aiosqlite

from bot.private_files import create_private_file


async def backup_database(source: aiosqlite.Connection, target: str | Path) -> Path:
    """Copy the live database to ``target`` as one self-contained file.

    The copy is written next to the target and renamed over it only when
    complete, so a crash half-way never leaves a truncated backup where a
    good one was. It is created readable by its owner only, like the database.
    """
    target = Path(target)
    partial = target.with_name(target.name + ".partial")
    remove_database_files(partial)
    create_private_file(partial)
    dest = await aiosqlite.connect(str(partial), isolation_level=None)
    try:
        await source.backup(dest)
        # The copy inherits WAL mode; a rollback journal keeps it one file.
        await dest.execute("PRAGMA journal_mode = DELETE")
    finally:
        await dest.close()
    os.replace(partial, target)
    return target


def remove_database_files(database: Path) -> None:
    """Delete a database file with the -wal and -shm files SQLite keeps beside it."""
    for leftover in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        leftover.unlink(missing_ok=True)
