"""Update Roster B: Visit the Trading Post (PB-6B.1 to PB-6B.7).

One function per action; each returns a result and never lets the Stash go
below 0 credits. Decisions where the texts are silent:

- Gang Composition (PB-6B.1) checks what REFERENCE.md states and no more:
  at most one Leader on the roster, and after the hire at least as many
  fighters with Gang Fighter (X) as without (equal is allowed). Whether a
  fighter has Gang Fighter (X) is read from its special rules, as the House
  Lists give them (the core data gives it to every fighter but Crew). A
  fighter with no special rules at all (entered by hand) is judged by its
  category: everyone but Crew has it. Hangers-on, Brutes and Hired Guns are
  not counted. Hiring a fighter with Gang Fighter (X) is always allowed, even
  into a gang that is already out of balance.
- A type's "0-X" of its list (``max_in_gang``: a 'Zerker 0-1, Phyrr Cats
  0-2) is checked on hiring and recruiting: the fighters of that type on the
  roster, Captives included, must be fewer than X. Roster keeping by hand
  does not check it.
- A hired fighter gets the House List's founding cost, hierarchy, special
  rules and profile; where the data gives no profile the fighter has none
  ("profile not set") until a player gives it, never a made-up one.
- Hangers-on and Brutes are recruited from the gang's own House List first,
  then from the rule set's shared ``hangers_on`` table, then from any other
  House List that offers that type as a Hanger-on or Brute. The limit by
  Reputation counts every Hanger-on and Brute on the roster, Captives
  included, and a template's ``min_reputation`` must be reached. A template
  marked ``example`` says so when recruited: its cost is the project's
  example, not an official figure.
- A vehicle is bought without crew into the Stash (its ``stash_vehicles``),
  or straight to a Crew fighter without a vehicle when one is named.
- Selling (PB-6B.4) takes the item's recorded cost as its value; vehicles in
  the Stash are not sold here. The D6x10 is rolled even when the item is
  worth 5 or less, so the players see the roll the rule asks for.
- An item is found in a catalogue by its name, case aside, else as loosely as the
  shipped lists and Armoury spell their items (punctuation, armor/armour, a closing
  plural, a bracket aside: :func:`rules.names.loosely_same`). A loose spelling that
  fits several entries ("Carapace": Light or Heavy) finds none: an item written
  down so keeps its recorded cost, and buying one takes its full name.
- Purchase from a fighter's own Equipment List (PB-6B.5) goes straight onto
  that fighter at the list's price, within the three weapon slots. The list
  entry's own availability decides: Common and Exclusive entries can be
  bought, a Rare or Illegal entry needs the Seek Rare & Illegal roll. The
  rule that such a purchase may not go to the Stash in the same sequence is
  not tracked.
- Seek Rare & Illegal (PB-6B.6) names its traders; each must be a fighter of
  the gang that may make post-battle actions. The special modifier is bounded
  to -10..+10. The result lists only Rare and Illegal items (Common items are
  always on offer); Exclusive items are never unlocked. "Once per sequence" is
  kept by :class:`rules.sequence.PostBattleSequence`.
- PB-6B.7: :meth:`rules.models.Availability.parse` reads "Rarity rating N"
  and "Legality rating N"; :func:`normalise_black_market` rewrites a source
  label that says Black Market.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from rules.dice import Roller
from rules.errors import InsufficientCredits, InvalidRequest, NotEligible, NotFound, WeaponLimit
from rules.models import (
    Alignment,
    Availability,
    Equipment,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Item,
    Rarity,
    Vehicle,
    VehicleStatus,
)
from rules.names import loosely_same, same_name
from rules.ruleset import FighterTemplate, HouseList, RuleSet, VehicleTemplate
from rules.wording import count, first_of, possessive
from rules.world import RuleResult, Workspace, World

MAX_WEAPON_SLOTS = 3
MAX_CREDITS = 1_000_000
MAX_SPECIAL_MODIFIER = 10
# Illegal items are four levels harder to find for a Law Abiding gang (PB-6B.6).
LAW_ABIDING_ILLEGAL_PENALTY = 4

# Categories judged to have Gang Fighter (X) when a fighter carries no special rules.
_GANG_FIGHTER_CATEGORIES = frozenset(
    {
        FighterCategory.LEADER,
        FighterCategory.CHAMPION,
        FighterCategory.GANGER,
        FighterCategory.JUVE,
        FighterCategory.PROSPECT,
        FighterCategory.SPECIALIST,
    }
)
HANGER_ON_CATEGORIES = frozenset({FighterCategory.HANGER_ON, FighterCategory.BRUTE})

E = TypeVar("E")


# --------------------------------------------------------------------------- results


class HireResult(RuleResult):
    gang_id: str
    fighter_id: str
    fighter_type: str
    category: FighterCategory
    cost: int


class VehiclePurchaseResult(RuleResult):
    gang_id: str
    vehicle_id: str
    vehicle_type: str
    cost: int
    crew_id: str | None


class SaleResult(RuleResult):
    gang_id: str
    item_id: str
    item_name: str
    value: int
    deduction: int
    credits_gained: int


class PurchaseResult(RuleResult):
    gang_id: str
    item_id: str
    item_name: str
    price: int
    # None when the item went into the Stash.
    fighter_id: str | None
    source: str  # "Equipment List" or "Trading Post"


class RareOffer(BaseModel):
    """What one Seek Rare & Illegal roll put on offer for one gang (storable)."""

    model_config = ConfigDict(frozen=True)

    gang_id: str
    alignment: Alignment
    dice_total: int
    leader_bonus: int
    champion_bonus: int
    reputation_bonus: int
    special_modifier: int
    availability: int
    unlocked: list[Equipment] = Field(default_factory=list)

    @property
    def unlocked_names(self) -> list[str]:
        return [item.name for item in self.unlocked]

    def find(self, name: str) -> Equipment | None:
        for item in self.unlocked:
            if same_name(item.name, name):
                return item
        return None


class AvailabilityResult(RuleResult):
    offer: RareOffer

    @property
    def availability(self) -> int:
        return self.offer.availability

    @property
    def unlocked_names(self) -> list[str]:
        return self.offer.unlocked_names


# --------------------------------------------------------------------------- shared helpers


def charge(gang: Gang, cost: int, what: str) -> None:
    """Take ``cost`` credits from the Stash or refuse without changing anything."""
    if cost > gang.credits:
        raise InsufficientCredits(
            f"{what} costs {cost} credits; {possessive(gang.name)} Stash holds {gang.credits}."
        )
    gang.credits -= cost


def gain(gang: Gang, credits: int) -> None:
    if gang.credits + credits > MAX_CREDITS:
        raise InvalidRequest(
            f"{possessive(gang.name)} Stash cannot hold more than {MAX_CREDITS} credits.")
    gang.credits += credits


def ids_in_use(world: World) -> set[str]:
    """Every fighter, vehicle and item id in the world (new ids must be fresh)."""
    used: set[str] = set()
    for gang in world.gangs.values():
        used.update(item.id for item in gang.stash)
        for fighter in gang.fighters:
            used.add(fighter.id)
            used.update(item.id for item in fighter.equipment)
        for vehicle in gang.vehicles + gang.stash_vehicles:
            used.add(vehicle.id)
            used.update(item.id for item in vehicle.equipment + vehicle.upgrades)
    return used


def require_fresh_id(world: World, new_id: str) -> None:
    if not new_id or len(new_id) > 64:
        raise InvalidRequest("A new id must be 1 to 64 characters long.")
    if new_id in ids_in_use(world):
        raise InvalidRequest(f"The id {new_id} is already in use.")


def house_list(ruleset: RuleSet, gang: Gang) -> HouseList:
    return ruleset.house(gang.house)


def fighter_template(ruleset: RuleSet, gang: Gang, fighter: Fighter) -> FighterTemplate | None:
    """The House List entry a fighter was hired from, if the rule set knows its type."""
    return type_template(ruleset, gang, fighter.fighter_type)


def type_template(ruleset: RuleSet, gang: Gang, fighter_type: str) -> FighterTemplate | None:
    """The gang's House List entry for ``fighter_type``; None if the list or type is unknown."""
    house = _house_to_search(ruleset, gang, fighter_type)
    return None if house is None else _template_named(house.fighters, fighter_type)


