"""Online backups in rotation, and restoring one.

Backups are whole database files written with SQLite's backup API while the
bot runs (``Storage.backup``), named by UTC time so that sorting by name is
sorting by age; the oldest beyond ``backups_kept`` are deleted. The folder is
made readable by its owner only, and so is every file in it. Restoring is
done with the bot stopped (it holds the database's lock, so a restore under a
running bot is refused): the backup is checked, the current file is kept
aside, and the backup is copied into place.

Neither a backup nor a restore ever creates a database: a database that is not
where the settings say is an error naming the path looked at, never an empty
file made there (a restore onto a new machine says so with ``new=True``).
The running bot takes a backup when the newest one in the folder is older than
the interval, at start-up too, so a bot restarted daily still backs up daily.
"""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.clock import Clock, SystemClock
from bot.private_files import create_private_file, make_private_dir
from bot.storage import Storage, StorageError
from bot.storage.backup import remove_database_files
from bot.storage.lockfile import database_lock

log = logging.getLogger(__name__)

PREFIX = "munda-arbitrator-"
SUFFIX = ".db"
STAMP = "%Y%m%d-%H%M%S"


class NoDatabase(StorageError):
    """The database the settings name is not there."""

    def __init__(self, database: Path, doing: str, hint: str = "") -> None:
        super().__init__(
            f"There is no database at {database}: {doing}. The database is database.path "
            "in the config file, or MUNDA_DATABASE_PATH (the systemd unit and the container "
            f"set it: docs/hosting.md).{hint}"
        )
        self.database = database


def require_database(database: Path, doing: str, hint: str = "") -> None:
    if not database.is_file():
        raise NoDatabase(database, doing, hint)


def backup_name(now: datetime) -> str:
    return f"{PREFIX}{now.strftime(STAMP)}{SUFFIX}"


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


# A failed backup (a full disk, a folder gone) is tried again this soon, or after
# the interval if that is shorter.
RETRY_FAILED = timedelta(hours=1)


def backup_time(path: Path) -> datetime | None:
    """When a backup was taken, read from its name; None for a name not of ours."""
    stamp = path.name.removeprefix(PREFIX).removesuffix(SUFFIX)
    try:
        return datetime.strptime(stamp, STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None


def last_backup_time(backup_dir: Path, now: datetime) -> datetime | None:
    """The newest backup's time in ``backup_dir``. A name from the future (a clock set
    back since) is ignored: trusting it would put every later backup off until then."""
    times = [t for p in list_backups(backup_dir) if (t := backup_time(p)) and t <= now]
    return max(times, default=None)


def seconds_until_due(backup_dir: Path, interval: timedelta, now: datetime) -> float:
    """How long until a backup is due: none yet, or the newest one ``interval`` old."""
    last = last_backup_time(backup_dir, now)
    if last is None:
        return 0.0
    return max(0.0, (last + interval - now).total_seconds())


async def backup_loop(storage: Storage, backup_dir: Path, kept: int, hours: float,
                      clock: Clock | None = None) -> None:
    """Take a backup whenever the newest in ``backup_dir`` is ``hours`` old, until
    cancelled; at once when it already is (or there is none). The backups' names
    are the stored time, so a restart never puts one off. A failure is logged and
    tried again later, never fatal."""
    clock = clock or SystemClock()
    interval = timedelta(hours=hours)
    while True:
        wait = seconds_until_due(backup_dir, interval, clock.now())
        if wait > 0:
            log.info("next backup at %s", (clock.now() + timedelta(seconds=wait))
                     .strftime("%Y-%m-%d %H:%M:%S UTC"))
            await clock.sleep(wait)
        try:
            path = await take_backup(storage, backup_dir, kept, clock.now())
            log.info("backup written to %s", path)
        except (OSError, StorageError) as error:
            retry = min(interval, RETRY_FAILED)
            log.error("backup failed: %s; trying again in %d minutes", error,
                      retry.total_seconds() // 60)
            await clock.sleep(retry.total_seconds())


async def restore_backup(backup: Path, database: Path, *, new: bool = False) -> Path | None:
    """Put ``backup`` in place of ``database``; returns where the old file was kept.

    Holds the database's lock throughout, so it is refused (DatabaseInUse) while
    the bot runs and the bot cannot start half-way through. The backup is opened
    (integrity check and migrations) in a scratch copy first, so a damaged or
    too-new backup is refused before anything moves.

    A ``database`` that is not there is refused (NoDatabase) unless ``new`` says
    this is a machine without one yet; its folder must exist either way.
    """
    if not backup.is_file():
        raise StorageError(f"There is no backup file at {backup}.")
    if new:
        if not database.parent.is_dir():
            raise NoDatabase(database, f"its folder {database.parent} does not exist either")
        if database.exists():
            raise StorageError(f"There is already a database at {database}: restore over "
                               "it without --new (it is kept aside).")
    else:
        require_database(database, "nothing to restore over",
                         " To restore onto a machine that has no database yet, add --new.")
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
