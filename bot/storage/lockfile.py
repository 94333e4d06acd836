"""One bot per database: an exclusive lock on ``<database>.lock`` for the life of the process.

Two bots on one file would both answer every interaction and apply every
change twice, and restoring a backup under a running bot would pull the file
from under it. So ``run`` and ``restore`` hold this lock; ``backup`` does not
need it (it only reads, through SQLite's own locking).

The lock is ``flock``, which the kernel releases when the process ends, however
it ends: a bot killed with SIGKILL never blocks its restart, and there is no
stale lock to clean up. The file's text (pid, host, start time) is only there
to name the holder in the refusal.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from bot.private_files import PRIVATE_FILE_MODE
from bot.storage.database import refuse_unwritable
from bot.storage.errors import StorageError


class DatabaseInUse(StorageError):
    """Another process holds the database's lock."""

    def __init__(self, database: Path, lock: Path, holder: str) -> None:
        super().__init__(
            f"The database {database} is in use by another Munda Arbitrator process "
            f"({holder}; lock file {lock}). Stop that process first: two processes on "
            "one database would both answer every command."
        )
        self.lock = lock


def lock_path(database: Path) -> Path:
    return database.with_name(database.name + ".lock")


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
        os.ftruncate(fd, 0)
        os.pwrite(fd, _holder_text().encode(), 0)
        yield path
    finally:
        # Removed while still held, so nobody can take it in between and lose it.
        path.unlink(missing_ok=True)
        os.close(fd)


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
