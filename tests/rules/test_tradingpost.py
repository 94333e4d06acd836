"""Update Roster B: Visit the Trading Post (PB-6B.1 to PB-6B.7)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.dice import ScriptedRoller
from rules.distribute import take_item
from rules.errors import (
    InsufficientCredits,
    InvalidRequest,
    NotEligible,
    NotFound,
    WeaponLimit,
)
from rules.models import (
    Alignment,
    Availability,
    Equipment,
    EquipmentKind,
    FighterCategory,
    FighterStatus,
    Rarity,
    VehicleStatus,
)
from rules.ruleset import RuleSet
from rules.tradingpost import (
    AvailabilityResult,
    buy_equipment,
    buy_rare_item,
    catalogue_entry,
    check_crew,
    hire_fighter,
    normalise_black_market,
    purchase_vehicle,
    recruit_hanger_on,
    seek_rare_and_illegal,
    sell_item,
    unlocks,
    vehicle_template,
)
from rules.world import World
from tests.factories import LAW, OUTLAW, fighter, gang, item, world
from tests.rules.refusals import refused

WEAPON = EquipmentKind.WEAPON


def leader(**fields: Any):
    return fighter("Boss", FighterCategory.LEADER, cost=135, **fields)


def champion(name: str = "Champ", **fields: Any):
    return fighter(name, FighterCategory.CHAMPION, cost=95, **fields)


def crew(name: str = "Driver", **fields: Any):
    return fighter(name, FighterCategory.CREW, cost=70, **fields)


def with_trading_post(ruleset: RuleSet, entries: list[Equipment]) -> RuleSet:
    return ruleset.model_copy(update={"trading_post": entries})


def list_entry(ruleset: RuleSet, fighter_type: str, name: str) -> Equipment:
    """One entry of a Goliath fighter type's own Equipment List in the shipped data."""
    return list_entry_of(ruleset, "Goliath", fighter_type, name)


def list_entry_of(ruleset: RuleSet, house: str, fighter_type: str, name: str) -> Equipment:
    template = next(t for t in ruleset.house(house).fighters if t.fighter_type == fighter_type)
    return next(e for e in template.equipment_list if e.name == name)


