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
from functools import cache
from typing import TYPE_CHECKING, Any
from zoneinfo import available_timezones

import discord
from discord import app_commands

from bot.battle.state import Phase, PostBattleRun, run_key
from bot.errors import Refused
from bot.lookup import campaign_named
from bot.rulesets import ruleset_for
from bot.storage import Campaign, StorageError, Transaction
from rules.advancements import GANGER_TABLE, available_options
from rules.downtime import promotion_types as promotion_choices
from rules.errors import RulesError
from rules.models import (
    PROFILE_STATS,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Rarity,
)
from rules.names import name_key, same_name
from rules.ruleset import RuleSet
from rules.tradingpost import HANGER_ON_CATEGORIES, fighter_template, type_template

if TYPE_CHECKING:
    from bot.app import MundaBot  # noqa: F401  (named in a string annotation below)

log = logging.getLogger(__name__)

MAX_CHOICES = 25  # Discord's limit for one autocomplete answer

Choices = list[app_commands.Choice[str]]
Interaction = discord.Interaction["MundaBot"]


def choose(names: Iterable[str], current: str) -> Choices:
    """Names containing what was typed, those starting with it first, at most 25."""
    typed = name_key(current)
    keyed = {n: name_key(n) for n in names}
    matching = [n for n, key in keyed.items() if typed in key]
    matching.sort(key=lambda n: (not keyed[n].startswith(typed), keyed[n]))
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in matching[:MAX_CHOICES]]


LIST_SEPARATOR = ","


def choose_many(names: Iterable[str], current: str) -> Choices:
    """Suggestions for a comma list: what is typed before the last comma is kept, the
    last part completes to a name not listed yet ("Mort, Dr" offers "Mort, Dregg")."""
    *before, last = current.split(LIST_SEPARATOR)
    listed = [part.strip() for part in before if part.strip()]
    keys = {name_key(part) for part in listed}
    prefix = "".join(f"{part}{LIST_SEPARATOR} " for part in listed)
    fresh = [n for n in names if name_key(n) not in keys]
    return [app_commands.Choice(name=prefix + c.value, value=prefix + c.value)
            for c in choose(fresh, last) if len(prefix + c.value) <= 100]


def typed(interaction: discord.Interaction[Any], option: str) -> str | None:
    """What the user has typed so far into another option of the same command."""
    value = getattr(interaction.namespace, option, None)
    return value if isinstance(value, str) and value.strip() else None


async def suggest_in(
    interaction: Interaction,
    current: str,
    names: Callable[[Transaction, Campaign], Awaitable[Iterable[str]]],
    chooser: Callable[[Iterable[str], str], Choices] = choose,
) -> Choices:
    """Suggestions ``names(tx, campaign)`` reads in the command's campaign (``chooser``:
    :func:`choose_many` for an option that takes a comma list)."""
    if interaction.guild_id is None:
        return []
    try:
        async with interaction.client.storage.read_only(interaction.guild_id) as tx:
            campaign = await campaign_named(tx, typed(interaction, "campaign"))
            return chooser(await names(tx, campaign), current)
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
        found = await interaction.client.storage.read(interaction.guild_id).list_campaigns()
    except (RulesError, Refused, StorageError):
        return []
    return choose((c.name for c in found), current)


async def gang_names(interaction: Interaction, current: str) -> Choices:
    return await suggest(interaction, current, lambda _c, gangs: (g.name for g in gangs))


def on_chosen_gangs(
    names: Callable[[Gang], Iterable[str]],
) -> Callable[[Interaction, str], Awaitable[Choices]]:
    """Suggest ``names(gang)`` of the gang the command names, else of every gang."""

    async def complete(interaction: Interaction, current: str) -> Choices:
        return await suggest(interaction, current, lambda _c, gangs: (
            name for g in chosen_gangs(interaction, gangs) for name in names(g)))

    return complete


fighter_names = on_chosen_gangs(lambda g: (f.name for f in g.fighters))
vehicle_names = on_chosen_gangs(lambda g: (v.name for v in [*g.vehicles, *g.stash_vehicles]))
stash_item_names = on_chosen_gangs(lambda g: (i.name for i in g.stash))
stash_vehicles = on_chosen_gangs(lambda g: (v.name for v in g.stash_vehicles))
damaged_vehicles = on_chosen_gangs(lambda g: (
    v.name for v in [*g.vehicles, *g.stash_vehicles] if v.lasting_damage))


async def carried_items(interaction: Interaction, current: str) -> Choices:
    return await suggest(interaction, current, lambda _c, gangs: (
        i.name for _g, f in chosen_fighters(interaction, gangs) for i in f.equipment))


