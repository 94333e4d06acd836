"""PostgreSQL's migrations: a baseline equal to SQLite's version 8, then one twin for
each later SQLite migration, and the same tables and columns on both after migrating."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.storage import LATEST_VERSION, DatabaseTooNew
from bot.storage.database import load_migrations
from bot.storage.opening import open_storage
from bot.storage.postgres import BASELINE, load_postgres_migrations
from rules.models import CampaignSettings

from .conftest import ACTOR, GUILD_A, full_gang, migrated_then_changed


def test_every_sqlite_migration_past_the_baseline_has_a_postgresql_twin() -> None:
    sqlite = {m.version: m.name for m in load_migrations() if m.version > BASELINE}
    postgresql = {m.version: m.name for m in load_postgres_migrations()
                  if m.version > BASELINE}
    assert load_postgres_migrations()[0].version == BASELINE
    missing = sorted(set(sqlite) - set(postgresql))
    assert not missing, f"SQLite migrations without a PostgreSQL twin: {missing}"
    assert postgresql == sqlite, "twins have the number and the name of their SQLite migration"


def _sqlite_columns(path: Path) -> dict[str, list[str]]:
    with sqlite3.connect(path) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%'")]
        return {table: [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
                for table in tables}


async def _postgres_columns(url: str) -> dict[str, list[str]]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name <> 'schema_version'"
            " ORDER BY table_name, ordinal_position")
    finally:
        await conn.close()
    found: dict[str, list[str]] = {}
    for row in rows:
        found.setdefault(row["table_name"], []).append(row["column_name"])
    return found


async def test_both_schemas_have_the_same_tables_and_columns(
    db_path: Path, postgres_url: str
) -> None:
    for target in (db_path, postgres_url):
        store = await open_storage(target)
        assert await store.schema_version() == LATEST_VERSION
        await store.close()
    assert await _postgres_columns(postgres_url) == _sqlite_columns(db_path)


async def test_a_fresh_postgresql_database_starts_at_the_baseline_and_is_used(
    postgres_url: str,
) -> None:
    store = await open_storage(postgres_url)
    try:
        campaign = await store.write(GUILD_A).create_campaign(CampaignSettings(name="Ash"))
        await store.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    finally:
        await store.close()
    reopened = await open_storage(postgres_url)  # migrating again changes nothing
    try:
        assert [g.name for g in await reopened.read(GUILD_A).list_gangs(campaign.id)] == [
            "Ash Wolves"]
    finally:
        await reopened.close()


async def test_a_postgresql_database_of_a_newer_release_is_refused(postgres_url: str) -> None:
    await migrated_then_changed(postgres_url, "UPDATE schema_version SET version = 999")
    with pytest.raises(DatabaseTooNew):
        await open_storage(postgres_url)
