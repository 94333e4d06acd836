"""Migration 0008 and what it stores: unknown profiles, absent characteristics, notes,
weapon profiles and a campaign's own rule data (kept by a campaign export too)."""

from __future__ import annotations

from pathlib import Path

from bot.ruledata import read_rule_data
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Storage
from bot.storage.database import connect, load_migrations
from tests.factories import fighter, profile

from .conftest import ACTOR, GUILD_A, GUILD_B, full_gang

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "rule-data-example.toml"
OLD_DEFAULT = (5, 4, 4, 3, 3, 1, 4, 1, 7, 7, 7, 7)
REAL = (4, 2, 4, 4, 4, 2, 3, 2, 5, 5, 7, 6)


async def test_migration_8_unsets_the_line_every_fighter_was_given_and_keeps_the_rest(
    db_path: Path,
) -> None:
    conn = await connect(db_path, migrations=[m for m in load_migrations() if m.version <= 7])
    await conn.execute(
        "INSERT INTO campaigns (pk, id, guild_id, name, name_key, is_default, scenario_die,"
        " ruleset, skirmish, created_at) VALUES (1, 'c1', ?, 'Dust Falls', 'dust falls', 1,"
        " 'D6', 'core-2023', 0, '2024-01-01T00:00:00+00:00')", (GUILD_A,),
    )
    await conn.execute(
        "INSERT INTO gangs (pk, campaign_pk, id, name, name_key, house, owner, alignment,"
        " credits, reputation, battles_fought) VALUES (1, 1, 'g1', 'Old Gang', 'old gang',"
        " 'Goliath', '42', 'Outlaw', 250, 3, 4)"
    )
    for position, (fid, stats) in enumerate((("given", OLD_DEFAULT), ("real", REAL))):
        await conn.execute(
            "INSERT INTO fighters (campaign_pk, gang_pk, position, id, name, name_key,"
            " category, fighter_type, cost, m, ws, bs, s, t, w, i, a, ld, cl, wil, int_, xp,"
            " kills, advancements, skills, special_rules, status, captured_by,"
            " rescue_chance_given, lasting_injuries, gang_hierarchy, critical_injury,"
            " escorted_to_doc) VALUES (1, 1, ?, ?, ?, ?, 'Ganger', '', 50,"
            " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, '[]', '[]', '[]', 'Active', NULL, 0,"
            " '[]', 0, 0, 0)",
            (position, fid, fid.title(), fid, *stats),
        )
    await conn.commit()
    await conn.close()
    async with await Storage.open(db_path) as storage:
        gang = await storage.read(GUILD_A).get_gang_by_name("c1", "Old Gang")
    given, real = gang.fighters
    assert given.profile is None
    assert real.profile is not None
    assert tuple(real.profile.get(s) for s in ("m", "ws", "bs", "s", "t", "w", "i", "a",
                                               "ld", "cl", "wil", "int")) == REAL
    assert gang.notes == "" and real.notes == ""


async def test_unknown_and_absent_characteristics_and_notes_are_stored(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(notes="Keep out."),
                                     actor=ACTOR)
    assert (await storage.read(GUILD_A).get_gang(campaign.id, gang.id)).notes == "Keep out."
    unknown = fighter("Nobody", id="n1", profile=None, notes="Turned up at the gate.")
    familiar = fighter("Skitter", id="n2", profile=profile(bs=None, ld=None))
    for one in (unknown, familiar):
        await storage.write(GUILD_A).add_fighter(campaign.id, gang.id, one, actor=ACTOR)
    stored = await storage.read(GUILD_A).get_gang(campaign.id, gang.id)
    by_id = {f.id: f for f in stored.fighters}
    assert by_id["n1"].profile is None and by_id["n1"].notes == "Turned up at the gate."
    assert by_id["n2"].profile == profile(bs=None, ld=None)


async def test_own_rule_data_is_played_and_travels_with_a_campaign_export(
    storage: Storage, campaign: Campaign
) -> None:
    content = read_rule_data(EXAMPLE.read_bytes(), "example.toml")
    updated = await storage.write(GUILD_A).set_rule_data(
        campaign.id, content.model_dump_json(by_alias=True), actor=ACTOR,
        note="Rule data imported.")
    ruleset = ruleset_for(updated)
    matriarch = ruleset.house("Quillon").fighters[0]
    assert matriarch.profile is not None and matriarch.profile.ws == 3
    assert any(e.name == "Quill launcher" and len(e.profiles) == 2
               for e in ruleset.trading_post)
    document = await storage.read(GUILD_A).export_campaign(campaign.id)
    assert document.campaign.rule_data == content
    imported = await storage.write(GUILD_B).import_campaign(document.model_dump_json(), actor=ACTOR)
    assert ruleset_for(imported).house("Quillon") == ruleset.house("Quillon")
