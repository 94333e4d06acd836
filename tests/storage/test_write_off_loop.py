"""A large gang's write does its pure work (the stale-world check, the undo snapshot,
the fighter and vehicle rows) in a worker thread, never on the event loop's thread.

Which thread ran what is read with a profile hook on the loop's thread
(``sys.setprofile`` is per thread): no clock is involved.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

from bot.storage import Campaign, Storage, codec, ledger, roster
from bot.storage.offloop import LARGE_ROSTER
from rules import world
from rules.models import Gang
from tests import factories as f

from .conftest import ACTOR, GUILD_A

# Work that grows with the roster: each call at the import bounds is tens of ms.
ROSTER_SIZED = {
    world.diff_worlds.__code__: "diff_worlds",
    ledger._check_current.__code__: "ledger._check_current",
    ledger.pack_snapshot.__code__: "ledger.pack_snapshot",
    codec.fighter_row.__code__: "codec.fighter_row",
    codec.vehicle_row.__code__: "codec.vehicle_row",
}
# Read on the loop by every write: seen, it shows the hook was live on that thread.
ON_THE_LOOP = {roster.fetch_rosters.__code__: "roster.fetch_rosters"}


@contextmanager
def calls_on_this_thread() -> Iterator[set[str]]:
    """The functions named above called on the current thread (the loop's) meanwhile."""
    seen: set[str] = set()

    def profile(frame: FrameType, event: str, _: Any) -> None:
        code: CodeType = frame.f_code
        if event == "call" and code in ROSTER_SIZED:
            seen.add(ROSTER_SIZED[code])
        elif event == "call" and code in ON_THE_LOOP:
            seen.add(ON_THE_LOOP[code])

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)


def large_gang() -> Gang:
    fighters = [f.fighter(f"Ganger {n:03d}", equipment=[f.item()], skills=["Nerves of Steel"])
                for n in range(LARGE_ROSTER + 1)]
    return f.gang("Many Hands", fighters=fighters, vehicles=[f.vehicle("Cargo-8 One")])


async def test_a_large_new_gang_is_checked_and_built_off_the_loop(
    storage: Storage, campaign: Campaign
) -> None:
    gang = large_gang()
    with calls_on_this_thread() as on_loop:
        await storage.write(GUILD_A).create_gang(campaign.id, gang, actor=ACTOR)
    assert on_loop == {"roster.fetch_rosters"}
    assert await storage.read(GUILD_A).get_gang(campaign.id, gang.id) == gang


async def test_a_large_gang_replaced_whole_is_checked_and_built_off_the_loop(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, large_gang(), actor=ACTOR)
    gang.credits += 10
    gang.fighters[0].xp += 3
    gang.fighters.append(f.fighter("Latecomer"))
    with calls_on_this_thread() as on_loop:
        await storage.write(GUILD_A).update_gang(campaign.id, gang, actor=ACTOR)
    assert on_loop == {"roster.fetch_rosters"}
    assert await storage.read(GUILD_A).get_gang(campaign.id, gang.id) == gang

