"""Lasting Injuries and Lasting Damage (rules.injuries), on the shipped tables."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.data import default_ruleset, load_ruleset
from rules.dice import ScriptedRoller, SeededRoller
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.injuries import (
    InjuryOutcome,
    LastingDamageOutcome,
    apply_lasting_damage,
    apply_lasting_injury,
    injury_table_for,
)
from rules.models import (
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Profile,
    Vehicle,
    VehicleStatus,
)
from rules.ruleset import InjuryTable
from rules.world import Workspace, World
from tests.factories import fighter, gang, vehicle, world

MEDICAL_ESCORT_REROLLS = frozenset({"Captured", "Critical Injury", "Memorable Death"})


def d66(result: int) -> list[int]:
    """Scripted faces for one D66 result."""
    return [result // 10, result % 10]


def setup(**fighter_fields: Any) -> tuple[World, Gang, Fighter]:
    skab = fighter("Skab", id="skab", **fighter_fields)
    ash = gang("Ash Wolves", fighters=[skab], id="ash")
    return world(ash), ash, skab


def injure(
    w: World,
    faces: list[int],
    *,
    table: InjuryTable | None = None,
    reroll: frozenset[str] = frozenset(),
    fighter_id: str = "skab",
) -> tuple[Workspace, InjuryOutcome]:
    ws = Workspace(w)
    roller = ScriptedRoller(faces)
    outcome = apply_lasting_injury(
        ws, "ash", fighter_id, table or default_ruleset().fighter_injuries, roller, reroll=reroll
    )
    assert roller.remaining == 0, "every scripted face should have been used"
    return ws, outcome


def after(ws: Workspace) -> Fighter:
    return ws.world.gang("ash").fighter("skab")


# --------------------------------------------------------------------------- single results


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_eye_injury_means_recovery_and_worse_bs_at_the_same_cost():
    w, _, skab = setup()
    ws, outcome = injure(w, d66(44))
    hurt = after(ws)
    assert outcome.results == ["Eye Injury"]
    assert (outcome.captured, outcome.critical_injury, outcome.dead) == (False, False, False)
    assert hurt.status is FighterStatus.IN_RECOVERY
    assert hurt.profile.bs == skab.profile.bs + 1
    assert hurt.cost == skab.cost
    assert hurt.lasting_injuries == ["Eye Injury"]
    assert [(r.expression, r.faces) for r in outcome.rolls] == [("D66", (4, 4))]
    assert outcome.rolls == ws.rolls
    assert outcome.rolls[0].purpose == "Lasting Injury for Skab"
    # The world given in is never touched.
    assert w.gang("ash").fighter("skab") == skab


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_humiliated_means_convalescence_and_worse_ld_and_cl():
    w, _, skab = setup()
    ws, outcome = injure(w, d66(43))
    hurt = after(ws)
    assert outcome.results == ["Humiliated"]
    assert hurt.status is FighterStatus.CONVALESCENT
    assert (hurt.profile.ld, hurt.profile.cl) == (skab.profile.ld + 1, skab.profile.cl + 1)
    assert hurt.lasting_injuries == ["Humiliated"]


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_head_injury_worsens_int_and_wil():
    w, _, skab = setup()
    hurt = after(injure(w, d66(53))[0])
    assert (hurt.profile.int_, hurt.profile.wil) == (skab.profile.int_ + 1, skab.profile.wil + 1)
    assert hurt.status is FighterStatus.IN_RECOVERY


@pytest.mark.rule("PB-1.1")
@pytest.mark.parametrize(("result", "stat", "before", "after_value"), [
    (45, "ws", 4, 5), (46, "m", 5, 4), (51, "s", 3, 2), (52, "t", 3, 2)])
def test_pb_1_1_recovery_injuries_worsen_their_characteristic(result, stat, before, after_value):
    w, _, _ = setup()
    hurt = after(injure(w, d66(result))[0])
    assert getattr(hurt.profile, stat) == after_value != before
    assert hurt.status is FighterStatus.IN_RECOVERY


@pytest.mark.rule("PB-1.1")
@pytest.mark.parametrize(("d3_face", "xp"), [(1, 1), (4, 2), (6, 3)])
def test_pb_1_1_lesson_learned_gives_d3_xp_and_convalescence(d3_face, xp):
    w, _, _ = setup(xp=2)
    ws, outcome = injure(w, [*d66(11), d3_face])
    hurt = after(ws)
    assert hurt.xp == 2 + xp
    assert hurt.status is FighterStatus.CONVALESCENT
    assert hurt.lasting_injuries == []
    assert [r.expression for r in outcome.rolls] == ["D66", "D3"]
    assert outcome.rolls[1].purpose == "Lesson Learned XP for Skab"


@pytest.mark.rule("PB-1.1")
@pytest.mark.parametrize("result", [15, 26])
def test_pb_1_1_out_cold_changes_nothing(result):
    w, _, skab = setup()
    ws, outcome = injure(w, d66(result))
    assert outcome.results == ["Out Cold"]
    assert after(ws) == skab


def test_old_battle_wound_is_recorded_for_later():
    w, _, skab = setup()
    hurt = after(injure(w, d66(41))[0])
    assert hurt.lasting_injuries == ["Old Battle Wound"]
    assert hurt.profile == skab.profile
    assert hurt.status is FighterStatus.ACTIVE


# --------------------------------------------------------------------------- once-only results


def test_impressive_scars_improve_cool_once_then_count_as_out_cold():
    w, _, skab = setup()
    ws, outcome = injure(w, d66(12))
    scarred = after(ws)
    assert outcome.results == ["Impressive Scars"]
    assert scarred.profile.cl == skab.profile.cl - 1
    assert scarred.lasting_injuries == ["Impressive Scars"]
    ws2, again = injure(ws.world, d66(12))
    assert again.results == ["Out Cold"]
    assert after(ws2).profile.cl == scarred.profile.cl
    assert any("counts as Out Cold" in note for note in ws2.notes)


def test_horrid_scars_give_fearsome_unless_the_fighter_has_it():
    w, _, _ = setup()
    ws, outcome = injure(w, d66(13))
    assert outcome.results == ["Horrid Scars"]
    assert after(ws).skills == ["Fearsome"]
    feared, _, _ = setup(special_rules=["Fearsome"])
    ws2, again = injure(feared, d66(13))
    assert again.results == ["Out Cold"]
    assert after(ws2).skills == []


def test_bitter_enmity_repeated_is_out_cold():
    w, _, _ = setup(lasting_injuries=["Bitter Enmity"])
    ws, outcome = injure(w, d66(14))
    assert outcome.results == ["Out Cold"]
    assert after(ws).lasting_injuries == ["Bitter Enmity"]


def test_partially_deafened_costs_leadership_only_the_second_time():
    w, _, skab = setup()
    ws, _ = injure(w, d66(42))
    assert after(ws).profile.ld == skab.profile.ld
    ws2, _ = injure(ws.world, d66(42))
    assert after(ws2).profile.ld == skab.profile.ld + 1
    assert after(ws2).lasting_injuries == ["Partially Deafened", "Partially Deafened"]


# --------------------------------------------------------------------------- status


def test_recovery_beats_convalescence():
    w, _, _ = setup(status=FighterStatus.CONVALESCENT)
    assert after(injure(w, d66(44))[0]).status is FighterStatus.IN_RECOVERY
    w, _, _ = setup(status=FighterStatus.IN_RECOVERY)
    assert after(injure(w, d66(43))[0]).status is FighterStatus.IN_RECOVERY


@pytest.mark.rule("PB-1.6")
def test_pb_1_6_a_captive_keeps_its_status_unless_it_dies():
    w, _, skab = setup(status=FighterStatus.CAPTURED, captured_by="rival")
    hurt = after(injure(w, d66(44))[0])
    assert (hurt.status, hurt.captured_by) == (FighterStatus.CAPTURED, "rival")
    assert hurt.profile.bs == skab.profile.bs + 1
    assert after(injure(w, d66(66))[0]).status is FighterStatus.DEAD


@pytest.mark.rule("PB-1.2")
@pytest.mark.parametrize("result", [55, 56])
def test_pb_1_2_captured_result_leaves_the_status_to_the_escape_roll(result):
    w, _, skab = setup()
    ws, outcome = injure(w, d66(result))
    assert outcome.captured is True
    assert outcome.results == ["Captured"]
    assert after(ws) == skab


@pytest.mark.rule("PB-5.5")
@pytest.mark.parametrize("result", [61, 65])
def test_pb_5_5_critical_injury_flags_the_fighter(result):
    w, _, _ = setup()
    ws, outcome = injure(w, d66(result))
    hurt = after(ws)
    assert outcome.critical_injury is True
    assert hurt.critical_injury is True
    assert hurt.status is FighterStatus.ACTIVE
    assert hurt.lasting_injuries == []


def test_memorable_death_kills():
    w, _, _ = setup()
    ws, outcome = injure(w, d66(66))
    assert outcome.dead is True
    assert outcome.captured is False
    assert after(ws).status is FighterStatus.DEAD


def test_a_dead_fighter_cannot_be_injured_and_unknown_fighters_are_not_found():
    w, _, _ = setup(status=FighterStatus.DEAD)
    with pytest.raises(NotEligible, match="Skab is dead"):
        injure(w, [])
    with pytest.raises(NotFound):
        injure(w, [], fighter_id="nobody")


# --------------------------------------------------------------------------- re-rolls


@pytest.mark.rule("PB-5.5")
def test_pb_5_5_medical_escort_rerolls_captured_critical_and_death_openly():
    w, _, _ = setup()
    ws, outcome = injure(w, [*d66(66), *d66(61), *d66(55), *d66(44)],
                         reroll=MEDICAL_ESCORT_REROLLS)
    assert outcome.results == ["Eye Injury"]
    assert (outcome.captured, outcome.critical_injury, outcome.dead) == (False, False, False)
    assert [r.natural for r in outcome.rolls] == [66, 61, 55, 44]
    assert [r.purpose for r in outcome.rolls] == [
        "Lasting Injury for Skab",
        "Lasting Injury for Skab, re-roll of Memorable Death",
        "Lasting Injury for Skab, re-roll of Critical Injury",
        "Lasting Injury for Skab, re-roll of Captured",
    ]
    assert ws.rolls == outcome.rolls
    assert after(ws).critical_injury is False


def test_rerolling_every_result_is_refused():
    w, _, _ = setup()
    names = frozenset(e.name for e in default_ruleset().fighter_injuries.entries)
    with pytest.raises(InvalidRequest, match="never end"):
        injure(w, [], reroll=names)


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_multiple_injuries_roll_d3_more_rerolling_their_list():
    w, _, skab = setup()
    faces = [*d66(54), 3,  # D3 from a 3: two more rolls
             *d66(55), *d66(15), *d66(44),  # Captured, Out Cold re-rolled; Eye Injury
             *d66(54), *d66(61), *d66(66), *d66(45)]  # Multiple, Critical, Death; Hand
    ws, outcome = injure(w, faces)
    hurt = after(ws)
    assert outcome.results == ["Multiple Injuries", "Eye Injury", "Hand Injury"]
    assert (outcome.captured, outcome.critical_injury, outcome.dead) == (False, False, False)
    assert hurt.status is FighterStatus.IN_RECOVERY
    assert (hurt.profile.bs, hurt.profile.ws) == (skab.profile.bs + 1, skab.profile.ws + 1)
    assert hurt.lasting_injuries == ["Eye Injury", "Hand Injury"]
    assert [r.expression for r in outcome.rolls] == ["D66", "D3"] + ["D66"] * 7
    assert outcome.rolls[1].total == 2
    assert outcome.rolls[3].purpose.endswith("extra roll 1 of 2, re-roll of Captured")
    assert outcome.rolls[5].purpose.endswith("extra roll 2 of 2")
    assert outcome.rolls[8].purpose.endswith("extra roll 2 of 2, re-roll of Memorable Death")


def test_multiple_injuries_recovery_then_convalescence_is_one_recovery():
    w, _, _ = setup()
    ws, outcome = injure(w, [*d66(54), 3, *d66(44), *d66(43)])
    assert outcome.results == ["Multiple Injuries", "Eye Injury", "Humiliated"]
    assert after(ws).status is FighterStatus.IN_RECOVERY


def test_multiple_injuries_repeating_a_once_only_result_counts_as_out_cold():
    w, _, skab = setup()
    ws, outcome = injure(w, [*d66(54), 6, *d66(12), *d66(12), *d66(43)])
    assert outcome.results == ["Multiple Injuries", "Impressive Scars", "Out Cold", "Humiliated"]
    hurt = after(ws)
    # Impressive Scars -1 then Humiliated +1: Cool back where it was.
    assert hurt.profile.cl == skab.profile.cl
    assert hurt.status is FighterStatus.CONVALESCENT


# --------------------------------------------------------------------------- other tables


def test_crew_roll_on_the_crew_table():
    ruleset = default_ruleset()
    driver = fighter("Driver", FighterCategory.CREW)
    assert injury_table_for(driver, ruleset) is ruleset.crew_injuries
    assert injury_table_for(fighter(), ruleset) is ruleset.fighter_injuries
    w, _, _ = setup(category=FighterCategory.CREW)
    table = injury_table_for(w.gang("ash").fighter("skab"), ruleset)
    assert injure(w, d66(44), table=table)[1].results == ["Convalescence"]
    assert injure(w, d66(55), table=table)[1].results == ["Eye Injury"]


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_the_2018_table_has_no_captured_result():
    table = load_ruleset("core-2018-injuries").fighter_injuries
    w, _, _ = setup()
    for result, name in [(55, "Spinal Injury"), (56, "Enfeebled"), (31, "Grievous Injury")]:
        ws, outcome = injure(w, d66(result), table=table)
        assert outcome.results == [name]
        assert outcome.captured is False
        assert after(ws).status is FighterStatus.IN_RECOVERY


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10_000))
def test_any_injury_keeps_cost_and_reports_consistently(seed):
    w, _, skab = setup()
    ws = Workspace(w)
    outcome = apply_lasting_injury(ws, "ash", "skab", default_ruleset().fighter_injuries,
                                   SeededRoller(seed))
    hurt = after(ws)
    assert hurt.cost == skab.cost
    assert outcome.results
    assert outcome.dead == (hurt.status is FighterStatus.DEAD)
    assert outcome.critical_injury == hurt.critical_injury
    assert outcome.captured == ("Captured" in outcome.results)
    assert all(11 <= r.natural <= 66 for r in outcome.rolls if r.expression == "D66")
    assert outcome.rolls == ws.rolls
    assert Profile.model_validate(hurt.profile.model_dump())


# --------------------------------------------------------------------------- Lasting Damage


def damage(
    rattles: int, face: int
) -> tuple[World, Workspace, LastingDamageOutcome, Vehicle]:
    cargo = vehicle("Cargo-8", id="cargo", lasting_damage=["Persistent Rattle"] * rattles)
    w = world(gang("Ash Wolves", id="ash", vehicles=[cargo]))
    ws = Workspace(w)
    outcome = apply_lasting_damage(ws, "ash", "cargo", default_ruleset().lasting_damage,
                                   ScriptedRoller([face]))
    return w, ws, outcome, ws.world.gang("ash").vehicle("cargo")


@pytest.mark.rule("PB-5.6")
def test_pb_5_6_persistent_rattle_is_recorded_on_a_1():
    w, _, outcome, cargo = damage(0, 1)
    assert (outcome.result, outcome.modifier, outcome.total) == ("Persistent Rattle", 0, 1)
    assert cargo.lasting_damage == ["Persistent Rattle"]
    assert cargo.status is VehicleStatus.ACTIVE
    assert w.gang("ash").vehicle("cargo").lasting_damage == []


@pytest.mark.rule("PB-5.6")
@pytest.mark.parametrize(("rattles", "face", "result", "in_repair"), [
    (0, 6, "Damaged Frame", False),
    (1, 5, "Damaged Frame", False),
    (1, 6, "Write-off", True),
    (2, 5, "Write-off", True),
    (3, 6, "Write-off", True),
])
def test_pb_5_6_each_persistent_rattle_adds_one(rattles, face, result, in_repair):
    _, ws, outcome, cargo = damage(rattles, face)
    assert (outcome.result, outcome.modifier, outcome.total) == (result, rattles, face + rattles)
    assert outcome.in_repair is in_repair
    assert outcome.roll.faces == (face,)
    assert cargo.lasting_damage[-1] == result
    assert (cargo.status is VehicleStatus.IN_REPAIR) is in_repair
    if rattles:
        assert f"+{rattles} for Persistent Rattle" in outcome.roll.purpose
    assert ws.rolls == [outcome.roll]
