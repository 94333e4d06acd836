"""Suggestions for every option that names something: campaigns, gangs, fighters, items...

Autocomplete must answer fast and must never fail loudly (Discord shows an
empty list either way), so a refusal or a storage problem gives no
suggestions. Suggestions come from the campaign the command's ``campaign``
option names, else the server's default one, read in one read transaction
that never waits for a writer; options already filled in (``gang``,
``fighter``) narrow them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.errors import Refused
from bot.lookup import campaign_named, same_name
from bot.rulesets import ruleset_for
from bot.storage import Campaign, StorageError, Transaction
from rules.errors import RulesError
from rules.models import Fighter, Gang
from rules.ruleset import RuleSet
from rules.tradingpost import type_template

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

MAX_CHOICES = 25  # Discord's limit for one autocomplete answer

Choices = list[app_commands.Choice[str]]
Interaction = discord.Interaction["MundaBot"]


def choose(names: Iterable[str], current: str) -> Choices:
    """Names containing what was typed, those starting with it first, at most 25."""
    typed = current.casefold().strip()
    matching = [n for n in dict.fromkeys(names) if typed in n.casefold()]
    matching.sort(key=lambda n: (not n.casefold().startswith(typed), n.casefold()))
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in matching[:MAX_CHOICES]]


def typed(interaction: discord.Interaction[Any], option: str) -> str | None:
    """What the user has typed so far into another option of the same command."""
    value = getattr(interaction.namespace, option, None)
    return value if isinstance(value, str) and value.strip() else None


async def suggest_in(
    interaction: Interaction,
    current: str,
    names: Callable[[Transaction, Campaign], Awaitable[Iterable[str]]],
) -> Choices:
    """Suggestions ``names(tx, campaign)`` reads in the command's campaign."""
    if interaction.guild_id is None:
        return []
    try:
        async with interaction.client.storage.read_only(interaction.guild_id) as tx:
            campaign = await campaign_named(tx, typed(interaction, "campaign"))
            return choose(await names(tx, campaign), current)
    except (RulesError, Refused, StorageError):
        return []
    except Exception:
        log.exception("autocomplete failed")
        return []


async def suggest(
    interaction: Interaction, current: str, names: Callable[[Campaign, list[Gang]], Iterable[str]]
) -> Choices:
    """Suggestions from the campaign and its gangs (rosters included)."""

    async def with_gangs(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        return names(campaign, await tx.list_gangs(campaign.id))

    return await suggest_in(interaction, current, with_gangs)


async def from_rules(
    interaction: Interaction, current: str, names: Callable[[RuleSet], Iterable[str]]
) -> Choices:
    """Suggestions from the rule data the campaign plays with."""

    async def in_rules(_tx: Transaction, campaign: Campaign) -> Iterable[str]:
        return names(ruleset_for(campaign))

    return await suggest_in(interaction, current, in_rules)


def chosen_gangs(interaction: discord.Interaction[Any], gangs: list[Gang]) -> list[Gang]:
    """The gang named in the ``gang`` option, else all of them."""
    name = typed(interaction, "gang")
    if name:
        picked = [g for g in gangs if same_name(g.name, name)]
        if picked:
            return picked
    return gangs


def chosen_fighters(
    interaction: discord.Interaction[Any], gangs: list[Gang]
) -> list[tuple[Gang, Fighter]]:
    """The fighter named in the ``fighter`` option (within the chosen gang), if any."""
    name = typed(interaction, "fighter")
    if not name:
        return []
    return [(g, f) for g in chosen_gangs(interaction, gangs) for f in g.fighters
            if same_name(f.name, name)]


async def campaign_names(interaction: Interaction, current: str) -> Choices:
    if interaction.guild_id is None:
        return []
    try:
        found = await interaction.client.storage.list_campaigns(interaction.guild_id)
    except (RulesError, Refused, StorageError):
        return []
    return choose((c.name for c in found), current)


async def gang_names(interaction: Interaction, current: str) -> Choices:
    return await suggest(interaction, current, lambda _c, gangs: (g.name for g in gangs))


async def fighter_names(interaction: Interaction, current: str) -> Choices:
    return await suggest(interaction, current, lambda _c, gangs: (
        f.name for g in chosen_gangs(interaction, gangs) for f in g.fighters))


async def vehicle_names(interaction: Interaction, current: str) -> Choices:
    return await suggest(interaction, current, lambda _c, gangs: (
        v.name for g in chosen_gangs(interaction, gangs)
        for v in [*g.vehicles, *g.stash_vehicles]))


async def stash_item_names(interaction: Interaction, current: str) -> Choices:
    return await suggest(interaction, current, lambda _c, gangs: (
        i.name for g in chosen_gangs(interaction, gangs) for i in g.stash))


async def carried_items(interaction: Interaction, current: str) -> Choices:
    return await suggest(interaction, current, lambda _c, gangs: (
        i.name for _g, f in chosen_fighters(interaction, gangs) for i in f.equipment))


async def equippable_items(interaction: Interaction, current: str) -> Choices:
    """Stash items of the gang first, then the fighter's own list and the Trading Post."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        found = chosen_fighters(interaction, gangs)
        owners = [g for g, _f in found] or chosen_gangs(interaction, gangs)
        stash = [i.name for g in owners for i in g.stash]
        own = [e.name for g, f in found if (t := type_template(ruleset, g, f.fighter_type))
               for e in t.equipment_list]
        if getattr(interaction.namespace, "from_stash", False) is True:
            return stash
        return [*stash, *own, *(e.name for e in ruleset.trading_post)]

    return await suggest(interaction, current, names)


async def territory_names(interaction: Interaction, current: str) -> Choices:
    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        return (t.name for t in await tx.list_territories(campaign.id))

    return await suggest_in(interaction, current, names)


async def territory_templates(interaction: Interaction, current: str) -> Choices:
    """Example territories of the campaign's rule data set."""
    return await from_rules(interaction, current, lambda rules: (
        t.name for t in rules.territories))


async def house_names(interaction: Interaction, current: str) -> Choices:
    return await from_rules(interaction, current, lambda rules: (h.house for h in rules.houses))


async def fighter_types(interaction: Interaction, current: str) -> Choices:
    """Fighter types of the chosen gang's House List."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        houses = {g.house.casefold() for g in chosen_gangs(interaction, gangs)}
        return (t.fighter_type for h in ruleset_for(campaign).houses
                if h.house.casefold() in houses for t in h.fighters)

    return await suggest(interaction, current, names)


async def trading_post_items(interaction: Interaction, current: str) -> Choices:
    return await from_rules(interaction, current, lambda rules: (
        e.name for e in rules.trading_post))
