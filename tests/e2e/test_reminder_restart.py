"""The bot killed across a due reminder, and restarted: each reminder is posted once.

Two ways to die: SIGKILL while the bot is down across the reminder's time (the restart
fires it late, and the post says so), and SIGKILL right after the timer fired and its
post was owed (``after-timer-fired``): the restart sends the owed post, never a second.
Its own module: one bot process, killed and restarted, and its clock moved by hand.
"""

from __future__ import annotations

import asyncio
import signal
from datetime import timedelta

import pytest

from bot import failpoints
from demo.arena import Arena
from tests.e2e.battle_helpers import bot_ready, new_campaign_of_two
from tests.e2e.calendar_helpers import (
    agreed,
    clock_of,
    clocked_arena,
    in_days,
    reminded,
    reminders,
)

arena = clocked_arena

pytestmark = pytest.mark.usefixtures("players")

# Long enough for a scan of the timers and the outbox after a restart.
SETTLE = 3.0


async def test_killed_across_a_reminder_each_reminder_is_posted_once(arena: Arena) -> None:
    d = arena.driver
    await bot_ready(arena)
    await new_campaign_of_two(d, "Kill Dates", "Brass Hounds", "Mire Kin")
    starts = in_days(arena, 2)
    await agreed(arena, "Kill Dates", "Brass Hounds", "Mire Kin", starts)

    # Down across the day-before reminder: it comes once, late, after the restart.
    await arena.stop_bot(kill=True)
    clock = clock_of(arena)
    clock.move(starts - timedelta(hours=24) - clock.now() + timedelta(hours=2))
    assert reminders(arena) == []
    await arena.start_bot()
    late = await reminded(arena, 1)
    assert "Posted late" in late[0].content, late[0].content
    await asyncio.sleep(SETTLE)
    await arena.restart_bot()  # a second start finds it fired
    await asyncio.sleep(SETTLE)
    assert len(reminders(arena)) == 1

    # Killed just after the hour-before reminder fired, its post owed and not yet sent.
    await arena.restart_bot(env={failpoints.ENV_VAR: failpoints.AFTER_TIMER_FIRED})
    process = arena.process
    assert process is not None
    clock.move(starts - timedelta(hours=1) - clock.now() + timedelta(minutes=1))
    code = await asyncio.wait_for(process.wait(), 20.0)
    assert code == -signal.SIGKILL, arena.log_tail()
    assert f"failpoint {failpoints.AFTER_TIMER_FIRED}: killing" in arena.log_tail(5)
    arena.process = None
    await arena.start_bot()
    both = await reminded(arena, 2)
    assert "Posted late" not in both[1].content
    await asyncio.sleep(SETTLE)
    assert len(reminders(arena)) == 2