def vehicle_template(ruleset: RuleSet, gang: Gang, vehicle_type: str) -> VehicleTemplate | None:
    """The gang's House List entry for ``vehicle_type``; None if the list or type is unknown."""
    house = _house_to_search(ruleset, gang, vehicle_type)
    return None if house is None else _vehicle_named(house.vehicles, vehicle_type)


def _house_to_search(ruleset: RuleSet, gang: Gang, wanted: str) -> HouseList | None:
    """The gang's House List, or None when ``wanted`` is blank or the rule set lacks the list."""
    if not wanted.strip():
        return None
    try:
        return house_list(ruleset, gang)
    except NotFound:
        return None


def check_crew(gang: Gang, crew: Fighter, vehicle_id: str | None = None) -> None:
    """A crew is a Crew fighter on the roster who drives no vehicle but ``vehicle_id``."""
    if crew.category is not FighterCategory.CREW or not crew.on_roster:
        raise NotEligible(f"{crew.name} is not a crew member on the roster who can drive.")
    driving = [v.name for v in gang.vehicles if v.crew_id == crew.id and v.id != vehicle_id]
    if driving:
        raise NotEligible(f"{crew.name} already drives {driving[0]}.")


def own_list_entry(
    ruleset: RuleSet, gang: Gang, fighter: Fighter, item_name: str
) -> Equipment | None:
    """The entry for ``item_name`` in the fighter's own Equipment List, if there is one."""
    template = fighter_template(ruleset, gang, fighter)
    if template is None:
        return None
    return _equipment_named(template.equipment_list, item_name)


