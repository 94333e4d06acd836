"""Update Roster E: Purchase Advancements (PB-6E)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.advancements import (
    GANGER_TABLE,
    available_options,
    buy_advancement,
    choose_advancement_stat,
    roll_ganger_advancement,
)
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import Advancement, FighterCategory
from rules.ruleset import RuleSet
from rules.world import World
from tests.factories import fighter, gang, profile, world
from tests.rules.refusals import refused

WS_BS = "+1 Weapon Skill or Ballistic Skill"
NO_DICE = ScriptedRoller([])


def setup(category: FighterCategory = FighterCategory.LEADER, xp: int = 20,
          **fields: Any) -> World:
    hero = fighter("Hero", category, cost=100, xp=xp, id="f1", **fields)
    return world(gang(id="g", fighters=[hero, fighter("Other", id="f2")]))


def earlier(stat: str, times: int) -> list[Advancement]:
    return [Advancement(name=WS_BS, xp_cost=6, credits=20, stat=stat) for _ in range(times)]


@pytest.mark.rule("PB-6E")
def test_pb_6e_characteristic_costs_xp_adds_credits_and_improves(ruleset: RuleSet) -> None:
    w = setup(xp=10)
    result = buy_advancement(w, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws")
    hero = result.world.gang("g").fighter("f1")
    assert (result.xp_spent, result.xp_left, result.credits_added) == (6, 4, 20)
    assert (result.stat, result.stat_before, result.stat_after) == ("ws", 4, 3)
    assert hero.profile.ws == 3 and hero.cost == 120 and hero.xp == 4
    assert hero.advancements == [Advancement(name=WS_BS, xp_cost=6, credits=20, stat="ws")]
    assert w.gang("g").fighter("f1").profile.ws == 4
    assert result.clause == "PB-6E" and result.rolls == []


@pytest.mark.rule("PB-6E")
@pytest.mark.parametrize(("repeats", "cost"), [(0, 6), (1, 8), (2, 10)])
def test_pb_6e_each_repeat_of_a_characteristic_costs_2_more(
    ruleset: RuleSet, repeats: int, cost: int
) -> None:
    exact = setup(xp=cost, advancements=earlier("ws", repeats))
    result = buy_advancement(exact, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws")
    assert result.xp_spent == cost and result.xp_left == 0
    short = setup(xp=cost - 1, advancements=earlier("ws", repeats))
    refused(NotEligible, short,
            lambda: buy_advancement(short, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws"),
            match=f"costs {cost} XP")


@pytest.mark.rule("PB-6E")
def test_pb_6e_repeat_counts_the_same_characteristic_only(ruleset: RuleSet) -> None:
    w = setup(xp=6, advancements=earlier("ws", 2))
    assert buy_advancement(w, "g", "f1", WS_BS, ruleset, NO_DICE, stat="bs").xp_spent == 6


@pytest.mark.rule("PB-6E")
def test_pb_6e_repeat_counts_the_characteristic_whichever_option_or_table_gave_it(
    ruleset: RuleSet,
) -> None:
    # A Ganger takes Initiative on the Gangers' table, is promoted on it, then buys
    # Initiative from the list: an option of another name than the table's line.
    w = setup(FighterCategory.GANGER, xp=6 + 6 + 7)
    first = roll_ganger_advancement(w, "g", "f1", ruleset, ScriptedRoller([3, 4]), stat="i",
                                    skill_set="Agility")
    promoted = roll_ganger_advancement(first.world, "g", "f1", ruleset,
                                       ScriptedRoller([6, 6, 4]), skill_set="Agility")
    hero = promoted.world.gang("g").fighter("f1")
    assert hero.category is FighterCategory.SPECIALIST
    table_line = hero.advancements[0]
    option = '+1 Initiative or +1" Movement'
    assert table_line.stat == "i" and table_line.name != option
    bought = buy_advancement(promoted.world, "g", "f1", option, ruleset, NO_DICE, stat="i")
    assert bought.xp_spent == 5 + 2 and bought.xp_left == 0
    # Two earlier Initiative advancements from two other options: 4 XP more.
    mixed = setup(xp=9, advancements=[
        Advancement(name='+1" Movement or +1 Initiative', xp_cost=6, credits=10, stat="i"),
        Advancement(name="+1 Initiative", xp_cost=5, credits=10, stat="i"),
        Advancement(name=option, xp_cost=5, credits=10, stat="m"),
    ])
    assert buy_advancement(mixed, "g", "f1", option, ruleset, NO_DICE, stat="i").xp_spent == 9


@pytest.mark.rule("PB-6E")
@pytest.mark.parametrize("category", [FighterCategory.JUVE, FighterCategory.PROSPECT])
def test_pb_6e_juves_and_prospects_pay_no_repeat_increase(
    ruleset: RuleSet, category: FighterCategory
) -> None:
    w = setup(category, xp=6, advancements=earlier("ws", 2))
    assert buy_advancement(w, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws").xp_spent == 6


@pytest.mark.rule("PB-6E")
def test_pb_6e_refused_in_skirmish(ruleset: RuleSet) -> None:
    w = setup()
    refused(NotEligible, w,
            lambda: buy_advancement(w, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws",
                                    skirmish=True),
            match="skirmish")


@pytest.mark.rule("PB-6E")
def test_pb_6e_stat_choice_is_required_and_must_be_offered(ruleset: RuleSet) -> None:
    w = setup()
    refused(InvalidRequest, w, lambda: buy_advancement(w, "g", "f1", WS_BS, ruleset, NO_DICE),
            match="WS or BS")
    refused(InvalidRequest, w,
            lambda: buy_advancement(w, "g", "f1", WS_BS, ruleset, NO_DICE, stat="s"))
    refused(NotFound, w, lambda: buy_advancement(w, "g", "f1", "+5 Luck", ruleset, NO_DICE))


@pytest.mark.rule("PB-6E")
def test_pb_6e_characteristic_at_its_best_is_refused(ruleset: RuleSet) -> None:
    w = setup(profile=profile(ws=1))
    refused(NotEligible, w,
            lambda: buy_advancement(w, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws"),
            match="cannot improve")


@pytest.mark.rule("PB-6E")
def test_pb_6e_who_may_advance(ruleset: RuleSet) -> None:
    ganger = setup(FighterCategory.GANGER)
    refused(NotEligible, ganger,
            lambda: buy_advancement(ganger, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws"),
            match="Gangers' table")
    doc = setup(FighterCategory.HANGER_ON)
    refused(NotEligible, doc,
            lambda: buy_advancement(doc, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws"))
    taken = setup()
    taken.gang("g").fighter("f1").capture("h")
    refused(NotEligible, taken,
            lambda: buy_advancement(taken, "g", "f1", WS_BS, ruleset, NO_DICE, stat="ws"))
    hero = setup().gang("g").fighter("f1")
    names = [o.name for o in available_options(ruleset, hero)]
    assert WS_BS in names and "Promoted to Champion, with a random Primary skill" not in names


@pytest.mark.rule("PB-6E")
def test_pb_6e_random_skill_rolled_openly_and_rerolled_if_held(ruleset: RuleSet) -> None:
    w = setup(xp=6, skills=["Impetuous"])
    result = buy_advancement(w, "g", "f1", "Random Primary skill", ruleset,
                             ScriptedRoller([3, 5]), skill_set="ferocity")
    assert result.skill == "True Grit" and result.credits_added == 20
    assert [r.faces for r in result.rolls] == [(3,), (5,)]
    assert all(r.purpose == "random ferocity skill for Hero" for r in result.rolls)
    assert result.world.gang("g").fighter("f1").skills == ["Impetuous", "True Grit"]
    refused(InvalidRequest, w,
            lambda: buy_advancement(w, "g", "f1", "Random Primary skill", ruleset, NO_DICE))
    full = setup(xp=6, skills=list(ruleset.skill_set("Ferocity").skills))
    refused(NotEligible, full,
            lambda: buy_advancement(full, "g", "f1", "Random Primary skill", ruleset, NO_DICE,
                                    skill_set="Ferocity"))


@pytest.mark.rule("PB-6E")
def test_pb_6e_chosen_skill(ruleset: RuleSet) -> None:
    w = setup(xp=9)
    result = buy_advancement(w, "g", "f1", "Chosen Primary skill", ruleset, NO_DICE,
                             skill="Nerves of Steel")
    assert result.skill == "Nerves of Steel" and result.xp_left == 0
    again = setup(xp=9, skills=["Nerves of Steel"])
    refused(NotEligible, again,
            lambda: buy_advancement(again, "g", "f1", "Chosen Primary skill", ruleset, NO_DICE,
                                    skill="Nerves of Steel"))
    refused(InvalidRequest, w,
            lambda: buy_advancement(w, "g", "f1", "Chosen Primary skill", ruleset, NO_DICE))


@pytest.mark.rule("PB-6E")
def test_pb_6e_specialist_promoted_to_champion(ruleset: RuleSet) -> None:
    option = "Promoted to Champion, with a random Primary skill"
    w = setup(FighterCategory.SPECIALIST, xp=12)
    result = buy_advancement(w, "g", "f1", option, ruleset, ScriptedRoller([2]),
                             skill_set="Brawn")
    hero = result.world.gang("g").fighter("f1")
    assert hero.category is FighterCategory.CHAMPION and hero.gang_hierarchy
    assert result.promoted_to is FighterCategory.CHAMPION
    assert hero.skills == ["Bulging Biceps"] and hero.cost == 140
    leader = setup(xp=12)
    refused(NotEligible, leader,
            lambda: buy_advancement(leader, "g", "f1", option, ruleset, NO_DICE,
                                    skill_set="Brawn"))


# --------------------------------------------------------------------------- Gangers' table


@pytest.mark.rule("PB-6E")
def test_pb_6e_gangers_table_on_7_movement_or_initiative(ruleset: RuleSet) -> None:
    w = setup(FighterCategory.GANGER, xp=6)
    result = buy_advancement(w, "g", "f1", GANGER_TABLE, ruleset, ScriptedRoller([3, 4]),
                             stat="m", skill_set="Agility")
    hero = result.world.gang("g").fighter("f1")
    assert result.table_roll == 7 and (result.stat, result.stat_after) == ("m", 6)
    assert (hero.xp, hero.cost, hero.profile.m) == (0, 110, 6)
    (dice,) = result.rolls
    assert dice.faces == (3, 4) and dice.purpose == "Gangers' advancement for Hero"


@pytest.mark.rule("PB-6E")
def test_pb_6e_gangers_table_needs_6_xp(ruleset: RuleSet) -> None:
    w = setup(FighterCategory.GANGER, xp=5)
    refused(NotEligible, w,
            lambda: roll_ganger_advancement(w, "g", "f1", ruleset, NO_DICE), match="6 XP")
    leader = setup(xp=6)
    refused(NotEligible, leader, lambda: roll_ganger_advancement(leader, "g", "f1", ruleset,
                                                                 NO_DICE))


@pytest.mark.rule("PB-6E")
@pytest.mark.parametrize("faces", [[1, 1], [6, 6]])
def test_pb_6e_gangers_table_2_and_12_promote_to_specialist(ruleset: RuleSet,
                                                            faces: list[int]) -> None:
    w = setup(FighterCategory.GANGER, xp=6)
    result = roll_ganger_advancement(w, "g", "f1", ruleset, ScriptedRoller([*faces, 4]),
                                     skill_set="Agility")
    hero = result.world.gang("g").fighter("f1")
    assert hero.category is FighterCategory.SPECIALIST and hero.skills == ["Mighty Leap"]
    assert result.credits_added == 20 and not hero.gang_hierarchy


@pytest.mark.rule("PB-6E")
def test_pb_6e_gangers_table_choice_left_pending_then_chosen(ruleset: RuleSet) -> None:
    w = setup(FighterCategory.GANGER, xp=7)
    rolled = roll_ganger_advancement(w, "g", "f1", ruleset, ScriptedRoller([1, 2]),
                                     skill_set="Agility")
    assert rolled.table_roll == 3 and rolled.pending_stats == ["ws", "bs"]
    assert rolled.stat is None and rolled.xp_left == 1 and rolled.credits_added == 20
    chosen = choose_advancement_stat(rolled.world, "g", "f1", "bs", ruleset)
    hero = chosen.world.gang("g").fighter("f1")
    assert hero.profile.bs == 3 and hero.advancements[-1].stat == "bs"
    assert chosen.xp_spent == 0 and hero.cost == 120
    done = chosen.world
    refused(NotEligible, done, lambda: choose_advancement_stat(done, "g", "f1", "ws", ruleset))
    refused(InvalidRequest, rolled.world,
            lambda: choose_advancement_stat(rolled.world, "g", "f1", "s", ruleset))


@pytest.mark.rule("PB-6E")
def test_pb_6e_gangers_table_drops_a_stat_that_cannot_improve(ruleset: RuleSet) -> None:
    w = setup(FighterCategory.GANGER, xp=6, profile=profile(ws=1))
    result = roll_ganger_advancement(w, "g", "f1", ruleset, ScriptedRoller([2, 2]), stat="ws",
                                     skill_set="Agility")
    assert result.stat == "bs" and result.pending_stats == []
