"""CPU per Confirm without Discord: the decision and its storing, on a real SQLite file.

Plays ``--sequences`` post-battle sequences of two 15-fighter gangs (3 items each, a
staked Territory) from their first step to the end, both players confirming every
step through ``engine.confirm_stage``, the function a Confirm click calls before
anything is shown. What a click costs on top of this (discord.py's parsing, the
answer, the redraw, the outbox) is measured by ``bot_bench.py``.

Run: ``.venv/bin/python bench/confirm_bench.py [--runs 5] [--sequences 8]``; prints the
CPU (process time, every thread) per Confirm of each run and their min/median/max.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.battle import engine, flow
from bot.battle.state import Phase, PostBattleRun, run_key
from bot.storage.opening import open_storage
from bot.storage.repository import Storage
from rules.models import Battle, CampaignSettings, FighterCategory, Gang
from tests import factories as f
from tests.test_battle_flow import ALICE, BOB


class _Client:
    """What ``confirm_stage`` uses of the bot: its storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage


def _gang(gang_id: str, owner: str, prefix: str) -> Gang:
    fighters = [
        f.fighter(f"{prefix} {n}", FighterCategory.GANGER, id=f"{gang_id}-{n}", skills=["A"],
                  equipment=[f.item(f"W{j}", 10, id=f"{gang_id}-{n}-{j}") for j in range(3)])
        for n in range(15)
    ]
    return f.gang(f"Gang {prefix}", fighters=fighters, id=gang_id, owner=owner)


async def _sequence_at_first_step(storage: Storage, guild: int) -> tuple[str, PostBattleRun]:
    """A campaign with a reported battle whose run stands at its first step."""
    campaign = await storage.write(guild).create_campaign(CampaignSettings(name="Bench"),
                                             arbitrator_user_ids=[99])
    gangs = [_gang("g1", "10", "Ash"), _gang("g2", "20", "Iron")]
    for gang in gangs:
        await storage.write(guild).create_gang(campaign.id, gang, actor="10")
    await storage.write(guild).add_territory(
        campaign.id, f.territory("Sump", id="t1", controller="g1"), actor="10")
    battle = await storage.write(guild).create_battle(
        campaign.id, Battle(id="b1", gang_ids=["g1", "g2"], winner="g1", campaign=True))
    world = f.world(*gangs)
    run = flow.new_run(ALICE, campaign, battle, world, skirmish=False, sequence_id="s1",
                       channel_id=5)
    run = flow.submit_report(ALICE, campaign, run, world, 0).run
    decision = flow.submit_report(BOB, campaign, run, world, 1)
    world = await storage.read(guild).load_world(campaign.id, ["g1", "g2"])
    world = flow.open_wrap_up(decision, BOB, campaign, battle, world)
    assert decision.battle is not None
    async with storage.transaction(guild) as tx:
        for action in decision.actions:
            await tx.apply(campaign.id, action.result, actor="20", battle_id="b1",
                           step=action.step)
        await tx.update_battle(campaign.id, decision.battle)
        await tx.save_sequence(campaign.id, run_key("b1"), decision.run, battle_id="b1")
    return campaign.id, decision.run


async def one_run(sequences: int) -> float:
    """CPU seconds per Confirm over ``sequences`` whole sequences."""
    with tempfile.TemporaryDirectory() as folder:
        storage = await open_storage(str(Path(folder) / "bench.db"))
        client = cast(Any, _Client(storage))
        try:
            runs = [await _sequence_at_first_step(storage, 5000 + i) for i in range(sequences)]
            confirms = 0
            started = time.process_time()
            for i, (campaign_id, run) in enumerate(runs):
                guild = 5000 + i
                while run.current is not None and run.phase is Phase.SEQUENCE:
                    stage = run.current.number
                    await engine.confirm_stage(
                        engine.RunCall(client, guild, ALICE, campaign_id, "b1"), stage)
                    stored = await engine.confirm_stage(
                        engine.RunCall(client, guild, BOB, campaign_id, "b1"), stage)
                    run = stored.run
                    confirms += 2
            return (time.process_time() - started) / confirms
        finally:
            await storage.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sequences", type=int, default=8)
    args = parser.parse_args()
    figures = []
    for n in range(args.runs):
        per_confirm = asyncio.run(one_run(args.sequences)) * 1000
        figures.append(per_confirm)
        print(f"run {n + 1}: {per_confirm:.2f} ms of CPU per Confirm")
    print(f"min / median / max: {min(figures):.2f} / {statistics.median(figures):.2f} / "
          f"{max(figures):.2f} ms per Confirm")


if __name__ == "__main__":
    main()
