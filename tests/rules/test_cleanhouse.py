"""Clean House: the dead, retirement and scrapping vehicles (PB-6A.1 to PB-6A.3)."""

from __future__ import annotations

import pytest

from rules.cleanhouse import CrewChoice, CrewFate, clean_house, retire, scrap_vehicle
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import (
    Battle,
    EquipmentKind,
    FighterCategory,
    FighterStatus,
    Item,
    VehicleStatus,
)
from rules.world import World
from tests.assertions import unchanged
from tests.factories import fighter, gang, item, vehicle, world

ARMOUR = EquipmentKind.ARMOUR
WARGEAR = EquipmentKind.WARGEAR


def kit(prefix: str) -> list[Item]:
    return [
        item("Lasgun", 15, id=f"{prefix}-gun"),
        item("Frag grenades", 30, WARGEAR, id=f"{prefix}-frag"),
        item("Mesh armour", 15, ARMOUR, id=f"{prefix}-mesh"),
    ]


def setup() -> World:
    """Gang "a": a dead ganger, a dying (critical) champion, a dead crew with a Cargo-8."""
    dead = fighter("Dead Dan", id="dead", status=FighterStatus.DEAD, equipment=kit("dead"))
    dying = fighter("Crit Carl", FighterCategory.CHAMPION, id="crit", critical_injury=True,
                    equipment=kit("crit"))
    crew = fighter("Wheels", FighterCategory.CREW, id="crew", status=FighterStatus.DEAD,
                   equipment=[item("Stub gun", 5, id="crew-stub")])
    alive = fighter("Alive Al", id="alive", escorted_to_doc=True, equipment=kit("alive"))
    cargo = vehicle("Cargo-8", id="cargo", crew_id="crew", equipment=[item("Heavy stubber", 130,
                    id="cargo-hs")])
    return world(
        gang("Ash Wolves", id="a", fighters=[dead, dying, crew, alive], vehicles=[cargo]),
        gang("Rust Rats", id="b"),
    )


def battle(left: list[str]) -> Battle:
    return Battle(id="b1", gang_ids=["a", "b"], winner="b", gangs_with_models_left=left)


# --------------------------------------------------------------------------- PB-6A.1


@pytest.mark.rule("PB-6A.1")
def test_pb_6a_1_dead_deleted_gear_but_not_armour_kept_when_a_fighter_remained() -> None:
    w = setup()
    result = clean_house(w, battle(["a", "b"]), "a")
    a = result.gang("a")

    assert [f.id for f in a.fighters] == ["alive"]
    assert result.died_of_critical_injuries == ["crit"]
    assert result.had_fighter_on_battlefield is True
    assert sorted(i.id for i in a.stash) == ["crew-stub", "crit-frag", "crit-gun",
                                             "dead-frag", "dead-gun"]
    removed = {r.fighter_id: r for r in result.deleted}
    assert set(removed) == {"dead", "crit", "crew"}
    assert removed["dead"].items_lost == ["Mesh armour"]
    assert removed["dead"].items_to_stash == ["Lasgun", "Frag grenades"]
    # The input world is untouched.
    assert len(w.gang("a").fighters) == 4


@pytest.mark.rule("PB-6A.1")
def test_pb_6a_1_gear_lost_when_no_fighter_remained_on_the_battlefield() -> None:
    result = clean_house(setup(), battle(["b"]), "a")
    a = result.gang("a")
    assert a.stash == []
    assert result.had_fighter_on_battlefield is False
    removed = {r.fighter_id: r for r in result.deleted}
    assert removed["dead"].items_lost == ["Lasgun", "Frag grenades", "Mesh armour"]
    assert removed["dead"].items_to_stash == []


@pytest.mark.rule("PB-6A.1")
def test_pb_6a_1_gear_kept_when_the_fighter_died_after_a_medical_escort() -> None:
    w = setup()
    w.gangs["a"].fighters[0].escorted_to_doc = True  # Dead Dan died at the Doc
    result = clean_house(w, battle(["b"]), "a")
    stash = sorted(i.id for i in result.gang("a").stash)
    # Only the escorted fighter's gear, armour excepted, is kept.
    assert stash == ["dead-frag", "dead-gun"]


