"""Online backups in rotation, and restoring one.

Backups are whole database files written with SQLite's backup API while the
bot runs (``Storage.backup``), named by UTC time so that sorting by name is
sorting by age; the oldest beyond ``backups_kept`` are deleted. The folder is
made readable by its owner only, and so is every file in it. Restoring is
done with the bot stopped (it holds the database's lock, so a restore under a
running bot is refused): the backup is checked, the current file is kept
aside, and the backup is copied into place.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from datetime import UTC, datetime
from pathlib import Path

from bot.private_files import create_private_file, make_private_dir
from bot.storage import Storage, StorageError
from bot.storage.backup import remove_database_files
from bot.storage.lockfile import database_lock

log = logging.getLogger(__name__)

PREFIX = "munda-arbitrator-"
SUFFIX = ".db"


def backup_name(now: datetime) -> str:
    return f"{PREFIX}{now.strftime('%Y%m%d-%H%M%S')}{SUFFIX}"


def list_backups(backup_dir: Path) -> list[Path]:
    """Backups in ``backup_dir``, oldest first."""
    if not backup_dir.is_dir():
        return []
    return sorted(p for p in backup_dir.glob(f"{PREFIX}*{SUFFIX}") if p.is_file())


async def take_backup(storage: Storage, backup_dir: Path, kept: int,
                      now: datetime | None = None) -> Path:
    """Write one backup and delete the oldest so that ``kept`` remain."""
    make_private_dir(backup_dir)
    target = backup_dir / backup_name(now or datetime.now(UTC))
    await storage.backup(target)
    for old in list_backups(backup_dir)[:-kept]:
        old.unlink(missing_ok=True)
    return target


async def backup_loop(storage: Storage, backup_dir: Path, kept: int, hours: float) -> None:
    """Take a backup every ``hours`` until cancelled; a failure is logged, never fatal."""
    while True:
        await asyncio.sleep(hours * 3600)
        try:
            path = await take_backup(storage, backup_dir, kept)
            log.info("backup written to %s", path)
        except (OSError, StorageError) as error:
            log.error("backup failed: %s", error)


async def restore_backup(backup: Path, database: Path) -> Path | None:
    """Put ``backup`` in place of ``database``; returns where the old file was kept.

    Holds the database's lock throughout, so it is refused (DatabaseInUse) while
    the bot runs and the bot cannot start half-way through. The backup is opened
    (integrity check and migrations) in a scratch copy first, so a damaged or
    too-new backup is refused before anything moves.
    """
    if not backup.is_file():
        raise StorageError(f"There is no backup file at {backup}.")
    with database_lock(database):
        scratch = database.with_name(database.name + ".restore-check")
        remove_database_files(scratch)
        _copy_private(backup, scratch)
        try:
            checked = await Storage.open(scratch)
            await checked.close()
        finally:
            remove_database_files(scratch)
        kept_aside: Path | None = None
        # Empty: the file the lock made for a database that did not exist yet.
        if database.exists() and database.stat().st_size > 0:
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            kept_aside = database.with_name(f"{database.name}.before-restore-{stamp}")
            database.rename(kept_aside)
            # The write-ahead log belongs to the file it was written for.
            for suffix in ("-wal", "-shm"):
                companion = Path(f"{database}{suffix}")
                if companion.exists():
                    companion.rename(Path(f"{kept_aside}{suffix}"))
        _copy_private(backup, database)
        return kept_aside


def _copy_private(source: Path, target: Path) -> None:
    """Copy into a new file readable by its owner only (copyfile alone would follow the umask)."""
    create_private_file(target)
    shutil.copyfile(source, target)
