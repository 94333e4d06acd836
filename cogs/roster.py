"""/roster: the players' part of Update Roster (PB-6A to PB-6E) and deferral (PB-6B.8).

Each command runs one rules function in its sub-step of the gang's
post-battle run (:func:`bot.battle.interactive.act`): A Clean House
(``retire``, ``scrap``), B the Trading Post (``hire``, ``vehicle``,
``hangeron``, ``sell``, ``buy``, ``seek``, ``buyrare``), C Boons (``boon``),
D Distribute Equipment (``give``, ``take``), E Advancements (``advance``).

``defer`` ends the Trading Post, Distribute Equipment or Advancements now,
to come back to it later (PB-6B.8): it needs every player's and (in a
campaign) the Arbitrator's agreement. An Arbitrator's ``defer`` speaks for
everyone; a player's posts a question with Agree / Decline buttons. After
the sequence, ``reopen`` lets the gang act in a deferred sub-step again and
``done`` ends it; the gang's next ``/prebattle`` closes whatever is left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import (
    campaign_names,
    choose,
    fighter_names,
    fighter_types,
    gang_names,
    stash_item_names,
)
from bot.battle.engine import act_in_stage, active_run_in, find_active_run
from bot.battle.interactive import (
    Agreement,
    AgreementOutcome,
    Bookkeeping,
    Compute,
    Stages,
    act,
    add_dynamic_items,
    agree_as,
    agreement_view,
    defer_privately,
    new_agreement,
    note_result,
    register_agreement,
    run_of,
    unregister_agreement,
)
from bot.battle.state import PostBattleRun
from bot.context import actor_of, guild_id_of, is_arbitrator, require_gang_control, storage_of
from bot.errors import Refused
from bot.render import safe
from bot.rulesets import ruleset_for
from bot.storage import Campaign, StorageError, new_id
from bot.ui import checked, clean_name
from cogs.fighter import (
    GuildReads,
    bounded,
    campaign_in,
    carried_items,
    catalogue_entry,
    chosen_fighters,
    chosen_gangs,
    fighter_in,
    new_item,
    pick_fighter,
    pick_item,
    suggest,
)
from cogs.vehicle import vehicle_types
from rules.advancements import GANGER_TABLE, available_options, buy_advancement
from rules.boons import MAX_BOON_CREDITS, MAX_BOON_REPUTATION, BoonClaim, BoonsResult, claim_boons
from rules.cleanhouse import CrewChoice, retire, scrap_vehicle
from rules.dice import Roller
from rules.distribute import give_item, take_item
from rules.errors import InvalidRequest, NotEligible, NotFound, RulesError
from rules.models import PROFILE_STATS, Equipment, Fighter, FighterCategory, Gang, Rarity
from rules.names import same_name
from rules.ruleset import RuleSet
from rules.sequence import DEFERRABLE, Step, SubStep
from rules.tradingpost import (
    HANGER_ON_CATEGORIES,
    MAX_SPECIAL_MODIFIER,
    AvailabilityResult,
    buy_equipment,
    buy_rare_item,
    fighter_template,
    hire_fighter,
    purchase_vehicle,
    recruit_hanger_on,
    seek_rare_and_illegal,
    sell_item,
)
from rules.wording import possessive
from rules.world import RuleResult, World

if TYPE_CHECKING:
    from bot.app import MundaBot

Interaction = discord.Interaction["MundaBot"]
Name = app_commands.Range[str, 1, 100]
Choices = list[app_commands.Choice[str]]

CLEAN_HOUSE: Stages = ((Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE),)
TRADING_POST: Stages = ((Step.UPDATE_ROSTER, SubStep.TRADING_POST),)
BOONS: Stages = ((Step.UPDATE_ROSTER, SubStep.TERRITORY_BOONS),)
DISTRIBUTE: Stages = ((Step.UPDATE_ROSTER, SubStep.DISTRIBUTE_EQUIPMENT),)
ADVANCEMENTS: Stages = ((Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS),)
MAX_ITEM_COST = 1_000_000
DEFER = "defer"

GANG_HELP = "the gang (default: your gang in a post-battle sequence)"
CAMPAIGN_HELP = "the campaign (default: the server's default campaign)"
SUBSTEP_CHOICES = [app_commands.Choice(name=s.value, value=s.value) for s in DEFERRABLE]
CREW_CHOICES = [
    app_commands.Choice(name="takes another vehicle from the Stash", value="new"),
    app_commands.Choice(name="waits for a vehicle bought at the Trading Post", value="wait"),
    app_commands.Choice(name="retires", value="retire"),
]
STAT_NAMES = {"int": "Int", "wil": "Wil", "ld": "Ld", "cl": "Cl"}


# =========================================================================== lookups


async def gang_for(interaction: Interaction, campaign: Campaign, name: str | None) -> Gang:
    """The named gang, or the caller's one gang in a post-battle sequence."""
    source = GuildReads.of(interaction)
    if name:
        return await source.get_gang_by_name(campaign.id, name)
    storage, guild_id = storage_of(interaction), guild_id_of(interaction)
    mine = await source.list_gangs(campaign.id, owner=actor_of(interaction))
    active = [g for g in mine
              if await find_active_run(storage, guild_id, campaign.id, g.id) is not None]
    if len(active) == 1:
        return active[0]
    if not active:
        raise Refused("You have no gang in a post-battle sequence: name the gang.")
    raise InvalidRequest("You have several gangs in post-battle sequences: name the gang.")


