"""What the clicks of one run share and what they never do (bot/battle/engine.py).

The campaign built from its stored row is handed to every click that reads that row
(bot/storage/decoded.py): nothing changes a Campaign. A run is never shared: each
decision changes the run it read for itself (flow's ``copy=False``), so what a click
stored and shows stays as it was when the next click decides. Real SQLite file.
"""

from __future__ import annotations

from typing import Any, cast

from bot.battle import engine
from bot.battle.state import PostBattleRun, run_key
from bot.storage import Storage
from tests.test_battle_flow import ALICE, BOB
from tests.test_battle_round_trips import GUILD, Bot, _stored_run


async def test_two_clicks_share_their_campaign_and_never_a_run(storage: Storage) -> None:
    campaign_id, _run = await _stored_run(storage)
    bot = cast(Any, Bot(storage))
    alice = await engine.confirm_stage(engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1"), 1)
    shown = alice.run.model_dump_json()

    bob = await engine.confirm_stage(engine.RunCall(bot, GUILD, BOB, campaign_id, "b1"), 1)
    assert bob.campaign is alice.campaign
    assert bob.run is not alice.run and alice.run.model_dump_json() == shown
    first = alice.run.stage_record(1)
    assert first is not None and list(first.confirmations) == ["g1"]
    assert alice.run.current is first and bob.run.current is not None
    assert bob.run.current.number == 2

    again = await engine.confirm_stage(engine.RunCall(bot, GUILD, ALICE, campaign_id, "b1"), 1)
    assert again.revision == 0 and again.note.startswith("Already confirmed")
    assert again.run is not bob.run and again.campaign is alice.campaign
    async with storage.read_only(GUILD) as tx:
        stored = await tx.load_sequence_at(campaign_id, run_key("b1"), PostBattleRun)
    assert stored is not None and stored[0] == bob.run and stored[1] == bob.revision
