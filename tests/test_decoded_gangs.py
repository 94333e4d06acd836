"""Gangs decoded once per distinct stored rows (bot/storage/decoded_gangs.py): a click
that reads the same two gangs again gets them without validating every fighter again,
each reader gets a gang of its own, and a gang whose rows changed is decoded anew.
Real SQLite file.
"""

from __future__ import annotations

from bot.storage import Storage
from bot.storage.decoded_gangs import DECODED
from rules.models import CampaignSettings
from tests.storage.conftest import full_gang

GUILD = 1001


async def test_a_gang_read_again_unchanged_is_not_decoded_again_and_is_a_copy_of_its_own(
    storage: Storage
) -> None:
    campaign = await storage.create_campaign(GUILD, CampaignSettings(name="Dust Falls"))
    stored = await storage.create_gang(GUILD, campaign.id, full_gang(), actor="1")
    misses, hits = DECODED.misses, DECODED.hits

    first = (await storage.load_world(GUILD, campaign.id, [stored.id])).gang(stored.id)
    second = (await storage.load_world(GUILD, campaign.id, [stored.id])).gang(stored.id)
    assert first == second == stored
    assert DECODED.misses - misses == 1 and DECODED.hits - hits == 1

    # Each reader's gang is its own: changing one changes neither the next read nor the
    # stored gang.
    second.fighters[0].xp += 5
    second.stash.clear()
    third = (await storage.load_world(GUILD, campaign.id, [stored.id])).gang(stored.id)
    assert third == stored and third != second
    assert third.fighters[0] is not first.fighters[0]

    # Rows that changed are decoded from what is stored now.
    renamed = stored.model_copy(update={"credits": stored.credits + 40})
    await storage.update_gang(GUILD, campaign.id, renamed, actor="1")
    now = (await storage.load_world(GUILD, campaign.id, [stored.id])).gang(stored.id)
    assert now.credits == stored.credits + 40