# --------------------------------------------------------------------------- PB-6B.1


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_hire_at_founding_cost_without_equipment(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=100))
    result = hire_fighter(w, "g", ruleset, "Goliath Bruiser", "Krusher", "new1")
    hired = result.world.gang("g").fighter("new1")
    assert (result.cost, result.category, result.fighter_type) == (55, FighterCategory.GANGER,
                                                                   "Goliath Bruiser")
    assert hired.cost == 55 and hired.equipment == [] and hired.name == "Krusher"
    assert hired.special_rules == ["Gang Fighter (Ganger)", "Promotion (Goliath Specialist)",
                                   "Tools of the Trade (Goliath Specialist only)"]
    assert hired.profile is not None
    assert (hired.profile.m, hired.profile.s, hired.profile.t, hired.profile.cl) == (4, 4, 4, 5)
    assert result.world.gang("g").credits == 45
    assert w.gang("g").credits == 100 and len(w.gang("g").fighters) == 3
    assert any(c.subject == "fighter" and c.subject_id == "new1" for c in result.changes)
    assert result.clause == "PB-6B.1" and result.rolls == []


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_champion_gets_gang_hierarchy(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=200))
    hired = hire_fighter(w, "g", ruleset, "goliath forge boss", "Grub", "new1").world.gang("g")
    assert hired.fighter("new1").gang_hierarchy
    assert hired.fighter("new1").can_act


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_credits_exactly_enough_then_one_short(ruleset: RuleSet) -> None:
    exact = world(gang(id="g", credits=55))
    bruiser = hire_fighter(exact, "g", ruleset, "Goliath Bruiser", "B", "n1")
    assert bruiser.world.gang("g").credits == 0
    short = world(gang(id="g", credits=54))
    error = refused(InsufficientCredits, short,
                    lambda: hire_fighter(short, "g", ruleset, "Goliath Bruiser", "B", "n1"))
    assert "55 credits" in error.message and "holds 54" in error.message


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_one_leader_only(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=500))
    refused(NotEligible, w,
            lambda: hire_fighter(w, "g", ruleset, "Goliath Forge Tyrant", "L2", "n1"),
            match="already has a Leader")
    dead = leader(status=FighterStatus.DEAD)
    leaderless = world(gang(id="g", credits=500, fighters=[dead, fighter("Ganger")]))
    result = hire_fighter(leaderless, "g", ruleset, "Goliath Forge Tyrant", "New Boss", "n1")
    assert result.world.gang("g").fighter("n1").category is FighterCategory.LEADER


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_gang_fighters_at_least_as_many_as_those_without(ruleset: RuleSet) -> None:
    # The 2023 lists give Gang Fighter (X) to Gangers, not to Leaders and Champions.
    # Leader + two Gangers: a Forge Boss makes 2 with and 2 without, allowed.
    balanced = world(gang(id="g", credits=500,
                          fighters=[leader(special_rules=["Gang Leader"]), fighter("G"),
                                    fighter("G2")]))
    result = hire_fighter(balanced, "g", ruleset, "Goliath Forge Boss", "Boss 2", "n1")
    assert len(result.world.gang("g").fighters) == 4
    # Leader + one Ganger: a Forge Boss makes 1 with and 2 without, refused.
    lopsided = world(gang(id="g", credits=500,
                          fighters=[leader(special_rules=["Gang Leader"]), fighter("G")]))
    refused(NotEligible, lopsided,
            lambda: hire_fighter(lopsided, "g", ruleset, "Goliath Forge Boss", "Boss 2", "n1"),
            match="Gang Fighter")
    # Fighters with the rule can always be hired.
    assert hire_fighter(lopsided, "g", ruleset, "Goliath Bruiser", "G", "n2").cost == 55


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_hangers_on_and_hired_guns_not_counted(ruleset: RuleSet) -> None:
    doc = fighter("Doc", FighterCategory.HANGER_ON, cost=50)
    gun = fighter("Gun", FighterCategory.GANGER, cost=60, special_rules=["Hired Gun"])
    boss = leader(special_rules=["Gang Leader"])
    w = world(gang(id="g", credits=500, fighters=[boss, fighter("G"), fighter("G2"), doc, gun]))
    # Counted, the Hanger-on and the Hired Gun would make 2 with and 4 without.
    hired = hire_fighter(w, "g", ruleset, "Goliath Forge Boss", "Boss 2", "n1")
    assert hired.category is FighterCategory.CHAMPION


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_refuses_unknown_type_hangers_on_and_used_ids(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=500, fighters=[leader(id="boss")]))
    refused(NotFound, w, lambda: hire_fighter(w, "g", ruleset, "Gang Matriarch", "M", "n1"))
    refused(InvalidRequest, w,
            lambda: hire_fighter(w, "g", ruleset, "Goliath Bruiser", "B", "boss"),
            match="already in use")
    refused(NotFound, w, lambda: hire_fighter(w, "g", ruleset, "Rogue Doc", "D", "n1"))


