"""/help: every command of the bot, one line per top-level command, read from the command tree.

Built from the tree the bot syncs, so a command added to a cog shows up here
without anyone editing a list. The answer is private: it is for the one who asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.call import Call
from bot.cog import BotCog, adds
from bot.render import clip
from bot.slash import slash
from bot.ui import DESCRIPTION_CHARS

if TYPE_CHECKING:
    pass

GUIDES = (
    "Players: /gang create, then /fighter add; after a battle, /postbattle start and "
    "follow the thread. Arbitrators: /campaign create, then /campaign settings. "
    "Every command with examples is in docs/commands.md of the bot's source; the "
    "player's card is docs/player.md and the Arbitrator's guide docs/arbitrator.md."
)

Command = app_commands.Command[Any, ..., Any] | app_commands.Group


def subcommand_names(group: app_commands.Group, prefix: str = "") -> list[str]:
    """The group's commands by name, a nested group's as ``territory add/list``."""
    names: list[str] = []
    for child in group.commands:
        if isinstance(child, app_commands.Group):
            inner = "/".join(c.name for c in child.commands)
            names.append(f"{prefix}{child.name} {inner}")
        else:
            names.append(f"{prefix}{child.name}")
    return names


def help_line(command: Command) -> str:
    """``/name``: what it is for, and a group's commands after it."""
    line = f"**/{command.name}**: {command.description}"
    if isinstance(command, app_commands.Group):
        line += f" ({', '.join(subcommand_names(command))})"
    return line


def help_embed(commands_: list[Command]) -> discord.Embed:
    lines = [help_line(c) for c in sorted(commands_, key=lambda c: c.name)]
    embed = discord.Embed(
        title="Munda Arbitrator: commands",
        description=clip("\n".join(lines), DESCRIPTION_CHARS),
        colour=discord.Colour.blurple(),
    )
    embed.add_field(name="Where to start", value=GUIDES, inline=False)
    return embed


class HelpCog(BotCog, commands.Cog):
    @slash("help", "Every command of the bot, one line each")
    async def help_(self, call: Call) -> None:
        tree_commands = [c for c in self.bot.tree.get_commands()
                         if isinstance(c, app_commands.Command | app_commands.Group)]
        await call.say(None, embed=help_embed(tree_commands), ephemeral=True)


setup = adds(HelpCog)
