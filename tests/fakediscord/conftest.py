"""Fixtures: a fake Discord with the demo world, and a real discord.py bot connected to it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest

from fakediscord import Driver, FakeDiscord, point_discord_py_at
from tests.fakediscord.sample_bot import SampleBot

TOKEN = "fake-token"


@pytest.fixture
async def server() -> AsyncIterator[tuple[FakeDiscord, aiohttp.ClientSession]]:
    """The fake on loopback and an HTTP session with its token, no bot: the REST surface
    checked directly."""
    fake = FakeDiscord.demo(token=TOKEN)
    await fake.start()
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {TOKEN}"}) as session:
        yield fake, session
    await fake.stop()


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord.demo(token=TOKEN)
    base_url = await fake.start()
    restore = point_discord_py_at(base_url)
    try:
        yield fake
    finally:
        restore()
        await fake.stop()


async def start_bot(fake: FakeDiscord, bot: SampleBot) -> asyncio.Task[None]:
    """Start ``bot`` and wait until the fake sees it ready; surface startup crashes at once."""
    task = asyncio.create_task(bot.start(TOKEN))
    ready = asyncio.create_task(fake.wait_until_ready(timeout=10))
    done, _ = await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        ready.cancel()
        task.result()
        raise AssertionError("bot.start() returned before the bot was ready")
    await ready
    return task


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[SampleBot]:
    bot = SampleBot(admin_guild_id=fake.guild("Underhive").id)
    task = await start_bot(fake, bot)
    try:
        yield bot
    finally:
        await bot.close()
        await asyncio.wait_for(task, timeout=5)


@pytest.fixture
def driver(fake: FakeDiscord, bot: SampleBot) -> Driver:
    return fake.driver(timeout=5.0)