@pytest.mark.rule("PB-6B.1")
def test_pb_6b_1_a_types_0_x_limit_is_kept(ruleset: RuleSet) -> None:
    sisters = [fighter(f"S{n}", fighter_type="Sister") for n in range(4)]
    w = world(gang(id="g", house="Escher", credits=1000, fighters=sisters))
    one = hire_fighter(w, "g", ruleset, "Phyrr Cat", "Cat 1", "c1").world  # 0-2
    two = hire_fighter(one, "g", ruleset, "Phyrr Cat", "Cat 2", "c2").world
    refused(NotEligible, two, lambda: hire_fighter(two, "g", ruleset, "Phyrr Cat", "C3", "c3"),
            match="at most 2 Phyrr Cat; it has 2")
    # A dead one is off the roster.
    mourned = two.model_copy(deep=True)
    mourned.gang("g").fighter("c1").set_status(FighterStatus.DEAD)
    assert hire_fighter(mourned, "g", ruleset, "Phyrr Cat", "C3", "c3").cost == 120
    # A Brute of the list, 0-1.
    rich = world(gang(id="z", credits=1000, reputation=10))
    raging = recruit_hanger_on(rich, "z", ruleset, "'Zerker", "Rage", "z1").world
    refused(NotEligible, raging,
            lambda: recruit_hanger_on(raging, "z", ruleset, "'Zerker", "Rage 2", "z2"),
            match="at most 1 'Zerker")


# --------------------------------------------------------------------------- PB-6B.2


@pytest.mark.rule("PB-6B.2")
def test_pb_6b_2_vehicle_bought_without_upgrades_into_the_stash(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=200))
    result = purchase_vehicle(w, "g", ruleset, "Mauler", "Quad", "v1")
    g = result.world.gang("g")
    assert g.credits == 100 and result.cost == 100 and result.crew_id is None
    (quad,) = g.stash_vehicles
    assert quad.upgrades == [] and quad.equipment == [] and quad.status is VehicleStatus.IN_STASH
    assert g.vehicles == []


@pytest.mark.rule("PB-6B.2")
def test_pb_6b_2_vehicle_to_a_free_crew(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=200, fighters=[leader(), fighter("G"), crew(id="c1")]))
    result = purchase_vehicle(w, "g", ruleset, "Mauler", "Quad", "v1", crew_id="c1")
    (quad,) = result.world.gang("g").vehicles
    assert quad.crew_id == "c1" and quad.status is VehicleStatus.ACTIVE
    again = result.world
    refused(NotEligible, again,
            lambda: purchase_vehicle(again, "g", ruleset, "Mauler", "Q2", "v2",
                                     crew_id="c1"),
            match="already has a vehicle")


@pytest.mark.rule("PB-6B.2")
def test_pb_6b_2_a_crew_drives_one_vehicle_and_is_on_the_roster(ruleset: RuleSet) -> None:
    driver, ganger = crew(id="c1"), fighter("G", id="g1")
    g = gang(id="g", fighters=[leader(), ganger, driver])
    check_crew(g, driver)
    with pytest.raises(NotEligible, match="G is not a crew member on the roster"):
        check_crew(g, ganger)
    bought = purchase_vehicle(world(g.model_copy(update={"credits": 200})), "g", ruleset,
                              "Mauler", "Quad", "v1", crew_id="c1").world.gang("g")
    check_crew(bought, driver, "v1")  # the vehicle it already drives is no obstacle
    with pytest.raises(NotEligible, match="Driver already drives Quad"):
        check_crew(bought, driver)
    template = vehicle_template(ruleset, bought, " mauler ")
    assert template is not None and template.vehicle_type == "Mauler"
    assert vehicle_template(ruleset, bought, "") is None
    assert vehicle_template(ruleset, bought, "Land Raider") is None


@pytest.mark.rule("PB-6B.2")
def test_pb_6b_2_refused_when_poor_or_not_on_the_list(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=99))
    error = refused(InsufficientCredits, w,
                    lambda: purchase_vehicle(w, "g", ruleset, "Mauler", "Q", "v1"))
    assert "100 credits" in error.message and "99" in error.message
    refused(NotFound, w, lambda: purchase_vehicle(w, "g", ruleset, "Outrider Quad", "W", "v1"))


# --------------------------------------------------------------------------- PB-6B.3


