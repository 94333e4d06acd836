"""A small but realistic discord.py bot used to exercise the fake Discord server.

It is an ordinary ``commands.Bot``: nothing in it knows about the fake.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

TERRITORIES = ["Ash Wastes", "Old Ruins", "Sludge Sea", "Settlement", "Slag Furnace", "Tunnels"]


class CounterButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"counter:(?P<n>\d+)"):
    """Stateless button: the count lives in the custom_id, so it survives restarts."""

    def __init__(self, count: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {count}",
                custom_id=f"counter:{count}",
                style=discord.ButtonStyle.primary,
            )
        )
        self.count = count

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CounterButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(
            content=f"count is {self.count + 1}", view=PanelView(self.count + 1)
        )


class PanelView(discord.ui.View):
    def __init__(self, count: int = 0) -> None:
        super().__init__(timeout=None)
        self.add_item(CounterButton(count))

    @discord.ui.button(label="Undo", custom_id="panel:undo", disabled=True)
    async def undo(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_message("nothing to undo", ephemeral=True)

    @discord.ui.select(
        custom_id="panel:gang",
        placeholder="Pick gangs",
        min_values=1,
        max_values=2,
        options=[
            discord.SelectOption(label="Ash Wolves", value="ash"),
            discord.SelectOption(label="Iron Fangs", value="iron"),
            discord.SelectOption(label="Sump Rats", value="sump"),
        ],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"picked {','.join(select.values)}")


class RegisterModal(discord.ui.Modal, title="Register gang"):
    gang_name: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Gang name", custom_id="gang_name", max_length=40
    )
    motto: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Motto", custom_id="motto", style=discord.TextStyle.paragraph, required=False
    )
    house: discord.ui.Label[Any] = discord.ui.Label(
        text="House",
        component=discord.ui.Select(
            custom_id="house",
            options=[
                discord.SelectOption(label="Goliath", value="goliath"),
                discord.SelectOption(label="Escher", value="escher"),
            ],
        ),
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        select = self.house.component
        assert isinstance(select, discord.ui.Select)
        house = select.values[0] if select.values else "none"
        motto = self.motto.value or "no motto"
        await interaction.response.send_message(
            f"Registered {self.gang_name.value} of {house} ({motto})"
        )


campaign = app_commands.Group(name="campaign", description="Campaign management")
territory = app_commands.Group(name="territory", description="Territories", parent=campaign)


@territory.command(name="add", description="Add a territory to the campaign")
@app_commands.describe(name="Territory name", value="Income value")
async def territory_add(
    interaction: discord.Interaction,
    name: str,
    value: app_commands.Range[int, 0, 100] = 10,
    holder: discord.Member | None = None,
) -> None:
    held = f" held by {holder.display_name}" if holder else ""
    await interaction.response.send_message(f"Added {name} worth {value}{held}")


@territory_add.autocomplete("name")
async def territory_name_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=t, value=t) for t in TERRITORIES if current.lower() in t.lower()
    ]


class SampleBot(commands.Bot):
    def __init__(self, *, admin_guild_id: int | None = None) -> None:
        super().__init__(
            command_prefix="!",
            intents=discord.Intents.default(),
            # Tests do not wait for on_ready, but keep startup snappy anyway.
            guild_ready_timeout=0.1,
        )
        self.admin_guild_id = admin_guild_id
        self.resumed = asyncio.Event()
        self._register()

    async def setup_hook(self) -> None:
        self.add_view(PanelView())
        self.add_dynamic_items(CounterButton)
        if self.admin_guild_id is not None:
            guild = discord.Object(self.admin_guild_id)
            self.tree.add_command(purge_command, guild=guild)
            await self.tree.sync(guild=guild)
        await self.tree.sync()

    async def on_resumed(self) -> None:
        self.resumed.set()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py sleeps 5s before every re-IDENTIFY (Discord's identify rate limit);
        # the fake has no such limit, so skip it to keep tests fast.
        return

    def _register(self) -> None:
        tree = self.tree
        tree.add_command(campaign)

        @tree.command(description="Check the bot is alive")
        async def ping(interaction: discord.Interaction, hidden: bool = False) -> None:
            embed = discord.Embed(title="Pong!", description="The Arbitrator hears you.")
            embed.add_field(name="Latency", value="fast")
            await interaction.response.send_message("pong", embed=embed, ephemeral=hidden)

        @tree.command(description="Show the control panel")
        async def panel(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("count is 0", view=PanelView(0))

        @tree.command(description="Register a gang")
        async def register(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(RegisterModal())

        @tree.command(description="Think, then answer")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.05)
            await interaction.followup.send("done slowly")
            await interaction.followup.send("psst, a second follow-up", ephemeral=True)

        @tree.command(description="Start a battle thread")
        async def battle(interaction: discord.Interaction, title: str) -> None:
            await interaction.response.send_message(f"Battle: {title}")
            message = await interaction.original_response()
            thread = await message.create_thread(name=title)
            await thread.send("Roll for priority!")
            await interaction.followup.send(f"thread {thread.name} opened", ephemeral=True)

        @tree.command(description="Whisper to yourself by DM")
        async def whisper(interaction: discord.Interaction, text: str) -> None:
            await interaction.user.send(f"whispered: {text}")
            await interaction.response.send_message("check your DMs", ephemeral=True)

        @tree.command(description="Never answers (for timeout tests)")
        async def ignore(interaction: discord.Interaction) -> None:
            return


@app_commands.command(name="purge", description="Admin-only guild command")
@app_commands.default_permissions(manage_guild=True)
async def purge_command(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("purged", ephemeral=True)
