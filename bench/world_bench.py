"""CPU of the rules' copy and diff of a world: what every rules computation pays around its work.

The world is two gangs of 15 fighters with 3 items each and a Territory, as in
``confirm_bench.py``. Each case is timed ``--repeat`` times per run, ``--runs`` runs:

- ``copy``: ``Workspace(world)``, the copy a computation works on;
- ``finish, nothing changed``: a Workspace finished untouched (copy and diff);
- ``finish, a wrap-up's changes``: a Workspace in which each gang's credits and three of
  its fighters (status, XP, a lost item) change, then finished;
- ``finish, one territory``: only the Territory's controller changes;
- ``diff of equal, separately built worlds``: ``diff_worlds`` of two worlds that share no
  object, as the store compares what it read with what a result wants to write.

Run: ``.venv/bin/python bench/world_bench.py [--runs 7] [--repeat 200]``; prints the CPU
(process time) per operation of each case as min/median/max over the runs, in µs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.models import FighterCategory, FighterStatus, Gang
from rules.world import RuleResult, Workspace, World, diff_worlds
from tests import factories as f


def _gang(gang_id: str, prefix: str) -> Gang:
    fighters = [
        f.fighter(f"{prefix} {n}", FighterCategory.GANGER, id=f"{gang_id}-{n}", skills=["A"],
                  equipment=[f.item(f"W{j}", 10, id=f"{gang_id}-{n}-{j}") for j in range(3)])
        for n in range(15)
    ]
    return f.gang(f"Gang {prefix}", fighters=fighters, id=gang_id)


def _world() -> World:
    return f.world(_gang("g1", "Ash"), _gang("g2", "Iron"),
                   territories=[f.territory("Sump", id="t1", controller="g1")])


def _copy(world: World) -> None:
    Workspace(world)


def _finish_unchanged(world: World) -> None:
    Workspace(world).finish(RuleResult, clause="BENCH", title="bench")


def _finish_wrap_up(world: World) -> None:
    ws = Workspace(world)
    for gang in ws.world.gangs.values():
        gang.credits += 10
        for fighter in gang.fighters[:3]:
            fighter.set_status(FighterStatus.IN_RECOVERY)
            fighter.xp += 2
            fighter.equipment.pop()
    result = ws.finish(RuleResult, clause="BENCH", title="bench")
    assert len(result.changes) == 2 * (1 + 3 * 3)


def _finish_territory(world: World) -> None:
    ws = Workspace(world)
    ws.world.territory("t1").controller = "g2"
    result = ws.finish(RuleResult, clause="BENCH", title="bench")
    assert len(result.changes) == 1


def _diff_separate(world: World, twin: World) -> None:
    assert diff_worlds(world, twin) == []


def _per_call(action: Callable[[], None], repeat: int) -> float:
    """CPU µs per call of ``action`` over ``repeat`` calls."""
    started = time.process_time()
    for _ in range(repeat):
        action()
    return (time.process_time() - started) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    world = _world()
    twin = World.model_validate(world.model_dump())
    cases: dict[str, Callable[[], None]] = {
        "copy": lambda: _copy(world),
        "finish, nothing changed": lambda: _finish_unchanged(world),
        "finish, a wrap-up's changes": lambda: _finish_wrap_up(world),
        "finish, one territory": lambda: _finish_territory(world),
        "diff of equal, separately built worlds": lambda: _diff_separate(world, twin),
    }
    for action in cases.values():  # warm every cache before timing
        action()
    for name, action in cases.items():
        figures = [_per_call(action, args.repeat) for _ in range(args.runs)]
        print(f"{name:40s} min / median / max: {min(figures):7.1f} / "
              f"{statistics.median(figures):7.1f} / {max(figures):7.1f} µs CPU")


if __name__ == "__main__":
    main()