@pytest.mark.rule("PB-6B.3")
def test_pb_6b_3_reputation_4_allows_one_hanger_on(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=300, reputation=4))
    first = recruit_hanger_on(w, "g", ruleset, "Rogue Doc", "Doc", "h1")
    assert first.world.gang("g").fighter("h1").category is FighterCategory.HANGER_ON
    assert first.world.gang("g").credits == 250 and first.cost == 50
    second = first.world
    refused(NotEligible, second,
            lambda: recruit_hanger_on(second, "g", ruleset, "Rogue Doc", "Doc 2", "h2"),
            match="Reputation 4")


@pytest.mark.rule("PB-6B.3")
def test_pb_6b_3_reputation_5_allows_two_and_brutes_count(ruleset: RuleSet) -> None:
    doc = fighter("Doc", FighterCategory.HANGER_ON, cost=50)
    w = world(gang(id="g", credits=300, reputation=5,
                   fighters=[leader(), fighter("G"), doc]))
    result = recruit_hanger_on(w, "g", ruleset, "Iron Automata", "Clank", "b1")
    assert result.world.gang("g").fighter("b1").category is FighterCategory.BRUTE
    assert result.world.gang("g").credits == 80
    full = result.world.model_copy(deep=True)
    full.gang("g").credits = 300
    refused(NotEligible, full,
            lambda: recruit_hanger_on(full, "g", ruleset, "Rogue Doc", "Doc 2", "h2"))


@pytest.mark.rule("PB-6B.3")
def test_pb_6b_3_only_hangers_on_and_within_credits(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=49, reputation=10))
    refused(InsufficientCredits, w,
            lambda: recruit_hanger_on(w, "g", ruleset, "Rogue Doc", "Doc", "h1"))
    refused(InvalidRequest, w,
            lambda: recruit_hanger_on(w, "g", ruleset, "Goliath Bruiser", "B", "h1"))


# --------------------------------------------------------------------------- PB-6B.4


@pytest.mark.rule("PB-6B.4")
@pytest.mark.parametrize(
    ("value", "face", "credits"),
    [(55, 3, 25), (65, 6, 5), (66, 6, 6), (30, 6, 5), (0, 1, 5), (15, 1, 5)],
)
def test_pb_6b_4_value_minus_d6x10_at_least_5(value: int, face: int, credits: int) -> None:
    w = world(gang(id="g", credits=10, stash=[item("Boltgun", value, id="i1")]))
    result = sell_item(w, "g", "i1", ScriptedRoller([face]), "seq1")
    assert result.credits_gained == credits and result.deduction == face * 10
    assert result.world.gang("g").credits == 10 + credits
    assert result.world.gang("g").stash == []
    (dice,) = result.rolls
    assert dice.expression == "D6x10" and dice.faces == (face,)
    assert "sale of Boltgun" in dice.purpose


@pytest.mark.rule("PB-6B.4")
def test_pb_6b_4_boon_equipment_not_sold_in_the_same_sequence() -> None:
    boon = item("Frag grenades", 30, id="i1", boon_of_sequence="seq1")
    w = world(gang(id="g", stash=[boon]))
    refused(NotEligible, w, lambda: sell_item(w, "g", "i1", ScriptedRoller([]), "seq1"),
            match="Territory Boon")
    later = sell_item(w, "g", "i1", ScriptedRoller([1]), "seq2")
    assert later.credits_gained == 20


@pytest.mark.rule("PB-6B.4")
def test_pb_6b_4_only_stash_items() -> None:
    carried = item("Lasgun", id="i1")
    w = world(gang(id="g", fighters=[fighter(equipment=[carried])]))
    refused(NotFound, w, lambda: sell_item(w, "g", "i1", ScriptedRoller([]), "seq1"))


# --------------------------------------------------------------------------- PB-6B.5


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_common_item_from_trading_post_into_stash(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=30))
    result = buy_equipment(w, "g", ruleset, "frag grenade", "i1")
    g = result.world.gang("g")
    assert g.credits == 0 and result.price == 30 and result.source == "Trading Post"
    (bought,) = g.stash
    assert (bought.id, bought.name, bought.cost, bought.kind) == ("i1", "Frag grenade", 30,
                                                                  WEAPON)
    assert bought.profiles and bought.profiles == ruleset.trading_post_item("Frag grenade").profiles
    assert result.fighter_id is None


