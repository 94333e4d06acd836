"""What a campaign's Wrap-up does beyond the first battle: Convalescence ending,
Lasting Damage for Wrecked vehicles, Old Battle Wounds, XP and kills earned.

D66 faces in the default data set: 11 Lesson Learned, 21 Out Cold, 31
Convalescence, 41 Old Battle Wound, 55 Captured.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.actions import Actor, eligible_actors, trade
from rules.advancements import buy_advancement
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible
from rules.models import (
    Battle,
    FighterCategory,
    FighterEndState,
    FighterStatus,
    VehicleEndState,
    VehicleStatus,
)
from rules.ruleset import RuleSet
from rules.world import World
from rules.wrapup import WrapUpResult, wrap_up
from tests import factories as make
from tests.rules.injury_dice import (
    CAPTURED,
    CONVALESCENCE,
    LESSON_LEARNED,
    OLD_BATTLE_WOUND,
    OUT_COLD,
)


def _world(**boss: Any) -> World:
    wolves = make.gang("Ash Wolves", id="wolves", fighters=[
        make.fighter("Boss", FighterCategory.LEADER, id="boss", **boss),
        make.fighter("Skab", id="skab"),
    ], vehicles=[make.vehicle("Wolf Cart", id="cart")])
    rats = make.gang("Rust Rats", id="rats", fighters=[make.fighter("Nix", id="nix")])
    return make.world(wolves, rats)


def _battle(battle_id: str = "b1", **fields: Any) -> Battle:
    fields.setdefault("winner", "rats")
    return Battle(id=battle_id, gang_ids=["wolves", "rats"], **fields)


def _run(world: World, battle: Battle, ruleset: RuleSet, faces: list[int],
         **kw: Any) -> WrapUpResult:
    roller = ScriptedRoller(faces)
    kw.setdefault("in_recovery_before", [])
    result = wrap_up(world, battle, ruleset, roller, **kw)
    assert roller.remaining == 0, "every scripted die should have been used"
    return result


def _refused(world: World, battle: Battle, ruleset: RuleSet, error: type[Exception],
             match: str) -> None:
    roller = ScriptedRoller([6] * 10)
    with pytest.raises(error, match=match):
        wrap_up(world, battle, ruleset, roller, in_recovery_before=[])
    assert roller.used == 0


def _boss_may_act(world: World, battle: Battle) -> bool:
    return "boss" in [f.id for f in eligible_actors(world, "wolves", battle)]


# --------------------------------------------------------------------------- Convalescence


@pytest.mark.rule("PB-1.5")
def test_convalescence_from_an_earlier_battle_ends_at_this_wrap_up(ruleset: RuleSet) -> None:
    # Jaw's gang did not fight this battle: its Convalescence waits for its own next one.
    jaws = make.gang("Iron Jaws", id="jaws", fighters=[
        make.fighter("Jaw", id="jaw", status=FighterStatus.CONVALESCENT)])
    world = make.world(*_world(status=FighterStatus.CONVALESCENT).gangs.values(), jaws)
    battle = _battle()
    result = _run(world, battle, ruleset, [])
    assert result.convalescence_ended == ["boss"]
    assert result.world.gang("jaws").fighter("jaw").status is FighterStatus.CONVALESCENT
    assert result.world.gang("wolves").fighter("boss").status is FighterStatus.ACTIVE
    assert any("Convalescence from an earlier battle ends" in n for n in result.notes)
    # ...so the Leader makes its post-battle action in this sequence.
    assert _boss_may_act(result.world, battle)
    trade(result.world, Actor(battle=battle, gang_id="wolves", fighter_id="boss"))


@pytest.mark.rule("PB-5.0")
def test_convalescence_received_in_this_battle_bars_this_sequence_only(
    ruleset: RuleSet,
) -> None:
    first = _battle("b1", fighters=[
        FighterEndState(gang_id="wolves", fighter_id="boss", out_of_action=True)])
    # Lesson Learned: Convalescence and D3 XP (a 4 on the D6 is 2 XP).
    after_first = _run(_world(), first, ruleset, [*LESSON_LEARNED, 4]).world
    boss = after_first.gang("wolves").fighter("boss")
    assert boss.status is FighterStatus.CONVALESCENT and boss.xp == 2
    assert not _boss_may_act(after_first, first)
    with pytest.raises(NotEligible, match="convalescing"):
        trade(after_first, Actor(battle=first, gang_id="wolves", fighter_id="boss"))

    # It may fight the next battle; that battle's Wrap-up ends the Convalescence.
    second = _battle("b2", fighters=[FighterEndState(gang_id="wolves", fighter_id="boss")])
    after_second = _run(after_first, second, ruleset, [])
    assert after_second.world.gang("wolves").fighter("boss").status is FighterStatus.ACTIVE
    assert _boss_may_act(after_second.world, second)


@pytest.mark.rule("PB-1.5")
def test_convalescence_received_again_in_this_battle_stays(ruleset: RuleSet) -> None:
    world = _world(status=FighterStatus.CONVALESCENT)
    battle = _battle(fighters=[
        FighterEndState(gang_id="wolves", fighter_id="boss", out_of_action=True)])
    result = _run(world, battle, ruleset, CONVALESCENCE)
    assert result.convalescence_ended == []
    assert result.world.gang("wolves").fighter("boss").status is FighterStatus.CONVALESCENT
    # An Out Cold on a fighter still convalescing from before changes nothing: it ends.
    cold = _run(world, battle, ruleset, OUT_COLD)
    assert cold.world.gang("wolves").fighter("boss").status is FighterStatus.ACTIVE


@pytest.mark.rule("PB-1.2")
def test_escaped_captive_convalesces_for_one_sequence_then_acts(ruleset: RuleSet) -> None:
    first = _battle("b1", fighters=[
        FighterEndState(gang_id="wolves", fighter_id="boss", out_of_action=True)])
    after_first = _run(_world(), first, ruleset, [*CAPTURED, 6]).world  # a natural 6 escapes
    assert after_first.gang("wolves").fighter("boss").status is FighterStatus.CONVALESCENT
    assert not _boss_may_act(after_first, first)
    second = _battle("b2")
    after_second = _run(after_first, second, ruleset, []).world
    assert after_second.gang("wolves").fighter("boss").status is FighterStatus.ACTIVE
    assert _boss_may_act(after_second, second)


@pytest.mark.rule("PB-0")
def test_a_skirmish_leaves_convalescence_alone(ruleset: RuleSet) -> None:
    world = _world(status=FighterStatus.CONVALESCENT)
    result = _run(world, _battle(campaign=False), ruleset, [])
    assert result.convalescence_ended == []
    assert result.world.gang("wolves").fighter("boss").status is FighterStatus.CONVALESCENT


# --------------------------------------------------------------------------- Lasting Damage


@pytest.mark.rule("PB-1.5")
def test_each_wrecked_result_rolls_lasting_damage_openly(ruleset: RuleSet) -> None:
    battle = _battle(vehicles=[
        VehicleEndState(gang_id="wolves", vehicle_id="cart", wrecked=True, wrecked_results=2)])
    # 1: Persistent Rattle; the second roll gets +1: a 6 becomes 7, Write-off.
    result = _run(_world(), battle, ruleset, [1, 6])
    assert [(d.result, d.modifier, d.total) for d in result.lasting_damage] == [
        ("Persistent Rattle", 0, 1), ("Write-off", 1, 7)]
    assert [r.purpose for r in result.rolls] == [
        "Lasting Damage for Wolf Cart",
        "Lasting Damage for Wolf Cart (+1 for Persistent Rattle)",
    ]
    cart = result.world.gang("wolves").vehicle("cart")
    assert cart.lasting_damage == ["Persistent Rattle", "Write-off"]
    assert cart.status is VehicleStatus.IN_REPAIR
    assert {c.path for c in result.changes} == {"lasting_damage", "status"}


@pytest.mark.rule("PB-1.5")
def test_lasting_damage_rolled_at_the_table_is_applied_and_the_rest_rolled(
    ruleset: RuleSet,
) -> None:
    battle = _battle(vehicles=[VehicleEndState(
        gang_id="wolves", vehicle_id="cart", wrecked=True, wrecked_results=2,
        lasting_damage_rolled=["handling glitch"])])
    result = _run(_world(), battle, ruleset, [4])
    assert [(d.result, d.roll is None) for d in result.lasting_damage] == [
        ("Handling Glitch", True), ("Loss of Power", False)]
    assert len(result.rolls) == 1
    assert result.world.gang("wolves").vehicle("cart").lasting_damage == [
        "Handling Glitch", "Loss of Power"]
    # Entered results alone roll nothing.
    alone = _battle(vehicles=[VehicleEndState(
        gang_id="wolves", vehicle_id="cart", wrecked=True,
        lasting_damage_rolled=["Damaged Frame"])])
    assert _run(_world(), alone, ruleset, []).lasting_damage[0].result == "Damaged Frame"


@pytest.mark.rule("PB-1.5")
@pytest.mark.parametrize(("state", "match"), [
    ({"lasting_damage_rolled": ["Unreliable"]}, "was not Wrecked"),
    ({"wrecked_results": 2}, "was not Wrecked"),
    ({"wrecked": True, "lasting_damage_rolled": ["Unreliable", "Unreliable"]},
     "one result per Wrecked result"),
    ({"wrecked": True, "lasting_damage_rolled": ["Flat Tyre"]}, "not a Lasting Damage result"),
    ({"wrecked": True, "lasting_damage_rolled": ["Write-off"]}, "cannot roll Write-off"),
    ({"wrecked": True, "wrecked_results": 2,
      "lasting_damage_rolled": ["Persistent Rattle", "Persistent Rattle"]},
     "cannot roll Persistent Rattle"),
])
def test_contradictory_vehicle_reports_are_refused_before_any_roll(
    ruleset: RuleSet, state: dict[str, Any], match: str
) -> None:
    battle = _battle(vehicles=[VehicleEndState(gang_id="wolves", vehicle_id="cart", **state)])
    _refused(_world(), battle, ruleset, InvalidRequest, match)


@pytest.mark.rule("PB-1.5")
def test_write_off_entered_for_a_rattling_vehicle_is_accepted(ruleset: RuleSet) -> None:
    world = _world()
    world.gang("wolves").vehicle("cart").lasting_damage.append("Persistent Rattle")
    battle = _battle(vehicles=[VehicleEndState(
        gang_id="wolves", vehicle_id="cart", wrecked=True, lasting_damage_rolled=["Write-off"])])
    result = _run(world, battle, ruleset, [])
    assert result.world.gang("wolves").vehicle("cart").status is VehicleStatus.IN_REPAIR


# --------------------------------------------------------------------------- Old Battle Wound


@pytest.mark.rule("PB-1.5")
@pytest.mark.parametrize(("face", "status"), [
    (1, FighterStatus.CONVALESCENT), (2, FighterStatus.ACTIVE)])
def test_old_battle_wound_rolls_after_each_battle(
    ruleset: RuleSet, face: int, status: FighterStatus
) -> None:
    world = _world(lasting_injuries=["Old Battle Wound"])
    battle = _battle()
    result = _run(world, battle, ruleset, [face])
    (wound,) = result.battle_wounds
    assert wound.fighter_id == "boss" and wound.roll.faces == (face,)
    assert [r.purpose for r in result.rolls] == ["Old Battle Wound roll for Boss"]
    assert result.world.gang("wolves").fighter("boss").status is status
    assert _boss_may_act(result.world, battle) is (status is FighterStatus.ACTIVE)


@pytest.mark.rule("PB-1.5")
def test_old_battle_wound_received_now_first_rolls_after_the_next_battle(
    ruleset: RuleSet,
) -> None:
    battle = _battle(fighters=[
        FighterEndState(gang_id="wolves", fighter_id="boss", out_of_action=True)])
    first = _run(_world(), battle, ruleset, OLD_BATTLE_WOUND)
    assert first.battle_wounds == []
    assert first.world.gang("wolves").fighter("boss").lasting_injuries == ["Old Battle Wound"]
    second = _run(first.world, _battle("b2"), ruleset, [1])
    assert second.world.gang("wolves").fighter("boss").status is FighterStatus.CONVALESCENT


@pytest.mark.rule("PB-1.5")
def test_no_old_battle_wound_roll_for_a_fighter_who_could_not_fight(ruleset: RuleSet) -> None:
    recovering = _world(lasting_injuries=["Old Battle Wound"], status=FighterStatus.IN_RECOVERY)
    result = _run(recovering, _battle(), ruleset, [], in_recovery_before=["boss"])
    assert result.battle_wounds == [] and result.recovered_fighters == ["boss"]


@pytest.mark.rule("PB-1.5")
def test_old_battle_wound_keeps_a_convalescent_fighter_convalescing(ruleset: RuleSet) -> None:
    world = _world(lasting_injuries=["Old Battle Wound"], status=FighterStatus.CONVALESCENT)
    result = _run(world, _battle(), ruleset, [1])
    assert result.convalescence_ended == []
    assert result.world.gang("wolves").fighter("boss").status is FighterStatus.CONVALESCENT


# --------------------------------------------------------------------------- XP and kills


@pytest.mark.rule("PB-6E")
def test_xp_and_kills_earned_in_the_battle_are_applied_then_spent(ruleset: RuleSet) -> None:
    battle = _battle(fighters=[
        FighterEndState(gang_id="wolves", fighter_id="boss", xp=4, kills=2),
        FighterEndState(gang_id="wolves", fighter_id="skab", xp=1),
    ])
    result = _run(_world(), battle, ruleset, [])
    boss = result.world.gang("wolves").fighter("boss")
    assert (boss.xp, boss.kills) == (4, 2)
    assert [(e.fighter_id, e.xp, e.kills) for e in result.experience] == [
        ("boss", 4, 2), ("skab", 1, 0)]
    assert {(c.subject_id, c.path, c.before, c.after) for c in result.changes} == {
        ("boss", "xp", 0, 4), ("boss", "kills", 0, 2), ("skab", "xp", 0, 1)}
    bought = buy_advancement(result.world, "wolves", "boss", "+1 Leadership or Cool", ruleset,
                             ScriptedRoller([]), "ld")
    assert bought.xp_spent == 4 and bought.xp_left == 0


@pytest.mark.rule("PB-1.5")
def test_xp_for_a_fighter_in_recovery_is_refused(ruleset: RuleSet) -> None:
    world = _world(status=FighterStatus.IN_RECOVERY)
    battle = _battle(fighters=[FighterEndState(gang_id="wolves", fighter_id="boss", xp=2)])
    roller = ScriptedRoller([])
    with pytest.raises(InvalidRequest, match="could not take part"):
        wrap_up(world, battle, ruleset, roller, in_recovery_before=["boss"])
