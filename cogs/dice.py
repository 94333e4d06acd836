"""/roll: any dice expression the rules support, rolled openly in the channel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.call import Call
from bot.cog import BotCog, adds
from bot.render import roll_line, safe
from bot.slash import slash
from rules.dice import SecureRoller, roll

if TYPE_CHECKING:
    from bot.app import MundaBot


class Dice(BotCog, commands.Cog):
    def __init__(self, bot: MundaBot) -> None:
        super().__init__(bot)
        self.roller = SecureRoller()

    @slash("roll", "Roll dice openly: D6, 2D6, D66, D3x10...",
           expression="D3, D6, 2D6, D66, 3D6, D3x10, D6x10, 2D6x10, D6x5",
           purpose="what the roll is for (shown with it)")
    async def roll_command(
        self,
        call: Call,
        expression: app_commands.Range[str, 1, 32],
        purpose: app_commands.Range[str, 0, 100] = "",
    ) -> None:
        who = call.interaction.user.display_name
        dice = roll(self.roller, expression, purpose.strip() or f"roll by {who}")
        await call.say(f"{safe(who)} rolls\n{roll_line(dice)}")


setup = adds(Dice)