@pytest.mark.rule("PB-6B.5")
@pytest.mark.parametrize("name", ["Boltgun", "Armourweave"])
def test_pb_6b_5_rare_and_illegal_refused_at_the_trading_post(ruleset: RuleSet,
                                                               name: str) -> None:
    w = world(gang(id="g", credits=1000))
    refused(NotEligible, w, lambda: buy_equipment(w, "g", ruleset, name, "i1"),
            match="Seek Rare")


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_own_equipment_list_onto_the_fighter_at_list_price(ruleset: RuleSet) -> None:
    sister = fighter("Sis", FighterCategory.GANGER, fighter_type="Sister", id="f1")
    w = world(gang(id="g", house="Escher", credits=5, fighters=[sister]))
    result = buy_equipment(w, "g", ruleset, "Lasgun", "i1", fighter_id="f1")
    g = result.world.gang("g")
    assert result.price == 5 and result.source == "Equipment List"  # Trading Post says 15
    assert g.credits == 0 and g.stash == []
    assert [(i.name, i.cost) for i in g.fighter("f1").equipment] == [("Lasgun", 5)]


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_own_list_decides_not_the_trading_post_rarity(ruleset: RuleSet) -> None:
    # The Trading Post has the Boltgun as Rare (8); a Forge Boss's own list sells it.
    assert str(ruleset.trading_post_item("Boltgun").availability) == "Rare (8)"
    boss = champion(fighter_type="Goliath Forge Boss", id="f1")
    w = world(gang(id="g", credits=55, fighters=[boss]))
    result = buy_equipment(w, "g", ruleset, "Boltgun", "i1", fighter_id="f1")
    assert result.world.gang("g").fighter("f1").equipment[0].cost == 55
    rare_on_list = ruleset.model_copy(deep=True)
    list_entry(rare_on_list, "Goliath Forge Boss", "Boltgun").availability = (
        Availability.parse("Rare (8)"))
    refused(NotEligible, w,
            lambda: buy_equipment(w, "g", rare_on_list, "Boltgun", "i1", fighter_id="f1"))


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_items_are_found_as_players_write_them(ruleset: RuleSet) -> None:
    sister = fighter("Sis", FighterCategory.GANGER, fighter_type="Sister", id="f1")
    g = gang(id="g", house="Escher", credits=100, fighters=[sister])
    grenade, source = catalogue_entry(ruleset, g, sister, "frag grenades")
    assert (grenade, source) == (list_entry_of(ruleset, "Escher", "Sister", "Frag grenade"),
                                 "Equipment List")
    armour, _ = catalogue_entry(ruleset, g, sister, "MESH ARMOR")
    assert armour is not None and (armour.name, armour.cost) == ("Mesh Armour", 15)
    # Off her list, the Trading Post's; exact spellings first.
    bolt, source = catalogue_entry(ruleset, g, sister, "boltguns")
    assert bolt is not None and (bolt.name, bolt.cost, source) == ("Boltgun", 55, "Trading Post")
    bought = buy_equipment(world(g), "g", ruleset, "frag grenades", "i1", fighter_id="f1")
    assert [(i.name, i.cost) for i in bought.world.gang("g").fighter("f1").equipment] == [
        ("Frag grenade", 30)]


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_not_on_the_fighters_list(ruleset: RuleSet) -> None:
    bully = fighter("B", FighterCategory.JUVE, fighter_type="Goliath Bully", id="f1")
    w = world(gang(id="g", credits=500, fighters=[bully]))
    refused(NotEligible, w,
            lambda: buy_equipment(w, "g", ruleset, "Boltgun", "i1", fighter_id="f1"),
            match="not on")


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_own_list_purchase_respects_three_weapon_slots(ruleset: RuleSet) -> None:
    two = [item("Bolt pistol", 45), item("Axe", 10)]
    boss = champion(fighter_type="Goliath Forge Boss", id="f1", equipment=two)
    w = world(gang(id="g", credits=500, fighters=[boss]))
    # The list marks the two-handed hammer *: two slots, from the data.
    assert list_entry(ruleset, "Goliath Forge Boss", "Two-handed hammer").two_slots
    refused(WeaponLimit, w,
            lambda: buy_equipment(w, "g", ruleset, "Two-handed hammer", "i1", fighter_id="f1"))
    third = buy_equipment(w, "g", ruleset, "Frag grenade", "i1", fighter_id="f1")
    assert third.world.gang("g").fighter("f1").weapon_slots == 3
    armour = buy_equipment(third.world, "g", ruleset, "Furnace plates", "i2", fighter_id="f1")
    assert len(armour.world.gang("g").fighter("f1").equipment) == 4


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_insufficient_credits_says_cost_and_stash(ruleset: RuleSet) -> None:
    w = world(gang(id="g", credits=29))
    error = refused(InsufficientCredits, w,
                    lambda: buy_equipment(w, "g", ruleset, "Frag grenade", "i1"))
    assert error.message == "Frag grenade costs 30 credits; Ash Wolves' Stash holds 29."