async def controlled(
    interaction: Interaction, campaign_name: str | None, gang_name: str | None
) -> tuple[Campaign, Gang]:
    campaign = await campaign_in(GuildReads.of(interaction), campaign_name)
    gang = await gang_for(interaction, campaign, gang_name)
    require_gang_control(campaign, gang, interaction)
    return campaign, gang


def substep_named(value: str) -> SubStep:
    for substep in DEFERRABLE:
        if same_name(substep.value, value):
            return substep
    options = ", ".join(s.value for s in DEFERRABLE)
    raise InvalidRequest(f"Only these sub-steps can be finished later: {options}.")


def stat_key(text: str) -> str:
    key = text.strip().lower()
    if key not in PROFILE_STATS:
        raise InvalidRequest(f"'{safe(text, 20)}' is not a characteristic: use "
                             f"{', '.join(s.upper() for s in PROFILE_STATS)}.")
    return key


# =========================================================================== autocomplete


Picker = Callable[[Campaign, Gang, PostBattleRun], Iterable[str]]


async def _with_run(interaction: Interaction, current: str, names: Picker) -> Choices:
    """Names that need the gang's run (the gang option, or the caller's gang)."""
    try:
        source = GuildReads.of(interaction)
        campaign = await campaign_in(source, getattr(interaction.namespace, "campaign", None))
        gang_name = getattr(interaction.namespace, "gang", None)
        gang = await gang_for(interaction, campaign, gang_name if isinstance(gang_name, str)
                              else None)
        run = await find_active_run(storage_of(interaction), guild_id_of(interaction),
                                    campaign.id, gang.id)
        if run is None:
            return []
        return choose(names(campaign, gang, run), current)
    except (RulesError, Refused, StorageError):
        return []


async def rare_items(interaction: Interaction, current: str) -> Choices:
    """What the gang's Seek Rare & Illegal roll unlocked."""

    def names(_campaign: Campaign, gang: Gang, run: PostBattleRun) -> Iterable[str]:
        offer = run.sequence.offer(gang.id)
        return offer.unlocked_names if offer else []

    return await _with_run(interaction, current, names)


async def hanger_on_types(interaction: Interaction, current: str) -> Choices:
    """Hangers-on and Brutes on offer in the rule set (the gang's own list first)."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        houses = [g.house for g in chosen_gangs(interaction, gangs)]
        own = [t.fighter_type for h in ruleset.houses
               if any(same_name(h.house, house) for house in houses)
               for t in h.fighters if t.category in HANGER_ON_CATEGORIES]
        shared = [t.fighter_type for h in ruleset.houses for t in h.fighters
                  if t.category in HANGER_ON_CATEGORIES]
        return [*own, *shared]

    return await suggest(interaction, current, names)


async def buyable_items(interaction: Interaction, current: str) -> Choices:
    """The chosen fighter's own Equipment List, or the Trading Post's Common items."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        found = chosen_fighters(interaction, gangs)
        if found:
            return [e.name for g, f in found for e in _own_list(ruleset, g, f)]
        return [e.name for e in ruleset.trading_post
                if e.availability.rarity is Rarity.COMMON]

    return await suggest(interaction, current, names)


