"""A damaged database file is refused at start-up with a clear message, untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage import DatabaseDamaged, Storage
from rules.models import CampaignSettings


async def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "munda.db"
    path.write_bytes(b"this is not sqlite" * 100)
    before = path.read_bytes()
    with pytest.raises(DatabaseDamaged) as error:
        await Storage.open(path)
    assert "damaged" in error.value.message
    assert "restore" in error.value.message
    assert path.read_bytes() == before


async def test_a_corrupted_page_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "munda.db"
    storage = await Storage.open(path)
    for n in range(40):
        await storage.write(1).create_campaign(CampaignSettings(name=f"Campaign {n}"))
    await storage.close()
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'campaigns'").fetchone()
    data = bytearray(path.read_bytes())
    # Scribble over the second half of the campaigns table's root page: a b-tree page keeps
    # its cells at its end, whether it holds the rows or (once they fill more than a page)
    # the pointers to them; its unused middle is read by no check.
    half = (root - 1) * page_size + page_size // 2
    data[half : half + page_size // 2] = b"\xff" * (page_size // 2)
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseDamaged):
        await Storage.open(path)


async def test_a_healthy_file_opens(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "munda.db")
    await storage.close()
    reopened = await Storage.open(tmp_path / "munda.db")
    assert await reopened.schema_version() >= 1
    await reopened.close()


async def test_storage_open_refuses_a_postgres_url_rather_than_make_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Storage.open is SQLite's; a URL goes to bot.storage.opening.open_storage."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="open_storage"):
        await Storage.open("postgresql://nobody@localhost:1/campaigns")
    assert list(tmp_path.iterdir()) == []