def trading_post_entry(ruleset: RuleSet, item_name: str) -> Equipment | None:
    return _equipment_named(ruleset.trading_post, item_name)


def catalogue_entry(
    ruleset: RuleSet, gang: Gang, fighter: Fighter | None, item_name: str
) -> tuple[Equipment | None, str]:
    """The item as the fighter's own Equipment List or the Trading Post knows it, and which."""
    if fighter is not None:
        own = own_list_entry(ruleset, gang, fighter, item_name)
        if own is not None:
            return own, "Equipment List"
    listed = trading_post_entry(ruleset, item_name)
    return (listed, "Trading Post") if listed is not None else (None, "given")


def written_item(
    item_id: str,
    name: str,
    entry: Equipment | None,
    *,
    cost: int | None = None,
    kind: str | None = None,
    two_slots: bool | None = None,
) -> Item:
    """An item written onto a roster by hand: the catalogue's facts, the player's price if given.

    An item the catalogue does not know needs its cost; one it knows keeps its
    kind and weapon slots, so a player's ``kind`` or ``two_slots`` must agree.
    """
    if entry is None:
        if cost is None:
            raise InvalidRequest(
                f"{name} is not in the Trading Post or an Equipment List of this rule set; "
                "give its cost."
            )
        return Item(id=item_id, name=name, cost=cost, kind=EquipmentKind(kind or "wargear"),
                    two_slots=bool(two_slots))
    if kind is not None and kind != entry.kind.value:
        raise InvalidRequest(f"{entry.name} is listed as {entry.kind.value}, not {kind}.")
    if two_slots is not None and two_slots != entry.two_slots:
        slots = "takes two weapon slots" if entry.two_slots else "takes one weapon slot"
        raise InvalidRequest(f"{entry.name} {slots} in this rule set.")
    return _new_item(entry, item_id, entry.cost if cost is None else cost)


def check_weapon_slots(fighter: Fighter, equipment: Equipment) -> None:
    """Refuse an item that would take a fighter past three weapon slots (PB-6D)."""
    after = fighter.weapon_slots + equipment.weapon_slots
    if equipment.weapon_slots and after > MAX_WEAPON_SLOTS:
        star = " (a * weapon takes two)" if equipment.two_slots else ""
        raise WeaponLimit(
            f"{fighter.name} already uses {fighter.weapon_slots} of {MAX_WEAPON_SLOTS} weapon "
            f"slots; {equipment.name}{star} would make {after}."
        )


