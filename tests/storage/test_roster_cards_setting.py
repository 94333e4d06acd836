"""Migration 0009: a campaign's roster card setting (CampaignSettings.roster_cards), stored
on, off, or not set (the bot's default) for the campaigns stored before it."""

from __future__ import annotations

from pathlib import Path

from bot.storage import Storage
from bot.storage.database import connect, load_migrations
from rules.models import CampaignSettings

from .conftest import GUILD_A


async def test_the_setting_is_stored_changed_and_read_back(storage: Storage) -> None:
    off = await storage.write(GUILD_A).create_campaign(
        CampaignSettings(name="Quiet Hive", roster_cards=False))
    on = await storage.write(GUILD_A).create_campaign(
        CampaignSettings(name="Loud Hive", roster_cards=True))
    assert (await storage.read(GUILD_A).get_campaign(off.id)).settings.roster_cards is False
    assert (await storage.read(GUILD_A).get_campaign(on.id)).settings.roster_cards is True

    changed = off.model_copy(update={
        "settings": off.settings.model_copy(update={"roster_cards": True})})
    await storage.write(GUILD_A).update_campaign(changed)
    assert (await storage.read(GUILD_A).get_campaign(off.id)).settings.roster_cards is True
    # An export carries it (the settings go whole).
    document = await storage.read(GUILD_A).export_campaign(on.id)
    assert document.campaign.settings.roster_cards is True


async def test_campaigns_stored_before_the_setting_follow_the_bots_default(
    db_path: Path,
) -> None:
    before = [m for m in load_migrations() if m.version < 9]
    conn = await connect(db_path, migrations=before)
    await conn.execute(
        "INSERT INTO campaigns (id, guild_id, name, name_key, is_default, scenario_die, ruleset,"
        " skirmish, created_at) VALUES ('c1', ?, 'Old Hive', 'old hive', 1, 'D6',"
        " 'core-2023', 0, '2024-01-01T00:00:00+00:00')",
        (GUILD_A,),
    )
    await conn.commit()
    await conn.close()
    async with await Storage.open(db_path) as storage:
        assert (await storage.read(GUILD_A).get_campaign("c1")).settings.roster_cards is None