async def equippable_items(interaction: Interaction, current: str) -> Choices:
    """Stash items of the gang first, then the fighter's own list and the Trading Post
    (what a fighter can carry: no vehicle Upgrade); buying (``pay``), the own list only."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        found = chosen_fighters(interaction, gangs)
        owners = [g for g, _f in found] or chosen_gangs(interaction, gangs)
        stash = [i.name for g in owners for i in g.stash]
        own = [e.name for g, f in found if (t := type_template(ruleset, g, f.fighter_type))
               for e in t.equipment_list]
        if getattr(interaction.namespace, "from_stash", False) is True:
            return stash
        if getattr(interaction.namespace, "pay", False) is True:
            return own
        carried = (e.name for e in ruleset.trading_post
                   if e.kind is not EquipmentKind.VEHICLE_UPGRADE)
        return [*stash, *own, *carried]

    return await suggest(interaction, current, names)


async def territory_names(interaction: Interaction, current: str) -> Choices:
    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        return (t.name for t in await tx.list_territories(campaign.id))

    return await suggest_in(interaction, current, names)


async def time_zones(interaction: Interaction, current: str) -> Choices:
    """The IANA time zones the machine knows (Europe/London, America/New_York...)."""
    return choose(_zones(), current)


@cache
def _zones() -> tuple[str, ...]:
    # Read from the machine's zone files once: they do not change while the bot runs.
    return tuple(sorted(available_timezones()))


async def territory_templates(interaction: Interaction, current: str) -> Choices:
    """Example territories of the campaign's rule data set."""
    return await from_rules(interaction, current, lambda rules: (
        t.name for t in rules.territories))


async def campaign_types(interaction: Interaction, current: str) -> Choices:
    """Campaign types of the campaign's rule data (the Dominion, Law and Misrule...)."""
    return await from_rules(interaction, current, lambda rules: (
        t.name for t in rules.campaign_types))


async def phase_names(interaction: Interaction, current: str) -> Choices:
    """Phases of the rule data's campaign types, each name once."""
    return await from_rules(interaction, current, lambda rules: dict.fromkeys(
        p.name for t in rules.campaign_types for p in t.phases))


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


def houses_of(interaction: discord.Interaction[Any], gangs: list[Gang]) -> set[str]:
    """The House Lists of the chosen gangs, as names compare."""
    return {name_key(g.house) for g in chosen_gangs(interaction, gangs)}


