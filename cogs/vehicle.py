"""/vehicle: add a vehicle to a roster and edit it (name, cost, crew, Lasting Damage).

A vehicle with a crew is on the roster; one without waits in the Stash (as
the Trading Post leaves a vehicle bought without crew). Crew are fighters of
the Crew category on the roster who drive no other vehicle, as the Trading
Post rules require. ``pay`` buys a House List vehicle through
:func:`rules.tradingpost.purchase_vehicle`; otherwise nothing is charged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, fighter_names, gang_names, vehicle_names
from bot.context import actor_of, guild_id_of, require_gang_control, storage_of
from bot.render import safe
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Transaction, new_id
from bot.ui import checked, clean_name
from bot.ui.ledger import gang_change_lines, send_lines
from cogs.fighter import (
    MAX_CREDITS,
    Choices,
    Interaction,
    Name,
    answer_result,
    apply_result,
    bounded,
    campaign_in,
    chosen_gangs,
    pick_fighter,
    suggest,
)
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import Fighter, FighterCategory, Gang, Vehicle, VehicleStatus
from rules.names import same_name
from rules.ruleset import RuleSet, VehicleTemplate
from rules.tradingpost import purchase_vehicle

if TYPE_CHECKING:
    from bot.app import MundaBot


def vehicle_template(ruleset: RuleSet, gang: Gang, vehicle_type: str) -> VehicleTemplate | None:
    for house in ruleset.houses:
        if same_name(house.house, gang.house):
            return next(
                (v for v in house.vehicles if same_name(v.vehicle_type, vehicle_type)), None
            )
    return None


async def vehicle_types(interaction: Interaction, current: str) -> Choices:
    """Vehicles of the chosen gang's House List."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        houses = [g.house for g in chosen_gangs(interaction, gangs)]
        return (v.vehicle_type for h in ruleset_for(campaign).houses
                if any(same_name(h.house, house) for house in houses) for v in h.vehicles)

    return await suggest(interaction, current, names)


async def damage_names(interaction: Interaction, current: str) -> Choices:
    """Results of the rule set's Lasting Damage table."""

    def names(campaign: Campaign, _gangs: list[Gang]) -> Iterable[str]:
        return (entry.name for entry in ruleset_for(campaign).lasting_damage.entries)

    return await suggest(interaction, current, names)


