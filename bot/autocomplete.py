"""Autocomplete for names: campaigns, gangs, fighters, vehicles, Stash items, territories.

Autocomplete must answer fast and must never fail loudly (Discord shows an
empty list either way), so every lookup here swallows refusals and returns
no choices. Commands whose options include ``campaign`` get suggestions from
that campaign; otherwise from the server's default one.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.errors import Refused
from bot.rulesets import ruleset_for
from bot.storage import Campaign, StorageError
from rules.errors import RulesError
from rules.models import Gang
from rules.names import name_key, same_name

if TYPE_CHECKING:
    from bot.app import MundaBot

log = logging.getLogger(__name__)

MAX_CHOICES = 25  # Discord's limit for one autocomplete answer

Choices = list[app_commands.Choice[str]]


def choose(names: Iterable[str], current: str) -> Choices:
    """Names containing what was typed, those starting with it first, at most 25."""
    typed = name_key(current)
    keyed = {n: name_key(n) for n in names}
    matching = [n for n, key in keyed.items() if typed in key]
    matching.sort(key=lambda n: (not keyed[n].startswith(typed), keyed[n]))
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in matching[:MAX_CHOICES]]


async def _campaign(interaction: discord.Interaction[MundaBot]) -> Campaign:
    if interaction.guild_id is None:
        raise Refused("no server")
    storage = interaction.client.storage
    name = getattr(interaction.namespace, "campaign", None)
    if isinstance(name, str) and name:
        return await storage.get_campaign_by_name(interaction.guild_id, name)
    return await storage.get_default_campaign(interaction.guild_id)


async def _gangs(interaction: discord.Interaction[MundaBot], campaign: Campaign) -> list[Gang]:
    assert interaction.guild_id is not None
    return await interaction.client.storage.list_gangs(interaction.guild_id, campaign.id)


async def _quietly(lookup: Callable[[], Awaitable[Choices]]) -> Choices:
    try:
        return await lookup()
    except (RulesError, Refused, StorageError):
        return []
    except Exception:
        log.exception("autocomplete failed")
        return []


def _chosen_gang(interaction: discord.Interaction[MundaBot], gangs: list[Gang]) -> list[Gang]:
    """The gang named in the command's ``gang`` option, if one is filled in."""
    name = getattr(interaction.namespace, "gang", None)
    if isinstance(name, str) and name:
        picked = [g for g in gangs if same_name(g.name, name)]
        if picked:
            return picked
    return gangs


async def campaign_names(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        if interaction.guild_id is None:
            return []
        found = await interaction.client.storage.list_campaigns(interaction.guild_id)
        return choose((c.name for c in found), current)

    return await _quietly(lookup)


async def gang_names(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        gangs = await _gangs(interaction, await _campaign(interaction))
        return choose((g.name for g in gangs), current)

    return await _quietly(lookup)


async def fighter_names(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        gangs = _chosen_gang(interaction, await _gangs(interaction, await _campaign(interaction)))
        return choose((f.name for g in gangs for f in g.fighters), current)

    return await _quietly(lookup)


async def vehicle_names(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        gangs = _chosen_gang(interaction, await _gangs(interaction, await _campaign(interaction)))
        return choose(
            (v.name for g in gangs for v in [*g.vehicles, *g.stash_vehicles]), current
        )

    return await _quietly(lookup)


async def stash_item_names(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        gangs = _chosen_gang(interaction, await _gangs(interaction, await _campaign(interaction)))
        return choose((i.name for g in gangs for i in g.stash), current)

    return await _quietly(lookup)


async def territory_names(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        campaign = await _campaign(interaction)
        assert interaction.guild_id is not None
        found = await interaction.client.storage.list_territories(
            interaction.guild_id, campaign.id
        )
        return choose((t.name for t in found), current)

    return await _quietly(lookup)


async def territory_templates(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    """Example territories of the campaign's rule data set."""

    async def lookup() -> Choices:
        campaign = await _campaign(interaction)
        ruleset = ruleset_for(campaign)
        return choose((t.name for t in ruleset.territories), current)

    return await _quietly(lookup)


async def house_names(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        campaign = await _campaign(interaction)
        ruleset = ruleset_for(campaign)
        return choose((h.house for h in ruleset.houses), current)

    return await _quietly(lookup)


async def fighter_types(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    """Fighter types of the chosen gang's House List."""

    async def lookup() -> Choices:
        campaign = await _campaign(interaction)
        ruleset = ruleset_for(campaign)
        gangs = _chosen_gang(interaction, await _gangs(interaction, campaign))
        houses = {g.house.casefold() for g in gangs}
        return choose(
            (t.fighter_type for h in ruleset.houses if h.house.casefold() in houses
             for t in h.fighters),
            current,
        )

    return await _quietly(lookup)


async def trading_post_items(interaction: discord.Interaction[MundaBot], current: str) -> Choices:
    async def lookup() -> Choices:
        campaign = await _campaign(interaction)
        ruleset = ruleset_for(campaign)
        return choose((e.name for e in ruleset.trading_post), current)

    return await _quietly(lookup)
