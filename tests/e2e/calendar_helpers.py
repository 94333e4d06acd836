"""Steps of the scheduling and campaign-week tests: the stored calendar, a bot whose clock
the test moves (MUNDA_CLOCK_FILE), a battle proposed and agreed through the buttons, and
the reminders it posted."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio

from bot.clock import CLOCK_FILE_VAR, FileClock
from bot.storage import Campaign
from demo.arena import Arena, open_arena
from fakediscord.entities import Message, ScheduledEvent
from fakediscord.result import InteractionResult
from rules.cycles import Calendar
from tests.e2e.battle_helpers import CHANNEL, GUILD, until
from tests.e2e.helpers import database

REMINDER = "Reminder:"


async def calendar_of(arena: Arena, campaign: str, guild: str = GUILD
                      ) -> tuple[Campaign, Calendar]:
    """The campaign and its calendar as stored now."""
    guild_id = arena.fake.world.guild(guild).id
    async with database(arena) as storage:
        found = await storage.read(guild_id).get_campaign_by_name(campaign)
        stored = await storage.read(guild_id).get_calendar(found.id)
    assert stored is not None
    return found, stored[0]


def clock_of(arena: Arena) -> FileClock:
    return FileClock(arena.workdir / "clock")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def clocked_arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    """The bot, on a clock the test moves by writing its file."""
    workdir: Path = tmp_path_factory.mktemp("arena")
    async with open_arena(workdir, env={CLOCK_FILE_VAR: str(workdir / "clock")}) as running:
        yield running


def typed(moment: datetime) -> str:
    """``moment`` as a player types it in a UTC campaign."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def in_days(arena: Arena, days: float) -> datetime:
    """A whole minute ``days`` after the bot's clock now."""
    return (clock_of(arena).now() + timedelta(days=days)).replace(second=0, microsecond=0)


async def propose(arena: Arena, who: str, gang: str, opponent: str, when: datetime,
                  campaign: str) -> InteractionResult:
    result = await arena.driver.slash(GUILD, CHANNEL, who, "schedule propose", gang=gang,
                                      opponent=opponent, when=typed(when), campaign=campaign)
    assert not result.ephemeral, result.text()
    assert "proposes a time for" in result.text(), result.text()
    return result


async def agreed(arena: Arena, campaign: str, bobs: str, dans: str,
                 when: datetime, *, other: str = "dan") -> Message:
    """bob proposes ``when`` for ``bobs`` against ``other``'s (dan's) ``dans``; they
    accept."""
    proposal = await propose(arena, "bob", bobs, dans, when, campaign)
    assert proposal.message is not None
    accepted = await arena.driver.click(proposal.message, "Accept", other)
    assert not accepted.ephemeral, accepted.text()
    assert "Agreed" in proposal.message.content, proposal.message.content
    return proposal.message


async def event_named(arena: Arena, name: str, status: int | None = None) -> ScheduledEvent:
    """The server's Discord event called ``name`` (in ``status``, when given), once the
    bot has made (or changed) it after its answer."""
    def found() -> ScheduledEvent | None:
        for event in arena.fake.guild(GUILD).scheduled_events.values():
            if event.name == name and (status is None or event.status == status):
                return event
        return None

    return await until(found, f"the event {name}" + (f" in status {status}" if status else ""))


def reminders(arena: Arena, channel: str = CHANNEL, guild: str = GUILD) -> list[Message]:
    return [m for m in arena.driver.messages(channel, guild=guild) if REMINDER in m.content]


async def reminded(arena: Arena, count: int) -> list[Message]:
    """Wait until the channel shows ``count`` reminders; they are returned."""
    return await until(lambda: reminders(arena) if len(reminders(arena)) >= count else None,
                       f"{count} reminders", timeout=20.0)