async def current_damage(interaction: Interaction, current: str) -> Choices:
    """Lasting Damage the chosen vehicle has."""

    def names(_campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        wanted = getattr(interaction.namespace, "vehicle", None)
        if not isinstance(wanted, str):
            return []
        return (damage for g in chosen_gangs(interaction, gangs)
                for v in [*g.vehicles, *g.stash_vehicles] if same_name(v.name, wanted)
                for damage in v.lasting_damage)

    return await suggest(interaction, current, names)


def check_crew(gang: Gang, crew: Fighter, vehicle_id: str | None = None) -> None:
    """A crew is a Crew fighter on the roster with no other vehicle."""
    if crew.category is not FighterCategory.CREW or not crew.on_roster:
        raise NotEligible(f"{crew.name} is not a crew member on the roster who can drive.")
    driving = [v.name for v in gang.vehicles if v.crew_id == crew.id and v.id != vehicle_id]
    if driving:
        raise NotEligible(f"{crew.name} already drives {driving[0]}.")


async def vehicle_in(
    tx: Transaction, campaign: Campaign, name: str, gang_name: str | None
) -> tuple[Gang, Vehicle]:
    """A vehicle by name (on the roster or in the Stash), in the named gang or any gang."""
    gangs = ([await tx.get_gang_by_name(campaign.id, gang_name)] if gang_name
             else await tx.list_gangs(campaign.id))
    for gang in gangs:
        for vehicle in [*gang.vehicles, *gang.stash_vehicles]:
            if same_name(vehicle.name, name):
                return gang, vehicle
    where = gangs[0].name if gang_name and gangs else "this campaign"
    raise NotFound(f"There is no vehicle called '{name}' in {where}.")


class VehicleCog(commands.GroupCog, group_name="vehicle",
                 group_description="Vehicles on a gang's roster"):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="add", description="Add a vehicle: a House List type or by hand")
    @app_commands.describe(
        gang="the gang that owns the vehicle",
        name="the vehicle's name",
        vehicle_type="a vehicle from the gang's House List (sets the cost)",
        cost="credits value without Upgrades or gear (overrides the House List)",
        crew="a Crew fighter of the gang who drives it (none: it waits in the Stash)",
        pay="charge the House List cost from the Stash (default: no)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(gang=gang_names, vehicle_type=vehicle_types, crew=fighter_names,
                               campaign=campaign_names)
    async def add(
        self,
        interaction: Interaction,
        gang: Name,
        name: Name,
        vehicle_type: Name | None = None,
        cost: int | None = None,
        crew: Name | None = None,
        pay: bool = False,
        campaign: Name | None = None,
    ) -> None:
        vehicle_name = clean_name(name, "vehicle's name")
        bounded(cost, 0, MAX_CREDITS, "A vehicle's cost")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            target = await tx.get_gang_by_name(found.id, gang)
            require_gang_control(found, target, interaction)
            template = vehicle_template(ruleset_for(found), target, vehicle_type or "")
            driver = pick_fighter(target, crew) if crew else None
            if pay:
                if template is None or cost is not None:
                    raise InvalidRequest(
                        f"Paying needs a vehicle type from the {target.house} House List and "
                        "charges its cost; leave cost out."
                    )
                world = await tx.load_world(found.id, [target.id])
                result = purchase_vehicle(
                    world, target.id, ruleset_for(found), template.vehicle_type, vehicle_name,
                    new_id(), driver.id if driver else None,
                )
                await apply_result(tx, found, result, interaction)
            else:
                if driver is not None:
                    check_crew(target, driver)
                vehicle = _by_hand(target, template, vehicle_type, vehicle_name, cost, driver)
                await tx.add_vehicle(found.id, target.id, vehicle, actor=actor_of(interaction),
                                     stash=driver is None)
        if pay:
            bought = f"{safe(result.vehicle_type)} bought for {result.cost} credits."
            await answer_result(interaction, result, bought)
            return
        where = f"driven by {safe(driver.name)}" if driver else "waiting in the Stash for a crew"
        kind = f"{safe(vehicle.vehicle_type)}, " if vehicle.vehicle_type else ""
        await send_lines(interaction, f"{safe(vehicle.name)} joins {safe(target.name)}", [
            f"➕ {kind}{vehicle.cost} credits, {where}.",
            "Roster keeping: no credits were charged (`pay:True` buys it from the Stash).",
        ])

    @app_commands.command(name="edit", description="Change a vehicle: name, cost, crew, damage")
    @app_commands.describe(
        vehicle="the vehicle to change",
        name="a new name",
        cost="credits value without Upgrades or gear",
        crew="a Crew fighter who drives it from now on",
        remove_crew="the vehicle loses its crew and goes to the Stash",
        add_damage="a Lasting Damage result to record",
        remove_damage="a Lasting Damage result that was repaired",
        clear_damage="repair every Lasting Damage",
        gang="the vehicle's gang (default: found by name)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(vehicle=vehicle_names, crew=fighter_names, add_damage=damage_names,
                               remove_damage=current_damage, gang=gang_names,
                               campaign=campaign_names)
    async def edit(
        self,
        interaction: Interaction,
        vehicle: Name,
        name: Name | None = None,
        cost: int | None = None,
        crew: Name | None = None,
        remove_crew: bool = False,
        add_damage: Name | None = None,
        remove_damage: Name | None = None,
        clear_damage: bool = False,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        bounded(cost, 0, MAX_CREDITS, "A vehicle's cost")
        if crew and remove_crew:
            raise InvalidRequest("Give a new crew or remove the crew, not both.")
        if clear_damage and (add_damage or remove_damage):
            raise InvalidRequest("clear_damage repairs everything; leave out the other damage.")
        wanted = [name, cost, crew, add_damage, remove_damage]
        if all(value is None for value in wanted) and not (remove_crew or clear_damage):
            raise InvalidRequest("Give at least one thing to change.")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            owner, current = await vehicle_in(tx, found, vehicle, gang)
            require_gang_control(found, owner, interaction)
            after = owner.model_copy(deep=True)
            edited = next(v for v in [*after.vehicles, *after.stash_vehicles] if v.id == current.id)
            if name is not None:
                edited.name = clean_name(name, "vehicle's name")
            if cost is not None:
                edited.cost = cost
            _change_damage(edited, ruleset_for(found), add_damage, remove_damage, clear_damage)
            if crew:
                driver = pick_fighter(after, crew)
                check_crew(after, driver, edited.id)
                _move(after, edited, driver)
            elif remove_crew:
                if edited.crew_id is None:
                    raise InvalidRequest(f"{edited.name} has no crew.")
                _move(after, edited, None)
            stored = await tx.update_gang(found.id, after, actor=actor_of(interaction),
                                          title=f"Edit {edited.name}")
        await send_lines(interaction, f"{safe(edited.name)} ({safe(owner.name)}) edited",
                         gang_change_lines(owner, stored))


def _by_hand(
    gang: Gang,
    template: VehicleTemplate | None,
    vehicle_type: str | None,
    name: str,
    cost: int | None,
    driver: Fighter | None,
) -> Vehicle:
    if template is None and cost is None:
        if vehicle_type:
            raise InvalidRequest(
                f"'{vehicle_type}' is not in the {gang.house} House List: pick a vehicle from "
                "it, or give its cost by hand."
            )
        raise InvalidRequest(
            f"Give a vehicle_type from the {gang.house} House List, or a cost by hand."
        )
    kind = template.vehicle_type if template is not None else (
        clean_name(vehicle_type, "vehicle type") if vehicle_type else ""
    )
    value = cost if cost is not None else template.cost if template is not None else 0
    status = VehicleStatus.ACTIVE if driver is not None else VehicleStatus.IN_STASH
    return checked(
        lambda: Vehicle(id=new_id(), name=name, vehicle_type=kind, cost=value,
                        crew_id=driver.id if driver else None, status=status),
        "vehicle",
    )


def _change_damage(
    vehicle: Vehicle, ruleset: RuleSet, add: str | None, remove: str | None, clear: bool
) -> None:
    if clear:
        if not vehicle.lasting_damage:
            raise InvalidRequest(f"{vehicle.name} has no Lasting Damage to repair.")
        vehicle.lasting_damage = []
    if remove is not None:
        match = next((d for d in vehicle.lasting_damage if same_name(d, remove)), None)
        if match is None:
            raise NotFound(f"{vehicle.name} has no Lasting Damage called '{remove}'.")
        vehicle.lasting_damage.remove(match)
    if add is not None:
        text = clean_name(add, "Lasting Damage")
        # A result of the rule set's table is written as the table spells it.
        known = next((e.name for e in ruleset.lasting_damage.entries if same_name(e.name, text)),
                     text)
        vehicle.lasting_damage = [*vehicle.lasting_damage, known]


def _move(gang: Gang, vehicle: Vehicle, driver: Fighter | None) -> None:
    """Give the vehicle its crew (onto the roster) or take it away (into the Stash)."""
    gang.vehicles = [v for v in gang.vehicles if v.id != vehicle.id]
    gang.stash_vehicles = [v for v in gang.stash_vehicles if v.id != vehicle.id]
    vehicle.crew_id = driver.id if driver else None
    if driver is None:
        vehicle.status = VehicleStatus.IN_STASH
        gang.stash_vehicles = [*gang.stash_vehicles, vehicle]
    else:
        if vehicle.status is VehicleStatus.IN_STASH:
            vehicle.status = VehicleStatus.ACTIVE
        gang.vehicles = [*gang.vehicles, vehicle]


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(VehicleCog(bot))
