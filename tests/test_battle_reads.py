"""The read a click's decision is made from (bot/battle/engine.decide_and_store): the
campaign, then its run and gangs, each query a round trip to the database thread. The
campaign's row carries its key, so the queries after it need not look the key up again.
Real SQLite file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.battle.state import PostBattleRun, run_key
from bot.storage import Storage
from bot.storage.database import connect
from bot.storage.transaction import Transaction
from rules.models import CampaignSettings

GUILD = 1001


@pytest.mark.sqlite_only("counts statements with SQLite's trace callback on the file")
async def test_reading_the_campaign_then_its_run_is_two_queries(
    storage: Storage, db_path: Path
) -> None:
    campaign = await storage.create_campaign(GUILD, CampaignSettings(name="Dust Falls"))
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
