"""Benchmark of the pictures: a 40-fighter roster card, the campaign chart, a battle card.

Each is drawn ``--runs`` times in this process after one warm-up drawing (the
first drawing also opens the fonts and reads their character maps; its time
is printed on its own line). Prints min, median and max in milliseconds, with
the 1-minute load average before and after: the machine is shared, and a
figure taken under load is not comparable with a quiet one.

Run: ``.venv/bin/python bench/pictures_bench.py [--runs 20] [--fighters 40]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.pictures import ChartPoint, GangSeries, Measure, battle_card, campaign_chart, roster_card
from rules.models import (
    Equipment,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Item,
    Vehicle,
)
from rules.report import BattleReport, GangReportLine
from rules.world import World

NAMES = ["Krag Ironhide", "Жук Кровавый", "Ωμέγα Λύκος", "鬼龍 the Silent", "💀 Skullface",
         "한글 Hanwool", "Vexa Slagborn"]
GEAR = [
    Equipment(name="Autogun", cost=15, kind=EquipmentKind.WEAPON),
    Equipment(name="Stub gun", cost=5, kind=EquipmentKind.WEAPON),
    Equipment(name="Flak armour", cost=10, kind=EquipmentKind.ARMOUR),
    Equipment(name="Frag grenades", cost=30, kind=EquipmentKind.WEAPON),
]


def _item(index: int, kind: Equipment) -> Item:
    return Item(id=f"i{index}-{kind.name}", **kind.model_dump())


def sample_gang(fighters: int = 40) -> Gang:
    """A gang as a long campaign leaves it: names in several scripts, 1-4 items each,
    skills, injuries, some fighters In Recovery, a vehicle and a Stash."""
    roster = []
    for index in range(fighters):
        category = (FighterCategory.LEADER if index == 0 else
                    FighterCategory.CHAMPION if index < 3 else
                    FighterCategory.GANGER if index < 23 else FighterCategory.JUVE)
        fighter = Fighter(
            id=f"f{index}", name=f"{NAMES[index % len(NAMES)]} {index + 1}", category=category,
            fighter_type="Bruiser", cost=50 + index % 5 * 15, xp=index % 13, kills=index % 4,
            skills=["Nerves of Steel", "Iron Jaw"] if index % 3 == 0 else [],
            special_rules=["Gang Fighter (Goliath)"] if index % 2 else [],
            lasting_injuries=["Humiliated", "Head Wound"] if index % 7 == 3 else [],
            equipment=[_item(index, kind) for kind in GEAR[: 1 + index % len(GEAR)]],
        )
        if index % 9 == 4:
            fighter.set_status(FighterStatus.IN_RECOVERY)
        roster.append(fighter)
    van = Vehicle(id="v1", name="Rust Bucket", vehicle_type="Ridgehauler", cost=120,
                  crew_id=roster[-1].id,
                  upgrades=[Item(id="u1", name="Ram", cost=20,
                                 kind=EquipmentKind.VEHICLE_UPGRADE)])
    return Gang(id="g1", name="The Slag Lords", house="Goliath", owner="1", credits=235,
                reputation=12, battles_fought=7, fighters=roster, vehicles=[van],
                stash=[Item(id="s1", name="Stimm-slug stash", cost=30)])


def sample_series(gangs: int = 6, battles: int = 20) -> list[GangSeries]:
    lines = []
    for gang in range(gangs):
        points = [
            ChartPoint(battle=b, rating=1000 + 37 * b + 11 * gang,
                       wealth=1200 + 41 * b + 29 * gang, reputation=1 + b, credits=100 + 5 * b)
            for b in range(gang % 3, battles, 2)
        ]
        lines.append(GangSeries(gang_id=f"g{gang}", gang_name=f"{NAMES[gang % len(NAMES)]}",
                                points=points))
    return lines


def sample_report() -> BattleReport:
    lines = [
        GangReportLine(gang_id="g1", gang_name="The Slag Lords", outcome="win",
                       enemies_out_of_action=3, gang_rating=1240, wealth=1500),
        GangReportLine(gang_id="g2", gang_name="鬼龍団", outcome="loss",
                       enemies_out_of_action=1, gang_rating=980, wealth=1100),
    ]
    return BattleReport(clause="PB-7", title="Report Results", world=World(), battle_id="b1",
                        scenario="Sneak Attack", winner_id="g1", winner_name="The Slag Lords",
                        territory_id="t1", territory_name="Old Ruins", gangs=lines)


def _time(label: str, draw: Callable[[], object], runs: int) -> None:
    start = time.perf_counter()
    draw()
    first = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        draw()
        times.append((time.perf_counter() - start) * 1000)
    print(f"{label:<34} {min(times):8.1f} {statistics.median(times):8.1f} {max(times):8.1f}"
          f"   (n={runs}; first of these {first:.1f})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--fighters", type=int, default=40)
    parser.add_argument("--worst", action="store_true",
                        help="also draw the largest roster the import limits allow, once")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    gang = sample_gang(args.fighters)
    series = sample_series()
    report = sample_report()
    start = time.perf_counter()
    pages = len(roster_card(gang))
    cold = (time.perf_counter() - start) * 1000
    print(f"first roster card of the process (fonts opened, character maps read): {cold:.1f} ms")
    print(f"{'picture (ms)':<34} {'min':>8} {'median':>8} {'max':>8}")
    _time(f"roster card, {args.fighters} fighters ({pages} pages)", lambda: roster_card(gang),
          args.runs)
    _time("campaign chart, 6 gangs x 20 battles", lambda: campaign_chart(series, Measure.RATING),
          args.runs)
    _time("battle card, 2 gangs", lambda: battle_card(report), args.runs)
    if args.worst:
        # The largest roster the import limits let in (tests/pictures/helpers.py), once.
        from tests.pictures.helpers import worst_gang

        worst = worst_gang()
        start = time.perf_counter()
        drawn = len(roster_card(worst))
        print(f"worst card the import limits allow ({len(worst.fighters)} fighters, every list "
              f"full): {(time.perf_counter() - start) * 1000:.0f} ms, {drawn} pages")
    print(f"load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
