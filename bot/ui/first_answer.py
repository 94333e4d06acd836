"""A click's first response, made once, within a quarter of a second.

A route registered with ``first_answer=True`` gets a :class:`FirstAnswer` from the
router (``click.answer``): the handler decides, then answers with the edit of the
message clicked when that comes quickly, and the timers here acknowledge the
click otherwise, so that the player's button stops spinning however long the
write and the drawing take (docs/battle.md, "Answering a click"). The router
waits for an acknowledgement in flight before it answers an error.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord.utils import MISSING

# A click answered with its own message's edit waits, once decided, for its write and
# drawing; past this long it is acknowledged instead, and the message redrawn after.
ANSWER_DEADLINE = 0.02
# Whatever it waits for, a click is acknowledged this long after it arrived: the
# player's button stops spinning within a quarter of a second even when a hundred
# battles queue at the database, and Discord's 3 seconds are never near (a refusal
# found later is then a private follow-up; docs/battle.md).
LAST_MOMENT = 0.25


class FirstAnswer:
    """A click's first response, made once: a refusal or a note before the decision; then
    its own message's edit when that comes within ANSWER_DEADLINE of the decision,
    otherwise an acknowledgement; and an acknowledgement LAST_MOMENT after the click
    whatever it waits for."""

    def __init__(self, interaction: discord.Interaction[Any]) -> None:
        self.interaction = interaction
        self._claimed = False
        self._acknowledging: asyncio.Task[Any] | None = None
        loop = asyncio.get_running_loop()
        self._last = loop.call_later(LAST_MOMENT, self._late)
        self._timer: asyncio.TimerHandle | None = None

    def decided(self) -> None:
        """The click is decided (no refusal left): start the deadline."""
        if self._timer is None and not self._claimed:
            self._timer = asyncio.get_running_loop().call_later(ANSWER_DEADLINE, self._late)

    def _late(self) -> None:
        if not self._claimed:
            self._claimed = True
            self._acknowledging = asyncio.ensure_future(self.interaction.response.defer())

    def claim(self) -> bool:
        """Whether the caller may make the first response itself (nothing else will)."""
        if self._claimed:
            return False
        self._claimed = True
        self._stop()
        return True

    def _stop(self) -> None:
        self._last.cancel()
        if self._timer is not None:
            self._timer.cancel()

    async def acknowledge(self) -> None:
        """Acknowledge now, unless the click is answered (or being answered) already."""
        if self.claim():
            await self.interaction.response.defer()
        await self.settled()

    async def settled(self) -> None:
        """Stop the deadlines; wait for an acknowledgement they started (before a
        follow-up)."""
        self._stop()
        if self._acknowledging is not None:
            await self._acknowledging

    async def tell(self, text: str, view: discord.ui.View = MISSING) -> None:
        """Say ``text`` privately: as the first response while it is still this one's to
        make, else (acknowledged already) as a follow-up."""
        if self.claim():
            await self.interaction.response.send_message(text, view=view, ephemeral=True)
        else:
            await self.settled()
            await self.interaction.followup.send(text, view=view, ephemeral=True)
