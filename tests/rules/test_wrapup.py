"""PB-1.1 to PB-1.5: the Wrap-up, in the order of the text.

Lasting Injuries are D66 rolls (two D6 faces): 21 Out Cold, 44 Eye Injury
(Recovery), 55 Captured, 61 Critical Injury, in the default data set.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible
from rules.models import (
    Battle,
    FighterCategory,
    FighterEndState,
    FighterStatus,
    VehicleEndState,
)
from rules.ruleset import RuleSet
from rules.world import World
from rules.wrapup import escape_modifiers, escapes, wrap_up
from tests import factories as make
from tests.rules.injury_dice import CAPTURED, CRITICAL, EYE_INJURY, OUT_COLD


def _world(third_gang: bool = False) -> World:
    wolves = make.gang("Ash Wolves", id="wolves", credits=100, fighters=[
        make.fighter("Skab", id="skab"),
        make.fighter("Grub", id="grub"),
        make.fighter("Mox", id="mox", status=FighterStatus.IN_RECOVERY),
    ], vehicles=[make.vehicle("Wolf Cart", id="wcart")])
    rats = make.gang("Rust Rats", id="rats", credits=50, fighters=[
        make.fighter("Nix", id="nix"),
        make.fighter("Vek", id="vek", status=FighterStatus.IN_RECOVERY),
    ], vehicles=[make.vehicle("Rat Truck", id="rtruck"), make.vehicle("Rat Bike", id="rbike")])
    gangs = [wolves, rats]
    if third_gang:
        gangs.append(make.gang("Iron Jaws", id="jaws", credits=0,
                               fighters=[make.fighter("Jaw", id="jaw")]))
    return make.world(*gangs)


def _battle(winner: str | None = "wolves", third_gang: bool = False, **fields: Any) -> Battle:
    gang_ids = ["wolves", "rats", "jaws"] if third_gang else ["wolves", "rats"]
    return Battle(id="b1", gang_ids=gang_ids, winner=winner, **fields)


def _ooa(gang_id: str, fighter_id: str, **fields: Any) -> FighterEndState:
    return FighterEndState(gang_id=gang_id, fighter_id=fighter_id, out_of_action=True, **fields)


def _run(world: World, battle: Battle, ruleset: RuleSet, faces: list[int], **kw: Any):
    roller = ScriptedRoller(faces)
    kw.setdefault("in_recovery_before", [])
    result = wrap_up(world, battle, ruleset, roller, **kw)
    assert roller.remaining == 0, "every scripted die should have been used"
    return result


# --------------------------------------------------------------------------- PB-1.1


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_succumb_3_survives_without_injury_roll(ruleset: RuleSet) -> None:
    world = _world()
    battle = _battle(fighters=[FighterEndState(gang_id="rats", fighter_id="nix",
                                               prone_seriously_injured=True)])
    result = _run(world, battle, ruleset, [3])
    (outcome,) = result.succumb
    assert outcome.survived and outcome.fighter_id == "nix" and outcome.roll.faces == (3,)
    assert result.injuries == []
    assert [(r.expression, r.purpose) for r in result.rolls] == [("D6", "succumb roll for Nix")]
    assert result.world.gang("rats").fighter("nix").status is FighterStatus.ACTIVE


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_succumb_2_goes_out_of_action_and_rolls_lasting_injury(ruleset: RuleSet) -> None:
    world = _world()
    battle = _battle(fighters=[FighterEndState(gang_id="rats", fighter_id="nix",
                                               prone_seriously_injured=True)])
    result = _run(world, battle, ruleset, [2, *EYE_INJURY])
    assert not result.succumb[0].survived
    (injury,) = result.injuries
    assert injury.fighter_id == "nix" and injury.results == ["Eye Injury"]
    assert result.rolls[0].purpose == "succumb roll for Nix"
    assert result.rolls[1].faces == tuple(EYE_INJURY)
    nix = result.world.gang("rats").fighter("nix")
    assert nix.status is FighterStatus.IN_RECOVERY and nix.profile.bs == 5
    assert world.gang("rats").fighter("nix").profile.bs == 4  # input untouched


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_fled_prone_fighter_rolls_only_if_its_gang_bottled_out(ruleset: RuleSet) -> None:
    fled = FighterEndState(gang_id="rats", fighter_id="nix", fled_prone_seriously_injured=True)
    result = _run(_world(), _battle(fighters=[fled], bottled_out=["rats"]), ruleset,
                  [1, *OUT_COLD])
    assert not result.succumb[0].survived and result.injuries[0].results == ["Out Cold"]

    world = _world()
    roller = ScriptedRoller([1, *OUT_COLD])
    with pytest.raises(InvalidRequest, match="did not bottle out"):
        wrap_up(world, _battle(fighters=[fled]), ruleset, roller, in_recovery_before=[])
    assert roller.used == 0


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_out_of_action_fighters_roll_unless_already_rolled(ruleset: RuleSet) -> None:
    battle = _battle(fighters=[
        _ooa("wolves", "skab"),
        _ooa("rats", "nix", injuries_rolled=["Out Cold"]),
    ])
    result = _run(_world(), battle, ruleset, OUT_COLD)
    assert [i.fighter_id for i in result.injuries] == ["skab"]
    assert [(r.purpose, r.faces) for r in result.rolls] == [
        ("Lasting Injury for Skab", (2, 1)),
        ("Lasting Injury for Nix: Out Cold, as rolled during the battle", (1, 5)),
    ]
    (reported,) = result.reported_injuries
    assert reported.fighter_id == "nix" and reported.results == ["Out Cold"]
    assert not (reported.captured or reported.critical_injury or reported.dead)


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_reported_results_are_applied_without_new_table_rolls(ruleset: RuleSet) -> None:
    battle = _battle(fighters=[
        _ooa("wolves", "skab", injuries_rolled=["Eye Injury"]),
        _ooa("wolves", "grub", injuries_rolled=["Lesson Learned"]),
        _ooa("rats", "nix", injuries_rolled=["Multiple Injuries", "hobbled", "Spinal Injury"]),
    ])
    result = _run(_world(), battle, ruleset, [6])  # only Lesson Learned's D3 XP is rolled
    wolves, nix = result.world.gang("wolves"), result.world.gang("rats").fighter("nix")
    skab, grub = wolves.fighter("skab"), wolves.fighter("grub")
    assert skab.status is FighterStatus.IN_RECOVERY and skab.profile.bs == 5
    assert grub.status is FighterStatus.CONVALESCENT and grub.xp == 3
    assert nix.status is FighterStatus.IN_RECOVERY
    assert (nix.profile.m, nix.profile.s) == (4, 2)
    assert result.reported_injuries[2].results == ["Multiple Injuries", "Hobbled",
                                                   "Spinal Injury"]
    assert [o.results for o in result.reported_injuries[2].outcomes] == [["Hobbled"],
                                                                          ["Spinal Injury"]]
    assert result.injuries == []


@pytest.mark.rule("PB-1.1")
@pytest.mark.parametrize(
    "names",
    [
        ["Flesh Wound"],
        ["Eye Injury", "Hobbled"],
        ["Multiple Injuries", "Captured"],
        ["Multiple Injuries", "Multiple Injuries"],
        ["Multiple Injuries", "Eye Injury", "Hobbled", "Enfeebled", "Spinal Injury"],
    ],
)
def test_pb_1_1_impossible_reported_results_are_refused(ruleset: RuleSet, names) -> None:
    world = _world()
    battle = _battle(fighters=[
        FighterEndState(gang_id="wolves", fighter_id="skab", prone_seriously_injured=True),
        _ooa("rats", "nix", injuries_rolled=names),
    ])
    roller = ScriptedRoller([6] * 10)
    with pytest.raises(InvalidRequest):
        wrap_up(world, battle, ruleset, roller, in_recovery_before=[])
    assert roller.used == 0
    assert world.gang("rats").fighter("nix").lasting_injuries == []


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_reported_critical_and_memorable_death_are_applied(ruleset: RuleSet) -> None:
    battle = _battle(fighters=[
        _ooa("wolves", "skab", injuries_rolled=["critical injury"]),
        _ooa("rats", "nix", injuries_rolled=["Memorable Death"]),
        FighterEndState(gang_id="wolves", fighter_id="grub", critical_injury=True),
    ])
    result = _run(_world(), battle, ruleset, [])
    wolves = result.world.gang("wolves")
    assert wolves.fighter("skab").critical_injury and wolves.fighter("grub").critical_injury
    assert result.world.gang("rats").fighter("nix").status is FighterStatus.DEAD
    assert [r.results for r in result.reported_injuries] == [["Critical Injury"],
                                                              ["Memorable Death"]]


@pytest.mark.rule("PB-1.1")
def test_pb_1_1_contradictory_or_unknown_reports_are_refused(ruleset: RuleSet) -> None:
    world = _world()
    bad = [
        _battle(fighters=[_ooa("rats", "nix", prone_seriously_injured=True)]),
        _battle(fighters=[FighterEndState(gang_id="rats", fighter_id="nix",
                                          injuries_rolled=["Out Cold"])]),
        _battle(fighters=[_ooa("rats", "nix"), _ooa("rats", "nix")]),
    ]
    for battle in bad:
        roller = ScriptedRoller([6] * 10)
        with pytest.raises(InvalidRequest):
            wrap_up(world, battle, ruleset, roller, in_recovery_before=[])
        assert roller.used == 0
    dead = _world()
    dead.gang("rats").fighter("nix").set_status(FighterStatus.DEAD)
    with pytest.raises(NotEligible):
        wrap_up(dead, _battle(fighters=[_ooa("rats", "nix")]), ruleset, ScriptedRoller([]),
                in_recovery_before=[])


# --------------------------------------------------------------------------- PB-1.2


@pytest.mark.rule("PB-1.2")
@pytest.mark.parametrize(
    ("natural", "modifier", "escaped"),
    [(6, -5, True), (6, -4, True), (5, -2, False), (4, 0, True), (3, 0, False),
     (5, -1, True), (4, -1, False), (5, -3, False)],
)
def test_pb_1_2_escape_boundaries(natural: int, modifier: int, escaped: bool) -> None:
    assert escapes(natural, modifier) is escaped


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_modifiers_draw_lost_webbed() -> None:
    draw = _battle(winner=None)
    won = _battle(winner="rats")
    assert escape_modifiers(draw, "rats", webbed=False) == [("draw", -1)]
    assert escape_modifiers(won, "wolves", webbed=True) == [("lost", -2), ("Webbed", -2)]
    assert escape_modifiers(won, "rats", webbed=False) == []


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_natural_6_escapes_at_worst_modifier(ruleset: RuleSet) -> None:
    battle = _battle(winner="wolves", fighters=[_ooa("rats", "nix", webbed=True)])
    result = _run(_world(), battle, ruleset, [*CAPTURED, 6])
    (escape,) = result.escapes
    assert escape.escaped and escape.modifier == -4 and escape.modified_total == 2
    assert escape.captor_id is None
    assert result.rolls[-1].purpose == "escape roll for Nix"
    nix = result.world.gang("rats").fighter("nix")
    assert nix.status is FighterStatus.CONVALESCENT and nix.captured_by is None


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_five_at_minus_two_is_captured_by_the_winner(ruleset: RuleSet) -> None:
    battle = _battle(winner="wolves", fighters=[_ooa("rats", "nix")])
    result = _run(_world(), battle, ruleset, [*CAPTURED, 5])
    (escape,) = result.escapes
    assert not escape.escaped and escape.modifier == -2 and escape.captor_id == "wolves"
    nix = result.world.gang("rats").fighter("nix")
    assert nix.status is FighterStatus.CAPTURED and nix.captured_by == "wolves"
    assert result.world.captives_held_by("wolves")[0][1].id == "nix"


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_four_without_modifier_escapes_and_three_does_not(ruleset: RuleSet) -> None:
    battle = _battle(winner="wolves", fighters=[_ooa("wolves", "skab")])
    result = _run(_world(), battle, ruleset, [*CAPTURED, 4])
    assert result.escapes[0].escaped and result.escapes[0].modifier == 0
    assert result.world.gang("wolves").fighter("skab").status is FighterStatus.CONVALESCENT

    result = _run(_world(), battle, ruleset, [*CAPTURED, 3])
    # The winner's fighter is taken by the only enemy.
    assert result.escapes[0].captor_id == "rats"


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_draw_costs_one(ruleset: RuleSet) -> None:
    battle = _battle(winner=None, fighters=[_ooa("rats", "nix")])
    assert _run(_world(), battle, ruleset, [*CAPTURED, 5]).escapes[0].escaped
    failed = _run(_world(), battle, ruleset, [*CAPTURED, 4]).escapes[0]
    assert not failed.escaped and failed.modifier == -1 and failed.captor_id == "wolves"


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_reported_captured_result_gets_the_escape_roll(ruleset: RuleSet) -> None:
    battle = _battle(winner="wolves", fighters=[_ooa("rats", "nix",
                                                     injuries_rolled=["Captured"])])
    result = _run(_world(), battle, ruleset, [1])
    assert result.injuries == [] and result.reported_injuries[0].captured
    assert result.world.gang("rats").fighter("nix").captured_by == "wolves"


@pytest.mark.rule("PB-1.2")
def test_pb_1_2_multi_gang_captor_winner_named_or_refused(ruleset: RuleSet) -> None:
    # An enemy won: it holds the captive.
    battle = _battle(winner="jaws", third_gang=True, fighters=[_ooa("rats", "nix")])
    result = _run(_world(True), battle, ruleset, [*CAPTURED, 1])
    assert result.escapes[0].captor_id == "jaws"

    # A draw with two enemies: the player must say who took the fighter.
    draw = _battle(winner=None, third_gang=True, fighters=[_ooa("rats", "nix")])
    world = _world(True)
    with pytest.raises(InvalidRequest, match="say which gang"):
        wrap_up(world, draw, ruleset, ScriptedRoller([*CAPTURED, 1]), in_recovery_before=[])
    assert world.gang("rats").fighter("nix").status is FighterStatus.ACTIVE
    named = _run(world, draw, ruleset, [*CAPTURED, 1], captor_by_fighter={"nix": "wolves"})
    assert named.world.gang("rats").fighter("nix").captured_by == "wolves"

    # The fighter's own gang won; the player names which enemy took it.
    own_win = _battle(winner="rats", third_gang=True, fighters=[_ooa("rats", "nix")])
    taken = _run(world, own_win, ruleset, [*CAPTURED, 1], captor_by_fighter={"nix": "jaws"})
    assert taken.escapes[0].captor_id == "jaws" and taken.escapes[0].modifier == 0


@pytest.mark.rule("PB-1.2")
@pytest.mark.parametrize("captor", ["rats", "ghosts"])
def test_pb_1_2_captor_must_be_an_enemy_that_fought(ruleset: RuleSet, captor: str) -> None:
    battle = _battle(winner=None, third_gang=True, fighters=[_ooa("rats", "nix")])
    roller = ScriptedRoller([*CAPTURED, 1])
    with pytest.raises(InvalidRequest):
        wrap_up(_world(True), battle, ruleset, roller, in_recovery_before=[],
                captor_by_fighter={"nix": captor})
    assert roller.used == 0


# --------------------------------------------------------------------------- PB-1.3


@pytest.mark.rule("PB-1.3")
def test_pb_1_3_last_gang_standing_scraps_each_enemy_wreck(ruleset: RuleSet) -> None:
    battle = _battle(gangs_with_models_left=["wolves"], vehicles=[
        VehicleEndState(gang_id="rats", vehicle_id="rtruck", wrecked=True),
        VehicleEndState(gang_id="rats", vehicle_id="rbike", wrecked=True),
        VehicleEndState(gang_id="wolves", vehicle_id="wcart", wrecked=True),
    ])
    # D3 1 -> 10, D3 from 6 -> 30; then each wreck's Lasting Damage D6: 2, 3, 4.
    result = _run(_world(), battle, ruleset, [1, 6, 2, 3, 4])
    assert [(s.vehicle_id, s.credits, s.gang_id) for s in result.scrap] == [
        ("rtruck", 10, "wolves"), ("rbike", 30, "wolves")]
    assert [(r.expression, r.purpose) for r in result.rolls][:2] == [
        ("D3x10", "scrap from Rust Rats' wrecked Rat Truck"),
        ("D3x10", "scrap from Rust Rats' wrecked Rat Bike"),
    ]
    assert result.world.gang("wolves").credits == 140
    assert [v.id for v in result.world.gang("rats").vehicles] == ["rtruck", "rbike"]
    assert [c.path for c in result.changes if c.subject == "gang"] == ["credits"]


@pytest.mark.rule("PB-1.3")
@pytest.mark.parametrize("left", [["wolves", "rats"], []])
def test_pb_1_3_no_scrap_unless_exactly_one_gang_has_models_left(
    ruleset: RuleSet, left: list[str]
) -> None:
    battle = _battle(gangs_with_models_left=left, vehicles=[
        VehicleEndState(gang_id="rats", vehicle_id="rtruck", wrecked=True)])
    result = _run(_world(), battle, ruleset, [3])  # only the wreck's Lasting Damage
    assert result.scrap == []
    assert [r.purpose for r in result.rolls] == ["Lasting Damage for Rat Truck"]
    assert all(c.subject == "vehicle" for c in result.changes)


# --------------------------------------------------------------------------- PB-1.4


@pytest.mark.rule("PB-1.4")
def test_pb_1_4_abandoned_vehicles_retrieved_after_capture_rolls(ruleset: RuleSet) -> None:
    battle = _battle(fighters=[_ooa("rats", "nix")], vehicles=[
        VehicleEndState(gang_id="rats", vehicle_id="rbike", abandoned=True)])
    result = _run(_world(), battle, ruleset, [*CAPTURED, 6])
    assert [(v.gang_id, v.vehicle_id) for v in result.retrieved_vehicles] == [("rats", "rbike")]
    assert "rbike" in [v.id for v in result.world.gang("rats").vehicles]
    escape_note = next(i for i, n in enumerate(result.notes) if "escapes" in n)
    retrieve_note = next(i for i, n in enumerate(result.notes) if "retrieves" in n)
    assert escape_note < retrieve_note


@pytest.mark.rule("PB-1.4")
def test_pb_1_4_unknown_vehicle_is_refused(ruleset: RuleSet) -> None:
    battle = _battle(vehicles=[VehicleEndState(gang_id="rats", vehicle_id="wcart",
                                               abandoned=True)])
    with pytest.raises(InvalidRequest):
        wrap_up(_world(), battle, ruleset, ScriptedRoller([]), in_recovery_before=[])


# --------------------------------------------------------------------------- PB-1.5


@pytest.mark.rule("PB-1.5")
def test_pb_1_5_campaign_clears_recovery_but_not_new_recovery(ruleset: RuleSet) -> None:
    battle = _battle(fighters=[_ooa("wolves", "skab")])
    result = _run(_world(), battle, ruleset, EYE_INJURY, in_recovery_before=["mox", "vek"])
    assert result.recovered_fighters == ["mox", "vek"]
    assert result.world.gang("wolves").fighter("mox").status is FighterStatus.ACTIVE
    assert result.world.gang("rats").fighter("vek").status is FighterStatus.ACTIVE
    # Put into Recovery by this battle: stays there for the next one.
    assert result.world.gang("wolves").fighter("skab").status is FighterStatus.IN_RECOVERY


@pytest.mark.rule("PB-1.5")
def test_pb_1_5_skirmish_skips_clearing_recovery(ruleset: RuleSet) -> None:
    battle = _battle(campaign=False)
    result = _run(_world(), battle, ruleset, [], in_recovery_before=["mox"])
    assert result.recovered_fighters == []
    assert result.world.gang("wolves").fighter("mox").status is FighterStatus.IN_RECOVERY
    assert result.changes == []


@pytest.mark.rule("PB-1.5")
def test_pb_1_5_refuses_recovering_fighter_that_fought_or_stranger(ruleset: RuleSet) -> None:
    world = _world(True)
    fought = _battle(fighters=[_ooa("wolves", "mox")])
    with pytest.raises(InvalidRequest, match="could not take part"):
        wrap_up(world, fought, ruleset, ScriptedRoller([]), in_recovery_before=["mox"])
    with pytest.raises(InvalidRequest, match="did not fight"):
        wrap_up(world, _battle(), ruleset, ScriptedRoller([]), in_recovery_before=["jaw"])


@pytest.mark.rule("PB-1.5")
def test_pb_1_5_critical_injury_end_state_is_settled_in_wrap_up(ruleset: RuleSet) -> None:
    battle = _battle(fighters=[_ooa("wolves", "skab", critical_injury=True,
                                    injuries_rolled=["Critical Injury"])])
    result = _run(_world(), battle, ruleset, [])
    assert result.world.gang("wolves").fighter("skab").critical_injury


# --------------------------------------------------------------------------- the whole step


@pytest.mark.rule("PB-1.1")
@pytest.mark.rule("PB-1.2")
@pytest.mark.rule("PB-1.3")
def test_wrap_up_runs_the_steps_in_the_order_of_the_text(ruleset: RuleSet) -> None:
    world = _world()
    world.gang("rats").fighters.append(
        make.fighter("Crewman", FighterCategory.CREW, id="crew"))
    battle = _battle(
        winner="wolves",
        gangs_with_models_left=["wolves"],
        fighters=[
            _ooa("rats", "nix"),
            FighterEndState(gang_id="wolves", fighter_id="skab", prone_seriously_injured=True),
            _ooa("rats", "crew"),
        ],
        vehicles=[VehicleEndState(gang_id="rats", vehicle_id="rtruck", wrecked=True)],
    )
    result = _run(world, battle, ruleset,
                  [4, *CAPTURED, *CRITICAL, 2, 2, 5], in_recovery_before=["vek"])
    assert [r.purpose for r in result.rolls] == [
        "succumb roll for Skab",
        "Lasting Injury for Nix",
        "Lasting Injury for Crewman",
        "escape roll for Nix",
        "scrap from Rust Rats' wrecked Rat Truck",
        "Lasting Damage for Rat Truck",
    ]
    assert result.world.gang("rats").fighter("nix").captured_by == "wolves"
    assert result.world.gang("rats").fighter("crew").critical_injury
    assert result.world.gang("wolves").credits == 110
    assert result.recovered_fighters == ["vek"]
    assert world.gang("wolves").credits == 100
