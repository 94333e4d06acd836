"""The baseline: a bare discord.py bot that answers every interaction with a fixed reply.

It is what the library costs with no code of ours on top: a plain
``discord.Client`` (the same intents as the real bot, no command tree, no
cogs, no database) that registers the command schemas it is given (copied
from what the real bot synced, so the fake Discord builds the same slash
interactions for it) and answers every interaction at once: a fixed
ephemeral message for commands, buttons and selects, an empty list for
autocomplete.

Run by ``bench/bot_bench.py`` as its own process, as the real bot is::

    FAKE_DISCORD_URL=http://127.0.0.1:<port>/api/v10 \\
        python bench/baseline_bot.py --token T --commands commands.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

import discord

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakediscord.client import point_discord_py_from_env

REPLY = "ok"
# Keys Discord adds to a stored command; a PUT sends the schema without them.
_STORED_KEYS = ("id", "application_id", "version", "guild_id")


def schemas(path: Path) -> list[dict[str, Any]]:
    stored = json.loads(path.read_text(encoding="utf-8"))
    return [{k: v for k, v in command.items() if k not in _STORED_KEYS} for command in stored]


class BaselineBot(discord.Client):
    def __init__(self, commands: list[dict[str, Any]]) -> None:
        super().__init__(intents=discord.Intents(guilds=True),
                         allowed_mentions=discord.AllowedMentions.none())
        self.commands = commands

    async def setup_hook(self) -> None:
        assert self.application_id is not None
        await self.http.bulk_upsert_global_commands(self.application_id, self.commands)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await interaction.response.send_message(REPLY, ephemeral=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token", required=True)
    parser.add_argument("--commands", type=Path, required=True,
                        help="JSON list of command schemas to register globally")
    args = parser.parse_args()
    if point_discord_py_from_env() is None:
        raise SystemExit("FAKE_DISCORD_URL is not set")
    bot = BaselineBot(schemas(args.commands))
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    async with bot:
        await bot.start(args.token)


if __name__ == "__main__":
    asyncio.run(main())
