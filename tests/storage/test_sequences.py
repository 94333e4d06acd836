"""Sequences in progress survive a restart exactly where they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from bot.storage import Storage, StorageError
from rules.errors import NotFound
from rules.models import CampaignSettings, FighterStatus

from .conftest import GUILD_A, GUILD_B


class Step(BaseModel):
    name: str
    done: bool = False
    rolls: list[int] = Field(default_factory=list)


class PostBattle(BaseModel):
    """Stands in for the rules engine's PostBattleSequence: any pydantic model works."""

    battle_id: str
    current: int = 0
    steps: list[Step]
    statuses: dict[str, FighterStatus] = Field(default_factory=dict)


def sequence() -> PostBattle:
    return PostBattle(
        battle_id="b1",
        steps=[Step(name="Wrap-up"), Step(name="Update Roster"), Step(name="Collect Income")],
    )


async def test_resume_after_restart(db_path: Path) -> None:
    storage = await Storage.open(db_path)
    campaign = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="C"))
    state = sequence()
    assert await storage.write(GUILD_A).save_sequence(campaign.id, "post:b1", state,
                                       battle_id="b1") == 1
    state.steps[0].done = True
    state.steps[0].rolls = [3, 6]
    state.current = 1
    state.statuses["f1"] = FighterStatus.IN_RECOVERY
    assert await storage.write(GUILD_A).save_sequence(campaign.id, "post:b1", state,
                                       battle_id="b1") == 2
    await storage.close()

    reopened = await Storage.open(db_path)
    try:
        loaded = await reopened.read(GUILD_A).load_sequence(campaign.id, "post:b1", PostBattle)
        assert loaded == state
        assert loaded is not None and loaded.steps[loaded.current].name == "Update Roster"
        [record] = await reopened.read(GUILD_A).list_sequences(campaign.id)
        assert (record.key, record.battle_id, record.revision) == ("post:b1", "b1", 2)
        assert record.model.endswith("PostBattle")
        assert await reopened.read(GUILD_A).load_sequence(campaign.id, "other", PostBattle) is None
        assert await reopened.write(GUILD_A).delete_sequence(campaign.id, "post:b1")
        assert not await reopened.write(GUILD_A).delete_sequence(campaign.id, "post:b1")
        assert await reopened.read(GUILD_A).load_sequence(
            campaign.id, "post:b1", PostBattle) is None
    finally:
        await reopened.close()


async def test_sequences_are_per_server_and_typed(storage: Storage) -> None:
    mine = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="C"))
    await storage.write(GUILD_B).create_campaign(CampaignSettings(name="C"))
    await storage.write(GUILD_A).save_sequence(mine.id, "k", sequence())
    with pytest.raises(NotFound, match="no campaign"):
        await storage.read(GUILD_B).load_sequence(mine.id, "k", PostBattle)
    with pytest.raises(StorageError, match="cannot be read as"):
        await storage.read(GUILD_A).load_sequence(mine.id, "k", Step)
