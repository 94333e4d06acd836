"""Schema: migrations from empty and from version 1, refusal of newer files, pragmas."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage import LATEST_VERSION, DatabaseTooNew, MigrationFailed, Storage
from bot.storage.database import Migration, connect, load_migrations, split_statements
from bot.storage.driver import IntegrityError
from rules.models import CampaignSettings, Fighter

from .conftest import ACTOR, GUILD_A, execute, scalar


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {row[0] for row in rows}


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def test_migrations_ship_as_package_data_numbered_from_one() -> None:
    migrations = load_migrations()
    versions = [m.version for m in migrations]
    assert versions == list(range(1, LATEST_VERSION + 1))
    assert LATEST_VERSION >= 2
    assert all(m.sql.strip() for m in migrations)


def test_statements_split_keeps_trigger_bodies_whole() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (x INTEGER);
    CREATE TRIGGER t_no_update BEFORE UPDATE ON t
    BEGIN
        SELECT RAISE(ABORT, 'no; really');
    END;
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].endswith("END;")


async def test_empty_file_is_migrated_to_the_latest_version(db_path: Path) -> None:
    storage = await Storage.open(db_path)
    assert await storage.schema_version() == LATEST_VERSION
    await storage.close()
    assert user_version(db_path) == LATEST_VERSION
    assert {"campaigns", "gangs", "fighters", "items", "vehicles", "territories", "battles",
            "battle_gangs", "actions", "ledger_events", "sequences"} <= tables(db_path)


async def test_reopening_a_current_file_changes_nothing(db_path: Path) -> None:
    await (await Storage.open(db_path)).close()
    before = tables(db_path)
    await (await Storage.open(db_path)).close()
    assert tables(db_path) == before
    assert user_version(db_path) == LATEST_VERSION


async def test_version_1_file_with_data_upgrades_and_keeps_its_data(db_path: Path) -> None:
    # A file as the first release left it: only migration 0001, data written by hand.
    conn = await connect(db_path, migrations=load_migrations()[:1])
    await conn.execute(
        "INSERT INTO campaigns (id, guild_id, name, name_key, is_default, scenario_die, ruleset,"
        " skirmish, created_at) VALUES ('c1', ?, 'Old Campaign', 'old campaign', 1, 'D6',"
        " 'core-2023', 0, '2024-01-01T00:00:00+00:00')",
        (GUILD_A,),
    )
    await conn.execute(
        "INSERT INTO gangs (campaign_pk, id, name, name_key, house, owner, alignment, credits,"
        " reputation, battles_fought) VALUES (1, 'g1', 'Old Gang', 'old gang', 'Escher', '42',"
        " 'Outlaw', 250, 3, 4)"
    )
    await conn.execute(
        "INSERT INTO fighters (campaign_pk, gang_pk, position, id, name, name_key, category,"
        " fighter_type, cost, m, ws, bs, s, t, w, i, a, ld, cl, wil, int_, xp, kills,"
        " advancements, skills, special_rules, status, captured_by, rescue_chance_given,"
        " lasting_injuries, gang_hierarchy, critical_injury, escorted_to_doc) VALUES"
        " (1, 1, 0, 'f1', 'Vex', 'vex', 'Leader', '', 110, 5, 3, 3, 3, 3, 2, 3, 2, 6, 6, 7, 7,"
        " 12, 3, '[]', '[\"Fearsome\"]', '[]', 'Active', NULL, 0, '[]', 1, 0, 0)"
    )
    await conn.close()
    assert user_version(db_path) == 1
    assert "ledger_events" not in tables(db_path)

    async with await Storage.open(db_path) as storage:
        assert await storage.schema_version() == LATEST_VERSION
        gang = await storage.read(GUILD_A).get_gang_by_name("c1", "old gang")
        assert (gang.credits, gang.reputation, gang.owner) == (250, 3, "42")
        assert gang.fighters[0].skills == ["Fearsome"]
        assert gang.fighters[0].profile.ws == 3
        # The tables of version 2 work on the upgraded file.
        fighter = Fighter(id="f2", name="Rook", category="Ganger", cost=50)
        await storage.write(GUILD_A).add_fighter("c1", "g1", fighter, actor=ACTOR)
        events = await storage.read(GUILD_A).recent_events("c1")
        assert [e.path for e in events] == ["fighters"]
        assert (await storage.read(GUILD_A).get_campaign("c1")).is_default


async def test_a_file_from_a_newer_release_is_refused_untouched(db_path: Path) -> None:
    async with await Storage.open(db_path) as storage:
        await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Kept"))
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(DatabaseTooNew) as refused:
        await Storage.open(db_path)
    message = refused.value.message
    assert f"schema version {LATEST_VERSION + 1}" in message
    assert "newer release" in message and "upgrade the bot" in message
    assert user_version(db_path) == LATEST_VERSION + 1
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT name FROM campaigns").fetchall() == [("Kept",)]


async def test_a_failing_migration_leaves_the_previous_version(db_path: Path) -> None:
    broken = [
        *load_migrations()[:1],
        Migration(2, "broken", "CREATE TABLE half_done (x INTEGER);\nSELECT * FROM missing;"),
    ]
    with pytest.raises(MigrationFailed, match="left at version 1"):
        await connect(db_path, migrations=broken)
    assert user_version(db_path) == 1
    assert "half_done" not in tables(db_path)


@pytest.mark.sqlite_only("SQLite's pragmas")
async def test_pragmas_wal_foreign_keys_and_busy_timeout(storage: Storage) -> None:
    assert await scalar(storage, "PRAGMA journal_mode") == "wal"
    assert await scalar(storage, "PRAGMA foreign_keys") == 1
    assert await scalar(storage, "PRAGMA busy_timeout") == 5000


async def test_foreign_keys_are_enforced(storage: Storage) -> None:
    with pytest.raises(IntegrityError):
        await execute(storage,
            "INSERT INTO gangs (campaign_pk, id, name, name_key, house, owner, alignment,"
            " credits, reputation, battles_fought) VALUES (999, 'g', 'G', 'g', 'H', '1',"
            " 'Outlaw', 0, 1, 0)"
        )
