"""Builders for domain objects in tests: short to call, explicit about what matters."""

from __future__ import annotations

import itertools
from typing import Any

from rules.models import (
    Alignment,
    EquipmentKind,
    Fighter,
    FighterCategory,
    Gang,
    Item,
    Profile,
    Territory,
    Vehicle,
)
from rules.world import World

LAW = Alignment.LAW_ABIDING
OUTLAW = Alignment.OUTLAW

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}{next(_ids)}"


def item(name: str = "Lasgun", cost: int = 15, kind: EquipmentKind = EquipmentKind.WEAPON,
         **fields: Any) -> Item:
    return Item(id=fields.pop("id", new_id("i")), name=name, cost=cost, kind=kind, **fields)


def profile(**values: int | None) -> Profile:
    """A profile for tests: these figures are the tests' own, not any fighter's."""
    base: dict[str, int | None] = {"m": 5, "ws": 4, "bs": 4, "s": 3, "t": 3, "w": 1, "i": 4,
                                   "a": 1, "ld": 7, "cl": 7, "wil": 7, "int": 7}
    base.update(values)
    return Profile.model_validate(base)


def fighter(name: str = "Ganger", category: FighterCategory = FighterCategory.GANGER,
            cost: int = 50, **fields: Any) -> Fighter:
    if category in (FighterCategory.LEADER, FighterCategory.CHAMPION):
        fields.setdefault("gang_hierarchy", True)
    # Rules tests act on characteristics; a fighter without one says so (profile=None).
    fields.setdefault("profile", profile())
    return Fighter(id=fields.pop("id", new_id("f")), name=name, category=category, cost=cost,
                   **fields)


def vehicle(name: str = "Cargo-8", cost: int = 120, **fields: Any) -> Vehicle:
    return Vehicle(id=fields.pop("id", new_id("v")), name=name, cost=cost, **fields)


def gang(name: str = "Ash Wolves", fighters: list[Fighter] | None = None,
         alignment: Alignment = Alignment.LAW_ABIDING, credits: int = 100,
         **fields: Any) -> Gang:
    if fighters is None:
        fighters = [
            fighter("Boss", FighterCategory.LEADER, cost=120),
            fighter("Champ", FighterCategory.CHAMPION, cost=90),
            fighter("Ganger", FighterCategory.GANGER, cost=50),
        ]
    return Gang(id=fields.pop("id", new_id("g")), name=name, house=fields.pop("house", "Goliath"),
                owner=fields.pop("owner", "1"), alignment=alignment, credits=credits,
                fighters=fighters, **fields)


def territory(name: str = "Old Ruins", income: str = "D3x10", **fields: Any) -> Territory:
    return Territory(id=fields.pop("id", new_id("t")), name=name, income=income, **fields)


def world(*gangs: Gang, territories: list[Territory] | None = None) -> World:
    return World.of(list(gangs), territories)
