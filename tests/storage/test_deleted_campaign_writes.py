"""A post-battle write that lands after its campaign's delete: a sentence, never a crash.

The race itself runs end to end in tests/e2e/test_concurrency.py; here the write is made
after the delete for certain, on both databases.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from bot.battle.store import CAMPAIGN_DELETED, unless_deleted
from bot.errors import Refused
from bot.storage import Storage
from bot.storage.driver import IntegrityError
from rules.models import CampaignSettings

from .conftest import GUILD_A


class _State(BaseModel):
    step: int = 1


async def test_a_run_saved_after_the_delete_is_refused_with_a_sentence(
    storage: Storage,
) -> None:
    campaign = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Doomed"))
    saved = await storage.save_sequence_at_once(GUILD_A, campaign.id, "run:b1", _State(),
                                                battle_id=None, revision=0)
    async with storage.transaction(GUILD_A) as tx:
        await tx.delete_campaign(campaign.id)

    with pytest.raises(Refused) as refused:
        await unless_deleted(storage, GUILD_A, campaign.id, storage.save_sequence_at_once(
            GUILD_A, campaign.id, "run:b1", _State(step=2), battle_id=None, revision=saved))
    assert refused.value.message == CAMPAIGN_DELETED


async def test_other_failures_of_a_live_campaign_are_not_hidden(storage: Storage) -> None:
    campaign = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Alive"))

    async def clash() -> None:
        raise IntegrityError("UNIQUE constraint failed", unique=True)

    with pytest.raises(IntegrityError):
        await unless_deleted(storage, GUILD_A, campaign.id, clash())
