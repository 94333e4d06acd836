"""Rows to models and back: the only place that knows both column order and fields.

Reading builds the models of a gang straight from its rows (``*_model``), without
validating them again: the rows were written by :mod:`bot.storage.roster` from
models that were valid, and validating a gang's fighters and items (a name check
each) was half the cost of loading it (docs/benchmarks.md). What comes from outside
(a command's input, an imported file) is validated where it enters, never here.
Each ``*_row`` function returns the values in the order of its ``*_COLUMNS``
tuple, with booleans as 0/1 and small lists as compact JSON, exactly as SQLite
returns them; so a stored row and a freshly computed one compare equal when
nothing changed and the roster writer can skip it.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from enum import Enum
from operator import itemgetter
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter
from pydantic_core import to_json

from bot.storage import driver
from rules.models import (
    PROFILE_STATS,
    Advancement,
    Alignment,
    Availability,
    Battle,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterEndState,
    FighterStatus,
    Gang,
    Item,
    Profile,
    Rarity,
    Territory,
    TerritoryBoon,
    Vehicle,
    VehicleEndState,
    VehicleStatus,
    WeaponProfile,
)
from rules.names import name_key

Row = driver.Row
Values = tuple[Any, ...]


def new_id() -> str:
    """A fresh short id for a gang, fighter, item, vehicle, territory or battle."""
    return secrets.token_hex(6)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(value: Any) -> str:
    """Compact JSON, as ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``
    writes it, character for character, for anything but a float's exponent ("1e-7" for
    "1e-07": the same number): one call into pydantic-core, five to ten times faster than
    the json module for the small lists and values of a row or a ledger event. Stored
    rows compare equal to freshly computed ones only if the text is the same."""
    return to_json(value, inf_nan_mode="constants").decode()


def loads_list(text: str) -> Any:
    # Most of these lists are empty; skipping the decoder for them is a
    # measurable share of loading a gang.
    return [] if text == "[]" else json.loads(text)


M = TypeVar("M", bound=BaseModel)
E = TypeVar("E", bound=Enum)
_new = object.__new__
_set = object.__setattr__
_fields: dict[type[BaseModel], frozenset[str]] = {}


def trusted_model(kind: type[M], values: dict[str, Any]) -> M:
    """The model ``kind`` with ``values`` (every field, by field name) as they are, without
    validation: for rows written from valid models only (what pydantic's own copy sets)."""
    if values.keys() != _fields_of(kind):
        # A field added to a model and not to its columns would otherwise go missing.
        raise TypeError(f"{kind.__name__} read with fields {sorted(values)}")
    _verified.add(kind)
    return _unchecked(kind, values)


def _fields_of(kind: type[BaseModel]) -> frozenset[str]:
    fields = _fields.get(kind)
    if fields is None:
        fields = _fields[kind] = frozenset(kind.model_fields)
    return fields


_verified: set[type[BaseModel]] = set()


def _literal_model(kind: type[M], values: dict[str, Any]) -> M:
    """:func:`trusted_model` for ``values`` written out as a dict literal, whose keys are
    the same on every call: checked on the first one only (a gang is some sixty such
    models, and the check was a fifth of building one)."""
    if kind not in _verified:
        return trusted_model(kind, values)
    return _unchecked(kind, values)


def _unchecked(kind: type[M], values: dict[str, Any]) -> M:
    model = _new(kind)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


def members(kind: type[E]) -> dict[object, E]:
    """The members of an enum by value: a dict look-up, five times faster than ``kind(v)``."""
    return {member.value: member for member in kind}


def reader(read: Sequence[str], *names: str) -> Callable[[Row], tuple[Any, ...]]:
    """The values of the columns ``names``, in that order, of a row of the columns ``read``,
    by position. Looking a name up in a database row searches its columns one by one (a
    fighter's row has forty), and a dict of the whole row costs more than the model."""
    assert len(names) > 1  # itemgetter of one index returns the value, not a tuple
    return itemgetter(*(read.index(name) for name in names))


def placeholders(count: int) -> str:
    return ",".join("?" * count)


def columns(row: Row, names: Iterable[str]) -> dict[str, Any]:
    """The row's values of the columns ``names``, by name: for a model whose fields are
    named as the columns."""
    return {name: row[name] for name in names}


# ------------------------------------------------------------------ gangs

GANG_COLUMNS = (
    "id", "name", "name_key", "house", "owner", "alignment", "credits", "reputation",
    "battles_fought", "notes",
)


# What roster.py selects: the key, then the columns.
GANG_READ = ("pk", *GANG_COLUMNS)
ALIGNMENTS = members(Alignment)
_GANG_FIELDS = reader(
    GANG_READ, "id", "name", "house", "owner", "alignment", "credits", "reputation",
    "battles_fought", "notes",
)


def gang_model(
    row: Row, *, stash: list[Item], stash_vehicles: list[Vehicle], fighters: list[Fighter],
    vehicles: list[Vehicle],
) -> Gang:
    """The gang of ``row`` (a row of :data:`GANG_READ`) with what it owns."""
    (gang_id, name, house, owner, alignment, credits, reputation, battles_fought,
     notes) = _GANG_FIELDS(row)
    return _literal_model(Gang, {
        "id": gang_id,
        "name": name,
        "house": house,
        "owner": owner,
        "alignment": ALIGNMENTS[alignment],
        "credits": credits,
        "stash": stash,
        "stash_vehicles": stash_vehicles,
        "reputation": reputation,
        "battles_fought": battles_fought,
        "fighters": fighters,
        "vehicles": vehicles,
        "notes": notes,
    })


def gang_row(gang: Gang) -> Values:
    return (
        gang.id, gang.name, name_key(gang.name), gang.house, gang.owner,
        gang.alignment.value, gang.credits, gang.reputation, gang.battles_fought, gang.notes,
    )


# ------------------------------------------------------------------ fighters

_STAT_COLUMNS = tuple("int_" if s == "int" else s for s in PROFILE_STATS)

FIGHTER_COLUMNS = (
    "position", "id", "name", "name_key", "category", "fighter_type", "cost",
    *_STAT_COLUMNS,
    "xp", "kills", "advancements", "skills", "special_rules", "status", "captured_by",
    "rescue_chance_given", "lasting_injuries", "gang_hierarchy", "critical_injury",
    "escorted_to_doc", "profile_set", "absent_stats", "notes",
)


# What roster.py selects of a fighter, a vehicle and an item: the keys, then the columns.
FIGHTER_READ = ("pk", "gang_pk", *FIGHTER_COLUMNS)
_CATEGORIES = members(FighterCategory)
_FIGHTER_STATUSES = members(FighterStatus)


_NO_STATS = (0,) * len(PROFILE_STATS)


def _stat_columns(profile: Profile | None) -> tuple[tuple[int, ...], str]:
    """The twelve columns, 0 where the profile is not set or lacks the characteristic, and
    ``absent_stats``, which says which it lacks (with ``profile_set``; migration 0008)."""
    if profile is None:
        return _NO_STATS, "[]"
    # The profile's fields are named as the stat columns ("int_" for Int), and hold ints
    # or None: read as they are, not through Profile.get (a fifth of a fighter's row).
    values = profile.__dict__
    stats = tuple(values[column] for column in _STAT_COLUMNS)
    if None not in stats:
        return stats, "[]"
    return (
        tuple(value or 0 for value in stats),
        dumps([stat for stat, value in zip(PROFILE_STATS, stats, strict=True) if value is None]),
    )


_STATS = reader(FIGHTER_READ, *_STAT_COLUMNS)


def _profile_model(row: Row, absent_stats: str) -> Profile:
    stats: Sequence[int | None] = _STATS(row)
    if absent_stats != "[]":
        absent = set(loads_list(absent_stats))
        stats = [None if stat in absent else value
                 for stat, value in zip(PROFILE_STATS, stats, strict=True)]
    return _literal_model(Profile, dict(zip(_STAT_COLUMNS, stats, strict=True)))


def fighter_row(fighter: Fighter, position: int) -> Values:
    profile = fighter.profile
    stats, absent_stats = _stat_columns(profile)
    return (
        position, fighter.id, fighter.name, name_key(fighter.name), fighter.category.value,
        fighter.fighter_type, fighter.cost,
        *stats,
        fighter.xp, fighter.kills,
        dumps(fighter.advancements),
        dumps(fighter.skills), dumps(fighter.special_rules), fighter.status.value,
        fighter.captured_by, int(fighter.rescue_chance_given),
        dumps(fighter.lasting_injuries), int(fighter.gang_hierarchy),
        int(fighter.critical_injury), int(fighter.escorted_to_doc),
        int(profile is not None), absent_stats, fighter.notes,
    )


# Where a fighter's row has its key, for the equipment it carries.
FIGHTER_PK = FIGHTER_READ.index("pk")
_FIGHTER_FIELDS = reader(
    FIGHTER_READ, "id", "name", "category", "fighter_type", "cost", "xp", "kills",
    "advancements", "skills", "special_rules", "status", "captured_by",
    "rescue_chance_given", "lasting_injuries", "gang_hierarchy", "critical_injury",
    "escorted_to_doc", "profile_set", "absent_stats", "notes",
)


def fighter_model(row: Row, equipment: list[Item]) -> Fighter:
    """The fighter of ``row`` (a row of :data:`FIGHTER_READ`), carrying ``equipment``."""
    (fighter_id, name, category, fighter_type, cost, xp, kills, advancements, skills,
     special_rules, status, captured_by, rescue_chance_given, lasting_injuries,
     gang_hierarchy, critical_injury, escorted_to_doc, profile_set, absent_stats,
     notes) = _FIGHTER_FIELDS(row)
    return _literal_model(Fighter, {
        "id": fighter_id,
        "name": name,
        "category": _CATEGORIES[category],
        "fighter_type": fighter_type,
        "cost": cost,
        "profile": _profile_model(row, absent_stats) if profile_set else None,
        "xp": xp,
        "kills": kills,
        "advancements": [trusted_model(Advancement, a) for a in loads_list(advancements)],
        "skills": loads_list(skills),
        "special_rules": loads_list(special_rules),
        "equipment": equipment,
        "status": _FIGHTER_STATUSES[status],
        "captured_by": captured_by,
        "rescue_chance_given": bool(rescue_chance_given),
        "lasting_injuries": loads_list(lasting_injuries),
        "gang_hierarchy": bool(gang_hierarchy),
        "critical_injury": bool(critical_injury),
        "escorted_to_doc": bool(escorted_to_doc),
        "notes": notes,
    })


# ------------------------------------------------------------------ vehicles

VEHICLE_COLUMNS = (
    "in_stash", "position", "id", "name", "name_key", "vehicle_type", "cost",
    "lasting_damage", "crew_id", "status",
)


def vehicle_row(vehicle: Vehicle, position: int, in_stash: bool) -> Values:
    return (
        int(in_stash), position, vehicle.id, vehicle.name, name_key(vehicle.name),
        vehicle.vehicle_type, vehicle.cost, dumps(vehicle.lasting_damage), vehicle.crew_id,
        vehicle.status.value,
    )


VEHICLE_READ = ("pk", "gang_pk", *VEHICLE_COLUMNS)
_VEHICLE_STATUSES = members(VehicleStatus)
# The keys of a vehicle's row: its items', and whether it is in the Stash.
VEHICLE_KEYS = reader(VEHICLE_READ, "pk", "in_stash")
_VEHICLE_FIELDS = reader(
    VEHICLE_READ, "id", "name", "vehicle_type", "cost", "lasting_damage", "crew_id", "status",
)


def vehicle_model(row: Row, upgrades: list[Item], equipment: list[Item]) -> Vehicle:
    vehicle_id, name, vehicle_type, cost, lasting_damage, crew_id, status = (
        _VEHICLE_FIELDS(row))
    return _literal_model(Vehicle, {
        "id": vehicle_id,
        "name": name,
        "vehicle_type": vehicle_type,
        "cost": cost,
        "upgrades": upgrades,
        "equipment": equipment,
        "lasting_damage": loads_list(lasting_damage),
        "crew_id": crew_id,
        "status": _VEHICLE_STATUSES[status],
    })


# ------------------------------------------------------------------ items

ITEM_COLUMNS = (
    "slot", "fighter_pk", "vehicle_pk", "position", "id", "name", "cost", "kind", "rarity",
    "level", "two_slots", "grants_mounted", "boon_of_sequence", "profiles",
)
ITEM_READ = ("pk", "gang_pk", *ITEM_COLUMNS)
STASH, FIGHTER, VEHICLE_UPGRADE, VEHICLE_EQUIPMENT = (
    "stash", "fighter", "vehicle_upgrade", "vehicle_equipment",
)
_KINDS = members(EquipmentKind)
_RARITIES = members(Rarity)


def item_row(
    item: Item, slot: str, position: int, fighter_pk: int | None, vehicle_pk: int | None
) -> Values:
    return (
        slot, fighter_pk, vehicle_pk, position, item.id, item.name, item.cost,
        item.kind.value, item.availability.rarity.value, item.availability.level,
        int(item.two_slots), int(item.grants_mounted), item.boon_of_sequence,
        dumps(item.profiles),
    )


# Availabilities and weapon profiles are frozen: one model per distinct value serves
# every item that has it.
_availabilities: dict[tuple[str, int | None], Availability] = {}
_weapon_profiles: dict[str, list[WeaponProfile]] = {}


def _availability(rarity: str, level: int | None) -> Availability:
    found = _availabilities.get((rarity, level))
    if found is None:
        found = _literal_model(Availability, {"rarity": _RARITIES[rarity], "level": level})
        _availabilities[(rarity, level)] = found
    return found


def _profiles(text: str) -> list[WeaponProfile]:
    if text == "[]":
        return []
    found = _weapon_profiles.get(text)
    if found is None:
        found = [trusted_model(WeaponProfile, p) for p in json.loads(text)]
        # The text names the whole list; a few hundred kinds of weapon at most.
        if len(_weapon_profiles) < 4096:
            _weapon_profiles[text] = found
    # Each item gets its own list (the profiles in it are frozen, and shared).
    return list(found)


# Where an item's row puts it: its slot, and the fighter's or vehicle's key.
ITEM_PLACE = reader(ITEM_READ, "slot", "fighter_pk", "vehicle_pk")
_ITEM_FIELDS = reader(
    ITEM_READ, "name", "cost", "kind", "rarity", "level", "two_slots", "grants_mounted",
    "profiles", "id", "boon_of_sequence",
)


def item_model(row: Row) -> Item:
    """The item of ``row`` (a row of :data:`ITEM_READ`)."""
    (name, cost, kind, rarity, level, two_slots, grants_mounted, profiles, item_id,
     boon_of_sequence) = _ITEM_FIELDS(row)
    return _literal_model(Item, {
        "name": name,
        "cost": cost,
        "kind": _KINDS[kind],
        "availability": _availability(rarity, level),
        "two_slots": bool(two_slots),
        "grants_mounted": bool(grants_mounted),
        "profiles": _profiles(profiles),
        # Catalogue-only fields: an owned item never has them (rules.models.Item).
        "trading_post": False,
        "source": "",
        "id": item_id,
        "boon_of_sequence": boon_of_sequence,
    })


# ------------------------------------------------------------------ territories

TERRITORY_COLUMNS = (
    "position", "id", "name", "name_key", "income", "boons", "can_be_staked", "controller",
    "income_only_for", "income_max_dice", "income_double_injures", "boon_effects",
)


def territory_row(territory: Territory, position: int) -> Values:
    return (
        position, territory.id, territory.name, name_key(territory.name), territory.income,
        dumps(territory.boons), int(territory.can_be_staked), territory.controller,
        territory.income_only_for.value if territory.income_only_for else None,
        territory.income_max_dice, int(territory.income_double_injures),
        dumps(territory.boon_effects),
    )


# A Boon's models nest further (recruit outcomes); territories that have any are few,
# and their Boons are validated as they are read.
_BOON_EFFECTS: TypeAdapter[list[TerritoryBoon]] = TypeAdapter(list[TerritoryBoon])


def territory_from_row(row: Row) -> Territory:
    only_for = row["income_only_for"]
    boon_effects = row["boon_effects"]
    return _literal_model(Territory, {
        "id": row["id"],
        "name": row["name"],
        "income": row["income"],
        "boons": loads_list(row["boons"]),
        "can_be_staked": bool(row["can_be_staked"]),
        "income_only_for": None if only_for is None else ALIGNMENTS[only_for],
        "income_max_dice": row["income_max_dice"],
        "income_double_injures": bool(row["income_double_injures"]),
        "boon_effects": [] if boon_effects == "[]" else _BOON_EFFECTS.validate_json(boon_effects),
        "controller": row["controller"],
    })


# ------------------------------------------------------------------ battles

BATTLE_COLUMNS = (
    "id", "scenario", "battlefield", "winner", "staked_territory", "is_campaign",
    "rescue_mission", "details",
)
_BATTLE_DETAILS = (
    "fighters", "vehicles", "gangs_with_models_left", "bottled_out", "enemies_out_of_action",
)


def battle_row(battle: Battle) -> Values:
    dumped = battle.model_dump(mode="json")
    return (
        battle.id, battle.scenario, battle.battlefield, battle.winner, battle.staked_territory,
        int(battle.campaign), int(battle.rescue_mission),
        dumps({key: dumped[key] for key in _BATTLE_DETAILS}),
    )


_END_STATES: dict[str, type[BaseModel]] = {
    "fighters": FighterEndState, "vehicles": VehicleEndState,
}


def battle_from_row(row: Row, gang_ids: Sequence[str]) -> Battle:
    values = {
        "id": row["id"],
        "gang_ids": list(gang_ids),
        "scenario": row["scenario"],
        "battlefield": row["battlefield"],
        "winner": row["winner"],
        "staked_territory": row["staked_territory"],
        "campaign": bool(row["is_campaign"]),
        "rescue_mission": bool(row["rescue_mission"]),
        **json.loads(row["details"]),
    }
    if values.keys() != _fields_of(Battle) or any(
        state.keys() != _fields_of(kind)
        for key, kind in _END_STATES.items() for state in values[key]
    ):
        # Details stored before a field was added: validating fills in its default.
        return Battle.model_validate(values)
    # Otherwise a valid battle's JSON dump (battle_row), every field as the models have
    # it: built as it is, as gangs are (a battle's end states were most of its reading).
    for key, kind in _END_STATES.items():
        values[key] = [_unchecked(kind, state) for state in values[key]]
    return _unchecked(Battle, values)
