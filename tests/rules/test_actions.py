"""Post-battle actions (PB-5.0 to PB-5.6)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.actions import (
    ActionKind,
    Actor,
    EscortOutcome,
    available_actions,
    claim_bounty,
    dispose_of_captive,
    eligible_actors,
    medical_escort,
    medical_escort_cost,
    medical_escort_treat,
    negotiate_repairs,
    negotiate_repairs_cost,
    sell_to_guilders,
    trade,
)
from rules.captives import record_rescue_declined
from rules.cleanhouse import clean_house
from rules.dice import ScriptedRoller
from rules.errors import InsufficientCredits, InvalidRequest, NotEligible, NotFound, OutOfStep
from rules.models import (
    Alignment,
    Battle,
    EquipmentKind,
    FighterCategory,
    FighterStatus,
    VehicleStatus,
)
from rules.ruleset import RuleSet
from rules.world import World
from tests.assertions import unchanged
from tests.factories import LAW, OUTLAW, fighter, gang, item, vehicle, world


def setup(
    captor_alignment: Alignment = LAW,
    owner_alignment: Alignment = OUTLAW,
    chance_given: bool = True,
    credits: int = 100,
) -> World:
    """Gang "a" (Boss the Leader, Champ, Grunt) holds Skab (100 + a 15 gun) of gang "b"."""
    skab = fighter("Skab", id="skab", cost=100, equipment=[item("Autogun", 15)])
    skab.capture("a")
    skab.rescue_chance_given = chance_given
    return world(
        gang("Ash Wolves", id="a", alignment=captor_alignment, credits=credits, fighters=[
            fighter("Boss", FighterCategory.LEADER, id="boss"),
            fighter("Champ", FighterCategory.CHAMPION, id="champ"),
            fighter("Grunt", FighterCategory.GANGER, id="grunt"),
        ]),
        gang("Rust Rats", id="b", alignment=owner_alignment, fighters=[
            fighter("Rat King", FighterCategory.LEADER, id="rat"), skab,
        ]),
    )


BATTLE = Battle(id="b1", gang_ids=["a", "b"], winner="a", gangs_with_models_left=["a"])
SKIRMISH = BATTLE.model_copy(update={"campaign": False})


def actor(fighter_id: str = "boss", *acted: str, battle: Battle = BATTLE) -> Actor:
    return Actor(battle=battle, gang_id="a", fighter_id=fighter_id,
                 already_acted=frozenset(acted))


# --------------------------------------------------------------------------- PB-5.0


@pytest.mark.rule("PB-5.0")
def test_pb_5_0_only_hierarchy_fighters_not_in_recovery_captured_or_convalescent() -> None:
    w = setup()
    a = w.gangs["a"]
    a.fighters += [
        fighter("Sick", FighterCategory.CHAMPION, id="rec", status=FighterStatus.IN_RECOVERY),
        fighter("Conv", FighterCategory.CHAMPION, id="conv",
                status=FighterStatus.CONVALESCENT),
        fighter("Dying", FighterCategory.CHAMPION, id="crit", critical_injury=True),
        fighter("Taken", FighterCategory.CHAMPION, id="taken"),
    ]
    a.fighters[-1].capture("b")
    assert [f.id for f in eligible_actors(w, "a", BATTLE)] == ["boss", "champ"]


@pytest.mark.rule("PB-5.0")
@pytest.mark.parametrize("fighter_id", ["grunt", "conv", "rec"])
def test_pb_5_0_ineligible_fighter_is_refused(fighter_id: str) -> None:
    w = setup()
    w.gangs["a"].fighters += [
        fighter("Conv", FighterCategory.CHAMPION, id="conv", status=FighterStatus.CONVALESCENT),
        fighter("Sick", FighterCategory.CHAMPION, id="rec", status=FighterStatus.IN_RECOVERY),
    ]
    before = w.model_copy(deep=True)
    with pytest.raises(NotEligible):
        trade(w, actor(fighter_id))
    assert available_actions(w, "a", fighter_id, BATTLE) == []
    assert w == before


@pytest.mark.rule("PB-5.0")
def test_pb_5_0_one_action_per_fighter_but_actions_may_repeat() -> None:
    w = setup()
    first = trade(w, actor("boss"))
    second = trade(first.world, actor("champ", first.actor_id))
    assert (first.actor_id, second.actor_id) == ("boss", "champ")
    with pytest.raises(NotEligible, match="already made a post-battle action"):
        trade(second.world, actor("boss", "boss", "champ"))
    with pytest.raises(NotEligible, match="already"):
        sell_to_guilders(w, actor("boss", "boss"), "skab")
    assert available_actions(w, "a", "boss", BATTLE, {"boss"}) == []


@pytest.mark.rule("PB-5.0")
def test_pb_5_0_no_post_battle_actions_in_a_skirmish() -> None:
    w = setup()
    assert eligible_actors(w, "a", SKIRMISH) == []
    assert available_actions(w, "a", "boss", SKIRMISH) == []
    with pytest.raises(OutOfStep):
        trade(w, actor(battle=SKIRMISH))


@pytest.mark.rule("PB-5.0")
def test_pb_5_0_gang_must_have_fought() -> None:
    w = setup()
    w.gangs["c"] = gang("Outsiders", id="c")
    with pytest.raises(NotEligible, match="did not fight"):
        eligible_actors(w, "c", BATTLE)


@pytest.mark.rule("PB-5.0")
def test_pb_5_0_available_actions_only_what_is_open_now() -> None:
    # Before the rescue chance nothing can be done with the captive.
    w = setup(chance_given=False)
    assert available_actions(w, "a", "boss", BATTLE) == [ActionKind.TRADE]

    w = setup(LAW, OUTLAW, chance_given=True)
    assert available_actions(w, "a", "boss", BATTLE) == [
        ActionKind.TRADE, ActionKind.SELL_TO_GUILDERS, ActionKind.CLAIM_BOUNTY,
    ]
    w = setup(OUTLAW, LAW, chance_given=True)
    w.gangs["a"].fighters[2].critical_injury = True
    w.gangs["a"].vehicles.append(vehicle(lasting_damage=["Unreliable"]))
    assert available_actions(w, "a", "boss", BATTLE) == [
        ActionKind.TRADE, ActionKind.SELL_TO_GUILDERS, ActionKind.DISPOSE_OF_CAPTIVE,
        ActionKind.MEDICAL_ESCORT, ActionKind.NEGOTIATE_REPAIRS,
    ]


# --------------------------------------------------------------------------- PB-5.1


@pytest.mark.rule("PB-5.1")
@pytest.mark.parametrize(("fighter_id", "leader", "champion"),
                         [("boss", True, False), ("champ", False, True)])
def test_pb_5_1_trade_records_who_traded(fighter_id: str, leader: bool, champion: bool) -> None:
    result = trade(setup(), actor(fighter_id))
    assert result.action is ActionKind.TRADE
    assert (result.actor_id, result.leader, result.champion) == (fighter_id, leader, champion)
    assert result.changes == [] and result.clause == "PB-5.1"


# --------------------------------------------------------------------------- PB-5.2


@pytest.mark.rule("PB-5.2")
def test_pb_5_2_sell_half_total_cost_rounded_up() -> None:
    w = setup()
    result = sell_to_guilders(w, actor(), "skab")
    assert result.credits_gained == 60  # 50% of 115 = 57.5, up to 60
    assert result.gang("a").credits == 160
    assert result.gang("a").stash == []
    assert "skab" not in [f.id for f in result.gang("b").fighters]
    assert result.world.captives_held_by("a") == []
    assert (result.owner_gang_id, result.actor_id) == ("b", "boss")
    # The input world is untouched.
    assert w.find_fighter("skab")[1].captured_by == "a"


@pytest.mark.rule("PB-5.2")
@given(cost=st.integers(0, 400), gear=st.lists(st.integers(0, 200), max_size=4))
def test_pb_5_2_sale_price_is_half_rounded_up_to_5(cost: int, gear: list[int]) -> None:
    w = setup()
    skab = w.gangs["b"].fighters[1]
    skab.cost = cost
    skab.equipment = [item("Thing", c) for c in gear]
    total = cost + sum(gear)
    gained = sell_to_guilders(w, actor(), "skab").credits_gained
    assert gained % 5 == 0
    assert total <= 2 * gained < total + 10


@pytest.mark.rule("PB-5.2")
def test_pb_5_2_sell_refused_before_the_rescue_chance() -> None:
    w = setup(chance_given=False)
    with unchanged(w), pytest.raises(NotEligible, match="not yet had its chance"):
        sell_to_guilders(w, actor(), "skab")
    # Once declined, the sale goes through.
    declined = record_rescue_declined(w, "skab").world
    assert sell_to_guilders(declined, actor(), "skab").credits_gained == 60


@pytest.mark.rule("PB-5.2")
def test_pb_5_2_sell_refused_for_a_captive_held_by_another_gang() -> None:
    w = setup()
    w.gangs["c"] = gang("Third", id="c")
    w.gangs["b"].fighters[1].captured_by = "c"
    with pytest.raises(NotEligible, match="does not hold Skab"):
        sell_to_guilders(w, actor(), "skab")


# --------------------------------------------------------------------------- PB-5.3


@pytest.mark.rule("PB-5.3")
def test_pb_5_3_bounty_pays_the_full_total_cost() -> None:
    result = claim_bounty(setup(LAW, OUTLAW), actor(), "skab")
    assert result.credits_gained == 115
    assert result.gang("a").credits == 215
    assert "skab" not in [f.id for f in result.gang("b").fighters]


@pytest.mark.rule("PB-5.3")
@pytest.mark.parametrize(("captor", "owner", "message"), [
    (LAW, LAW, "Rust Rats is Law Abiding"),
    (OUTLAW, OUTLAW, "Only a Law Abiding gang"),
])
def test_pb_5_3_bounty_refused(captor: Alignment, owner: Alignment, message: str) -> None:
    w = setup(captor, owner)
    with unchanged(w), pytest.raises(NotEligible, match=message):
        claim_bounty(w, actor(), "skab")


@pytest.mark.rule("PB-5.3")
def test_pb_5_3_bounty_refused_before_the_rescue_chance() -> None:
    with pytest.raises(NotEligible, match="not yet had its chance"):
        claim_bounty(setup(LAW, OUTLAW, chance_given=False), actor(), "skab")


# --------------------------------------------------------------------------- PB-5.4


@pytest.mark.rule("PB-5.4")
@pytest.mark.parametrize("owner", [LAW, OUTLAW])
def test_pb_5_4_outlaw_disposes_of_any_captive(owner: Alignment) -> None:
    result = dispose_of_captive(setup(OUTLAW, owner), actor(), "skab")
    assert result.credits_gained == 0
    assert result.gang("a").credits == 100
    assert "skab" not in [f.id for f in result.gang("b").fighters]


@pytest.mark.rule("PB-5.4")
def test_pb_5_4_dispose_refused_for_a_law_abiding_captor() -> None:
    w = setup(LAW, OUTLAW)
    with unchanged(w), pytest.raises(NotEligible, match="Only an Outlaw gang may dispose"):
        dispose_of_captive(w, actor(), "skab")


@pytest.mark.rule("PB-5.4")
def test_pb_5_4_dispose_refused_before_the_rescue_chance() -> None:
    with pytest.raises(NotEligible, match="not yet had its chance"):
        dispose_of_captive(setup(OUTLAW, LAW, chance_given=False), actor(), "skab")


# --------------------------------------------------------------------------- PB-5.5


def escort_world(credits: int = 100) -> World:
    w = setup(credits=credits)
    grunt = w.gangs["a"].fighters[2]
    grunt.critical_injury = True
    grunt.equipment = [item("Lasgun", 15, id="gun"), item("Flak", 10, EquipmentKind.ARMOUR)]
    return w


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_cost_is_rolled_openly_first() -> None:
    w = escort_world(credits=70)
    quote = medical_escort_cost(w, actor(), "grunt", ScriptedRoller([3, 4]))
    assert quote.cost == 70 and quote.affordable is True
    [cost_roll] = quote.rolls
    assert cost_roll.expression == "2D6x10" and cost_roll.faces == (3, 4)
    assert cost_roll.purpose == "Medical Escort cost for Grunt"
    assert quote.changes == []

    dear = medical_escort_cost(w, actor(), "grunt", ScriptedRoller([4, 4]))
    assert dear.cost == 80 and dear.affordable is False


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_unpaid_the_fighter_dies_without_a_further_roll(ruleset: RuleSet) -> None:
    roller = ScriptedRoller([])
    result = medical_escort_treat(escort_world(), actor(), "grunt", roller, ruleset,
                                  cost=70, pay=False)
    grunt = result.gang("a").fighter("grunt")
    assert result.outcome is EscortOutcome.DIED_UNPAID
    assert grunt.status is FighterStatus.DEAD
    assert grunt.critical_injury is False and grunt.escorted_to_doc is False
    assert result.rolls == [] and result.treatment_roll is None
    assert result.gang("a").credits == 100


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_roll_of_1_dies_at_the_doc_and_clean_house_keeps_its_gear(
    ruleset: RuleSet,
) -> None:
    result = medical_escort_treat(escort_world(), actor(), "grunt", ScriptedRoller([1]),
                                  ruleset, cost=70, pay=True)
    grunt = result.gang("a").fighter("grunt")
    assert result.outcome is EscortOutcome.DIED_AT_DOC
    assert grunt.status is FighterStatus.DEAD and grunt.escorted_to_doc is True
    assert grunt.critical_injury is False
    assert result.gang("a").credits == 30
    assert [r.purpose for r in result.rolls] == ["Medical Escort treatment for Grunt"]

    # No fighter of the gang left on the battlefield, yet the gear is kept (armour is not).
    lost_battle = BATTLE.model_copy(update={"gangs_with_models_left": ["b"]})
    cleaned = clean_house(result.world, lost_battle, "a")
    assert [i.id for i in cleaned.gang("a").stash] == ["gun"]


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_roll_of_6_recovery_with_no_lasting_effect(ruleset: RuleSet) -> None:
    result = medical_escort_treat(escort_world(credits=120), actor(), "grunt",
                                  ScriptedRoller([6]), ruleset, cost=120, pay=True)
    grunt = result.gang("a").fighter("grunt")
    assert result.outcome is EscortOutcome.FULL_RECOVERY
    assert grunt.status is FighterStatus.IN_RECOVERY
    assert grunt.critical_injury is False and grunt.lasting_injuries == []
    assert result.injury is None
    assert result.gang("a").credits == 0  # exactly all the credits


@pytest.mark.rule("PB-5.5")
@pytest.mark.parametrize("treatment", [2, 5])
def test_pb_5_5_roll_of_2_to_5_lasting_injury_then_recovery(
    ruleset: RuleSet, treatment: int
) -> None:
    # D66 4-4: Eye Injury (Recovery, -1 BS).
    roller = ScriptedRoller([treatment, 4, 4])
    result = medical_escort_treat(escort_world(), actor(), "grunt", roller, ruleset,
                                  cost=70, pay=True)
    grunt = result.gang("a").fighter("grunt")
    assert result.outcome is EscortOutcome.LASTING_INJURY
    assert result.injury is not None and result.injury.results == ["Eye Injury"]
    assert grunt.status is FighterStatus.IN_RECOVERY
    assert grunt.profile.bs == 5
    assert grunt.critical_injury is False
    assert roller.remaining == 0


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_lasting_injury_after_convalescence_result_still_means_recovery(
    ruleset: RuleSet,
) -> None:
    # D66 3-1: Convalescence; the escort's "then Recovery" is the stronger.
    result = medical_escort_treat(escort_world(), actor(), "grunt", ScriptedRoller([3, 3, 1]),
                                  ruleset, cost=70, pay=True)
    assert result.gang("a").fighter("grunt").status is FighterStatus.IN_RECOVERY


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_captured_critical_and_memorable_death_are_rerolled_as_separate_rolls(
    ruleset: RuleSet,
) -> None:
    # 5-5 Captured, 6-1 Critical Injury, 6-6 Memorable Death, then 4-5 Hand Injury.
    roller = ScriptedRoller([3, 5, 5, 6, 1, 6, 6, 4, 5])
    result = medical_escort_treat(escort_world(), actor(), "grunt", roller, ruleset,
                                  cost=70, pay=True)
    assert roller.remaining == 0
    injury_rolls = [r for r in result.rolls if r.expression == "D66"]
    assert [r.natural for r in injury_rolls] == [55, 61, 66, 45]
    assert result.injury is not None and result.injury.results == ["Hand Injury"]
    assert not result.injury.captured and not result.injury.dead
    grunt = result.gang("a").fighter("grunt")
    assert grunt.status is FighterStatus.IN_RECOVERY and grunt.captured_by is None


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_crew_rolls_on_the_crew_table(ruleset: RuleSet) -> None:
    # 5-5 is Captured for a fighter (re-rolled) but Eye Injury on the crew table.
    w = escort_world()
    w.gangs["a"].fighters.append(
        fighter("Wheels", FighterCategory.CREW, id="crew", critical_injury=True))
    roller = ScriptedRoller([4, 5, 5])
    result = medical_escort_treat(w, actor(), "crew", roller, ruleset, cost=70, pay=True)
    assert result.injury is not None and result.injury.results == ["Eye Injury"]
    assert roller.remaining == 0


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_paying_more_than_the_stash_is_refused(ruleset: RuleSet) -> None:
    w = escort_world(credits=60)
    with unchanged(w), pytest.raises(InsufficientCredits, match="cannot pay the Doc 70"):
        medical_escort_treat(w, actor(), "grunt", ScriptedRoller([6]), ruleset,
                             cost=70, pay=True)


@pytest.mark.rule("PB-5.5")
@pytest.mark.parametrize(("patient", "cost", "error"), [
    ("grunt", 75, InvalidRequest),
    ("grunt", 10, InvalidRequest),
    ("champ", 70, NotEligible),
    ("ghost", 70, NotFound),
])
def test_pb_5_5_impossible_requests_are_refused(
    ruleset: RuleSet, patient: str, cost: int, error: type[Exception]
) -> None:
    w = escort_world()
    with unchanged(w), pytest.raises(error):
        medical_escort_treat(w, actor(), patient, ScriptedRoller([6]), ruleset,
                             cost=cost, pay=True)


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_escort_in_one_call_rolls_cost_then_treatment(ruleset: RuleSet) -> None:
    result = medical_escort(escort_world(), actor("champ"), "grunt", ScriptedRoller([1, 2, 6]),
                            ruleset, pay=True)
    assert [r.total for r in result.rolls] == [30, 6]
    assert result.cost == 30 and result.gang("a").credits == 70
    assert result.outcome is EscortOutcome.FULL_RECOVERY
    assert result.actor_id == "champ"


# --------------------------------------------------------------------------- PB-5.6


def repair_world(credits: int = 100, status: VehicleStatus = VehicleStatus.ACTIVE) -> World:
    w = setup(credits=credits)
    w.gangs["a"].vehicles.append(vehicle(
        "Rattler", id="car", cost=90, status=status,
        lasting_damage=["Handling Glitch", "Damaged Frame"],
        upgrades=[item("Armoured wheels", 20, EquipmentKind.VEHICLE_UPGRADE)],
        equipment=[item("Heavy stubber", 130)],
    ))
    w.gangs["a"].vehicles.append(vehicle("Fine", id="fine"))
    return w


@pytest.mark.rule("PB-5.6")
@pytest.mark.parametrize(("die", "percent", "cost", "rattle"), [
    (1, 25, 30, True), (3, 25, 30, True), (4, 25, 30, False), (5, 25, 30, False),
    (6, 10, 15, False),
])
def test_pb_5_6_repair_price_by_d6_on_cost_with_upgrades(
    die: int, percent: int, cost: int, rattle: bool
) -> None:
    quote = negotiate_repairs_cost(repair_world(), actor(), "car", ScriptedRoller([die]))
    # 110 credits with Upgrades, the stubber left out: 25% is 27.5 -> 30; 10% is 11 -> 15.
    assert (quote.die, quote.percent, quote.cost, quote.becomes_rattle) == (
        die, percent, cost, rattle)
    assert quote.rolls[0].purpose == "Negotiate Repairs for Rattler"
    assert quote.changes == []


@pytest.mark.rule("PB-5.6")
def test_pb_5_6_paid_low_roll_leaves_exactly_one_persistent_rattle() -> None:
    result = negotiate_repairs(repair_world(), actor(), "car", die=3, pay=True)
    car = result.gang("a").vehicle("car")
    assert car.lasting_damage == ["Persistent Rattle"]
    assert result.damage_removed == ["Handling Glitch", "Damaged Frame"]
    assert result.gang("a").credits == 70


@pytest.mark.rule("PB-5.6")
def test_pb_5_6_paid_high_roll_removes_all_damage_and_ends_in_repair() -> None:
    result = negotiate_repairs(repair_world(status=VehicleStatus.IN_REPAIR), actor(), "car",
                               die=6, pay=True)
    car = result.gang("a").vehicle("car")
    assert car.lasting_damage == [] and car.status is VehicleStatus.ACTIVE
    assert result.gang("a").credits == 85


@pytest.mark.rule("PB-5.6")
def test_pb_5_6_a_vehicle_in_the_stash_can_be_repaired_and_stays_there() -> None:
    w = repair_world()
    car = w.gangs["a"].vehicles.pop(0)
    car.status = VehicleStatus.IN_STASH
    w.gangs["a"].stash_vehicles.append(car)
    result = negotiate_repairs(w, actor(), "car", die=4, pay=True)
    [stashed] = result.gang("a").stash_vehicles
    assert stashed.lasting_damage == [] and stashed.status is VehicleStatus.IN_STASH


@pytest.mark.rule("PB-5.6")
def test_pb_5_6_unpaid_changes_nothing_but_uses_the_action() -> None:
    result = negotiate_repairs(repair_world(), actor(), "car", die=4, pay=False)
    assert result.changes == []
    assert result.paid is False and result.actor_id == "boss"


@pytest.mark.rule("PB-5.6")
@pytest.mark.parametrize(("vehicle_id", "die", "credits", "error"), [
    ("car", 4, 25, InsufficientCredits),
    ("fine", 4, 100, NotEligible),
    ("ghost", 4, 100, NotFound),
    ("car", 7, 100, InvalidRequest),
])
def test_pb_5_6_impossible_repairs_are_refused(
    vehicle_id: str, die: int, credits: int, error: type[Exception]
) -> None:
    w = repair_world(credits=credits)
    with unchanged(w), pytest.raises(error):
        negotiate_repairs(w, actor(), vehicle_id, die=die, pay=True)


@pytest.mark.rule("PB-5.6")
def test_pb_5_6_exact_credits_pay_for_repairs() -> None:
    result = negotiate_repairs(repair_world(credits=30), actor(), "car", die=5, pay=True)
    assert result.gang("a").credits == 0
    assert result.gang("a").vehicle("car").lasting_damage == []
