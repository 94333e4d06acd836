"""Clean House, part A of Update Roster (PB-6A.1 to PB-6A.3).

Decisions where the texts are silent:

- Clean House only acts on fighters whose status is Dead (after the dying
  Critical Injuries are applied); Retired fighters are deleted when
  :func:`retire` is called.
- Armour of a dead fighter is always lost, even when the rest of its gear is
  kept; a retired fighter keeps everything, armour included.
- A dead or retired crew's vehicle goes to the Stash as it is, with its
  Upgrades, wargear, weapons and Lasting Damage, without crew.
- ``escorted_to_doc`` is cleared on the survivors once Clean House is done:
  the flag belongs to one post-battle sequence.
- A captive cannot be retired by its owner (its gear is with the captor) and a
  dead fighter is left to Clean House.
- Scrapping may be done for a vehicle in the Stash too (it has no crew). The
  crew of a scrapped vehicle may also wait, without a vehicle, for the one the
  gang will buy at the Trading Post in the next step ("one must be purchased
  for them"); the Trading Post step is trusted to do so.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, model_validator

from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import (
    Battle,
    EquipmentKind,
    Fighter,
    FighterStatus,
    Gang,
    Item,
    Vehicle,
    VehicleStatus,
)
from rules.money import percent_of
from rules.wording import possessive
from rules.world import RuleResult, Workspace, World

SCRAP_PERCENT = 25


class FighterRemoval(BaseModel):
    """A fighter or crew taken off the roster, and where its things went."""

    fighter_id: str
    fighter_name: str
    items_to_stash: list[str]
    items_lost: list[str]
    # Id of the crew's vehicle now in the Stash.
    vehicle_to_stash: str | None = None


# --------------------------------------------------------------------------- the dead


class CleanHouseResult(RuleResult):
    gang_id: str
    # Fighters whose Critical Injury was not treated: they die now.
    died_of_critical_injuries: list[str]
    deleted: list[FighterRemoval]
    # Whether the gear of the dead could be gathered from the battlefield.
    had_fighter_on_battlefield: bool


def clean_house(world: World, battle: Battle, gang_id: str) -> CleanHouseResult:
    """Delete the dead, gathering what gear the rules allow (PB-6A.1)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    if gang_id not in battle.gang_ids:
        raise NotEligible(f"{gang.name} did not fight in this battle.")
    on_battlefield = gang_id in battle.gangs_with_models_left

    dying = [f for f in gang.fighters if f.critical_injury and f.on_roster]
    for fighter in dying:
        fighter.set_status(FighterStatus.DEAD)
        fighter.critical_injury = False
        ws.note(f"{fighter.name} was not saved from its Critical Injury and dies.")

    removals = [
        _remove_dead(ws, gang, fighter, on_battlefield)
        for fighter in list(gang.fighters)
        if fighter.status is FighterStatus.DEAD
    ]
    for fighter in gang.fighters:
        fighter.escorted_to_doc = False
    if not removals:
        ws.note(f"{gang.name} has no dead to clear from its roster.")
    return ws.finish(
        CleanHouseResult,
        clause="PB-6A.1",
        title=f"Clean House for {gang.name}",
        gang_id=gang_id,
        died_of_critical_injuries=[f.id for f in dying],
        deleted=removals,
        had_fighter_on_battlefield=on_battlefield,
    )


def _remove_dead(
    ws: Workspace, gang: Gang, fighter: Fighter, on_battlefield: bool
) -> FighterRemoval:
    keep_gear = on_battlefield or fighter.escorted_to_doc
    kept = [i for i in fighter.equipment if keep_gear and i.kind is not EquipmentKind.ARMOUR]
    lost = [i for i in fighter.equipment if i not in kept]
    gang.stash = [*gang.stash, *kept]
    _delete(gang, fighter)
    if kept:
        why = "after the Doc" if fighter.escorted_to_doc else "from the battlefield"
        ws.note(
            f"{possessive(fighter.name)} gear is recovered {why}: "
            f"{_names(kept)} go to the Stash."
        )
    if lost:
        ws.note(f"Lost with {fighter.name}: {_names(lost)}.")
    return _removal(ws, gang, fighter, kept, lost, "is deleted")