async def vehicle_types(interaction: Interaction, current: str) -> Choices:
    """Vehicles of the chosen gang's House List."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        houses = houses_of(interaction, gangs)
        return (v.vehicle_type for h in ruleset_for(campaign).houses
                if name_key(h.house) in houses for v in h.vehicles)

    return await suggest(interaction, current, names)


async def hanger_on_types(interaction: Interaction, current: str) -> Choices:
    """Hangers-on and Brutes on offer in the rule set (the gang's own list first)."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        houses = houses_of(interaction, gangs)
        offered = [(h, t) for h in ruleset.houses for t in h.fighters
                   if t.category in HANGER_ON_CATEGORIES]
        own = [t.fighter_type for h, t in offered if name_key(h.house) in houses]
        return [*own, *(t.fighter_type for _h, t in offered)]

    return await suggest(interaction, current, names)


async def damage_names(interaction: Interaction, current: str) -> Choices:
    """Results of the rule set's Lasting Damage table."""
    return await from_rules(interaction, current, lambda rules: (
        entry.name for entry in rules.lasting_damage.entries))


async def current_damage(interaction: Interaction, current: str) -> Choices:
    """Lasting Damage the chosen vehicle has."""
    wanted = typed(interaction, "vehicle")
    return await suggest(interaction, current, lambda _c, gangs: (
        damage for g in chosen_gangs(interaction, gangs)
        for v in [*g.vehicles, *g.stash_vehicles] if wanted and same_name(v.name, wanted)
        for damage in v.lasting_damage))


async def captive_names(interaction: Interaction, current: str) -> Choices:
    """Captured fighters of the campaign (a Rescue Mission is for one of them)."""
    return await suggest(interaction, current, lambda _c, gangs: (
        f.name for g in gangs for f in g.fighters if f.status is FighterStatus.CAPTURED))


async def buyable_items(interaction: Interaction, current: str) -> Choices:
    """The chosen fighter's own Equipment List, or the Trading Post's Common items."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        found = chosen_fighters(interaction, gangs)
        if found:
            return [e.name for g, f in found if (t := fighter_template(ruleset, g, f))
                    for e in t.equipment_list]
        return [e.name for e in ruleset.trading_post if e.availability.rarity is Rarity.COMMON]

    return await suggest(interaction, current, names)


async def boon_territories(interaction: Interaction, current: str) -> Choices:
    """Territories with a Boon that the chosen gang controls."""

    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        ids = {g.id for g in chosen_gangs(interaction, await tx.list_gangs(campaign.id))}
        return (t.name for t in await tx.list_territories(campaign.id)
                if t.controller in ids and t.boons)

    return await suggest_in(interaction, current, names)


async def advancement_options(interaction: Interaction, current: str) -> Choices:
    """The advancements the chosen fighter's category may buy (Gangers: the table roll)."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        found = chosen_fighters(interaction, gangs)
        if not found:
            return [o.name for o in ruleset.advancements] + [GANGER_TABLE]
        picked: list[str] = []
        for _gang, fighter in found:
            if fighter.category is FighterCategory.GANGER:
                picked.append(GANGER_TABLE)
            picked += [o.name for o in available_options(ruleset, fighter)]
        return picked

    return await suggest(interaction, current, names)


async def promotion_types(interaction: Interaction, current: str) -> Choices:
    """The types the chosen fighter's Promotion rule names (Downtime); without a fighter
    chosen, those of every Juve and Prospect that may be promoted."""

    def names(_campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        found = chosen_fighters(interaction, gangs) or [
            (g, f) for g in chosen_gangs(interaction, gangs) for f in g.fighters]
        return dict.fromkeys(t for _gang, fighter in found for t in promotion_choices(fighter))

    return await suggest(interaction, current, names)


async def advancement_stats(interaction: Interaction, current: str) -> Choices:
    """The characteristics the chosen advancement offers."""

    def names(rules: RuleSet) -> Iterable[str]:
        wanted = typed(interaction, "option")
        for option in rules.advancements:
            if wanted and same_name(option.name, wanted):
                return [s.upper() for s in option.stats]
        return [s.upper() for s in PROFILE_STATS]

    return await from_rules(interaction, current, names)


async def scenario_names(interaction: Interaction, current: str) -> Choices:
    """Scenarios of the campaign's rule data, in the order of its chart."""
    return await from_rules(interaction, current, lambda rules: (
        s.name for s in sorted(rules.scenarios, key=lambda s: s.roll)))


async def skill_set_names(interaction: Interaction, current: str) -> Choices:
    return await from_rules(interaction, current, lambda rules: (
        s.name for s in rules.skill_sets))


async def skill_names(interaction: Interaction, current: str) -> Choices:
    """Skills of the chosen skill set (else of every set) the chosen fighter lacks."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        rules = ruleset_for(campaign)
        wanted = typed(interaction, "skill_set")
        sets = [s for s in rules.skill_sets if wanted and same_name(s.name, wanted)]
        known = {name_key(k) for _gang, f in chosen_fighters(interaction, gangs)
                 for k in f.skills}
        return dict.fromkeys(skill for s in sets or rules.skill_sets for skill in s.skills
                             if name_key(skill) not in known)

    return await suggest(interaction, current, names)


async def battle_ids(interaction: Interaction, current: str) -> Choices:
    """Recent battles of the campaign by id, labelled with their scenario."""
    by_label: dict[str, str] = {}

    async def labels(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        for battle in await tx.list_battles(campaign.id, limit=100):
            # Choice names hold 100 characters; a label is cut there and still maps to its id.
            label = f"{battle.id} · {battle.scenario}" if battle.scenario else battle.id
            by_label[label[:100]] = battle.id
        return by_label

    return [app_commands.Choice(name=c.name, value=by_label.get(c.name, c.value))
            for c in await suggest_in(interaction, current, labels)]


async def unstarted_battles(interaction: Interaction, current: str) -> Choices:
    """Recorded battles without a finished or running post-battle sequence, newest first,
    labelled with their gangs and scenario."""
    by_label: dict[str, str] = {}

    async def labels(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        names = {g.id: g.name for g in await tx.list_gangs(campaign.id)}
        for battle in await tx.list_battles(campaign.id, limit=50):
            run = await tx.load_sequence(campaign.id, run_key(battle.id), PostBattleRun)
            if run is not None and run.phase is not Phase.CANCELLED:
                continue
            label = " vs ".join(names.get(g, "?") for g in battle.gang_ids)
            if battle.scenario:
                label += f" · {battle.scenario}"
            by_label[f"{label} · {battle.id}"[:100]] = battle.id
        return by_label

    def in_order(names: Iterable[str], typed_text: str) -> Choices:
        wanted = typed_text.casefold().strip()
        return [app_commands.Choice(name=label, value=by_label[label])
                for label in names if wanted in label.casefold()][:MAX_CHOICES]

    return await suggest_in(interaction, current, labels, in_order)


DRAW = "draw"


async def winners(interaction: Interaction, current: str) -> Choices:
    """The gangs named so far (or the recorded battle's), and "draw"."""

    async def names(tx: Transaction, campaign: Campaign) -> Iterable[str]:
        gangs = {g.id: g.name for g in await tx.list_gangs(campaign.id)}
        battle = typed(interaction, "battle")
        if battle:
            fought = (await tx.get_battle(campaign.id, battle)).gang_ids
            return [*(gangs.get(g, g) for g in fought), DRAW]
        picked = [name for n in range(1, 5) if (name := typed(interaction, f"gang{n}"))]
        return [*(picked or gangs.values()), DRAW]

    return await suggest_in(interaction, current, names) or choose([DRAW], current)
