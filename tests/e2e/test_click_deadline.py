"""A click whose write cannot be made at once is acknowledged within the answer's
deadline (bot/battle/clicks.py), not after the write, and its message is redrawn once
the write is made.

The test holds SQLite's write lock from outside the bot (BEGIN IMMEDIATE on the
database file), so the bot's write waits on the file (its busy timeout), whatever
its own writer lock says.
"""

from __future__ import annotations

import asyncio
import sqlite3

from demo.arena import Arena
from fakediscord.common import CallbackType
from tests.e2e.postbattle_steps import campaign_of_two, eventually, report_panel, start

# Long enough to tell "after the write" from "at the deadline", well inside the bot's
# 5-second busy timeout.
HOLD = 2.0


async def test_a_click_waiting_for_the_database_is_acknowledged_at_once(arena: Arena) -> None:
    camp = await campaign_of_two(arena, "Slow Ledger", "Ash Cats", "Tin Dogs")
    _, thread = await start(arena, "bob", camp, "Ash Cats", "Ash Cats", "Tin Dogs")
    panel = report_panel(arena, thread, "Tin Dogs")
    outside = sqlite3.connect(arena.database_path, isolation_level=None)
    try:
        outside.execute("BEGIN IMMEDIATE")
        clicked = asyncio.create_task(arena.driver.select(
            panel, "Report which part?", ["ooa"], "carol", wait_deferred=False))
        # Answered while the database is still locked: an acknowledgement.
        result = await asyncio.wait_for(clicked, HOLD)
        assert result.record.callback_type == CallbackType.DEFERRED_UPDATE_MESSAGE
    finally:
        outside.execute("ROLLBACK")
        outside.close()
    # The write then goes through and the panel shows the choice.
    await eventually(lambda: any(
        (c.get("custom_id") or "").startswith("munda:pb:pick:")
        for c in report_panel(arena, thread, "Tin Dogs").iter_components()),
        "the panel to show the Out of Action part")
