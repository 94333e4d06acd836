"""Run the sample bot in its own process.

Usage: ``FAKE_DISCORD_URL=<base url> python -m tests.fakediscord.bot_process GUILD_ID``.

This is how an end-to-end test runs the real bot: the only fake-specific line is
``point_discord_py_from_env()``.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from fakediscord.client import point_discord_py_from_env
from tests.fakediscord.sample_bot import SampleBot


async def main(guild_id: int) -> None:
    if point_discord_py_from_env() is None:
        raise SystemExit("FAKE_DISCORD_URL is not set")
    bot = SampleBot(admin_guild_id=guild_id)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    async with bot:
        await bot.start("fake-token")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
