"""The database file: refused when it cannot be written, created private, locked by one process.

The read-only cases go through the real launcher (``python -m bot run``), which
must refuse before it talks to Discord (the configured Discord does not exist).
The tests run as root in CI, and root may write any file whatever its mode: so
"read-only" here is what the permission bits say, and SQLite's own refusal is
checked with a read-only mode URI.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiosqlite
import pytest

from bot.storage import Storage
from bot.storage.database import check_writable
from bot.storage.errors import DatabaseReadOnly
from bot.storage.lockfile import DatabaseInUse, database_lock, lock_path
from rules.models import CampaignSettings

GUILD = 1


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """Files created without an explicit mode would be 0644, as on most hosts."""
    old = os.umask(0o022)
    yield
    os.umask(old)


async def _database(folder: Path) -> Path:
    path = folder / "munda.db"
    async with await Storage.open(path) as storage:
        await storage.write(GUILD).create_campaign(CampaignSettings(name="Dust Falls"))
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run_bot(folder: Path, database: Path) -> subprocess.CompletedProcess[str]:
    config = folder.parent / f"{folder.name}.toml"
    config.write_text(
        '[discord]\napi_base = "http://127.0.0.1:9"\n'
        f'[database]\npath = "{database}"\nbackup_interval_hours = 0\n',
        encoding="utf-8",
    )
    config.chmod(0o600)
    return subprocess.run(
        [sys.executable, "-m", "bot", "run", "--config", str(config)],
        capture_output=True, text=True, timeout=60, cwd=folder.parent,
        env={**os.environ, "MUNDA_DISCORD_TOKEN": "not-a-real-token"},
    )


def _one_refusal(finished: subprocess.CompletedProcess[str]) -> str:
    assert finished.returncode == 2, finished.stderr
    lines = finished.stderr.splitlines()
    assert len(lines) == 1, finished.stderr
    assert "Traceback" not in finished.stderr
    return lines[0]


async def test_a_read_only_database_file_is_refused_with_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    database = await _database(folder)
    database.chmod(0o400)
    before = _digest(database)

    line = _one_refusal(_run_bot(folder, database))

    assert line == (
        f"munda-arbitrator: The database {database} cannot be written: the file is "
        "read-only (mode 0400). The bot did not start (every command that changes "
        "something would fail): give the user running the bot write access to the "
        "file and its folder."
    )
    assert _digest(database) == before
    assert sorted(p.name for p in folder.iterdir()) == ["munda.db"]


async def test_a_read_only_folder_is_refused_with_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    database = await _database(folder)
    before = _digest(database)
    folder.chmod(0o500)
    try:
        line = _one_refusal(_run_bot(folder, database))
        names = sorted(p.name for p in folder.iterdir())
    finally:
        folder.chmod(0o700)

    assert line.startswith(f"munda-arbitrator: The database {database} cannot be written: ")
    assert f"its folder {folder} (mode 0500) is not writable" in line
    assert names == ["munda.db"]
    assert _digest(database) == before


async def test_a_database_sqlite_will_not_write_is_refused(tmp_path: Path) -> None:
    database = await _database(tmp_path)
    conn = await aiosqlite.connect(f"file:{database}?mode=ro", uri=True, isolation_level=None)
    try:
        with pytest.raises(DatabaseReadOnly, match="SQLite refused a write"):
            await check_writable(conn, str(database))
        assert not conn.in_transaction
    finally:
        await conn.close()
    # A writable one passes the same probe and keeps its data.
    async with await Storage.open(database) as storage:
        assert [c.name for c in await storage.read(GUILD).list_campaigns()] == ["Dust Falls"]


async def test_a_new_database_and_its_wal_are_the_owners_only(tmp_path: Path) -> None:
    database = tmp_path / "munda.db"
    async with await Storage.open(database) as storage:
        await storage.write(GUILD).create_campaign(CampaignSettings(name="Dust Falls"))
        for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


def test_the_lock_is_held_by_one_holder_at_a_time(tmp_path: Path) -> None:
    database = tmp_path / "munda.db"
    with database_lock(database) as held:
        assert held == lock_path(database)
        assert stat.S_IMODE(held.stat().st_mode) == 0o600
        # A second open of the file is a second holder, even in this process.
        with pytest.raises(DatabaseInUse) as refused, database_lock(database):
            pass
        assert f"pid {os.getpid()} on host " in refused.value.message
        assert str(held) in refused.value.message
    assert not lock_path(database).exists()
    with database_lock(database):
        pass


def test_the_lock_holds_for_every_name_of_the_file(tmp_path: Path) -> None:
    database = tmp_path / "munda.db"
    (tmp_path / "other").mkdir()
    symlink, hard_link = tmp_path / "other" / "symlink.db", tmp_path / "other" / "hard.db"
    with database_lock(database):
        symlink.symlink_to(database)
        os.link(database, hard_link)
        assert lock_path(symlink) == lock_path(database)
        with pytest.raises(DatabaseInUse) as refused, database_lock(symlink):
            pass
        assert f"(the file {database})" in refused.value.message
        with pytest.raises(DatabaseInUse) as refused, database_lock(hard_link):
            pass
        assert "through another name of the same file" in refused.value.message
        assert not lock_path(hard_link).exists()
    with database_lock(hard_link):
        pass
