"""Backups in rotation and restore, through the real launcher and real files."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.backups import list_backups, restore_backup, take_backup
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


def test_backup_and_restore_commands(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[database]\npath = "munda.db"\nbackup_dir = "saves"\n')

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bot", *args, "--config", str(config)],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)

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