def _own_list(ruleset: RuleSet, gang: Gang, fighter: Fighter) -> list[Equipment]:
    template = fighter_template(ruleset, gang, fighter)
    return list(template.equipment_list) if template else []


async def boon_territories(interaction: Interaction, current: str) -> Choices:
    """Territories with a Boon that the chosen gang controls."""

    async def lookup() -> Choices:
        source = GuildReads.of(interaction)
        campaign = await campaign_in(source, getattr(interaction.namespace, "campaign", None))
        gangs = chosen_gangs(interaction, await source.list_gangs(campaign.id))
        ids = {g.id for g in gangs}
        territories = await storage_of(interaction).list_territories(
            guild_id_of(interaction), campaign.id)
        return choose((t.name for t in territories if t.controller in ids and t.boons), current)

    try:
        return await lookup()
    except (RulesError, Refused, StorageError):
        return []


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


async def advancement_stats(interaction: Interaction, current: str) -> Choices:
    """The characteristics the chosen advancement offers."""

    def names(campaign: Campaign, _gangs: list[Gang]) -> Iterable[str]:
        wanted = getattr(interaction.namespace, "option", None)
        for option in ruleset_for(campaign).advancements:
            if isinstance(wanted, str) and same_name(option.name, wanted):
                return [s.upper() for s in option.stats]
        return [s.upper() for s in PROFILE_STATS]

    return await suggest(interaction, current, names)