# --------------------------------------------------------------------------- PB-6B.6

LADDER = [
    Equipment(name="Lasgun", cost=15, kind=WEAPON),
    Equipment(name="Rare 8", cost=10, availability="Rare (8)"),
    Equipment(name="Rare 12", cost=10, availability="Rare (12)"),
    Equipment(name="Rare 13", cost=10, availability="Rare (13)"),
    Equipment(name="Illegal 8", cost=10, availability="Illegal (8)"),
    Equipment(name="Illegal 9", cost=10, availability="Illegal (9)"),
    Equipment(name="Illegal 12", cost=10, availability="Illegal (12)"),
    Equipment(name="Illegal 13", cost=10, availability="Illegal (13)"),
    Equipment(name="Gang special", cost=10, availability="Exclusive"),
]


def trading_gang(alignment: Alignment = LAW, reputation: int = 1, credits: int = 100):
    return gang(id="g", alignment=alignment, reputation=reputation, credits=credits, fighters=[
        leader(id="boss"), champion("C1", id="c1"), champion("C2", id="c2"),
        fighter("Grunt", id="grunt"),
    ])


def seek_on_the_ladder(
    alignment: Alignment, ruleset: RuleSet, faces: list[int]
) -> tuple[World, AvailabilityResult]:
    """Champion C1 seeks Rare & Illegal items in a Trading Post of LADDER."""
    w = world(trading_gang(alignment))
    traders = [w.gang("g").fighter("c1")]
    rules = with_trading_post(ruleset, LADDER)
    return w, seek_rare_and_illegal(w, "g", traders, ScriptedRoller(faces), rules)


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_law_abiding_at_12_buys_illegal_8_not_illegal_9(ruleset: RuleSet) -> None:
    w, result = seek_on_the_ladder(LAW, ruleset, [5, 6])
    assert result.availability == 12
    assert result.unlocked_names == ["Rare 8", "Rare 12", "Illegal 8"]
    assert result.world == w and result.changes == []
    (dice,) = result.rolls
    assert dice.expression == "2D6" and dice.faces == (5, 6)


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_outlaw_at_12_buys_rare_and_illegal_up_to_12(ruleset: RuleSet) -> None:
    _, result = seek_on_the_ladder(OUTLAW, ruleset, [5, 6])
    assert result.unlocked_names == ["Rare 8", "Rare 12", "Illegal 8", "Illegal 9",
                                     "Illegal 12"]


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_exclusive_never_and_common_not_listed(ruleset: RuleSet) -> None:
    w = world(trading_gang(OUTLAW, reputation=1000))
    rules = with_trading_post(ruleset, LADDER)
    result = seek_rare_and_illegal(w, "g", [w.gang("g").fighter("boss")],
                                   ScriptedRoller([6, 6]), rules, special_modifier=10)
    assert "Gang special" not in result.unlocked_names
    assert "Lasgun" not in result.unlocked_names
    assert not unlocks(Availability.parse("Exclusive"), 99, OUTLAW)