def _removal(
    ws: Workspace, gang: Gang, fighter: Fighter, kept: list[Item], lost: list[Item], how: str
) -> FighterRemoval:
    """Stash the vehicle a deleted fighter crewed, and record where its gear went."""
    vehicle = _stash_crew_vehicle(ws, gang, fighter)
    ws.note(f"{fighter.name} {how} from the roster of {gang.name}.")
    return FighterRemoval(
        fighter_id=fighter.id,
        fighter_name=fighter.name,
        items_to_stash=[i.name for i in kept],
        items_lost=[i.name for i in lost],
        vehicle_to_stash=vehicle,
    )


# --------------------------------------------------------------------------- retirement


class RetireResult(RuleResult):
    gang_id: str
    removal: FighterRemoval


def retire(world: World, gang_id: str, fighter_id: str) -> RetireResult:
    """Retire a fighter or crew: its gear, armour too, and any vehicle go to the Stash (PB-6A.2)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    fighter = gang.fighter(fighter_id)
    _require_retirable(fighter)
    removal = _retire_fighter(ws, gang, fighter)
    return ws.finish(
        RetireResult,
        clause="PB-6A.2",
        title=f"{fighter.name} retires",
        gang_id=gang_id,
        removal=removal,
    )


def _require_retirable(fighter: Fighter) -> None:
    if fighter.status is FighterStatus.CAPTURED:
        raise NotEligible(f"{fighter.name} is held captive and cannot be retired.")
    if not fighter.on_roster:
        raise NotEligible(f"{fighter.name} is no longer on the roster.")


def _retire_fighter(ws: Workspace, gang: Gang, fighter: Fighter) -> FighterRemoval:
    gang.stash = [*gang.stash, *fighter.equipment]
    _delete(gang, fighter)
    if fighter.equipment:
        ws.note(f"{possessive(fighter.name)} gear goes to the Stash: {_names(fighter.equipment)}.")
    return _removal(ws, gang, fighter, fighter.equipment, [], "retires and is deleted")


# --------------------------------------------------------------------------- scrapping


class CrewFate(StrEnum):
    NEW_VEHICLE = "takes another vehicle from the Stash"
    AWAIT_PURCHASE = "waits for a vehicle bought at the Trading Post"
    RETIRE = "retires"


class CrewChoice(BaseModel):
    """What becomes of the crew of a scrapped vehicle."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fate: CrewFate
    # The Stash vehicle it takes, for NEW_VEHICLE only.
    vehicle_id: str | None = None

    @model_validator(mode="after")
    def _vehicle_only_when_new(self) -> CrewChoice:
        if (self.fate is CrewFate.NEW_VEHICLE) != (self.vehicle_id is not None):
            raise ValueError("a vehicle id is given exactly when the crew takes a new vehicle")
        return self

    @classmethod
    def new_vehicle(cls, vehicle_id: str) -> CrewChoice:
        return cls(fate=CrewFate.NEW_VEHICLE, vehicle_id=vehicle_id)

    @classmethod
    def retire(cls) -> CrewChoice:
        return cls(fate=CrewFate.RETIRE)

    @classmethod
    def await_purchase(cls) -> CrewChoice:
        return cls(fate=CrewFate.AWAIT_PURCHASE)


class ScrapResult(RuleResult):
    gang_id: str
    vehicle_id: str
    vehicle_name: str
    credits_gained: int
    upgrades_lost: list[str]
    items_to_stash: list[str]
    crew_id: str | None
    crew_fate: CrewFate | None
    crew_vehicle_id: str | None
    crew_removal: FighterRemoval | None


