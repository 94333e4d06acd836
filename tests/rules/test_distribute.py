"""Update Roster D: Distribute Equipment (PB-6D)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.distribute import give_item, take_item
from rules.errors import InvalidRequest, NotEligible, NotFound, WeaponLimit
from rules.models import EquipmentKind, FighterCategory, FighterStatus
from rules.ruleset import RuleSet
from rules.world import World
from tests.factories import fighter, gang, item, world
from tests.rules.refusals import refused

WEAPON = EquipmentKind.WEAPON


def setup(carried: list[Any] | None = None, stash: list[Any] | None = None,
          fighter_type: str = "Sister", **fields: Any) -> World:
    sister = fighter("Sis", fighter_type=fighter_type, id="f1", cost=50,
                     equipment=carried or [], **fields)
    return world(gang(id="g", house="Escher", fighters=[sister], stash=stash or []))


@pytest.mark.rule("PB-6D")
def test_pb_6d_give_item_moves_it_from_stash_to_fighter(ruleset: RuleSet) -> None:
    w = setup(stash=[item("Mesh armour", 15, EquipmentKind.ARMOUR, id="i1")])
    result = give_item(w, "g", "i1", "f1", ruleset)
    g = result.world.gang("g")
    assert g.stash == [] and [i.id for i in g.fighter("f1").equipment] == ["i1"]
    assert result.fighter_cost_after == 65 and g.fighter("f1").total_cost == 65
    assert w.gang("g").stash[0].id == "i1"
    assert result.clause == "PB-6D"


@pytest.mark.rule("PB-6D")
def test_pb_6d_own_equipment_list_price_takes_precedence(ruleset: RuleSet) -> None:
    # Lasgun: 15 at the Trading Post, 5 on an Escher Sister's list.
    w = setup(stash=[item("Lasgun", 15, id="i1")])
    result = give_item(w, "g", "i1", "f1", ruleset)
    assert (result.cost, result.price_source) == (5, "Equipment List")
    assert result.world.gang("g").fighter("f1").total_cost == 55
    back = take_item(result.world, "g", "i1", "f1", ruleset)
    assert (back.cost, back.price_source) == (15, "Trading Post")
    assert back.world.gang("g").stash[0].cost == 15 and back.fighter_cost_after == 50


@pytest.mark.rule("PB-6D")
def test_pb_6d_trading_post_price_when_not_on_the_fighters_list(ruleset: RuleSet) -> None:
    w = setup(stash=[item("Boltgun", 40, id="i1"), item("Odd relic", 7, id="i2")])
    bolt = give_item(w, "g", "i1", "f1", ruleset)
    assert (bolt.cost, bolt.price_source) == (55, "Trading Post")
    relic = give_item(bolt.world, "g", "i2", "f1", ruleset)
    assert (relic.cost, relic.price_source) == (7, "recorded")


@pytest.mark.rule("PB-6D")
def test_pb_6d_third_weapon_slot_allowed_fourth_refused(ruleset: RuleSet) -> None:
    two = [item("Laspistol", 10), item("Lasgun", 10)]
    w = setup(carried=two, stash=[item("Autogun", 15, id="i1"), item("Knife", 15, id="i2")])
    third = give_item(w, "g", "i1", "f1", ruleset)
    assert third.weapon_slots_after == 3
    full = third.world
    refused(WeaponLimit, full, lambda: give_item(full, "g", "i2", "f1", ruleset),
            match="3 of 3")
    armour = item("Mesh armour", 15, EquipmentKind.ARMOUR, id="a1")
    full.gang("g").stash.append(armour)
    assert give_item(full, "g", "a1", "f1", ruleset).weapon_slots_after == 3


@pytest.mark.rule("PB-6D")
def test_pb_6d_star_weapon_takes_two_slots(ruleset: RuleSet) -> None:
    plasma = item("Plasma gun", 100, two_slots=True, id="p1")
    one = setup(carried=[item("Laspistol", 10)], stash=[plasma])
    assert give_item(one, "g", "p1", "f1", ruleset).weapon_slots_after == 3
    two = setup(carried=[item("Laspistol", 10), item("Lasgun", 10)], stash=[plasma])
    refused(WeaponLimit, two, lambda: give_item(two, "g", "p1", "f1", ruleset),
            match="takes two")


@pytest.mark.rule("PB-6D")
def test_pb_6d_mounted_gear_cannot_be_discarded(ruleset: RuleSet) -> None:
    steed = item("Cyber-mastiff saddle", 40, EquipmentKind.WARGEAR, grants_mounted=True,
                 id="m1")
    w = setup(carried=[steed, item("Lasgun", 10, id="l1")])
    refused(NotEligible, w, lambda: take_item(w, "g", "m1", "f1", ruleset), match="Mounted")
    assert take_item(w, "g", "l1", "f1", ruleset).world.gang("g").stash[0].id == "l1"


@pytest.mark.rule("PB-6D")
def test_pb_6d_captives_and_the_dead_are_not_equipped(ruleset: RuleSet) -> None:
    taken = setup(stash=[item("Lasgun", 15, id="i1")])
    taken.gang("g").fighter("f1").capture("h")
    refused(NotEligible, taken, lambda: give_item(taken, "g", "i1", "f1", ruleset))
    dead = setup(stash=[item("Lasgun", 15, id="i1")], status=FighterStatus.DEAD)
    refused(NotEligible, dead, lambda: give_item(dead, "g", "i1", "f1", ruleset))
    resting = setup(stash=[item("Lasgun", 15, id="i1")], status=FighterStatus.IN_RECOVERY)
    assert give_item(resting, "g", "i1", "f1", ruleset).cost == 5


@pytest.mark.rule("PB-6D")
def test_pb_6d_refuses_upgrades_and_unknown_items(ruleset: RuleSet) -> None:
    upgrade = item("Extra armour", 20, EquipmentKind.VEHICLE_UPGRADE, id="u1")
    w = setup(stash=[upgrade])
    refused(InvalidRequest, w, lambda: give_item(w, "g", "u1", "f1", ruleset))
    refused(NotFound, w, lambda: give_item(w, "g", "nope", "f1", ruleset))
    refused(NotFound, w, lambda: take_item(w, "g", "nope", "f1", ruleset))
    refused(NotFound, w, lambda: give_item(w, "g", "u1", "nobody", ruleset))


@pytest.mark.rule("PB-6D")
def test_pb_6d_tools_of_the_trade_is_one_set(ruleset: RuleSet) -> None:
    w = setup(stash=[item("Lasgun", 15, id="i1")], fighter_type="",
              special_rules=["Tools of the Trade"],
              category=FighterCategory.SPECIALIST)
    result = give_item(w, "g", "i1", "f1", ruleset)
    assert any("Tools of the Trade" in note for note in result.notes)