def check_can_be_equipped(gang: Gang, fighter: Fighter) -> None:
    if not fighter.on_roster:
        raise NotEligible(f"{fighter.name} is no longer on {possessive(gang.name)} roster.")
    if fighter.status is FighterStatus.CAPTURED:
        raise NotEligible(f"{fighter.name} is held Captive and cannot be given equipment.")


def unlocks(availability: Availability, level: int, alignment: Alignment) -> bool:
    """Whether an availability roll of ``level`` lets ``alignment`` buy this (PB-6B.6)."""
    if availability.level is None:
        return False  # Common needs no roll; Exclusive is never sold here
    if availability.rarity is Rarity.RARE:
        return availability.level <= level
    if availability.rarity is Rarity.ILLEGAL:
        if alignment is Alignment.OUTLAW:
            return availability.level <= level
        return availability.level <= level - LAW_ABIDING_ILLEGAL_PENALTY
    return False


def normalise_black_market(text: str) -> str:
    """Read an older text's "Black Market" as the Trading Post (PB-6B.7)."""
    return re.sub(r"\bblack[\s-]+market\b", "Trading Post", text, flags=re.IGNORECASE)


def _template_named(templates: Iterable[FighterTemplate], name: str) -> FighterTemplate | None:
    templates = list(templates)
    for template in templates:
        if same_name(template.fighter_type, name):
            return template
    # Sources spell the same type differently ("Rogue Doc", "Rogue Docs").
    return next((t for t in templates if loosely_same(t.fighter_type, name)), None)


def _equipment_named(catalogue: Iterable[Equipment], name: str) -> Equipment | None:
    """The entry spelt ``name`` (case aside), else the one named as loosely as the lists
    and the Armoury spell their items ("Frag grenades" is the list's "Frag grenade",
    "Mesh armor" its "Mesh Armour"). A loose spelling that fits several entries
    ("Carapace": Light or Heavy, at different prices) finds none: a guess would price
    the item as the other one."""
    entries = list(catalogue)
    exact = _casefold_match(entries, name, lambda entry: entry.name)
    if exact is not None or not name.strip():
        return exact
    loose = [entry for entry in entries if loosely_same(entry.name, name)]
    if len({entry.name.casefold() for entry in loose}) > 1:
        return None
    return loose[0] if loose else None


def _spelt_alike(catalogue: Iterable[Equipment], name: str) -> str:
    """" Give the full name: A, B." when ``name`` is loosely that of several entries
    (what :func:`_equipment_named` does not guess between), else nothing."""
    alike = list(dict.fromkeys(e.name for e in catalogue if loosely_same(e.name, name)))
    return f" Give the full name: {first_of(alike)}." if len(alike) > 1 else ""


def _vehicle_named(templates: Iterable[VehicleTemplate], name: str) -> VehicleTemplate | None:
    return _casefold_match(templates, name, lambda template: template.vehicle_type)


def _casefold_match(entries: Iterable[E], name: str, key: Callable[[E], str]) -> E | None:
    """The first entry whose ``key`` is ``name`` but for case and outer spaces."""
    wanted = name.strip().casefold()
    return next((entry for entry in entries if key(entry).casefold() == wanted), None)


def _new_item(entry: Equipment, item_id: str, cost: int) -> Item:
    data = entry.model_dump()
    data["cost"] = cost
    return Item(id=item_id, **data)


# --------------------------------------------------------------------------- PB-6B.1 hire