@pytest.mark.rule("PB-6A.1")
def test_pb_6a_1_dead_crew_vehicle_goes_to_the_stash_without_crew() -> None:
    result = clean_house(setup(), battle(["a"]), "a")
    a = result.gang("a")
    assert a.vehicles == []
    [cargo] = a.stash_vehicles
    assert cargo.id == "cargo" and cargo.crew_id is None
    assert cargo.status is VehicleStatus.IN_STASH
    assert [i.id for i in cargo.equipment] == ["cargo-hs"]
    removed = {r.fighter_id: r for r in result.deleted}
    assert removed["crew"].vehicle_to_stash == "cargo"


@pytest.mark.rule("PB-6A.1")
def test_pb_6a_1_survivors_lose_the_doc_flag_and_the_changes_are_reported() -> None:
    result = clean_house(setup(), battle(["a"]), "a")
    assert result.gang("a").fighter("alive").escorted_to_doc is False
    deleted = {c.subject_id for c in result.changes if c.path == "fighters" and c.after is None}
    assert deleted == {"dead", "crit", "crew"}
    assert result.clause == "PB-6A.1"


@pytest.mark.rule("PB-6A.1")
def test_pb_6a_1_nothing_to_clean_changes_nothing() -> None:
    w = world(gang("Ash Wolves", id="a"), gang("Rust Rats", id="b"))
    result = clean_house(w, battle(["a"]), "a")
    assert result.deleted == [] and result.changes == []


@pytest.mark.rule("PB-6A.1")
def test_pb_6a_1_refused_for_a_gang_not_in_the_battle() -> None:
    w = setup()
    w.gangs["c"] = gang("Outsiders", id="c")
    with pytest.raises(NotEligible, match="did not fight"):
        clean_house(w, battle(["a"]), "c")


# --------------------------------------------------------------------------- PB-6A.2


@pytest.mark.rule("PB-6A.2")
def test_pb_6a_2_retire_keeps_all_gear_armour_included() -> None:
    w = setup()
    result = retire(w, "a", "alive")
    a = result.gang("a")
    assert "alive" not in [f.id for f in a.fighters]
    assert sorted(i.id for i in a.stash) == ["alive-frag", "alive-gun", "alive-mesh"]
    assert result.removal.items_lost == []
    assert result.removal.vehicle_to_stash is None


@pytest.mark.rule("PB-6A.2")
def test_pb_6a_2_retiring_crew_puts_its_vehicle_in_the_stash() -> None:
    w = setup()
    w.gangs["a"].fighters[2].status = FighterStatus.ACTIVE  # Wheels survived
    result = retire(w, "a", "crew")
    a = result.gang("a")
    assert a.vehicles == []
    assert [v.id for v in a.stash_vehicles] == ["cargo"]
    assert a.stash_vehicles[0].crew_id is None
    assert [i.id for i in a.stash] == ["crew-stub"]
    assert result.removal.vehicle_to_stash == "cargo"


@pytest.mark.rule("PB-6A.2")
def test_pb_6a_2_a_captive_cannot_be_retired() -> None:
    w = setup()
    w.gangs["a"].fighters[3].capture("b")
    with unchanged(w), pytest.raises(NotEligible, match="held captive"):
        retire(w, "a", "alive")


@pytest.mark.rule("PB-6A.2")
def test_pb_6a_2_unknown_fighter_is_not_found() -> None:
    with pytest.raises(NotFound):
        retire(setup(), "a", "ghost")


# --------------------------------------------------------------------------- PB-6A.3


def scrap_world(cost: int = 90, upgrade: int = 20) -> World:
    crew = fighter("Wheels", FighterCategory.CREW, id="crew", equipment=[item("Stub gun", 5,
                   id="crew-stub")])
    wreck = vehicle(
        "Rattler", id="wreck", cost=cost, crew_id="crew", lasting_damage=["Damaged Frame"],
        upgrades=[item("Armoured wheels", upgrade, EquipmentKind.VEHICLE_UPGRADE, id="up")],
        equipment=[item("Heavy stubber", 130, id="hs")],
    )
    spare = vehicle("Spare", id="spare", status=VehicleStatus.IN_STASH)
    fine = vehicle("Fine", id="fine")
    return world(gang("Ash Wolves", id="a", credits=10,
                      fighters=[fighter("Boss", FighterCategory.LEADER, id="boss"), crew],
                      vehicles=[wreck, fine], stash_vehicles=[spare]))


