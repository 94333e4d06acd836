"""Campaigns per server: several by name, one default, Arbitrators, settings."""

from __future__ import annotations

import pytest

from bot.storage import Campaign, Storage
from rules.errors import InvalidRequest, NotFound
from rules.models import CampaignSettings, ScenarioDie

from .conftest import ACTOR, GUILD_A, GUILD_B, full_gang, scalar


async def test_first_campaign_is_default_and_settings_round_trip(storage: Storage) -> None:
    settings = CampaignSettings(
        name="Dominion", scenario_die=ScenarioDie.D4, ruleset="house-rules", skirmish=True
    )
    created = await storage.write(GUILD_A).create_campaign(
        settings, arbitrator_user_ids=[9_000_000_000_000_001],
        arbitrator_role_id=77, report_channel_id=88,
    )
    assert created.is_default
    loaded = await storage.read(GUILD_A).get_campaign(created.id)
    assert loaded == created
    assert loaded.settings == settings
    assert loaded.is_arbitrator(9_000_000_000_000_001)
    assert loaded.is_arbitrator(5, role_ids=[77])
    assert not loaded.is_arbitrator(5, role_ids=[78])
    assert await storage.read(GUILD_A).get_default_campaign() == loaded


async def test_several_campaigns_by_name_and_switching_default(storage: Storage) -> None:
    first = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="First"))
    second = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Second"))
    assert not second.is_default
    assert [c.name for c in await storage.read(GUILD_A).list_campaigns()] == ["First", "Second"]
    assert (await storage.read(GUILD_A).get_campaign_by_name("  SECOND ")).id == second.id
    await storage.write(GUILD_A).set_default_campaign(second.id)
    assert (await storage.read(GUILD_A).get_default_campaign()).id == second.id
    assert not (await storage.read(GUILD_A).get_campaign(first.id)).is_default
    third = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Third"),
                                          make_default=True)
    assert (await storage.read(GUILD_A).get_default_campaign()).id == third.id


async def test_campaign_names_are_unique_per_server_only(storage: Storage) -> None:
    await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Underhive"))
    with pytest.raises(InvalidRequest, match="already a campaign called 'underhive'"):
        await storage.write(GUILD_A).create_campaign(CampaignSettings(name="underhive"))
    other = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Underhive"))
    assert other.is_default


async def test_rename_update_and_delete(storage: Storage) -> None:
    first = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="First"))
    second = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Second"))
    renamed = await storage.write(GUILD_A).rename_campaign(first.id, "Renamed")
    assert renamed.name == "Renamed"
    with pytest.raises(InvalidRequest):
        await storage.write(GUILD_A).rename_campaign(first.id, "second")
    updated = await storage.write(GUILD_A).update_campaign(
        renamed.model_copy(update={"arbitrator_user_ids": [1, 2], "report_channel_id": 5})
    )
    assert updated.arbitrator_user_ids == [1, 2] and updated.report_channel_id == 5

    await storage.write(GUILD_A).create_gang(first.id, full_gang(), actor=ACTOR)
    await storage.write(GUILD_A).delete_campaign(first.id)
    with pytest.raises(NotFound, match="no campaign"):
        await storage.read(GUILD_A).get_campaign(first.id)
    # The default went with it; the oldest remaining campaign takes over.
    assert (await storage.read(GUILD_A).get_default_campaign()).id == second.id
    assert await scalar(storage, "SELECT COUNT(*) FROM ledger_events") == 0


async def test_missing_campaigns_are_readable_refusals(storage: Storage) -> None:
    with pytest.raises(NotFound, match="This server has no campaign yet"):
        await storage.read(GUILD_A).get_default_campaign()
    with pytest.raises(NotFound, match=r"There is no campaign called 'Nope' on this server\."):
        await storage.read(GUILD_A).get_campaign_by_name("Nope")


def test_campaign_record_name_is_its_settings_name(campaign: Campaign) -> None:
    assert campaign.name == campaign.settings.name == "Ash Wastes"
