"""What every cog shares: the bot it serves, and the ``setup`` that adds it.

A cog is ``class StashCog(BotCog, commands.GroupCog, group_name="stash", ...)``
with ``self.bot`` set, and its module ends with ``setup = adds(StashCog)``,
the hook discord.py's ``load_extension`` calls.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import MundaBot


class BotCog:
    """Keeps the bot on ``self.bot``; listed before ``commands.Cog`` or ``GroupCog``."""

    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()


def adds(*cogs: Callable[[MundaBot], commands.Cog]) -> Callable[[MundaBot],
                                                              Coroutine[Any, Any, None]]:
    """The extension's ``setup``: add these cogs to the bot."""

    async def setup(bot: MundaBot) -> None:
        for cog in cogs:
            await bot.add_cog(cog(bot))

    return setup