@pytest.mark.rule("PB-6A.3")
def test_pb_6a_3_scrap_pays_25_percent_of_110_as_30() -> None:
    result = scrap_vehicle(scrap_world(90, 20), "a", "wreck", CrewChoice.await_purchase())
    a = result.gang("a")
    assert result.credits_gained == 30  # 27.5 rounds up to 30
    assert a.credits == 40
    assert [v.id for v in a.vehicles] == ["fine"]
    assert [i.id for i in a.stash] == ["hs"]  # the upgrade is lost
    assert result.upgrades_lost == ["Armoured wheels"]
    assert result.items_to_stash == ["Heavy stubber"]
    assert result.crew_fate is CrewFate.AWAIT_PURCHASE
    assert a.fighter("crew").status is FighterStatus.ACTIVE


@pytest.mark.rule("PB-6A.3")
def test_pb_6a_3_scrap_price_exact_multiple_of_5_is_not_raised() -> None:
    result = scrap_vehicle(scrap_world(80, 20), "a", "wreck", CrewChoice.retire())
    assert result.credits_gained == 25


@pytest.mark.rule("PB-6A.3")
def test_pb_6a_3_crew_takes_another_vehicle_from_the_stash() -> None:
    result = scrap_vehicle(scrap_world(), "a", "wreck", CrewChoice.new_vehicle("spare"))
    a = result.gang("a")
    spare = a.vehicle("spare")
    assert spare.crew_id == "crew" and spare.status is VehicleStatus.ACTIVE
    assert a.stash_vehicles == []
    assert result.crew_vehicle_id == "spare"


@pytest.mark.rule("PB-6A.3")
def test_pb_6a_3_crew_retires_with_its_gear_to_the_stash() -> None:
    result = scrap_vehicle(scrap_world(), "a", "wreck", CrewChoice.retire())
    a = result.gang("a")
    assert "crew" not in [f.id for f in a.fighters]
    assert sorted(i.id for i in a.stash) == ["crew-stub", "hs"]
    assert result.crew_removal is not None and result.crew_removal.fighter_id == "crew"
    # The scrapped vehicle does not come back to the Stash with its crew.
    assert [v.id for v in a.stash_vehicles] == ["spare"]


@pytest.mark.rule("PB-6A.3")
@pytest.mark.parametrize(
    ("vehicle_id", "choice", "error", "message"),
    [
        ("fine", CrewChoice.retire(), NotEligible, "Lasting Damage"),
        ("wreck", None, InvalidRequest, "takes another vehicle"),
        ("wreck", CrewChoice.new_vehicle("fine"), NotFound, "in its Stash"),
        ("wreck", CrewChoice.new_vehicle("wreck"), InvalidRequest, "being scrapped"),
        ("ghost", CrewChoice.retire(), NotFound, "no vehicle"),
    ],
)
def test_pb_6a_3_impossible_scraps_are_refused_and_change_nothing(
    vehicle_id: str, choice: CrewChoice | None, error: type[Exception], message: str
) -> None:
    w = scrap_world()
    with unchanged(w), pytest.raises(error, match=message):
        scrap_vehicle(w, "a", vehicle_id, choice)


@pytest.mark.rule("PB-6A.3")
def test_pb_6a_3_scrapping_a_stashed_vehicle_takes_no_crew_choice() -> None:
    w = scrap_world()
    w.gangs["a"].stash_vehicles[0].lasting_damage = ["Unreliable"]
    with pytest.raises(InvalidRequest, match="no crew"):
        scrap_vehicle(w, "a", "spare", CrewChoice.retire())
    result = scrap_vehicle(w, "a", "spare")
    assert result.credits_gained == 30  # 25% of 120
    assert result.gang("a").stash_vehicles == []
    assert result.crew_id is None


def test_crew_choice_needs_a_vehicle_exactly_for_a_new_vehicle() -> None:
    with pytest.raises(ValueError):
        CrewChoice(fate=CrewFate.NEW_VEHICLE)
    with pytest.raises(ValueError):
        CrewChoice(fate=CrewFate.RETIRE, vehicle_id="spare")