@pytest.mark.rule("PB-6B.6")
@pytest.mark.parametrize(("reputation", "bonus"), [(9, 0), (10, 1), (19, 1), (20, 2)])
def test_pb_6b_6_one_per_full_10_reputation(ruleset: RuleSet, reputation: int,
                                             bonus: int) -> None:
    w = world(trading_gang(reputation=reputation))
    result = seek_rare_and_illegal(w, "g", [w.gang("g").fighter("c1")],
                                   ScriptedRoller([1, 1]), ruleset)
    assert result.offer.reputation_bonus == bonus
    assert result.availability == 2 + 1 + bonus


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_leader_two_champions_one_each_and_special(ruleset: RuleSet) -> None:
    w = world(trading_gang())
    g = w.gang("g")
    traders = [g.fighter("boss"), g.fighter("c1"), g.fighter("c2")]
    result = seek_rare_and_illegal(w, "g", traders, ScriptedRoller([3, 4]), ruleset,
                                   special_modifier=-2)
    offer = result.offer
    assert (offer.dice_total, offer.leader_bonus, offer.champion_bonus,
            offer.special_modifier) == (7, 2, 2, -2)
    assert result.availability == 9
    # 9: Rare (6) to Rare (9), 78 items of the Armoury; Illegal up to 5 for a Law Abiding
    # gang, so none.
    unlocked = {name.casefold() for name in result.unlocked_names}
    assert len(result.unlocked_names) == 78
    assert {"boltgun", "krak grenade", "medicae kit", "bio-booster"} <= unlocked
    assert not {"armourweave", "plasma gun", "lasgun"} & unlocked


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_needs_a_trader_who_could_act(ruleset: RuleSet) -> None:
    w = world(trading_gang())
    refused(NotEligible, w,
            lambda: seek_rare_and_illegal(w, "g", [], ScriptedRoller([]), ruleset),
            match="Trade")
    hurt = w.model_copy(deep=True)
    hurt.gang("g").fighter("c1").set_status(FighterStatus.IN_RECOVERY)
    refused(NotEligible, hurt,
            lambda: seek_rare_and_illegal(hurt, "g", [hurt.gang("g").fighter("c1")],
                                          ScriptedRoller([]), ruleset))
    grunt = w.gang("g").fighter("grunt")
    refused(NotEligible, w,
            lambda: seek_rare_and_illegal(w, "g", [grunt], ScriptedRoller([]), ruleset))
    stranger = champion("Stranger", id="stranger")
    refused(NotFound, w,
            lambda: seek_rare_and_illegal(w, "g", [stranger], ScriptedRoller([]), ruleset))
    refused(InvalidRequest, w,
            lambda: seek_rare_and_illegal(w, "g", [w.gang("g").fighter("c1")],
                                          ScriptedRoller([]), ruleset, special_modifier=11))


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_traders_category_read_from_the_roster(ruleset: RuleSet) -> None:
    w = world(trading_gang())
    disguised = fighter("C1", FighterCategory.LEADER, id="c1", gang_hierarchy=True)
    result = seek_rare_and_illegal(w, "g", [disguised], ScriptedRoller([1, 1]), ruleset)
    assert result.offer.leader_bonus == 0 and result.offer.champion_bonus == 1


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_buy_only_what_the_roll_unlocked(ruleset: RuleSet) -> None:
    w = world(trading_gang(credits=100))
    result = seek_rare_and_illegal(w, "g", [w.gang("g").fighter("boss")],
                                   ScriptedRoller([3, 3]), ruleset)  # 8
    bought = buy_rare_item(w, "g", "Boltgun", result, "i1")
    (gun,) = bought.world.gang("g").stash
    assert (gun.name, gun.cost, str(gun.availability)) == ("Boltgun", 55, "Rare (8)")
    assert bought.world.gang("g").credits == 45 and bought.price == 55
    refused(NotEligible, w, lambda: buy_rare_item(w, "g", "Medicae kit", result.offer, "i1"),
            match="not on offer")
    poor = world(trading_gang(credits=54))
    refused(InsufficientCredits, poor, lambda: buy_rare_item(poor, "g", "Boltgun", result, "i1"))
    other = world(trading_gang(), gang(id="h", credits=500))
    refused(NotEligible, other, lambda: buy_rare_item(other, "h", "Boltgun", result, "i1"),
            match="another gang")