def scrap_vehicle(
    world: World, gang_id: str, vehicle_id: str, crew_choice: CrewChoice | None = None
) -> ScrapResult:
    """Scrap a vehicle with Lasting Damage for a quarter of its cost with Upgrades (PB-6A.3).

    ``crew_choice`` is required when the vehicle has a crew and refused when it has none.
    """
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    vehicle = _vehicle_anywhere(gang, vehicle_id)
    if not vehicle.lasting_damage:
        raise NotEligible(
            f"Only a vehicle with Lasting Damage may be scrapped; {vehicle.name} has none."
        )
    crew = _crew_of(gang, vehicle)
    _check_crew_choice(gang, vehicle, crew, crew_choice)

    gained = percent_of(vehicle.cost_with_upgrades, SCRAP_PERCENT)
    gang.credits += gained
    gang.vehicles = [v for v in gang.vehicles if v.id != vehicle_id]
    gang.stash_vehicles = [v for v in gang.stash_vehicles if v.id != vehicle_id]
    gang.stash = [*gang.stash, *vehicle.equipment]
    ws.note(
        f"{vehicle.name} is scrapped: {SCRAP_PERCENT}% of {vehicle.cost_with_upgrades} credits "
        f"with Upgrades, rounded up to 5, gives {gained} credits."
    )
    if vehicle.upgrades:
        ws.note(f"Upgrades lost: {_names(vehicle.upgrades)}.")
    if vehicle.equipment:
        ws.note(f"To the Stash: {_names(vehicle.equipment)}.")

    removal, new_vehicle_id = None, None
    if crew is not None and crew_choice is not None:
        removal, new_vehicle_id = _settle_crew(ws, gang, crew, crew_choice)
    return ws.finish(
        ScrapResult,
        clause="PB-6A.3",
        title=f"{gang.name} scraps {vehicle.name}",
        gang_id=gang_id,
        vehicle_id=vehicle_id,
        vehicle_name=vehicle.name,
        credits_gained=gained,
        upgrades_lost=[i.name for i in vehicle.upgrades],
        items_to_stash=[i.name for i in vehicle.equipment],
        crew_id=crew.id if crew else None,
        crew_fate=crew_choice.fate if crew_choice else None,
        crew_vehicle_id=new_vehicle_id,
        crew_removal=removal,
    )


def _vehicle_anywhere(gang: Gang, vehicle_id: str) -> Vehicle:
    for vehicle in (*gang.vehicles, *gang.stash_vehicles):
        if vehicle.id == vehicle_id:
            return vehicle
    raise NotFound(f"{gang.name} has no vehicle with id {vehicle_id}.")


def _crew_of(gang: Gang, vehicle: Vehicle) -> Fighter | None:
    if vehicle.crew_id is None:
        return None
    return next((f for f in gang.fighters if f.id == vehicle.crew_id and f.on_roster), None)


def _check_crew_choice(
    gang: Gang, vehicle: Vehicle, crew: Fighter | None, choice: CrewChoice | None
) -> None:
    if crew is None:
        if choice is not None:
            raise InvalidRequest(f"{vehicle.name} has no crew to decide for.")
        return
    if choice is None:
        raise InvalidRequest(
            f"Say whether {crew.name} takes another vehicle, waits for a new one or retires."
        )
    if choice.fate is CrewFate.RETIRE:
        _require_retirable(crew)
    if choice.fate is CrewFate.NEW_VEHICLE:
        if choice.vehicle_id == vehicle.id:
            raise InvalidRequest(f"{crew.name} cannot take the vehicle being scrapped.")
        if all(v.id != choice.vehicle_id for v in gang.stash_vehicles):
            raise NotFound(f"{gang.name} has no vehicle with id {choice.vehicle_id} in its Stash.")


def _settle_crew(
    ws: Workspace, gang: Gang, crew: Fighter, choice: CrewChoice
) -> tuple[FighterRemoval | None, str | None]:
    if choice.fate is CrewFate.RETIRE:
        return _retire_fighter(ws, gang, crew), None
    if choice.fate is CrewFate.AWAIT_PURCHASE:
        ws.note(f"{crew.name} waits for the vehicle {gang.name} will buy at the Trading Post.")
        return None, None
    replacement = next(v for v in gang.stash_vehicles if v.id == choice.vehicle_id)
    gang.stash_vehicles = [v for v in gang.stash_vehicles if v.id != replacement.id]
    replacement.crew_id = crew.id
    replacement.status = VehicleStatus.ACTIVE
    gang.vehicles = [*gang.vehicles, replacement]
    ws.note(f"{crew.name} takes {replacement.name} out of the Stash.")
    return None, replacement.id


# --------------------------------------------------------------------------- helpers


def _delete(gang: Gang, fighter: Fighter) -> None:
    gang.fighters = [f for f in gang.fighters if f.id != fighter.id]


def _stash_crew_vehicle(ws: Workspace, gang: Gang, crew: Fighter) -> str | None:
    """Put the vehicle a departing crew drove into the Stash; return its id."""
    vehicle = next((v for v in gang.vehicles if v.crew_id == crew.id), None)
    if vehicle is None:
        return None
    gang.vehicles = [v for v in gang.vehicles if v.id != vehicle.id]
    vehicle.crew_id = None
    vehicle.status = VehicleStatus.IN_STASH
    gang.stash_vehicles = [*gang.stash_vehicles, vehicle]
    ws.note(f"{vehicle.name} goes to the Stash, waiting for a new crew.")
    return vehicle.id


def _names(items: Sequence[Item]) -> str:
    return ", ".join(item.name for item in items)