async def stash_vehicles(interaction: Interaction, current: str) -> Choices:
    def names(_campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        return (v.name for g in chosen_gangs(interaction, gangs) for v in g.stash_vehicles)

    return await suggest(interaction, current, names)


async def damaged_vehicles(interaction: Interaction, current: str) -> Choices:
    def names(_campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        return (v.name for g in chosen_gangs(interaction, gangs)
                for v in [*g.vehicles, *g.stash_vehicles] if v.lasting_damage)

    return await suggest(interaction, current, names)


# =========================================================================== the cog


class RosterCog(commands.GroupCog, group_name="roster",
                group_description="Update Roster after a battle (step 6)"):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        await add_dynamic_items(self.bot)
        register_agreement(DEFER, self._deferral_agreed)

    async def cog_unload(self) -> None:
        unregister_agreement(DEFER)

    # ------------------------------------------------------------------ A. Clean House

    @app_commands.command(name="retire", description="A. Retire a fighter: gear to the Stash")
    @app_commands.describe(fighter="the fighter who retires", gang="the fighter's gang",
                           campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(fighter=fighter_names, gang=gang_names, campaign=campaign_names)
    async def retire_(self, interaction: Interaction, fighter: Name, gang: Name | None = None,
                      campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        found, owner, who = await _fighter(interaction, campaign, fighter, gang)
        await act(interaction, campaign=found, gang=owner, stages=CLEAN_HOUSE,
                  compute=lambda world, _run, _roller: retire(world, owner.id, who))

    @app_commands.command(name="scrap", description="A. Scrap a vehicle with Lasting Damage")
    @app_commands.describe(
        vehicle="the vehicle to scrap",
        crew_choice="what its crew does",
        replacement="for 'takes another vehicle': the vehicle from the Stash",
        gang=GANG_HELP, campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(vehicle=damaged_vehicles, replacement=stash_vehicles,
                               gang=gang_names, campaign=campaign_names)
    @app_commands.choices(crew_choice=CREW_CHOICES)
    async def scrap(self, interaction: Interaction, vehicle: Name,
                    crew_choice: str | None = None, replacement: Name | None = None,
                    gang: Name | None = None, campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        found, owner = await controlled(interaction, campaign, gang)
        everything = [*owner.vehicles, *owner.stash_vehicles]
        scrapped = next((v for v in everything if same_name(v.name, vehicle)), None)
        if scrapped is None:
            raise NotFound(f"{safe(owner.name)} has no vehicle called '{safe(vehicle)}'.")
        choice = _crew_choice(owner, crew_choice, replacement)
        await act(interaction, campaign=found, gang=owner, stages=CLEAN_HOUSE,
                  compute=lambda world, _run, _roller: scrap_vehicle(
                      world, owner.id, scrapped.id, choice))

    # ------------------------------------------------------------------ B. Trading Post

    @app_commands.command(name="hire", description="B. Hire a fighter from the House List")
    @app_commands.describe(fighter_type="a fighter type of the gang's House List",
                           name="the new fighter's name", gang=GANG_HELP, campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(fighter_type=fighter_types, gang=gang_names,
                               campaign=campaign_names)
    async def hire(self, interaction: Interaction, fighter_type: Name, name: Name,
                   gang: Name | None = None, campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        recruit = clean_name(name, "fighter's name")
        found, owner = await controlled(interaction, campaign, gang)
        ruleset = ruleset_for(found)
        await act(interaction, campaign=found, gang=owner, stages=TRADING_POST,
                  compute=lambda world, _run, _roller: hire_fighter(
                      world, owner.id, ruleset, fighter_type, recruit, new_id()))

    @app_commands.command(name="vehicle", description="B. Buy a vehicle from the House List")
    @app_commands.describe(vehicle_type="a vehicle of the gang's House List",
                           name="the vehicle's name", crew="a Crew fighter without a vehicle "
                           "(default: the vehicle waits in the Stash)",
                           gang=GANG_HELP, campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(vehicle_type=vehicle_types, crew=fighter_names, gang=gang_names,
                               campaign=campaign_names)
    async def vehicle(self, interaction: Interaction, vehicle_type: Name, name: Name,
                      crew: Name | None = None, gang: Name | None = None,
                      campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        label = clean_name(name, "vehicle's name")
        found, owner = await controlled(interaction, campaign, gang)
        crew_id = pick_fighter(owner, crew).id if crew else None
        ruleset = ruleset_for(found)
        await act(interaction, campaign=found, gang=owner, stages=TRADING_POST,
                  compute=lambda world, _run, _roller: purchase_vehicle(
                      world, owner.id, ruleset, vehicle_type, label, new_id(), crew_id))

    @app_commands.command(name="hangeron",
                          description="B. Recruit a Hanger-on or Brute (Reputation allowing)")
    @app_commands.describe(fighter_type="the Hanger-on or Brute", name="its name",
                           gang=GANG_HELP, campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(fighter_type=hanger_on_types, gang=gang_names,
                               campaign=campaign_names)
    async def hangeron(self, interaction: Interaction, fighter_type: Name, name: Name,
                       gang: Name | None = None, campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        recruit = clean_name(name, "fighter's name")
        found, owner = await controlled(interaction, campaign, gang)
        ruleset = ruleset_for(found)
        await act(interaction, campaign=found, gang=owner, stages=TRADING_POST,
                  compute=lambda world, _run, _roller: recruit_hanger_on(
                      world, owner.id, ruleset, fighter_type, recruit, new_id()))

    @app_commands.command(name="sell", description="B. Sell a Stash item: value minus D6x10")
    @app_commands.describe(item="the Stash item", gang=GANG_HELP, campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(item=stash_item_names, gang=gang_names, campaign=campaign_names)
    async def sell(self, interaction: Interaction, item: Name, gang: Name | None = None,
                   campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        found, owner = await controlled(interaction, campaign, gang)
        sold = pick_item(owner.stash, item, f"{possessive(owner.name)} Stash")
        await act(interaction, campaign=found, gang=owner, stages=TRADING_POST,
                  compute=lambda world, run, roller: sell_item(
                      world, owner.id, sold.id, roller, run.sequence.id))

    @app_commands.command(name="buy",
                          description="B. Buy from a fighter's Equipment List, or Common items")
    @app_commands.describe(
        item="the item",
        fighter="buy from this fighter's own Equipment List, onto the fighter "
                "(default: a Common Trading Post item into the Stash)",
        gang=GANG_HELP, campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(item=buyable_items, fighter=fighter_names, gang=gang_names,
                               campaign=campaign_names)
    async def buy(self, interaction: Interaction, item: Name, fighter: Name | None = None,
                  gang: Name | None = None, campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        if fighter:
            found, owner, who = await _fighter(interaction, campaign, fighter, gang)
            fighter_id: str | None = who
        else:
            (found, owner), fighter_id = await controlled(interaction, campaign, gang), None
        ruleset = ruleset_for(found)
        await act(interaction, campaign=found, gang=owner, stages=TRADING_POST,
                  compute=lambda world, _run, _roller: buy_equipment(
                      world, owner.id, ruleset, item, new_id(), fighter_id))

    @app_commands.command(name="seek",
                          description="B. Seek Rare & Illegal equipment (after a Trade action)")
    @app_commands.describe(
        special_modifier="a modifier from special rules, -10 to +10 (default 0)",
        gang=GANG_HELP, campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def seek(
        self,
        interaction: Interaction,
        special_modifier: app_commands.Range[int, -MAX_SPECIAL_MODIFIER, MAX_SPECIAL_MODIFIER] = 0,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        await defer_privately(interaction)
        bounded(special_modifier, -MAX_SPECIAL_MODIFIER, MAX_SPECIAL_MODIFIER,
                "A special rule modifier")
        found, owner = await controlled(interaction, campaign, gang)
        ruleset = ruleset_for(found)

        def compute(world: World, run: PostBattleRun, roller: Roller) -> RuleResult:
            offer = run.sequence.offer(owner.id)
            if offer is not None:
                raise NotEligible(
                    "Rare & Illegal availability is rolled once per post-battle sequence; "
                    f"{owner.name} rolled {offer.availability} already: "
                    f"{', '.join(offer.unlocked_names) or 'nothing'} on offer."
                )
            traders = run.sequence.traders(world, owner.id)
            return seek_rare_and_illegal(world, owner.id, traders, roller, ruleset,
                                         special_modifier)

        def bookkeeping(run: PostBattleRun, result: RuleResult) -> None:
            assert isinstance(result, AvailabilityResult)
            run.sequence.record_availability(result.offer)

        await act(interaction, campaign=found, gang=owner, stages=TRADING_POST,
                  compute=compute, bookkeeping=bookkeeping)

    @app_commands.command(name="buyrare",
                          description="B. Buy a Rare or Illegal item your roll unlocked")
    @app_commands.describe(item="an item the availability roll unlocked", gang=GANG_HELP,
                           campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(item=rare_items, gang=gang_names, campaign=campaign_names)
    async def buyrare(self, interaction: Interaction, item: Name, gang: Name | None = None,
                      campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        found, owner = await controlled(interaction, campaign, gang)

        def compute(world: World, run: PostBattleRun, _roller: Roller) -> RuleResult:
            offer = run.sequence.offer(owner.id)
            if offer is None:
                raise NotEligible(f"{owner.name} has not sought Rare & Illegal equipment in this "
                                  "sequence: use /roster seek first (after a Trade action).")
            return buy_rare_item(world, owner.id, item, offer, new_id())

        await act(interaction, campaign=found, gang=owner, stages=TRADING_POST, compute=compute)

    # ------------------------------------------------------------------ C. Boons

    @app_commands.command(name="boon", description="C. Claim a Territory's Boon")
    @app_commands.describe(
        territory="a Territory with a Boon that the gang controls",
        credits="credits the Boon gives",
        reputation="Reputation the Boon gives",
        item="an item the Boon gives (into the Stash; not sellable this sequence)",
        item_cost="the item's value (default: its Trading Post price)",
        description="what the Boon gave, in your words",
        gang=GANG_HELP, campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(territory=boon_territories, item=buyable_items, gang=gang_names,
                               campaign=campaign_names)
    async def boon(
        self,
        interaction: Interaction,
        territory: Name,
        credits: app_commands.Range[int, 0, MAX_BOON_CREDITS] = 0,
        reputation: app_commands.Range[int, 0, MAX_BOON_REPUTATION] = 0,
        item: Name | None = None,
        item_cost: app_commands.Range[int, 0, MAX_ITEM_COST] | None = None,
        description: app_commands.Range[str, 1, 200] | None = None,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        await defer_privately(interaction)
        bounded(credits, 0, MAX_BOON_CREDITS, "Boon credits")
        bounded(reputation, 0, MAX_BOON_REPUTATION, "Boon Reputation")
        bounded(item_cost, 0, MAX_ITEM_COST, "An item's cost")
        found, owner = await controlled(interaction, campaign, gang)
        held = await storage_of(interaction).list_territories(
            guild_id_of(interaction), found.id, controller=owner.id)
        chosen = next((t for t in held if same_name(t.name, territory)), None)
        if chosen is None:
            raise NotFound(f"{safe(owner.name)} controls no Territory called "
                           f"'{safe(territory)}'.")
        items = []
        if item:
            entry, _source = catalogue_entry(ruleset_for(found), owner, None, item)
            items.append(new_item(item, entry, item_cost, None, None))
        claim = checked(lambda: BoonClaim(
            territory_id=chosen.id, credits=credits, reputation=reputation, items=items,
            description=(description or "").strip(),
        ), "Boon")
        ruleset = ruleset_for(found)

        def compute(world: World, run: PostBattleRun, _roller: Roller) -> RuleResult:
            return claim_boons(world, owner.id, run.sequence.id, [claim], ruleset,
                               run.sequence.claimed_boons(owner.id))

        def bookkeeping(run: PostBattleRun, result: RuleResult) -> None:
            assert isinstance(result, BoonsResult)
            run.sequence.record_boons(result)

        await act(interaction, campaign=found, gang=owner, stages=BOONS, compute=compute,
                  bookkeeping=bookkeeping)

    # ------------------------------------------------------------------ D. Distribute

    @app_commands.command(name="give", description="D. Give a Stash item to a fighter")
    @app_commands.describe(item="the Stash item", fighter="the fighter who takes it",
                           gang="the fighter's gang", campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(item=stash_item_names, fighter=fighter_names, gang=gang_names,
                               campaign=campaign_names)
    async def give(self, interaction: Interaction, item: Name, fighter: Name,
                   gang: Name | None = None, campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        found, owner, who = await _fighter(interaction, campaign, fighter, gang)
        given = pick_item(owner.stash, item, f"{possessive(owner.name)} Stash")
        ruleset = ruleset_for(found)
        await act(interaction, campaign=found, gang=owner, stages=DISTRIBUTE,
                  compute=lambda world, _run, _roller: give_item(
                      world, owner.id, given.id, who, ruleset))

    @app_commands.command(name="take", description="D. Put a fighter's item back in the Stash")
    @app_commands.describe(item="the item the fighter carries", fighter="the fighter",
                           gang="the fighter's gang", campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(item=carried_items, fighter=fighter_names, gang=gang_names,
                               campaign=campaign_names)
    async def take(self, interaction: Interaction, item: Name, fighter: Name,
                   gang: Name | None = None, campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        found, owner, who = await _fighter(interaction, campaign, fighter, gang)
        carried = pick_item(owner.fighter(who).equipment, item, fighter)
        ruleset = ruleset_for(found)
        await act(interaction, campaign=found, gang=owner, stages=DISTRIBUTE,
                  compute=lambda world, _run, _roller: take_item(
                      world, owner.id, carried.id, who, ruleset))

    # ------------------------------------------------------------------ E. Advancements

    @app_commands.command(name="advance", description="E. Spend a fighter's XP on an advancement")
    @app_commands.describe(
        fighter="the fighter",
        option="the advancement (Gangers: the Ganger advancement roll)",
        stat="the characteristic, when the advancement offers a choice",
        skill="for a chosen skill: its name",
        skill_set="for a random skill: the skill set to roll on",
        gang="the fighter's gang", campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(fighter=fighter_names, option=advancement_options,
                               stat=advancement_stats, gang=gang_names, campaign=campaign_names)
    async def advance(self, interaction: Interaction, fighter: Name, option: Name,
                      stat: app_commands.Range[str, 1, 10] | None = None,
                      skill: Name | None = None, skill_set: Name | None = None,
                      gang: Name | None = None, campaign: Name | None = None) -> None:
        await defer_privately(interaction)
        chosen_stat = stat_key(stat) if stat else None
        found, owner, who = await _fighter(interaction, campaign, fighter, gang)
        ruleset = ruleset_for(found)

        def compute(world: World, run: PostBattleRun, roller: Roller) -> RuleResult:
            return buy_advancement(world, owner.id, who, option, ruleset, roller, chosen_stat,
                                   skill=skill, skill_set=skill_set,
                                   skirmish=run.sequence.skirmish)

        await act(interaction, campaign=found, gang=owner, stages=ADVANCEMENTS, compute=compute)

    # ------------------------------------------------------------------ PB-6B.8 deferral

    @app_commands.command(name="defer",
                          description="Finish a sub-step later (all players and the Arbitrator "
                                      "agree)")
    @app_commands.describe(substep="the sub-step to finish later", gang=GANG_HELP,
                           campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    @app_commands.choices(substep=SUBSTEP_CHOICES)
    async def defer(self, interaction: Interaction, substep: str, gang: Name | None = None,
                    campaign: Name | None = None) -> None:
        chosen = substep_named(substep)
        found, owner = await controlled(interaction, campaign, gang)
        run = await run_of(interaction, found, owner)
        # Refuse now what the rules would refuse anyway (over, skirmish, closed).
        run.sequence.model_copy(deep=True).defer(owner.id, chosen, run.gang_ids, True)
        gangs = await _run_gangs(interaction, found, run)
        if is_arbitrator(found, interaction):
            compute, bookkeeping = _deferral(owner, chosen, run.gang_ids, True, on_behalf=True)
            await act(interaction, campaign=found, gang=owner, stages=[run.sequence.stage],
                      compute=compute, bookkeeping=bookkeeping)
            return
        question = (
            f"⏸️ **{safe(owner.name)}** asks to finish **{chosen.value}** later, up to its next "
            "pre-battle sequence (PB-6B.8). Every player"
            + ("" if run.sequence.skirmish else " and an Arbitrator") + " must agree."
        )
        agreement = new_agreement(
            DEFER, found.id, question, gangs, proposed_by=interaction.user.id,
            needs_arbitrator=not run.sequence.skirmish,
            details={"gang_id": owner.id, "substep": chosen.value},
        )
        agree_as(agreement, found, gangs, interaction)
        if agreement.complete:
            compute, bookkeeping = _deferral(owner, chosen, agreement.agreed,
                                             agreement.arbitrator_agreed, on_behalf=False)
            await act(interaction, campaign=found, gang=owner, stages=[run.sequence.stage],
                      compute=compute, bookkeeping=bookkeeping)
            return
        await storage_of(interaction).save_sequence(
            guild_id_of(interaction), found.id, agreement.key, agreement)
        await interaction.response.send_message(agreement.text(),
                                                view=agreement_view(agreement))

    async def _deferral_agreed(
        self, interaction: Interaction, agreement: Agreement
    ) -> AgreementOutcome:
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        found = await storage.get_campaign(guild_id, agreement.campaign_id)
        owner = await storage.get_gang(guild_id, found.id, str(agreement.details["gang_id"]))
        chosen = substep_named(str(agreement.details["substep"]))
        run = await run_of(interaction, found, owner)
        compute, bookkeeping = _deferral(owner, chosen, agreement.agreed,
                                         agreement.arbitrator_agreed, on_behalf=False)
        done = await act_in_stage(interaction, campaign=found, gang=owner,
                                  stages=[run.sequence.stage], compute=compute,
                                  bookkeeping=bookkeeping)
        return AgreementOutcome(summary=" ".join(done.lines))

    @app_commands.command(name="reopen", description="Come back to a sub-step you deferred")
    @app_commands.describe(substep="the deferred sub-step", gang=GANG_HELP,
                           campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    @app_commands.choices(substep=SUBSTEP_CHOICES)
    async def reopen(self, interaction: Interaction, substep: str, gang: Name | None = None,
                     campaign: Name | None = None) -> None:
        chosen = substep_named(substep)
        found, owner = await controlled(interaction, campaign, gang)
        await _change_run(interaction, found, owner,
                          lambda run: run.sequence.reopen(owner.id, chosen))
        await interaction.response.send_message(
            f"**{safe(owner.name)}** is back in **{chosen.value}** (PB-6B.8): use the /roster "
            "commands of that sub-step, then `/roster done`."
        )

    @app_commands.command(name="done", description="End a deferred sub-step")
    @app_commands.describe(substep="the deferred sub-step", gang=GANG_HELP,
                           campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    @app_commands.choices(substep=SUBSTEP_CHOICES)
    async def done(self, interaction: Interaction, substep: str, gang: Name | None = None,
                   campaign: Name | None = None) -> None:
        chosen = substep_named(substep)
        found, owner = await controlled(interaction, campaign, gang)
        await _change_run(interaction, found, owner,
                          lambda run: run.sequence.end_deferred(owner.id, chosen))
        await interaction.response.send_message(
            f"**{safe(owner.name)}** has finished **{chosen.value}**."
        )


# =========================================================================== helpers


async def _fighter(
    interaction: Interaction, campaign_name: str | None, fighter: str, gang: str | None
) -> tuple[Campaign, Gang, str]:
    """Campaign, the fighter's gang (controlled by the caller) and the fighter's id."""
    source = GuildReads.of(interaction)
    campaign = await campaign_in(source, campaign_name)
    owner, found = await fighter_in(source, campaign, fighter, gang)
    require_gang_control(campaign, owner, interaction)
    return campaign, owner, found.id


def _crew_choice(gang: Gang, choice: str | None, replacement: str | None) -> CrewChoice | None:
    if choice is None:
        if replacement:
            raise InvalidRequest("A replacement is for crew_choice 'takes another vehicle'.")
        return None
    if choice == "retire":
        return CrewChoice.retire()
    if choice == "wait":
        return CrewChoice.await_purchase()
    if choice != "new":
        raise InvalidRequest("crew_choice is one of: new, wait, retire.")
    if not replacement:
        raise InvalidRequest("Name the Stash vehicle the crew takes (replacement).")
    spare = next((v for v in gang.stash_vehicles if same_name(v.name, replacement)), None)
    if spare is None:
        raise NotFound(f"{possessive(safe(gang.name))} Stash has no vehicle called "
                       f"'{safe(replacement)}'.")
    return CrewChoice.new_vehicle(spare.id)


async def _run_gangs(
    interaction: Interaction, campaign: Campaign, run: PostBattleRun
) -> list[Gang]:
    world = await storage_of(interaction).load_world(guild_id_of(interaction), campaign.id,
                                                     run.gang_ids)
    return [world.gang(gang_id) for gang_id in run.gang_ids]


def _deferral(
    gang: Gang, substep: SubStep, agreed_by: Sequence[str], arbitrator: bool, *, on_behalf: bool
) -> tuple[Compute, Bookkeeping]:
    """compute and bookkeeping that record a deferral (the rules check it twice: safe)."""
    why = ("an Arbitrator agreed on everyone's behalf" if on_behalf
           else "every player" + (" and an Arbitrator" if arbitrator else "") + " agreed")

    def compute(world: World, run: PostBattleRun, _roller: Roller) -> RuleResult:
        run.sequence.model_copy(deep=True).defer(gang.id, substep, agreed_by, arbitrator)
        return note_result(world, "PB-6B.8", f"{gang.name} finishes {substep.value} later", [
            f"{gang.name} will finish {substep.value} later, up to its next pre-battle "
            f"sequence ({why}): /roster reopen, then /roster done."
        ])

    def bookkeeping(run: PostBattleRun, _result: RuleResult) -> None:
        run.sequence.defer(gang.id, substep, agreed_by, arbitrator)

    return compute, bookkeeping


async def _change_run(
    interaction: Interaction, campaign: Campaign, gang: Gang,
    change: Callable[[PostBattleRun], None],
) -> None:
    """Change the gang's run (reopen / end a deferral) and save it, in one transaction."""
    async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
        run = await active_run_in(tx, campaign.id, gang.id)
        if run is None:
            raise Refused(f"{safe(gang.name)} has no post-battle sequence with a deferred "
                          "sub-step.")
        change(run)
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(RosterCog(bot))
