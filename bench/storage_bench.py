"""Benchmark of the campaign storage on a realistic file.

Builds a database with ``--campaigns`` campaigns (one per server, each with
``--gangs`` gangs of ``--fighters`` fighters carrying equipment, a vehicle,
a Stash and territories), then times the hot operations of play:

- load one gang of 20 fighters with its equipment;
- load the World of a 2-gang battle (both gangs and the campaign's territories);
- apply one post-battle step (credits and a fighter status, with rolls) and
  the same step as the bot runs it: load, rule and apply in one transaction;
- read the 20 latest ledger events of a gang.

Run: ``.venv/bin/python bench/storage_bench.py [--campaigns 1000] [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.storage import Storage, new_id
from rules.dice import SeededRoller
from rules.models import (
    CampaignSettings,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Item,
    Territory,
    Vehicle,
)
from rules.world import RuleResult, Workspace, World

GUILD_BASE = 900_000_000_000_000_000
ACTOR = "100000000000000001"


def make_gang(index: int, fighters: int, owner: str) -> Gang:
    def item(name: str, cost: int, kind: EquipmentKind = EquipmentKind.WEAPON) -> Item:
        return Item(id=new_id(), name=name, cost=cost, kind=kind)

    roster = [
        Fighter(
            id=new_id(),
            name=f"G{index} Fighter {n}",
            category=FighterCategory.LEADER if n == 0 else FighterCategory.GANGER,
            cost=50 + n,
            xp=n,
            skills=["Nerves of Steel"] if n < 3 else [],
            gang_hierarchy=n < 3,
            equipment=[
                item("Lasgun", 15),
                item("Flak armour", 10, EquipmentKind.ARMOUR),
                *([item("Frag grenades", 30, EquipmentKind.WARGEAR)] if n % 2 else []),
            ],
        )
        for n in range(fighters)
    ]
    return Gang(
        id=new_id(),
        name=f"Gang {index}",
        house="Goliath",
        owner=owner,
        credits=200,
        fighters=roster,
        vehicles=[Vehicle(id=new_id(), name=f"G{index} Cargo-8", cost=120,
                          upgrades=[item("Ram", 20, EquipmentKind.VEHICLE_UPGRADE)])],
        stash=[item("Stub gun", 5), item("Medicae kit", 30, EquipmentKind.WARGEAR)],
    )


async def populate(storage: Storage, campaigns: int, gangs: int, fighters: int,
                   ) -> list[tuple[int, str, list[str]]]:
    """Create the campaigns; returns (guild id, campaign id, gang ids) for each."""
    made: list[tuple[int, str, list[str]]] = []
    for c in range(campaigns):
        guild = GUILD_BASE + c
        async with storage.transaction(guild) as tx:
            campaign = await tx.create_campaign(CampaignSettings(name=f"Campaign {c}"))
            ids = []
            for g in range(gangs):
                gang = make_gang(c * gangs + g, fighters, owner=str(1000 + g))
                await tx.create_gang(campaign.id, gang, actor=ACTOR)
                ids.append(gang.id)
            for t in range(5):
                territory = Territory(id=new_id(), name=f"Territory {t}", income="D6x10",
                                      controller=ids[t % len(ids)])
                await tx.add_territory(campaign.id, territory, actor=ACTOR)
        made.append((guild, campaign.id, ids))
    return made


def post_battle_step(world: World, gang_id: str, roller: SeededRoller) -> RuleResult:
    """Collect income and roll a fighter's recovery: credits and a status change, two rolls."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    income = ws.roll(roller, "D6x10", f"income for {gang.name}")
    gang.credits += income.total
    fighter = gang.fighters[1]
    recovery = ws.roll(roller, "D6", f"recovery of {fighter.name}")
    wanted = FighterStatus.ACTIVE if fighter.status is FighterStatus.IN_RECOVERY else (
        FighterStatus.IN_RECOVERY
    )
    fighter.set_status(wanted)
    ws.note(f"{gang.name} collects {income.total} credits; recovery roll {recovery.total}.")
    return ws.finish(RuleResult, clause="PB-4", title="Collect Income")


def size_mb(path: Path) -> float:
    wal = Path(f"{path}-wal")
    return (path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)) / 1e6


async def timed(label: str, runs: int, op: Callable[[], Awaitable[object]]) -> None:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        await op()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p50 = statistics.median(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    mean = statistics.fmean(samples)
    print(f"{label:<44} {p50:>8.2f} {p99:>8.2f} {mean:>8.2f}   (n={runs})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--gangs", type=int, default=4)
    parser.add_argument("--fighters", type=int, default=20)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--path", type=Path, help="database file (default: a temporary one)")
    args = parser.parse_args()
    if args.quick:
        args.campaigns, args.runs = min(args.campaigns, 20), min(args.runs, 30)

    with tempfile.TemporaryDirectory() as folder:
        path = args.path or Path(folder) / "bench.sqlite3"
        storage = await Storage.open(path)
        start = time.perf_counter()
        made = await populate(storage, args.campaigns, args.gangs, args.fighters)
        built = time.perf_counter() - start
        print(f"built {args.campaigns} campaigns x {args.gangs} gangs x {args.fighters} "
              f"fighters in {built:.1f} s; file {size_mb(path):.1f} MB (with its WAL)")
        rng = random.Random(1)
        roller = SeededRoller(2)

        def pick() -> tuple[int, str, list[str]]:
            return made[rng.randrange(len(made))]

        async def load_gang() -> None:
            guild, campaign, gangs = pick()
            await storage.read(guild).get_gang(campaign, gangs[0])

        async def load_world() -> None:
            guild, campaign, gangs = pick()
            await storage.read(guild).load_world(campaign, gangs[:2])

        prepared: list[tuple[int, str, RuleResult]] = []

        async def apply_step() -> None:
            guild, campaign, result = prepared.pop()
            await storage.write(guild).apply(campaign, result, actor=ACTOR, battle_id="b", step="4")

        async def full_step() -> None:
            guild, campaign, gangs = pick()
            async with storage.transaction(guild) as tx:
                world = await tx.load_world(campaign, gangs[:2])
                result = post_battle_step(world, gangs[0], roller)
                await tx.apply(campaign, result, actor=ACTOR, battle_id="b", step="4")

        async def recent() -> None:
            guild, campaign, gangs = pick()
            await storage.read(guild).recent_events(campaign, gang_id=gangs[0], limit=20)

        # Each prepared result comes from a different campaign, so none is stale.
        for guild, campaign, gangs in rng.sample(made, min(args.runs, len(made))):
            world = await storage.read(guild).load_world(campaign, gangs[:2])
            prepared.append((guild, campaign, post_battle_step(world, gangs[0], roller)))

        print(f"{'operation (ms)':<44} {'p50':>8} {'p99':>8} {'mean':>8}")
        await timed("load gang (20 fighters + equipment)", args.runs, load_gang)
        await timed("load World (2 gangs + territories)", args.runs, load_world)
        await timed("apply post-battle step", len(prepared), apply_step)
        await timed("load + rule + apply in one transaction", args.runs, full_step)
        await timed("recent_events(gang, limit=20)", args.runs, recent)
        await storage.close()
        print(f"file size after the runs: {size_mb(path):.1f} MB")


if __name__ == "__main__":
    asyncio.run(main())