def hire_fighter(
    world: World,
    gang_id: str,
    ruleset: RuleSet,
    fighter_type: str,
    name: str,
    new_id: str,
) -> HireResult:
    """Hire a fighter or crew from the House List at founding cost, unequipped (PB-6B.1)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    house = house_list(ruleset, gang)
    template = _template_named(house.fighters, fighter_type)
    if template is None:
        raise NotFound(f"The {house.house} House List has no fighter type {fighter_type}.")
    if template.category in HANGER_ON_CATEGORIES:
        raise InvalidRequest(
            f"{template.fighter_type} is a {template.category.value}: "
            "recruit it as a Hanger-on or Brute."
        )
    require_fresh_id(ws.world, new_id)
    check_type_limit(gang, template)
    recruit = fighter_from_template(template, name, new_id)
    _check_composition(gang, recruit)
    charge(gang, template.cost, f"Hiring a {template.fighter_type}")
    gang.fighters.append(recruit)
    ws.note(f"{gang.name} hires {name}, a {template.fighter_type}, for {template.cost} credits.")
    return _hire_result(ws, "PB-6B.1", "Hire a fighter", gang_id, new_id, template)


def _hire_result(
    ws: Workspace, clause: str, title: str, gang_id: str, new_id: str, template: FighterTemplate
) -> HireResult:
    return ws.finish(
        HireResult,
        clause=clause,
        title=title,
        gang_id=gang_id,
        fighter_id=new_id,
        fighter_type=template.fighter_type,
        category=template.category,
        cost=template.cost,
    )


def check_type_limit(gang: Gang, template: FighterTemplate) -> None:
    """Refuse one more of a type past its list's "0-X" (``max_in_gang``)."""
    if template.max_in_gang is None:
        return
    held = [f for f in gang.fighters
            if f.on_roster and same_name(f.fighter_type, template.fighter_type)]
    if len(held) >= template.max_in_gang:
        raise NotEligible(
            f"The list allows {gang.name} at most {template.max_in_gang} "
            f"{template.fighter_type}; it has {len(held)}."
        )


def has_gang_fighter_rule(fighter: Fighter) -> bool:
    """Whether the fighter counts as having Gang Fighter (X) for Gang Composition."""
    if fighter.special_rules:
        return any(rule.casefold().startswith("gang fighter") for rule in fighter.special_rules)
    return fighter.category in _GANG_FIGHTER_CATEGORIES


def _counts_for_composition(fighter: Fighter) -> bool:
    if fighter.category in HANGER_ON_CATEGORIES:
        return False
    return not any(rule.casefold().startswith("hired gun") for rule in fighter.special_rules)


def _check_composition(gang: Gang, recruit: Fighter) -> None:
    roster = [f for f in gang.fighters if f.on_roster]
    if recruit.category is FighterCategory.LEADER:
        leaders = [f.name for f in roster if f.category is FighterCategory.LEADER]
        if leaders:
            raise NotEligible(f"{gang.name} already has a Leader ({leaders[0]}); a gang has one.")
    if has_gang_fighter_rule(recruit):
        return
    counted = [f for f in [*roster, recruit] if _counts_for_composition(f)]
    with_rule = sum(1 for f in counted if has_gang_fighter_rule(f))
    without = len(counted) - with_rule
    if with_rule < without:
        raise NotEligible(
            f"Hiring {recruit.name} would give {gang.name} {count(without, 'fighter')} without "
            f"Gang Fighter (X) and only {with_rule} with it; hire fighters with it first."
        )


def fighter_from_template(template: FighterTemplate, name: str, new_id: str) -> Fighter:
    """A new fighter of ``template`` at its founding cost, unequipped, with the
    template's profile (or none: "profile not set", never a made-up one)."""
    return Fighter(
        id=new_id,
        name=name,
        category=template.category,
        fighter_type=template.fighter_type,
        cost=template.cost,
        profile=None if template.profile is None else template.profile.model_copy(),
        gang_hierarchy=template.gang_hierarchy,
        special_rules=list(template.special_rules),
        skills=list(template.skills),
    )


# --------------------------------------------------------------------------- PB-6B.2 vehicle


