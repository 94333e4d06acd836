"""Downtime runs on a real database: opened for several gangs in one transaction, undone
one gang at a time, confirmed by whoever owns the gang now, never read as a battle's run."""

from __future__ import annotations

import pytest

from bot.battle.store import runs_of
from bot.call import Actor
from bot.downtime.engine import confirm_step, downtime_runs, open_downtime, undo_step
from bot.downtime.state import DowntimeRun
from bot.errors import Refused
from bot.storage import Campaign, Storage
from rules.models import FighterStatus
from rules.steps import DowntimeStep
from tests import factories as f
from tests.storage.conftest import ACTOR, GUILD_A

ALICE = Actor(user_id=int(ACTOR))  # the campaign's Arbitrator (named below)
BOB, DAN = Actor(user_id=7), Actor(user_id=9)


async def _opened(storage: Storage, campaign: Campaign) -> list[DowntimeRun]:
    async with storage.transaction(GUILD_A) as tx:
        campaign.arbitrator_user_ids = [ALICE.user_id]
        campaign = await tx.update_campaign(campaign)
        hurt = f.fighter("Hurt", status=FighterStatus.IN_RECOVERY)
        await tx.create_gang(campaign.id, f.gang("Wolves", owner="7", fighters=[hurt]),
                             actor=ACTOR)
        await tx.create_gang(campaign.id, f.gang("Rats", owner="8"), actor=ACTOR)
    async with storage.transaction(GUILD_A) as tx:
        return await open_downtime(tx, campaign, by=ACTOR, channel_id=1)


async def _runs(storage: Storage, campaign: Campaign) -> dict[str, DowntimeRun]:
    async with storage.read_only(GUILD_A) as tx:
        return {r.gang_name: r for r in await downtime_runs(tx, campaign.id)}


async def test_undoing_one_gangs_first_step_leaves_the_others_run(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, rats = await _opened(storage, campaign)
    async with storage.transaction(GUILD_A) as tx:
        await undo_step(tx, ALICE, campaign.id, rats.id, 1, mention="<@1>")
    runs = await _runs(storage, campaign)
    assert runs["Rats"].cancelled and not runs["Rats"].in_progress
    assert runs["Wolves"] == wolves  # the undo put back nothing of the Wolves' run
    # Only the newest action of the campaign can be undone: the Wolves' came first.
    async with storage.transaction(GUILD_A) as tx:
        gang = await tx.get_gang(campaign.id, wolves.gang_id)
    assert gang.fighters[0].status is FighterStatus.ACTIVE


async def test_whoever_owns_the_gang_now_confirms(storage: Storage, campaign: Campaign) -> None:
    wolves, _rats = await _opened(storage, campaign)
    async with storage.transaction(GUILD_A) as tx:
        await tx.transfer_gang(campaign.id, wolves.gang_id, "9", actor=ACTOR)
    with pytest.raises(Refused, match="only its owner or an Arbitrator"):
        async with storage.transaction(GUILD_A) as tx:
            await confirm_step(tx, BOB, campaign.id, wolves.id, 1, mention="<@7>")
    async with storage.transaction(GUILD_A) as tx:
        await confirm_step(tx, DAN, campaign.id, wolves.id, 1, mention="<@9>")
    assert (await _runs(storage, campaign))["Wolves"].sequence.step is (
        DowntimeStep.CAPTIVES_RETURNED)


async def test_a_downtime_is_no_battle(storage: Storage, campaign: Campaign) -> None:
    await _opened(storage, campaign)
    async with storage.read_only(GUILD_A) as tx:
        assert await runs_of(tx, campaign.id) == []
        assert await tx.list_battles(campaign.id) == []
        actions = await tx.list_actions(campaign.id)
    assert actions and all(a.battle_id is None for a in actions)
    downtime = [a for a in actions if a.step == "Downtime: A. Fighters Recover"]
    assert len(downtime) == 2  # one per gang


async def test_a_step_with_changes_recorded_after_it_is_not_undone(
    storage: Storage, campaign: Campaign
) -> None:
    wolves, _rats = await _opened(storage, campaign)
    before = await _runs(storage, campaign)
    with pytest.raises(Refused, match="can no longer be undone"):
        async with storage.transaction(GUILD_A) as tx:
            # The Rats' first step was stored after the Wolves'.
            await undo_step(tx, ALICE, campaign.id, wolves.id, 1, mention="<@1>")
    assert await _runs(storage, campaign) == before
    async with storage.read_only(GUILD_A) as tx:
        gang = await tx.get_gang(campaign.id, wolves.gang_id)
    assert gang.fighters[0].status is FighterStatus.ACTIVE
