"""Names in storage: look-alikes are one name, and migrations 0006 and 0010 re-key old files."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from bot.storage import LATEST_VERSION, Campaign, MigrationFailed, Storage, new_id
from bot.storage.database import Migration, connect, load_migrations
from bot.storage.opening import open_storage
from rules.errors import InvalidRequest
from rules.models import CampaignSettings, Territory
from tests import factories as f

from .conftest import (
    ACTOR,
    GUILD_A,
    GUILD_B,
    fetch,
    full_gang,
    migrated_then_changed,
    write_old_territories,
)

CYRILLIC_RED_ONES = "Red \u041enes"  # Cyrillic capital O


async def test_a_hidden_character_does_not_make_a_second_gang(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Red Ones"), actor=ACTOR)
    for twin in ("Red Ones\u200b", "\u202eRed Ones", "RED\u2060 ONES"):
        with pytest.raises(InvalidRequest, match="already a gang called 'R"):
            await storage.write(GUILD_A).create_gang(campaign.id, full_gang(twin, "b"), actor=ACTOR)
    assert len(await storage.read(GUILD_A).list_gangs(campaign.id)) == 1


async def test_a_look_alike_is_refused_naming_the_gang_it_imitates(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Red Ones"), actor=ACTOR)
    with pytest.raises(InvalidRequest) as refused:
        await storage.write(GUILD_A).create_gang(campaign.id, full_gang(CYRILLIC_RED_ONES, "b"),
                                  actor=ACTOR)
    assert "looks the same as the gang 'Red Ones' in this campaign" in refused.value.message
    # Renaming another gang into a look-alike is refused the same way.
    other = await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Blue Ones", "b"),
                                      actor=ACTOR)
    with pytest.raises(InvalidRequest, match="looks the same as the gang 'Red Ones'"):
        await storage.write(GUILD_A).rename_gang(
            campaign.id, other.id, "R\u0435d Ones", actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang(campaign.id, other.id)).name == "Blue Ones"


async def test_fighters_and_vehicles_are_compared_the_same_way(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    other = await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Iron Kin", "b"),
                                      actor=ACTOR)
    with pytest.raises(InvalidRequest, match="looks the same as the fighter 'a Boss'"):
        await storage.write(GUILD_A).add_fighter(campaign.id, other.id,
                                  f.fighter("\u0430 B\u043ess", id=new_id()), actor=ACTOR)
    with pytest.raises(InvalidRequest, match="looks the same as the vehicle 'a Van'"):
        await storage.write(GUILD_A).add_vehicle(campaign.id, other.id,
                                  f.vehicle("a V\u0430n", id=new_id()), actor=ACTOR)


async def test_a_look_alike_finds_the_gang_and_the_campaign(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Red Ones"), actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang_by_name(
        campaign.id, CYRILLIC_RED_ONES)).id == gang.id
    found = await storage.read(GUILD_A).get_campaign_by_name("\u0410sh W\u0430stes\u200b")
    assert found.id == campaign.id


async def test_campaign_look_alikes_are_refused_on_the_same_server_only(
    storage: Storage, campaign: Campaign
) -> None:
    with pytest.raises(InvalidRequest, match="looks the same as the campaign 'Ash Wastes'"):
        await storage.write(GUILD_A).create_campaign(CampaignSettings(name="\u0410sh Wastes"))
    elsewhere = await storage.write(GUILD_B).create_campaign(
        CampaignSettings(name="\u0410sh Wastes"))
    assert elsewhere.name == "\u0410sh Wastes"


async def test_names_are_stored_clean(storage: Storage, campaign: Campaign) -> None:
    gang = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("\u2066Grey\u200b Ones\u2069"),
                                     actor=ACTOR)
    assert gang.name == "Grey Ones"
    rows = await fetch(storage, "SELECT name, name_key FROM gangs")
    assert [tuple(row) for row in rows] == [("Grey Ones", "grey ones")]


# ------------------------------------------------------------------ migration 0006

_GANG = ("INSERT INTO gangs (pk, campaign_pk, id, name, name_key, house, owner, alignment,"
         " credits, reputation, battles_fought) VALUES (?, ?, ?, ?, ?, ?, '42', 'Outlaw',"
         " 100, 1, 0)")
_FIGHTER = (
    "INSERT INTO fighters (campaign_pk, gang_pk, position, id, name, name_key, category,"
    " fighter_type, cost, m, ws, bs, s, t, w, i, a, ld, cl, wil, int_, xp, kills,"
    " advancements, skills, special_rules, status, captured_by, rescue_chance_given,"
    " lasting_injuries, gang_hierarchy, critical_injury, escorted_to_doc) VALUES"
    " (1, ?, ?, ?, ?, ?, 'Ganger', '', 50, 5, 4, 4, 3, 3, 1, 4, 1, 7, 7, 8, 8,"
    " 0, 0, '[]', '[]', '[]', 'Active', NULL, 0, '[]', 0, 0, 0)"
)


async def _version_4_file(path: Path) -> None:
    """A file as release 4 left it, with names that clash under the new keys."""
    conn = await connect(path, migrations=[m for m in load_migrations() if m.version <= 4])
    campaign = ("INSERT INTO campaigns (pk, id, guild_id, name, name_key, is_default,"
                " scenario_die, ruleset, skirmish, created_at) VALUES (?, ?, ?, ?, ?, ?, 'D6',"
                " 'core-2023', 0, '2024-01-01T00:00:00+00:00')")
    await conn.execute(campaign, (1, "c1", GUILD_A, "Dust Falls", "dust falls", 1))
    await conn.execute(campaign, (2, "c2", GUILD_A, "Dust Falls\u200b", "dust falls\u200b", 0))
    await conn.execute(campaign, (3, "c3", GUILD_B, "Dust Falls", "dust falls", 1))
    gangs = [
        # An impostor made first, with a hidden character: the clean name keeps its name.
        (1, "g1", "Red Ones\u200b", "red ones\u200b", "Goliath"),
        (2, "g2", "Red Ones", "red ones", "Escher"),
        (3, "g3", CYRILLIC_RED_ONES, CYRILLIC_RED_ONES.casefold(), "Orlock"),
        (4, "g4", "\u200b", "\u200b", "\u3164"),
        (5, "g5", "\uff22lue", "\uff42lue", "Van Saar"),
    ]
    for pk, gang_id, name, key, house in gangs:
        await conn.execute(_GANG, (pk, 1, gang_id, name, key, house))
    await conn.execute(_GANG, (6, 3, "g6", "Red Ones", "red ones", "Cawdor"))
    await conn.execute(_FIGHTER, (2, 0, "f1", "Vex", "vex"))
    await conn.execute(_FIGHTER, (3, 0, "f2", "V\u0435x", "v\u0435x"))
    await conn.execute(
        "INSERT INTO items (gang_pk, slot, position, id, name, cost, kind, rarity, two_slots,"
        " grants_mounted) VALUES (2, 'stash', 0, 'i1', 'Las\u00adgun\u200b', 15, 'weapon',"
        " 'Common', 0, 0)"
    )
    await conn.close()


async def test_migration_6_renames_clashing_names_and_loses_nothing(
    db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await _version_4_file(db_path)
    with caplog.at_level(logging.INFO, logger="bot.storage.name_migration"):
        storage = await Storage.open(db_path)
    async with storage:
        assert await storage.schema_version() == LATEST_VERSION
        names = {g.id: g.name for g in await storage.read(GUILD_A).list_gangs("c1")}
        assert names == {"g1": "Red Ones (2)", "g2": "Red Ones", "g3": f"{CYRILLIC_RED_ONES} (3)",
                         "g4": "Unnamed gang", "g5": "Blue"}
        assert (await storage.read(GUILD_A).get_gang("c1", "g4")).house == "Unknown House"
        # Each renamed gang can be named in a command again.
        assert (await storage.read(GUILD_A).get_gang_by_name("c1", "red ones (3)")).id == "g3"
        assert (await storage.read(GUILD_A).get_gang_by_name("c1", CYRILLIC_RED_ONES)).id == "g2"
        _gang, vex = await storage.read(GUILD_A).find_fighter("c1", "Vex (2)")
        assert vex.id == "f2"
        assert (await storage.read(GUILD_A).get_gang("c1", "g2")).stash[0].name == "Lasgun"
        assert [c.name for c in await storage.read(GUILD_A).list_campaigns()] == [
            "Dust Falls", "Dust Falls (2)"]
        # Another server's campaign and gang of the same names are left alone.
        assert [c.name for c in await storage.read(GUILD_B).list_campaigns()] == ["Dust Falls"]
        assert [g.name for g in await storage.read(GUILD_B).list_gangs("c3")] == ["Red Ones"]
        # The ledger keeps every old name and says why it changed.
        events = await storage.read(GUILD_A).recent_events("c1", gang_id="g3", limit=10)
        assert any(e.kind == "change" and e.path == "name" and e.before == CYRILLIC_RED_ONES
                   and e.after == f"{CYRILLIC_RED_ONES} (3)" for e in events)
        assert any(e.kind == "note" and e.text is not None
                   and "looked the same as the gang 'Red Ones'" in e.text for e in events)
        campaign_notes = await storage.read(GUILD_A).recent_events("c2", limit=10)
        assert any("'Dust Falls (2)'" in (e.text or "") for e in campaign_notes)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("'Red Ones\\u200b'" in w and "'Red Ones (2)'" in w and "'Red Ones'" in w
               for w in warnings)
    assert any("'\\u200b'" in w and "nothing visible" in w for w in warnings)
    assert len(warnings) == 5  # c2, g1, g3, g4, f2
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM gangs").fetchone()[0] == 6
        assert conn.execute("SELECT count(*) FROM fighters").fetchone()[0] == 2
        keys = conn.execute("SELECT name_key FROM gangs ORDER BY pk").fetchall()
    assert [k[0] for k in keys] == ["red ones (2)", "red ones", "red ones (3)", "unnamed gang",
                                    "blue", "red ones"]


async def test_a_failing_python_step_leaves_the_previous_version(db_path: Path) -> None:
    async def broken(conn: aiosqlite.Connection) -> None:
        await conn.execute("UPDATE gangs SET name = 'half done'")
        await conn.execute("SELECT * FROM missing")

    shipped = [m for m in load_migrations() if m.version <= 4]
    await (await connect(db_path, migrations=shipped)).close()
    with pytest.raises(MigrationFailed, match="left at version 4"):
        await connect(db_path, migrations=[*shipped, Migration(5, "broken", "-- x", broken)])
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 4


async def test_territory_names_clash_in_the_migration_too(db_path: Path) -> None:
    await _version_4_file(db_path)
    conn = await aiosqlite.connect(db_path)
    await write_old_territories(conn, ["Old Ruins", "\u041eld Ruins"], income="0")
    async with await Storage.open(db_path) as storage:
        territories = await storage.read(GUILD_A).list_territories("c1")
        # Only the number is added: the letters stay as they were typed.
        assert [t.name for t in territories] == ["Old Ruins", "\u041eld Ruins (2)"]
        added = Territory(id=new_id(), name="Slag Pits")
        await storage.write(GUILD_A).add_territory("c1", added, actor=ACTOR)


async def _keyed_by_hand_list(target: Path | str, *statements: str) -> None:
    """A database at version 9 whose names were keyed by the old hand list of look-alikes:
    a Lisu "ꓣed Ones" and a "Kraɡ" (Latin script g) were names of their own then."""
    store = await open_storage(target)
    campaign = await store.write(GUILD_A).create_campaign(CampaignSettings(name="Dust Falls"))
    fighters = [f.fighter(name="Krag"), f.fighter(name="Grub")]
    for name in ("Red Ones", "Blue Ones", "Маша"):
        await store.write(GUILD_A).create_gang(campaign.id,
                                f.gang(name=name, fighters=fighters if name == "Red Ones" else []),
                                actor=ACTOR)
    await store.close()
    renames = [
        "UPDATE gangs SET name = '\ua4e3ed Ones', name_key = '\ua4e3ed ones'"
        " WHERE name = 'Blue Ones'",
        "UPDATE fighters SET name = 'Kra\u0261', name_key = 'kra\u0261' WHERE name = 'Grub'",
        # Keys the old code wrote, for a name the new key leaves alone.
        "UPDATE gangs SET name_key = 'old key' WHERE name = 'Маша'",
    ]
    if isinstance(target, str):
        await migrated_then_changed(target, *renames,
                                    "UPDATE schema_version SET version = 9", *statements)
        return
    with sqlite3.connect(target) as conn:
        for statement in [*renames, "PRAGMA user_version = 9", *statements]:
            conn.execute(statement)


async def test_migration_10_keys_names_by_their_skeleton_on_sqlite(db_path: Path) -> None:
    await _migrates_to_skeleton_keys(db_path)


async def test_migration_10_keys_names_by_their_skeleton_on_postgresql(
    postgres_url: str,
) -> None:
    await _migrates_to_skeleton_keys(postgres_url)


async def _migrates_to_skeleton_keys(target: Path | str) -> None:
    """Look-alikes the old keys let in get a number and a ledger note; other keys are
    recomputed; the plain name keeps its name."""
    await _keyed_by_hand_list(target)
    store = await open_storage(target)
    try:
        assert await store.schema_version() == LATEST_VERSION
        (campaign,) = await store.read(GUILD_A).list_campaigns()
        gangs = {g.name for g in await store.read(GUILD_A).list_gangs(campaign.id)}
        # The plain name keeps its name; the look-alike only gets a number.
        assert gangs == {"Red Ones", "\ua4e3ed Ones (2)", "Маша"}
        assert (await store.read(GUILD_A).get_gang_by_name(campaign.id, "маша")).name == "Маша"
        _gang, krag = await store.read(GUILD_A).find_fighter(campaign.id, "Kra\u0261 (2)")
        assert krag.name == "Kra\u0261 (2)"
        red = await store.read(GUILD_A).get_gang_by_name(campaign.id, "Red Ones")
        events = await store.write(GUILD_A).recent_events(campaign.id, limit=20)
        assert any(e.kind == "note" and "looked the same as the gang 'Red Ones'" in (e.text or "")
                   for e in events)
        assert any(e.kind == "note" and "looked the same as the fighter 'Krag'" in (e.text or "")
                   for e in events)
        with pytest.raises(InvalidRequest, match="looks the same as the gang 'Red Ones'"):
            await store.write(GUILD_A).create_gang(campaign.id, f.gang(name="Red \u13a4nes"),
                                    actor=ACTOR)
        assert red.name == "Red Ones"
    finally:
        await store.close()