def purchase_vehicle(
    world: World,
    gang_id: str,
    ruleset: RuleSet,
    vehicle_type: str,
    name: str,
    new_id: str,
    crew_id: str | None = None,
) -> VehiclePurchaseResult:
    """Buy a vehicle from the House List without Upgrades (PB-6B.2)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    house = house_list(ruleset, gang)
    template = _vehicle_named(house.vehicles, vehicle_type)
    if template is None:
        raise NotFound(f"The {house.house} House List has no vehicle {vehicle_type}.")
    require_fresh_id(ws.world, new_id)
    if crew_id is not None:
        _check_free_crew(gang, crew_id)
    charge(gang, template.cost, f"A {template.vehicle_type}")
    vehicle = Vehicle(id=new_id, name=name, vehicle_type=template.vehicle_type, cost=template.cost)
    if crew_id is None:
        vehicle.status = VehicleStatus.IN_STASH
        gang.stash_vehicles.append(vehicle)
        ws.note(f"{name} waits in {possessive(gang.name)} Stash for a crew.")
    else:
        vehicle.crew_id = crew_id
        gang.vehicles.append(vehicle)
        ws.note(f"{name} goes to {gang.fighter(crew_id).name}.")
    return ws.finish(
        VehiclePurchaseResult,
        clause="PB-6B.2",
        title="Purchase a vehicle",
        gang_id=gang_id,
        vehicle_id=new_id,
        vehicle_type=template.vehicle_type,
        cost=template.cost,
        crew_id=crew_id,
    )


def _check_free_crew(gang: Gang, crew_id: str) -> None:
    crew = gang.fighter(crew_id)
    if crew.category is not FighterCategory.CREW or not crew.on_roster:
        raise NotEligible(f"{crew.name} is not a crew member who can drive a vehicle.")
    if any(v.crew_id == crew_id for v in gang.vehicles):
        raise NotEligible(f"{crew.name} already has a vehicle.")


# --------------------------------------------------------------------------- PB-6B.3 hangers-on


def recruit_hanger_on(
    world: World,
    gang_id: str,
    ruleset: RuleSet,
    fighter_type: str,
    name: str,
    new_id: str,
) -> HireResult:
    """Recruit a Hanger-on or Brute if the gang's Reputation allows one more (PB-6B.3)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    template = hanger_on_template(ruleset, gang, fighter_type)
    require_fresh_id(ws.world, new_id)
    check_type_limit(gang, template)
    place = check_hanger_on_room(ruleset, gang, template)
    charge(gang, template.cost, f"Recruiting a {template.fighter_type}")
    gang.fighters.append(fighter_from_template(template, name, new_id))
    example = " (an example cost from the shipped data)" if template.example else ""
    ws.note(
        f"{gang.name} recruits {name}, a {template.fighter_type}, for {template.cost} "
        f"credits{example} ({place})."
    )
    return _hire_result(ws, "PB-6B.3", "Recruit a Hanger-on or Brute", gang_id, new_id, template)


def hanger_on_count(gang: Gang) -> int:
    """Hangers-on and Brutes on the roster, Captives included (PB-6B.3)."""
    return sum(1 for f in gang.fighters if f.on_roster and f.category in HANGER_ON_CATEGORIES)


def check_hanger_on_room(ruleset: RuleSet, gang: Gang, template: FighterTemplate) -> str:
    """Refuse a Hanger-on or Brute the gang's Reputation does not allow; say its place."""
    if gang.reputation < template.min_reputation:
        raise NotEligible(
            f"A {template.fighter_type} needs Reputation {template.min_reputation}; "
            f"{gang.name} has {gang.reputation}."
        )
    allowed = ruleset.max_hangers_on(gang.reputation)
    current = hanger_on_count(gang)
    if current >= allowed:
        raise NotEligible(
            f"With Reputation {gang.reputation} {gang.name} may have {allowed} Hangers-on and "
            f"Brutes, and already has {current}."
        )
    return f"{current + 1} of {allowed} Hangers-on and Brutes"


def hanger_on_template(ruleset: RuleSet, gang: Gang, fighter_type: str) -> FighterTemplate:
    """The Hanger-on or Brute ``fighter_type`` on offer to ``gang``."""
    own = _template_named(house_list(ruleset, gang).fighters, fighter_type)
    if own is not None and own.category not in HANGER_ON_CATEGORIES:
        raise InvalidRequest(f"{own.fighter_type} is not a Hanger-on or Brute: hire it instead.")
    if own is not None:
        return own
    shared = _template_named(ruleset.hangers_on, fighter_type)
    if shared is not None:
        return shared
    for house in ruleset.houses:
        other = _template_named(house.fighters, fighter_type)
        if other is not None and other.category in HANGER_ON_CATEGORIES:
            return other
    raise NotFound(f"No Hanger-on or Brute called {fighter_type} is on offer to {gang.name}.")


