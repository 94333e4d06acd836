"""The bot killed across a cycle's end, and restarted: the end, its standings and the next
cycle's start are each posted once.

Two ways to die: SIGKILL while the bot is down across the cycle's end (the restart's
timer ends it late, and its posts say so), and SIGKILL right after the cycle-end timer
fired and its posts were owed (``after-timer-fired``): the restart sends them, never a
second time, and decides nothing again. Its own module: one bot process, killed and
restarted, and its clock moved by hand.
"""

from __future__ import annotations

import asyncio
import signal
from datetime import timedelta

import pytest

from bot import failpoints
from demo.arena import Arena
from fakediscord import Message
from rules.cycles import Calendar
from tests.e2e.battle_helpers import CHANNEL, GUILD, bot_ready, new_campaign_of_two, slash, until
from tests.e2e.calendar_helpers import clock_of, clocked_arena
from tests.e2e.helpers import database

arena = clocked_arena

pytestmark = pytest.mark.usefixtures("players")

CAMPAIGN = "Kill Cycles"
# Long enough for a scan of the timers and the outbox after a restart.
SETTLE = 3.0
ENDED, STARTED = "standings at the end of cycle {}", "cycle {} of 7"


def posts(arena: Arena, text: str) -> list[Message]:
    return [m for m in arena.driver.messages(CHANNEL, guild=GUILD, include_ephemeral=False)
            if text in f"{m.content}\n{m.embed_text()}"]


async def calendar(arena: Arena) -> Calendar:
    guild_id = arena.fake.world.guild(GUILD).id
    async with database(arena) as storage:
        found = await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)
        stored = await storage.read(guild_id).get_calendar(found.id)
    assert stored is not None
    return stored[0]


async def move_past_the_end(arena: Arena, by: timedelta) -> None:
    current = (await calendar(arena)).current
    assert current is not None and current.ends_at is not None
    clock = clock_of(arena)
    clock.move(current.ends_at - clock.now() + by)


async def once_each(arena: Arena, cycle: int) -> tuple[Message, Message]:
    """Cycle ``cycle``'s end and the next one's start, each posted; after a while and a
    restart, still once."""
    ended = await until(lambda: posts(arena, ENDED.format(cycle)) or None,
                        f"the end of cycle {cycle}", timeout=20.0)
    started = await until(lambda: posts(arena, STARTED.format(cycle + 1)) or None,
                          f"the start of cycle {cycle + 1}", timeout=20.0)
    await asyncio.sleep(SETTLE)
    await arena.restart_bot()  # a second start finds it all done
    await asyncio.sleep(SETTLE)
    assert len(posts(arena, ENDED.format(cycle))) == 1
    assert len(posts(arena, STARTED.format(cycle + 1))) == 1
    return ended[0], started[0]


async def test_killed_across_a_cycles_end_each_post_comes_once(arena: Arena) -> None:
    d = arena.driver
    await bot_ready(arena)
    await new_campaign_of_two(d, CAMPAIGN, "Rust Hounds", "Pale Kin")
    await slash(d, "alice", "campaign cycle start", campaign=CAMPAIGN)
    await until(lambda: posts(arena, STARTED.format(1)) or None, "cycle 1's post")

    # Down across the end: after the restart it ends once, late, and says so.
    await arena.stop_bot(kill=True)
    await move_past_the_end(arena, timedelta(hours=2))
    await arena.start_bot()
    ended, started = await once_each(arena, 1)
    assert "Posted late" in ended.content and "Posted late" in started.content
    assert (await calendar(arena)).cycles[0].ended_at is not None

    # Killed just after the timer of cycle 2's end fired, its posts owed and not sent.
    await arena.restart_bot(env={failpoints.ENV_VAR: failpoints.AFTER_TIMER_FIRED})
    process = arena.process
    assert process is not None
    await move_past_the_end(arena, timedelta(minutes=1))
    code = await asyncio.wait_for(process.wait(), 20.0)
    assert code == -signal.SIGKILL, arena.log_tail()
    assert f"failpoint {failpoints.AFTER_TIMER_FIRED}: killing" in arena.log_tail(5)
    arena.process = None
    stored = await calendar(arena)
    assert len(stored.cycles) == 3  # ended and opened before the kill...
    assert posts(arena, STARTED.format(3)) == []  # ...not yet posted
    await arena.start_bot()
    ended, started = await once_each(arena, 2)
    assert "Posted late" not in ended.content
    assert await calendar(arena) == stored  # nothing decided again