# --------------------------------------------------------------------------- PB-6B.7


@pytest.mark.rule("PB-6B.7")
def test_pb_6b_7_rarity_rating_8_is_unlocked_like_rare_8(ruleset: RuleSet) -> None:
    old = Equipment(name="Old rare", cost=10, availability="Rarity rating 8")
    new = Equipment(name="New rare", cost=10, availability="Rare (8)")
    legal = Equipment(name="Old illegal", cost=10, availability="Legality rating 9")
    rules = with_trading_post(ruleset, [old, new, legal])
    assert old.availability == Availability(rarity=Rarity.RARE, level=8)
    for faces, expected in [([3, 4], ["Old rare", "New rare"]), ([3, 3], [])]:
        w = world(trading_gang(LAW))
        result = seek_rare_and_illegal(w, "g", [w.gang("g").fighter("c1")],
                                       ScriptedRoller(faces), rules)  # 8 then 7
        assert result.unlocked_names == expected
    w = world(trading_gang(OUTLAW))
    result = seek_rare_and_illegal(w, "g", [w.gang("g").fighter("c1")],
                                   ScriptedRoller([4, 4]), rules)  # 9
    assert result.unlocked_names == ["Old rare", "New rare", "Old illegal"]


@pytest.mark.rule("PB-6B.7")
def test_pb_6b_7_black_market_reads_as_trading_post() -> None:
    assert normalise_black_market("Buy from the Black Market") == "Buy from the Trading Post"
    assert normalise_black_market("black-market contacts") == "Trading Post contacts"
    assert normalise_black_market("Blackmarketeer") == "Blackmarketeer"


@pytest.mark.rule("PB-6B.5")
def test_pb_6b_5_a_loose_name_fitting_several_items_finds_none(ruleset: RuleSet) -> None:
    light = ruleset.trading_post_item("Carapace (Light)")
    heavy = ruleset.trading_post_item("Carapace (Heavy)")
    assert light.cost != heavy.cost
    sister = fighter("Sis", FighterCategory.GANGER, fighter_type="Sister", id="f1")
    g = gang(id="g", house="Escher", credits=500, fighters=[sister])
    assert catalogue_entry(ruleset, g, sister, "carapace") == (None, "given")
    assert catalogue_entry(ruleset, g, sister, "carapace (heavy)")[0] == heavy
    with pytest.raises(NotFound, match=r"Give the full name: Carapace \(Light\), "
                                       r"Carapace \(Heavy\)\.$"):
        buy_equipment(world(g), "g", ruleset, "carapace", "i1")
    # Written down by hand as "Carapace", it keeps the cost it was given in the Stash.
    worn = item("Carapace", 100, EquipmentKind.ARMOUR, id="c1")
    sister.equipment.append(worn)
    taken = take_item(world(g), "g", "c1", "f1", ruleset)
    assert [(i.name, i.cost) for i in taken.world.gang("g").stash] == [("Carapace", 100)]