# --------------------------------------------------------------------------- PB-6B.4 sell


def sell_item(
    world: World, gang_id: str, item_id: str, roller: Roller, sequence_id: str
) -> SaleResult:
    """Sell an item from the Stash for its value minus D6x10, at least 5 (PB-6B.4)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    item = stash_item(gang, item_id)
    if item.boon_of_sequence is not None and item.boon_of_sequence == sequence_id:
        raise NotEligible(
            f"{item.name} came from a Territory Boon in this post-battle sequence and "
            "cannot be sold until a later one."
        )
    dice = ws.roll(roller, "D6x10", f"sale of {item.name} for {gang.name}")
    credits = max(5, item.cost - dice.total)
    gain(gang, credits)
    gang.stash.remove(item)
    ws.note(
        f"{item.name} (worth {item.cost}) sells for {credits} credits after a "
        f"deduction of {dice.total}."
    )
    return ws.finish(
        SaleResult,
        clause="PB-6B.4",
        title="Sell an item",
        gang_id=gang_id,
        item_id=item.id,
        item_name=item.name,
        value=item.cost,
        deduction=dice.total,
        credits_gained=credits,
    )


def stash_item(gang: Gang, item_id: str) -> Item:
    """The item ``item_id`` in the gang's Stash, to sell (PB-6B.4) or hand out (PB-6D)."""
    for item in gang.stash:
        if item.id == item_id:
            return item
    raise NotFound(f"{possessive(gang.name)} Stash holds no item with id {item_id}.")


# --------------------------------------------------------------------------- PB-6B.5 buy


