"""@slash: a command body is written ``(self, call: Call, options...)`` and handed the
interaction's Call, while discord.py builds the command from the body's own options,
their types looked up where the body is written (bot/slash.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.call import Call
from bot.slash import OPTION_HELP, slash, value_choices
from rules.models import FighterStatus

# Only this module knows the name: bot/slash.py, where the command's function lives,
# must not be where it is looked up.
Size = Literal["small", "large"]


class SampleCog(commands.Cog):
    def __init__(self) -> None:
        self.handed: list[tuple[Any, dict[str, Any]]] = []

    @slash("sample", "A command to look at", size="how big")
    @app_commands.choices(status=value_choices(FighterStatus))
    async def sample(self, call: Call, size: Size, status: str,
                     count: app_commands.Range[int, 1, 5] = 1,
                     campaign: str | None = None) -> None:
        self.handed.append((call, {"size": size, "status": status, "count": count,
                                   "campaign": campaign}))


@pytest.fixture
async def interaction() -> AsyncIterator[discord.Interaction[Any]]:
    """A real discord.py interaction, as a direct message's slash command arrives."""
    client = discord.Client(intents=discord.Intents.default())
    data: Any = {
        "id": "1", "application_id": "2", "type": 2, "token": "token", "version": 1,
        "channel_id": "4", "locale": "en-US", "attachment_size_limit": 8_000_000,
        "data": {"id": "5", "name": "sample", "type": 1},
        "user": {"id": "6", "username": "ann", "discriminator": "0", "avatar": None},
        "app_permissions": "0",
    }
    yield discord.Interaction(data=data, state=client._connection)
    await client.close()


async def test_the_body_is_handed_the_call_of_its_interaction(
    interaction: discord.Interaction[Any],
) -> None:
    cog = SampleCog()
    command = SampleCog.sample
    assert isinstance(command, app_commands.Command)
    await command.callback(cog, interaction, size="small", status="Active")  # type: ignore[arg-type]
    [(call, options)] = cog.handed
    assert isinstance(call, Call) and call is Call.of(interaction)
    assert call.interaction is interaction and call.actor.user_id == 6
    assert options == {"size": "small", "status": "Active", "count": 1, "campaign": None}


def test_discord_sees_the_bodys_options_described() -> None:
    command = SampleCog.sample
    assert isinstance(command, app_commands.Command)
    options = {option.name: option for option in command.parameters}
    assert list(options) == ["size", "status", "count", "campaign"]
    assert [choice.value for choice in options["size"].choices] == ["small", "large"]
    assert options["size"].description == "how big"
    assert options["campaign"].description == OPTION_HELP["campaign"]
    assert (options["count"].min_value, options["count"].max_value) == (1, 5)
    assert not options["count"].required and options["size"].required


def test_fixed_choices_show_the_values_players_read() -> None:
    choices = value_choices(FighterStatus)
    assert [(choice.name, choice.value) for choice in choices] == [
        (status.value, status.value) for status in FighterStatus]
    assert FighterStatus.IN_RECOVERY.value in [choice.name for choice in choices]
