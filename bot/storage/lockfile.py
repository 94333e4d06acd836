"""One bot per database: an exclusive lock on ``<database>.lock`` for the life of the process.

Two bots on one file would both answer every interaction and apply every
change twice, and restoring a backup under a running bot would pull the file
from under it. So ``run`` and ``restore`` hold this lock; ``backup`` does not
need it (it only reads, through SQLite's own locking).

The lock is ``flock``, which the kernel releases when the process ends, however
it ends: a bot killed with SIGKILL never blocks its restart, and there is no
stale lock to clean up. The file's text (pid, host, start time) is only there
to name the holder in the refusal.

Another name for the same file must not get round it. A symlink is resolved,
so the lock file sits beside the real database whatever name the config
gives. A hard link is a second name of the same inode, possibly in another
folder, where no lock file beside it would be found: so the database file
itself is flocked too, which the kernel keys by (device, inode). flock and
SQLite's own POSIX locks do not interfere on a local file system, and the
descriptor is closed only when the process is done with the database (closing
any descriptor of a file drops the process's POSIX locks on it).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from bot.private_files import PRIVATE_FILE_MODE, create_private_file
from bot.storage.database import refuse_unwritable
from bot.storage.errors import StorageError

log = logging.getLogger(__name__)


class DatabaseInUse(StorageError):
    """Another process holds the database's lock."""

    def __init__(self, database: Path, lock: Path | None, holder: str) -> None:
        real = database.resolve()
        named = f"{database}" if real == database else f"{database} (the file {real})"
        where = f"{holder}; lock file {lock}" if lock is not None else holder
        super().__init__(
            f"The database {named} is in use by another Munda Arbitrator process "
            f"({where}). Stop that process first: two processes on one database would "
            "both answer every command."
        )
        self.lock = lock


def lock_path(database: Path) -> Path:
    """The lock file, beside the real file when ``database`` is a symlink."""
    real = database.resolve()
    return real.with_name(real.name + ".lock")


@contextlib.contextmanager
def database_lock(database: Path) -> Iterator[Path]:
    """Hold the lock of ``database`` for the ``with`` block; raises DatabaseInUse if taken.

    Whoever takes it means to write the database, so a database that cannot be
    written is refused first (DatabaseReadOnly), before a lock file is made beside it.
    """
    refuse_unwritable(database)
    path = lock_path(database)
    fd = _acquire(database, path)
    try:
        inode = _lock_inode(database)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, _holder_text().encode(), 0)
            yield path
        finally:
            os.close(inode)
    finally:
        # Removed while still held, so nobody can take it in between and lose it.
        path.unlink(missing_ok=True)
        os.close(fd)


def _lock_inode(database: Path) -> int:
    """flock the database file itself: the lock every name of it (hard links) shares.

    A new database is created empty first (as SQLite would), so that a hard link
    made to it later shares the lock too.
    """
    try:
        create_private_file(database)
        fd = os.open(database, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        raise StorageError(f"Cannot open the database {database}: {error.strerror}.") from error
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        links = os.stat(database).st_nlink
        raise DatabaseInUse(
            database, None,
            f"through another name of the same file: it has {links} hard links; the lock "
            "file beside the name that process was given names it",
        ) from None
    except BaseException:
        os.close(fd)
        raise
    links = os.fstat(fd).st_nlink
    if links > 1:
        log.warning(
            "The database %s has %d names (hard links). SQLite keeps its -wal and -shm "
            "files beside the name it was opened by: open it by this name only (a backup "
            "through another name would miss what is still in the write-ahead log).",
            database, links,
        )
    return fd


def _acquire(database: Path, path: Path) -> int:
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
        except OSError as error:
            raise StorageError(
                f"Cannot create the lock file {path} of the database {database}: "
                f"{error.strerror}."
            ) from error
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe_holder(fd)
            os.close(fd)
            raise DatabaseInUse(database, path, holder) from None
        except BaseException:
            os.close(fd)
            raise
        if _still_named(fd, path):
            return fd
        # The previous holder removed the file between our open and our flock: this
        # lock is on a name nobody else will find, so take the new file instead.
        os.close(fd)


def _still_named(fd: int, path: Path) -> bool:
    try:
        named = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


def _holder_text() -> str:
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"pid={os.getpid()}\nhost={socket.gethostname()}\nstarted={started}\n"


def _describe_holder(fd: int) -> str:
    """``pid 123 on host h, started ...`` from the holder's text, as far as it was written."""
    text = os.pread(fd, 4096, 0).decode("utf-8", errors="replace")
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    fields = {key.strip(): value.strip() for key, value in pairs}
    holder = f"pid {fields.get('pid') or 'unknown'}"
    if fields.get("host"):
        holder += f" on host {fields['host']}"
    if fields.get("started"):
        holder += f", started {fields['started']}"
    return holder
