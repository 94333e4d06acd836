"""What every command needs first: which campaign, who is asking, and may they.

Who may do what (README, "Permissions"):
- a gang's owner edits their gang;
- an Arbitrator edits anything in their campaign (Arbitrators are named
  users and/or members of a named role);
- members with the Manage Server permission count as Arbitrators of every
  campaign on their server, so a group is never locked out when its
  Arbitrator leaves;
- everyone else may look, and is refused politely when they try to change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.errors import Refused
from bot.storage import Campaign, Storage
from rules.models import Gang

if TYPE_CHECKING:
    from bot.app import MundaBot

# Slash-command string options are capped here so a pasted essay is refused
# by Discord's client before it reaches us; the rules models cap again.
NAME_MAX = 100


def guild_id_of(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise Refused("This command only works inside a server.")
    return interaction.guild_id


def storage_of(interaction: discord.Interaction[MundaBot]) -> Storage:
    return interaction.client.storage


def actor_of(interaction: discord.Interaction) -> str:
    """The ledger's "who": the Discord user id as text."""
    return str(interaction.user.id)


def role_ids_of(interaction: discord.Interaction) -> list[int]:
    user = interaction.user
    return [role.id for role in user.roles] if isinstance(user, discord.Member) else []


def is_server_manager(interaction: discord.Interaction) -> bool:
    permissions = interaction.permissions
    return permissions.manage_guild or permissions.administrator


def is_arbitrator(campaign: Campaign, interaction: discord.Interaction) -> bool:
    if is_server_manager(interaction):
        return True
    return campaign.is_arbitrator(interaction.user.id, role_ids_of(interaction))


def require_arbitrator(campaign: Campaign, interaction: discord.Interaction) -> None:
    if not is_arbitrator(campaign, interaction):
        raise Refused(f"Only an Arbitrator of {campaign.name} can do that.")


def controls_gang(campaign: Campaign, gang: Gang, interaction: discord.Interaction) -> bool:
    return gang.owner == actor_of(interaction) or is_arbitrator(campaign, interaction)


def require_gang_control(campaign: Campaign, gang: Gang, interaction: discord.Interaction) -> None:
    if not controls_gang(campaign, gang, interaction):
        raise Refused(
            f"{gang.name} is not your gang; only its owner or an Arbitrator can change it."
        )


async def resolve_campaign(
    interaction: discord.Interaction[MundaBot], name: str | None = None
) -> Campaign:
    """The named campaign of this server, or its default one."""
    storage = storage_of(interaction)
    guild_id = guild_id_of(interaction)
    if name:
        return await storage.get_campaign_by_name(guild_id, name)
    return await storage.get_default_campaign(guild_id)