def buy_equipment(
    world: World,
    gang_id: str,
    ruleset: RuleSet,
    item_name: str,
    new_id: str,
    fighter_id: str | None = None,
) -> PurchaseResult:
    """Buy from a fighter's own Equipment List onto that fighter, or a Common item
    from the Trading Post into the Stash (PB-6B.5)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    require_fresh_id(ws.world, new_id)
    if fighter_id is None:
        entry = trading_post_entry(ruleset, item_name)
        if entry is None:
            raise NotFound(f"The Trading Post has no item called {item_name}."
                           + _spelt_alike(ruleset.trading_post, item_name))
        if entry.availability.rarity is not Rarity.COMMON:
            raise NotEligible(
                f"{entry.name} is {entry.availability}: only Common items can be bought this "
                "way; Rare and Illegal ones need a Seek Rare & Illegal roll."
            )
        charge(gang, entry.cost, entry.name)
        gang.stash.append(_new_item(entry, new_id, entry.cost))
        ws.note(f"{gang.name} buys {entry.name} for {entry.cost} credits into the Stash.")
        source = "Trading Post"
    else:
        fighter = gang.fighter(fighter_id)
        check_can_be_equipped(gang, fighter)
        entry = own_list_entry(ruleset, gang, fighter, item_name)
        if entry is None:
            raise NotEligible(
                f"{item_name} is not on {possessive(fighter.name)} Equipment List; buy it from the "
                "Trading Post into the Stash instead."
            )
        if entry.availability.rarity in (Rarity.RARE, Rarity.ILLEGAL):
            raise NotEligible(
                f"{entry.name} is {entry.availability} even on {possessive(fighter.name)} "
                "Equipment List; "
                "it needs a Seek Rare & Illegal roll."
            )
        check_weapon_slots(fighter, entry)
        charge(gang, entry.cost, entry.name)
        fighter.equipment.append(_new_item(entry, new_id, entry.cost))
        ws.note(f"{fighter.name} buys {entry.name} from their Equipment List for {entry.cost}.")
        source = "Equipment List"
    return _purchase_result(ws, "PB-6B.5", "Purchase equipment", gang_id, new_id, entry,
                            fighter_id, source)


def _purchase_result(
    ws: Workspace,
    clause: str,
    title: str,
    gang_id: str,
    new_id: str,
    entry: Equipment,
    fighter_id: str | None,
    source: str,
) -> PurchaseResult:
    return ws.finish(
        PurchaseResult,
        clause=clause,
        title=title,
        gang_id=gang_id,
        item_id=new_id,
        item_name=entry.name,
        price=entry.cost,
        fighter_id=fighter_id,
        source=source,
    )


# --------------------------------------------------------------------------- PB-6B.6 rare


def seek_rare_and_illegal(
    world: World,
    gang_id: str,
    traders: list[Fighter],
    roller: Roller,
    ruleset: RuleSet,
    special_modifier: int = 0,
) -> AvailabilityResult:
    """Roll the availability of Rare and Illegal items after a Trade action (PB-6B.6)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    if not traders:
        raise NotEligible(
            f"{gang.name} may only Seek Rare & Illegal Equipment after a fighter made a "
            "Trade post-battle action."
        )
    if abs(special_modifier) > MAX_SPECIAL_MODIFIER:
        raise InvalidRequest(
            f"A special rule modifier must be between -{MAX_SPECIAL_MODIFIER} and "
            f"+{MAX_SPECIAL_MODIFIER}."
        )
    # Categories come from the gang's own record, not from what the caller passed.
    roster = [_trader(gang, trader.id) for trader in traders]
    if len({f.id for f in roster}) != len(roster):
        raise InvalidRequest("Name each trading fighter once.")
    dice = ws.roll(roller, "2D6", f"Rare & Illegal availability for {gang.name}")
    leader = 2 if any(f.category is FighterCategory.LEADER for f in roster) else 0
    champions = sum(1 for f in roster if f.category is FighterCategory.CHAMPION)
    reputation = gang.reputation // 10
    level = dice.total + leader + champions + reputation + special_modifier
    unlocked = [
        entry
        for entry in ruleset.trading_post
        if unlocks(entry.availability, level, gang.alignment)
    ]
    offer = RareOffer(
        gang_id=gang_id,
        alignment=gang.alignment,
        dice_total=dice.total,
        leader_bonus=leader,
        champion_bonus=champions,
        reputation_bonus=reputation,
        special_modifier=special_modifier,
        availability=level,
        unlocked=unlocked,
    )
    ws.note(
        f"Availability {level} = {dice.total} (2D6) + {leader} (Leader) + {champions} "
        f"(Champions) + {reputation} (Reputation {gang.reputation}) "
        f"{special_modifier:+d} (special)."
    )
    ws.note(
        "On offer: " + (", ".join(f"{e.name} ({e.availability})" for e in unlocked) or "nothing")
        + "."
    )
    return ws.finish(
        AvailabilityResult, clause="PB-6B.6", title="Seek Rare & Illegal Equipment", offer=offer
    )


def _trader(gang: Gang, fighter_id: str) -> Fighter:
    fighter = gang.fighter(fighter_id)
    if not fighter.can_act:
        raise NotEligible(
            f"{fighter.name} cannot make post-battle actions, so cannot have traded."
        )
    return fighter


def buy_rare_item(
    world: World,
    gang_id: str,
    item_name: str,
    availability_result: AvailabilityResult | RareOffer,
    new_id: str,
) -> PurchaseResult:
    """Buy a Rare or Illegal item the gang's availability roll unlocked, into the Stash."""
    offer = (
        availability_result.offer
        if isinstance(availability_result, AvailabilityResult)
        else availability_result
    )
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    if offer.gang_id != gang_id:
        raise NotEligible(f"That availability roll belongs to another gang, not {gang.name}.")
    entry = offer.find(item_name)
    if entry is None:
        raise NotEligible(
            f"{item_name} is not on offer to {gang.name} at availability {offer.availability}."
        )
    require_fresh_id(ws.world, new_id)
    charge(gang, entry.cost, entry.name)
    gang.stash.append(_new_item(entry, new_id, entry.cost))
    ws.note(f"{gang.name} buys {entry.name} ({entry.availability}) for {entry.cost} credits.")
    return _purchase_result(ws, "PB-6B.6", "Buy a Rare or Illegal item", gang_id, new_id, entry,
                            None, "Trading Post")
