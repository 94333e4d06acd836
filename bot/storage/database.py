"""The SQLite connection: pragmas and the migrations runner.

Migrations are the numbered ``migrations/NNNN_name.sql`` files shipped as
package data, each with an optional Python step (:data:`PYTHON_STEPS`) for
what SQL cannot compute, run after its SQL. Each is applied in its own
transaction together with the bump of ``PRAGMA user_version``, so a failed
migration leaves the file exactly at the previous version. A file whose
version is higher than the newest migration this release ships was written
by a newer release and is refused before anything is changed.

A database the bot cannot write is refused before anything else happens: a
bot that started on one would answer every command that changes something
with an error. The file is created readable by its owner only; SQLite gives
its -wal and -shm files the same mode.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import aiosqlite

from bot.private_files import create_private_file, mode_text
from bot.storage.driver import Connection
from bot.storage.errors import (
    DatabaseDamaged,
    DatabaseReadOnly,
    DatabaseTooNew,
    MigrationFailed,
    StorageError,
)
from bot.storage.name_migration import rekey_by_skeleton, rekey_names
from bot.storage.sqlite_driver import SqliteConnection
from bot.storage.territory_migration import restore_territory_rules

DEFAULT_BUSY_TIMEOUT_MS = 5_000
_ANY_WRITE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
# What SQLite answers when it cannot write the file, whatever the cause.
_CANNOT_WRITE = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_IOERR")
_MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


Step = Callable[[aiosqlite.Connection], Awaitable[None]]

# Python steps by migration version: they see the schema of their own
# version, so they use SQL of that schema, never the current codec.
PYTHON_STEPS: dict[int, Step] = {6: rekey_names, 7: restore_territory_rules}
SharedStep = Callable[[Connection], Awaitable[None]]
# Steps of migrations that PostgreSQL has a twin of: the same step runs on both.
SHARED_STEPS: dict[int, SharedStep] = {10: rekey_by_skeleton}


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    step: Step | None = None
    shared_step: SharedStep | None = None


def load_migrations(folder: Traversable | None = None, *, first: int = 1) -> list[Migration]:
    """Every migration shipped with the package, in version order (SQLite's, or those of
    ``folder`` starting at version ``first``: PostgreSQL's baseline and its twins).

    Versions run 1, 2, 3... with none missing: a database at version N is
    assumed to hold every migration up to N, so a gap would be skipped for ever.
    """
    sqlite = folder is None
    found: list[Migration] = []
    for entry in (folder or resources.files("bot.storage") / "migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match is None:
            continue
        version = int(match.group(1))
        found.append(Migration(version, match.group(2), entry.read_text("utf-8"),
                               PYTHON_STEPS.get(version) if sqlite else None,
                               SHARED_STEPS.get(version)))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(first, first + len(found))):
        raise MigrationFailed(
            f"Migration files must be numbered {first}, {first + 1}, {first + 2}... with "
            f"none missing: {versions}."
        )
    return found


LATEST_VERSION = load_migrations()[-1].version


def pending(migrations: list[Migration], current: int, where: str) -> list[Migration]:
    """The migrations newer than a database at version ``current`` (either driver);
    DatabaseTooNew for a database a newer release has migrated past them all."""
    known = migrations[-1].version if migrations else 0
    if current > known:
        raise DatabaseTooNew(where, current, known)
    return [migration for migration in migrations if migration.version > current]


def migration_failed(
    migration: Migration, where: str, error: Exception, left_at: int
) -> MigrationFailed:
    """The refusal of a migration that failed and was rolled back (either driver)."""
    return MigrationFailed(
        f"Migration {migration.version:04d}_{migration.name} failed on {where}: "
        f"{error}. The database was left at version {left_at}."
    )


def split_statements(script: str) -> list[str]:
    """Cut a script into statements, keeping trigger bodies whole.

    ``executescript`` would commit the migration's transaction before running,
    so statements are executed one by one inside it instead.
    """
    statements: list[str] = []
    start = 0
    for index, char in enumerate(script):
        if char != ";":
            continue
        candidate = script[start : index + 1]
        if sqlite3.complete_statement(candidate):
            if _has_sql(candidate):
                statements.append(candidate.strip())
            start = index + 1
    if _has_sql(script[start:]):
        raise MigrationFailed(f"Unterminated SQL statement: {script[start:].strip()[:80]!r}")
    return statements


def _has_sql(text: str) -> bool:
    lines = (line.split("--", 1)[0].strip() for line in text.splitlines())
    return any(line and line != ";" for line in lines)


async def connect(
    path: str | Path,
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    migrations: list[Migration] | None = None,
) -> aiosqlite.Connection:
    """Open ``path``, set the pragmas and bring the schema up to date.

    ``migrations`` defaults to all shipped ones; tests pass a prefix to build
    a database as an older release left it.
    """
    if on_disk(path):
        refuse_unwritable(Path(path))
        create_private_file(Path(path))
    # isolation_level=None: the storage layer issues BEGIN/COMMIT itself, so
    # the sqlite3 module never opens or commits a transaction behind its back.
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    try:
        conn.row_factory = sqlite3.Row
        await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        await check_integrity(conn, str(path))
        await check_writable(conn, str(path))
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute("PRAGMA journal_mode = WAL")
        # WAL with synchronous=NORMAL never corrupts; at worst a power cut
        # loses the last commits, which a bot can afford.
        await conn.execute("PRAGMA synchronous = NORMAL")
        await migrate(conn, str(path), load_migrations() if migrations is None else migrations)
    except BaseException:
        await conn.close()
        raise
    return conn


def on_disk(path: str | Path) -> bool:
    """False for SQLite's in-memory database, which has no file to check, lock or chmod."""
    text = str(path)
    return text not in ("", ":memory:") and not text.startswith("file:")


def refuse_unwritable(path: Path) -> None:
    """Refuse a database file, or its folder, that is not writable, before SQLite opens it.

    The permission bits are read as well as ``os.access``: the super-user passes
    every access check, but a file or folder without any write bit was made
    read-only on purpose, and a bot run as root must not write it either. The
    folder matters because SQLite creates the -wal and -shm files beside the
    database (without them it cannot even read it).
    """
    folder = path.parent
    if not folder.is_dir():
        raise StorageError(f"The folder {folder} of the database {path} does not exist.")
    if path.exists():
        if not path.stat().st_mode & _ANY_WRITE:
            raise DatabaseReadOnly(str(path), f"the file is read-only (mode {mode_text(path)})")
        if not os.access(path, os.W_OK):
            raise DatabaseReadOnly(
                str(path), f"the file (mode {mode_text(path)}) is not writable by this user"
            )
    if not folder.stat().st_mode & _ANY_WRITE or not os.access(folder, os.W_OK | os.X_OK):
        raise DatabaseReadOnly(
            str(path),
            f"its folder {folder} (mode {mode_text(folder)}) is not writable, and SQLite "
            "keeps its write-ahead log there",
        )


async def check_writable(conn: aiosqlite.Connection, path: str) -> None:
    """Make SQLite attempt a write, then roll it back.

    Permission bits do not tell everything (a read-only file system or mount, a
    read-only mode URI, a file SQLite fell back to opening read-only): only a
    real write does. Rewriting ``user_version`` with its own value touches the
    header page and changes nothing.
    """
    version = await schema_version(conn)
    try:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            await conn.execute(f"PRAGMA user_version = {version}")
        finally:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
    except sqlite3.OperationalError as error:
        if error.sqlite_errorname.startswith(_CANNOT_WRITE):
            raise DatabaseReadOnly(path, f"SQLite refused a write ({error})") from error
        raise


async def check_integrity(conn: aiosqlite.Connection, path: str) -> None:
    """Refuse a damaged file before anything writes to it.

    ``quick_check`` reads every page (seconds for a large file) but skips the
    index cross-checks of ``integrity_check``, which would make start-up slow.
    """
    try:
        rows = list(await conn.execute_fetchall("PRAGMA quick_check(5)"))
    except sqlite3.DatabaseError as error:
        raise DatabaseDamaged(path, str(error)) from error
    problems = [str(row[0]) for row in rows if str(row[0]) != "ok"]
    if problems:
        raise DatabaseDamaged(path, "; ".join(problems)[:300])


async def schema_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(conn: aiosqlite.Connection, path: str, migrations: list[Migration]) -> int:
    """Apply the migrations newer than the file; return the resulting version."""
    for migration in pending(migrations, await schema_version(conn), path):
        # Re-read inside the write lock: another process may have migrated
        # the file while this one waited for it.
        await conn.execute("BEGIN IMMEDIATE")
        try:
            if await schema_version(conn) >= migration.version:
                await conn.execute("COMMIT")
                continue
            for statement in split_statements(migration.sql):
                await conn.execute(statement)
            if migration.step is not None:
                await migration.step(conn)
            if migration.shared_step is not None:
                await migration.shared_step(SqliteConnection(conn))
            await conn.execute(f"PRAGMA user_version = {migration.version}")
            await conn.execute("COMMIT")
        except sqlite3.Error as error:
            await conn.execute("ROLLBACK")
            raise migration_failed(migration, path, error, migration.version - 1) from error
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
    return await schema_version(conn)
