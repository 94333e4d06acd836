"""The one clock of the bot: every "when" (a cycle's end, a reminder, a backup) is read here.

Time is asked of a :class:`Clock` handed in, never of ``datetime.now`` directly, so that a
test or the demo can move it forward by hand and see what is due happen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
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


class ManualClock:
    """A clock that stands still until it is moved (:meth:`move`, :meth:`set`): the tests'
    clock. A sleep ends when the clock is moved to or past its end, never on its own."""

    def __init__(self, start: datetime) -> None:
        self._now = start
        self._moved = asyncio.Event()

    def now(self) -> datetime:
        return self._now

    def move(self, by: timedelta) -> None:
        self.set(self._now + by)

    def set(self, when: datetime) -> None:
        self._now = when
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()

    async def sleep(self, seconds: float) -> None:
        until = self._now + timedelta(seconds=seconds)
        while self._now < until:
            await self._moved.wait()


# A file whose text is a number of seconds added to the machine's time: a test (or the
# demo) moves the clock of a bot running in another process by writing it.
CLOCK_FILE_VAR = "MUNDA_CLOCK_FILE"
# How often a sleeping FileClock reads its file again: how soon a moved clock is seen.
FILE_CLOCK_POLL = 0.2


class FileClock:
    """The machine's time plus the offset written in a file (no file, no number: none)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def offset(self) -> timedelta:
        try:
            return timedelta(seconds=float(self.path.read_text().strip() or 0))
        except (OSError, ValueError):
            return timedelta()

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset()

    async def sleep(self, seconds: float) -> None:
        until = self.now() + timedelta(seconds=seconds)
        while (left := (until - self.now()).total_seconds()) > 0:
            await asyncio.sleep(min(left, FILE_CLOCK_POLL))

    def move(self, by: timedelta) -> None:
        """Move the clock forward by ``by`` (for the process that started the bot)."""
        self.path.write_text(str((self.offset() + by).total_seconds()))


def clock_from(environ: Mapping[str, str]) -> Clock:
    """The bot's clock: the machine's, or a :class:`FileClock` when ``MUNDA_CLOCK_FILE``
    names one (tests and the demo only; docs/reliability.md)."""
    path = environ.get(CLOCK_FILE_VAR)
    return FileClock(Path(path)) if path else SystemClock()
