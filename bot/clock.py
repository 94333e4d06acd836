"""The one clock of the bot: every "when" (a cycle's end, a reminder, a backup) is read here.

Time is asked of a :class:`Clock` handed in, never of ``datetime.now`` directly, so that a
test or the demo can move it forward by hand and see what is due happen.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Time as the bot sees it: now, and a sleep a moved clock can cut short."""

    def now(self) -> datetime: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The machine's clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
