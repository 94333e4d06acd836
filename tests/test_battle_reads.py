"""The read a click's decision is made from (bot/battle/engine.decide_and_store): the
campaign, then its run and gangs, each query a round trip to the database thread. The
campaign's row carries its key, so the queries after it need not look the key up again.
Real SQLite file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from bot.battle import engine
from bot.battle.state import PostBattleRun, run_key
from bot.storage import Storage, battles
from bot.storage.database import connect
from bot.storage.transaction import Transaction
from rules.models import Battle, CampaignSettings
from rules.sequence import Step
from tests.test_battle_flow import ALICE, BOB
from tests.test_battle_round_trips import Bot, _stored_run

GUILD = 1001  # the same as tests/test_battle_round_trips.py's, whose run is stored here


@pytest.mark.sqlite_only("counts statements with SQLite's trace callback on the file")
async def test_reading_the_campaign_then_its_run_is_two_queries(
    storage: Storage, db_path: Path
) -> None:
    campaign = await storage.write(GUILD).create_campaign(CampaignSettings(name="Dust Falls"))
    conn = await connect(db_path)
    statements: list[str] = []
    try:
        await conn.set_trace_callback(statements.append)
        tx = Transaction(conn, GUILD, writable=False)
        assert (await tx.get_campaign(campaign.id)).id == campaign.id
        assert await tx.load_sequence_at(campaign.id, run_key("b1"), PostBattleRun) is None
        tx.close()
    finally:
        await conn.close()
    assert len(statements) == 2, statements


async def test_closing_a_step_whose_next_rolls_nothing_reads_no_battle(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Receive Rewards step opens with its instructions only: the Confirm that
    closes the step before it reads neither rosters nor the battle (which only the
    rolls of a step read)."""
    campaign_id, _run = await _stored_run(storage)
    bot = cast(Any, Bot(storage))
    for by in (ALICE, BOB):  # the Wrap-up closes; Assign Territory rolls as it opens
        await engine.confirm_stage(engine.RunCall(bot, GUILD, by, campaign_id, "b1"), 1)
    battles_read: list[str] = []
    read = battles.get

    async def counted(db: Any, campaign_pk: int, battle_id: str) -> Battle:
        battles_read.append(battle_id)
        return await read(db, campaign_pk, battle_id)

    monkeypatch.setattr(battles, "get", counted)
    await engine.confirm_stage(engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1"), 2)
    closing = await engine.confirm_stage(engine.RunCall(bot, GUILD, BOB, campaign_id, "b1"), 2)
    assert closing.run.current is not None
    assert (closing.run.current.step, closing.run.current.substep) == (
        Step.RECEIVE_REWARDS, None)
    assert closing.decision.scene.owe_stages == [3] and not closing.decision.actions
    assert battles_read == []
