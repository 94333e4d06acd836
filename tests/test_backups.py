"""Backups in rotation and restore, through the real launcher and real files."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.backups import backup_loop, list_backups, restore_backup, take_backup
from bot.storage import DatabaseDamaged, Storage
from rules.models import CampaignSettings

GUILD = 1


async def _campaigns(path: Path) -> list[str]:
    storage = await Storage.open(path)
    try:
        return sorted(c.name for c in await storage.read(GUILD).list_campaigns())
    finally:
        await storage.close()


async def test_rotation_keeps_the_newest(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "live.db")
    await storage.write(GUILD).create_campaign(CampaignSettings(name="Dust Falls"))
    start = datetime(2026, 1, 1, tzinfo=UTC)
    try:
        for hour in range(5):
            await take_backup(storage, tmp_path / "backups", kept=3,
                              now=start + timedelta(hours=hour))
    finally:
        await storage.close()
    names = [p.name for p in list_backups(tmp_path / "backups")]
    assert names == [
        "munda-arbitrator-20260101-020000.db",
        "munda-arbitrator-20260101-030000.db",
        "munda-arbitrator-20260101-040000.db",
    ]
    assert await _campaigns(tmp_path / "backups" / names[-1]) == ["Dust Falls"]


async def test_restore_puts_the_backup_back_and_keeps_the_old_file(tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    storage = await Storage.open(live)
    await storage.write(GUILD).create_campaign(CampaignSettings(name="Before"))
    backup = await take_backup(storage, tmp_path / "backups", kept=2)
    await storage.write(GUILD).create_campaign(CampaignSettings(name="After"))
    await storage.close()

    kept = await restore_backup(backup, live)

    assert await _campaigns(live) == ["Before"]
    assert kept is not None
    assert await _campaigns(kept) == ["After", "Before"]


async def test_restore_refuses_a_damaged_backup_and_changes_nothing(tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    storage = await Storage.open(live)
    await storage.write(GUILD).create_campaign(CampaignSettings(name="Keep me"))
    await storage.close()
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 500)
    with pytest.raises(DatabaseDamaged):
        await restore_backup(bad, live)
    assert await _campaigns(live) == ["Keep me"]


def _cli(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUNDA_")}
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True,
                          text=True, timeout=60, cwd=workdir, env=env)


def test_backup_and_restore_commands(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[database]\npath = "munda.db"\nbackup_dir = "saves"\n')

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return _cli(tmp_path, *args, "--config", str(config))

    asyncio.run(_make_database(tmp_path / "munda.db"))
    made = cli("backup")
    assert made.returncode == 0, made.stderr
    backups = list_backups(tmp_path / "saves")
    assert len(backups) == 1
    assert f"backup written to {backups[0]}" in made.stdout

    restored = cli("restore", str(backups[0]))
    assert restored.returncode == 0, restored.stderr
    assert "the previous database was kept as" in restored.stdout

    missing = cli("restore", str(tmp_path / "nope.db"))
    assert missing.returncode == 2
    assert "no backup file" in missing.stderr
    assert "Traceback" not in missing.stderr


async def _make_database(path: Path) -> None:
    storage = await Storage.open(path)
    await storage.write(GUILD).create_campaign(CampaignSettings(name="Dust Falls"))
    await storage.close()


def test_backup_and_restore_never_create_a_database(tmp_path: Path) -> None:
    """Started where no database is (no settings, in an empty folder), each command
    names the path it looked at and leaves the folder as it found it."""
    backup = tmp_path / "kept" / "munda-arbitrator-20260101-000000.db"
    backup.parent.mkdir()
    asyncio.run(_make_database(backup))
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    expected = workdir / "munda-arbitrator.db"
    for command in (["backup"], ["restore", str(backup)]):
        done = _cli(workdir, *command)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert f"There is no database at {expected}" in done.stderr, done.stderr
        assert "MUNDA_DATABASE_PATH" in done.stderr
        assert "Traceback" not in done.stderr
        assert list(workdir.iterdir()) == [], command


def test_restore_onto_a_new_machine_is_asked_for_by_name(tmp_path: Path) -> None:
    backup = tmp_path / "munda-arbitrator-20260101-000000.db"
    asyncio.run(_make_database(backup))
    workdir = tmp_path / "new"
    workdir.mkdir()

    done = _cli(workdir, "restore", str(backup), "--new")

    assert done.returncode == 0, done.stderr
    assert asyncio.run(_campaigns(workdir / "munda-arbitrator.db")) == ["Dust Falls"]
    again = _cli(workdir, "restore", str(backup), "--new")
    assert again.returncode == 2
    assert "There is already a database at" in again.stderr


class MovableClock:
    """A clock that moves only when the loop sleeps; it records every sleep and ends
    the loop after ``sleeps`` of them."""

    def __init__(self, start: datetime, sleeps: int) -> None:
        self.time = start
        self.slept: list[timedelta] = []
        self.sleeps = sleeps

    def now(self) -> datetime:
        return self.time

    async def sleep(self, seconds: float) -> None:
        if len(self.slept) == self.sleeps:
            raise asyncio.CancelledError
        self.slept.append(timedelta(seconds=seconds))
        self.time += timedelta(seconds=seconds)


async def _run_schedule(tmp_path: Path, clock: MovableClock, *, hours: float = 24) -> list[str]:
    storage = await Storage.open(tmp_path / "live.db")
    try:
        with pytest.raises(asyncio.CancelledError):
            await backup_loop(storage, tmp_path / "backups", 10, hours, clock)
    finally:
        await storage.close()
    return [p.name for p in list_backups(tmp_path / "backups")]


async def _old_backup(tmp_path: Path, when: datetime) -> None:
    storage = await Storage.open(tmp_path / "live.db")
    try:
        await take_backup(storage, tmp_path / "backups", kept=10, now=when)
    finally:
        await storage.close()


START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


async def test_a_backup_is_taken_at_start_when_there_is_none(tmp_path: Path) -> None:
    clock = MovableClock(START, sleeps=0)
    assert await _run_schedule(tmp_path, clock) == ["munda-arbitrator-20260301-090000.db"]


async def test_a_bot_restarted_daily_still_backs_up_daily(tmp_path: Path) -> None:
    await _old_backup(tmp_path, START - timedelta(hours=25))
    clock = MovableClock(START, sleeps=1)
    names = await _run_schedule(tmp_path, clock)
    # At start, not 24 hours after it; then 24 hours after that one.
    assert names == ["munda-arbitrator-20260228-080000.db",
                     "munda-arbitrator-20260301-090000.db",
                     "munda-arbitrator-20260302-090000.db"]
    assert clock.slept == [timedelta(hours=24)]


async def test_the_next_backup_counts_from_the_last_one_not_from_start(tmp_path: Path) -> None:
    await _old_backup(tmp_path, START - timedelta(hours=2))
    clock = MovableClock(START, sleeps=2)
    names = await _run_schedule(tmp_path, clock)
    assert clock.slept == [timedelta(hours=22), timedelta(hours=24)]
    assert names == ["munda-arbitrator-20260301-070000.db",
                     "munda-arbitrator-20260302-070000.db",
                     "munda-arbitrator-20260303-070000.db"]


async def test_a_backup_dated_in_the_future_puts_nothing_off(tmp_path: Path) -> None:
    # The clock was set back since: that backup's date says nothing of the last backup.
    await _old_backup(tmp_path, START + timedelta(days=30))
    clock = MovableClock(START, sleeps=0)
    names = await _run_schedule(tmp_path, clock)
    assert "munda-arbitrator-20260301-090000.db" in names


async def test_backups_their_folder_and_a_restored_database_are_the_owners_only(
    tmp_path: Path,
) -> None:
    old_umask = os.umask(0o022)  # files made without an explicit mode would be 0644
    try:
        live = tmp_path / "live.db"
        storage = await Storage.open(live)
        backup = await take_backup(storage, tmp_path / "backups", kept=2)
        await storage.close()
        await restore_backup(backup, live)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((tmp_path / "backups").stat().st_mode) == 0o700
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert stat.S_IMODE(live.stat().st_mode) == 0o600
