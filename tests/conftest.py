"""Shared pytest configuration: a real SQLite storage in a fresh file for each test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import Storage


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "campaigns.sqlite3"


@pytest.fixture
async def storage(db_path: Path) -> AsyncIterator[Storage]:
    store = await Storage.open(db_path)
    try:
        yield store
    finally:
        await store.close()
