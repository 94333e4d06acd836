"""/vehicle: add a vehicle to a roster and edit it (name, cost, crew, Lasting Damage).

A vehicle with a crew is on the roster; one without waits in the Stash (as
the Trading Post leaves a vehicle bought without crew). Crew are fighters of
the Crew category on the roster who drive no other vehicle, as the Trading
Post rules require. ``pay`` buys a House List vehicle through
:func:`rules.tradingpost.purchase_vehicle`; otherwise nothing is charged.
"""

from __future__ import annotations

from discord.ext import commands

from bot.call import Call
from bot.cog import BotCog, adds
from bot.options import (
    CampaignName,
    DamageName,
    FighterName,
    GangName,
    NewName,
    VehicleDamage,
    VehicleName,
    VehicleType,
)
from bot.render import safe
from bot.slash import slash
from bot.storage import new_id
from bot.ui import bounded, checked, clean_name
from bot.ui.ledger import gang_change_lines
from rules.errors import InvalidRequest, NotFound
from rules.models import Fighter, Gang, Vehicle, VehicleStatus
from rules.names import same_name
from rules.ruleset import RuleSet, VehicleTemplate
from rules.tradingpost import MAX_CREDITS, check_crew, purchase_vehicle, vehicle_template


class VehicleCog(BotCog, commands.GroupCog, group_name="vehicle",
                 group_description="Vehicles on a gang's roster"):
    @slash("add", "Add a vehicle: a House List type or by hand",
           gang="the gang that owns the vehicle", name="the vehicle's name",
           vehicle_type="a vehicle from the gang's House List (sets the cost)",
           cost="credits value without Upgrades or gear (overrides the House List)",
           crew="a Crew fighter of the gang who drives it (none: it waits in the Stash)")
    async def add(
        self,
        call: Call,
        gang: GangName,
        name: NewName,
        vehicle_type: VehicleType | None = None,
        cost: int | None = None,
        crew: FighterName | None = None,
        pay: bool = False,
        campaign: CampaignName | None = None,
    ) -> None:
        vehicle_name = clean_name(name, "vehicle's name")
        bounded(cost, 0, MAX_CREDITS, "A vehicle's cost")
        async with call.write(campaign) as s:
            target = await s.own_gang(gang)
            template = vehicle_template(s.ruleset, target, vehicle_type or "")
            driver = s.fighter_of(target, crew) if crew else None
            if pay:
                if template is None or cost is not None:
                    raise InvalidRequest(
                        f"Paying needs a vehicle type from the {target.house} House List and "
                        "charges its cost; leave cost out."
                    )
                result = purchase_vehicle(
                    await s.world(target), target.id, s.ruleset, template.vehicle_type,
                    vehicle_name, new_id(), driver.id if driver else None,
                )
                await s.apply(result)
            else:
                if driver is not None:
                    check_crew(target, driver)
                vehicle = _by_hand(target, template, vehicle_type, vehicle_name, cost, driver)
                await s.tx.add_vehicle(s.campaign.id, target.id, vehicle, actor=s.by,
                                       stash=driver is None)
        # The type's profile stays the rule data's: the card and /gang show read it there.
        profile = f" Profile: `{template.profile.line}`" if template and template.profile else ""
        if pay:
            bought = f"{safe(result.vehicle_type)} bought for {result.cost} credits.{profile}"
            await call.answer_result(result, bought)
            return
        where = f"driven by {safe(driver.name)}" if driver else "waiting in the Stash for a crew"
        kind = f"{safe(vehicle.vehicle_type)}, " if vehicle.vehicle_type else ""
        await call.answer(f"{safe(vehicle.name)} joins {safe(target.name)}", [
            f"➕ {kind}{vehicle.cost} credits, {where}.{profile}",
            "Roster keeping: no credits were charged (`pay:True` buys it from the Stash).",
        ])

    @slash("edit", "Change a vehicle: name, cost, crew, damage",
           vehicle="the vehicle to change", cost="credits value without Upgrades or gear",
           crew="a Crew fighter who drives it from now on",
           remove_crew="the vehicle loses its crew and goes to the Stash",
           add_damage="a Lasting Damage result to record",
           remove_damage="a Lasting Damage result that was repaired",
           clear_damage="repair every Lasting Damage",
           gang="the vehicle's gang (default: found by name)")
    async def edit(
        self,
        call: Call,
        vehicle: VehicleName,
        name: NewName | None = None,
        cost: int | None = None,
        crew: FighterName | None = None,
        remove_crew: bool = False,
        add_damage: DamageName | None = None,
        remove_damage: VehicleDamage | None = None,
        clear_damage: bool = False,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        bounded(cost, 0, MAX_CREDITS, "A vehicle's cost")
        if crew and remove_crew:
            raise InvalidRequest("Give a new crew or remove the crew, not both.")
        if clear_damage and (add_damage or remove_damage):
            raise InvalidRequest("clear_damage repairs everything; leave out the other damage.")
        wanted = [name, cost, crew, add_damage, remove_damage]
        if all(value is None for value in wanted) and not (remove_crew or clear_damage):
            raise InvalidRequest("Give at least one thing to change.")
        async with call.write(campaign) as s:
            owner, current = await s.own_vehicle(vehicle, gang)
            after = owner.model_copy(deep=True)
            edited = next(v for v in [*after.vehicles, *after.stash_vehicles] if v.id == current.id)
            if name is not None:
                edited.name = clean_name(name, "vehicle's name")
            if cost is not None:
                edited.cost = cost
            _change_damage(edited, s.ruleset, add_damage, remove_damage, clear_damage)
            if crew:
                driver = s.fighter_of(after, crew)
                check_crew(after, driver, edited.id)
                _move(after, edited, driver)
            elif remove_crew:
                if edited.crew_id is None:
                    raise InvalidRequest(f"{edited.name} has no crew.")
                _move(after, edited, None)
            stored = await s.update_gang(after, title=f"Edit {edited.name}")
        await call.answer(f"{safe(edited.name)} ({safe(owner.name)}) edited",
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


setup = adds(VehicleCog)
