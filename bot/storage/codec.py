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
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel

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
    FighterStatus,
    Gang,
    Item,
    Profile,
    Rarity,
    Territory,
    Vehicle,
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
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


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
    fields = _fields.get(kind)
    if fields is None:
        fields = _fields[kind] = frozenset(kind.model_fields)
    if values.keys() != fields:
        # A field added to a model and not to its columns would otherwise go missing.
        raise TypeError(f"{kind.__name__} read with fields {sorted(values)}")
    model = _new(kind)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


def members(kind: type[E]) -> dict[object, E]:
    """The members of an enum by value: a dict look-up, five times faster than ``kind(v)``."""
    return {member.value: member for member in kind}


def named(read: Sequence[str], row: Row) -> dict[str, Any]:
    """A row of the columns ``read`` by name. Looking a name up in a database row searches
    its columns one by one; a fighter's row has forty."""
    return dict(zip(read, row, strict=True))


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


def _stat_values(profile: Profile | None) -> list[int]:
    """The twelve columns: 0 where the profile is not set or lacks the characteristic
    (``profile_set`` and ``absent_stats`` say which; migration 0008)."""
    if profile is None:
        return [0] * len(PROFILE_STATS)
    return [profile.get(stat) or 0 for stat in PROFILE_STATS]


def _absent_stats(profile: Profile | None) -> str:
    if profile is None:
        return "[]"
    return dumps([stat for stat in PROFILE_STATS if not profile.has(stat)])


def _profile_model(row: dict[str, Any]) -> Profile | None:
    if not row["profile_set"]:
        return None
    # The stat columns are named as the profile's fields ("int_" for Int).
    if row["absent_stats"] == "[]":
        return trusted_model(Profile, {column: row[column] for column in _STAT_COLUMNS})
    absent = set(loads_list(row["absent_stats"]))
    return trusted_model(Profile, {
        column: None if stat in absent else row[column]
        for stat, column in zip(PROFILE_STATS, _STAT_COLUMNS, strict=True)
    })


def fighter_row(fighter: Fighter, position: int) -> Values:
    profile = fighter.profile
    return (
        position, fighter.id, fighter.name, name_key(fighter.name), fighter.category.value,
        fighter.fighter_type, fighter.cost,
        *_stat_values(profile),
        fighter.xp, fighter.kills,
        dumps([a.model_dump(mode="json") for a in fighter.advancements]),
        dumps(fighter.skills), dumps(fighter.special_rules), fighter.status.value,
        fighter.captured_by, int(fighter.rescue_chance_given),
        dumps(fighter.lasting_injuries), int(fighter.gang_hierarchy),
        int(fighter.critical_injury), int(fighter.escorted_to_doc),
        int(profile is not None), _absent_stats(profile), fighter.notes,
    )


def fighter_model(row: dict[str, Any], equipment: list[Item]) -> Fighter:
    """The fighter of ``row`` (:data:`FIGHTER_READ` by name), carrying ``equipment``."""
    return trusted_model(Fighter, {
        "id": row["id"],
        "name": row["name"],
        "category": _CATEGORIES[row["category"]],
        "fighter_type": row["fighter_type"],
        "cost": row["cost"],
        "profile": _profile_model(row),
        "xp": row["xp"],
        "kills": row["kills"],
        "advancements": [trusted_model(Advancement, a) for a in loads_list(row["advancements"])],
        "skills": loads_list(row["skills"]),
        "special_rules": loads_list(row["special_rules"]),
        "equipment": equipment,
        "status": _FIGHTER_STATUSES[row["status"]],
        "captured_by": row["captured_by"],
        "rescue_chance_given": bool(row["rescue_chance_given"]),
        "lasting_injuries": loads_list(row["lasting_injuries"]),
        "gang_hierarchy": bool(row["gang_hierarchy"]),
        "critical_injury": bool(row["critical_injury"]),
        "escorted_to_doc": bool(row["escorted_to_doc"]),
        "notes": row["notes"],
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


def vehicle_model(row: dict[str, Any], upgrades: list[Item], equipment: list[Item]) -> Vehicle:
    return trusted_model(Vehicle, {
        "id": row["id"],
        "name": row["name"],
        "vehicle_type": row["vehicle_type"],
        "cost": row["cost"],
        "upgrades": upgrades,
        "equipment": equipment,
        "lasting_damage": loads_list(row["lasting_damage"]),
        "crew_id": row["crew_id"],
        "status": _VEHICLE_STATUSES[row["status"]],
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
        dumps([p.model_dump(mode="json") for p in item.profiles]),
    )


# Availabilities and weapon profiles are frozen: one model per distinct value serves
# every item that has it.
_availabilities: dict[tuple[str, int | None], Availability] = {}
_weapon_profiles: dict[str, list[WeaponProfile]] = {}


def _availability(rarity: str, level: int | None) -> Availability:
    found = _availabilities.get((rarity, level))
    if found is None:
        found = trusted_model(Availability, {"rarity": _RARITIES[rarity], "level": level})
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


def item_model(row: dict[str, Any]) -> Item:
    return trusted_model(Item, {
        "name": row["name"],
        "cost": row["cost"],
        "kind": _KINDS[row["kind"]],
        "availability": _availability(row["rarity"], row["level"]),
        "two_slots": bool(row["two_slots"]),
        "grants_mounted": bool(row["grants_mounted"]),
        "profiles": _profiles(row["profiles"]),
        "id": row["id"],
        "boon_of_sequence": row["boon_of_sequence"],
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
        dumps([b.model_dump(mode="json") for b in territory.boon_effects]),
    )


def territory_from_row(row: Row) -> Territory:
    return Territory.model_validate(
        {
            "id": row["id"],
            "name": row["name"],
            "income": row["income"],
            "boons": loads_list(row["boons"]),
            "can_be_staked": bool(row["can_be_staked"]),
            "controller": row["controller"],
            "income_only_for": row["income_only_for"],
            "income_max_dice": row["income_max_dice"],
            "income_double_injures": bool(row["income_double_injures"]),
            "boon_effects": loads_list(row["boon_effects"]),
        }
    )


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


def battle_from_row(row: Row, gang_ids: Sequence[str]) -> Battle:
    return Battle.model_validate(
        {
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
    )
