"""The pre-battle sequence (PRE-1 to PRE-6) in rules.prebattle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.data import default_ruleset
from rules.dice import ScriptedRoller, SeededRoller
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import CampaignSettings, FighterCategory, FighterStatus, Gang, ScenarioDie
from rules.prebattle import (
    BattlefieldMethod,
    PreBattleResult,
    RatingOrderResult,
    RescueMission,
    TieBreak,
    declare_rescue_mission,
    determine_battlefield,
    order_by_rating,
    prebattle,
    roll_scenario,
)
from rules.ruleset import Scenario
from rules.world import World
from tests.factories import fighter, gang, item, vehicle, world

D6 = CampaignSettings(name="Dominion")
D4 = CampaignSettings(name="By the book", scenario_die=ScenarioDie.D4)


def rated(
    gang_id: str, rating: int, *, battles: int = 0, reputation: int = 1, **fields: Any
) -> Gang:
    return gang(gang_id.title(), id=gang_id, fighters=[fighter("Boss", cost=rating)],
                battles_fought=battles, reputation=reputation, **fields)


def ordered(result: RatingOrderResult | PreBattleResult) -> list[str]:
    return [place.gang_id for place in result.order]


def order(gangs: list[Gang], faces: Sequence[int] = ()) -> RatingOrderResult:
    roller = ScriptedRoller(faces)
    result = order_by_rating(world(*gangs), [g.id for g in gangs], roller)
    assert roller.remaining == 0, "every scripted face should have been used"
    return result


# --------------------------------------------------------------------------- PRE-1


@pytest.mark.rule("PRE-1")
def test_pre_1_gang_rating_counts_fighters_vehicles_and_equipment_not_captives():
    boss = fighter("Boss", FighterCategory.LEADER, cost=120, equipment=[item(cost=15)])
    taken = fighter("Taken", cost=50, status=FighterStatus.CAPTURED, captured_by="rival")
    dead = fighter("Dead", cost=40, status=FighterStatus.DEAD)
    ash = gang("Ash", id="ash", fighters=[boss, taken, dead], vehicles=[vehicle(cost=80)])
    rival = rated("rival", 100)
    result = order([ash, rival])
    assert {p.gang_id: p.rating for p in result.order} == {"ash": 215, "rival": 100}
    assert "Ash: Gang Rating 215." in result.notes


# --------------------------------------------------------------------------- PRE-2 and PRE-3


@pytest.mark.rule("PRE-2")
def test_pre_2_highest_rating_first_without_dice():
    result = order([rated("low", 300), rated("high", 900), rated("mid", 600)])
    assert ordered(result) == ["high", "mid", "low"]
    assert [p.position for p in result.order] == [1, 2, 3]
    assert all(p.tie_break is TieBreak.NONE for p in result.order)
    assert result.rolls == [] == result.rolloff_rolls
    assert result.changes == []


@pytest.mark.rule("PRE-2")
def test_pre_2_two_way_tie_more_battles_fought_ranks_higher():
    result = order([rated("green", 500, battles=2), rated("veteran", 500, battles=3)])
    assert ordered(result) == ["veteran", "green"]
    assert [p.tie_break for p in result.order] == [TieBreak.BATTLES] * 2
    assert "3 battles fought" in result.order[0].reason


@pytest.mark.rule("PRE-2")
def test_pre_2_two_way_tie_on_battles_higher_reputation_ranks_higher():
    result = order([rated("known", 500, battles=3, reputation=7),
                    rated("famous", 500, battles=3, reputation=8)])
    assert ordered(result) == ["famous", "known"]
    assert [p.tie_break for p in result.order] == [TieBreak.REPUTATION] * 2


@pytest.mark.rule("PRE-2")
@pytest.mark.rule("PRE-3")
def test_pre_2_two_way_roll_off_winner_counts_as_lower_rating_and_is_the_underdog():
    result = order([rated("first", 500), rated("second", 500)], faces=[5, 2])
    assert ordered(result) == ["second", "first"]
    assert [p.rolloff for p in result.order] == [[2], [5]]
    assert [p.tie_break for p in result.order] == [TieBreak.ROLL_OFF] * 2
    assert result.underdog_id == "first"
    assert result.order[-1].underdog and not result.order[0].underdog
    assert [r.faces for r in result.rolloff_rolls] == [(5,), (2,)]
    assert result.rolloff_rolls[0].purpose.startswith("roll-off for First")


@pytest.mark.rule("PRE-2")
def test_pre_2_roll_off_ties_are_rerolled_openly():
    result = order([rated("a", 500), rated("b", 500)], faces=[3, 3, 4, 1])
    assert ordered(result) == ["b", "a"]
    assert [p.rolloff for p in result.order] == [[3, 1], [3, 4]]
    assert [r.purpose.split(" for ")[0] for r in result.rolls] == [
        "roll-off", "roll-off", "roll-off re-roll", "roll-off re-roll"]
    assert "A and B tie the roll-off with 3 and roll again." in result.notes


@pytest.mark.rule("PRE-2")
def test_pre_2_three_way_tie_split_by_battles_then_reputation():
    gangs = [rated("x", 500, battles=3, reputation=2),
             rated("y", 500, battles=2, reputation=9),
             rated("z", 500, battles=3, reputation=5)]
    result = order(gangs)
    assert ordered(result) == ["z", "x", "y"]
    assert [p.tie_break for p in result.order] == [
        TieBreak.REPUTATION, TieBreak.REPUTATION, TieBreak.BATTLES]
    assert result.underdog_id == "y"


@pytest.mark.rule("PRE-2")
def test_pre_2_three_way_tie_on_battles_splits_on_reputation_and_roll_off():
    gangs = [rated("x", 500, battles=3, reputation=4),
             rated("y", 500, battles=3, reputation=4),
             rated("z", 500, battles=3, reputation=6)]
    result = order(gangs, faces=[6, 1])
    assert ordered(result) == ["z", "y", "x"]
    assert [p.tie_break for p in result.order] == [
        TieBreak.REPUTATION, TieBreak.ROLL_OFF, TieBreak.ROLL_OFF]


@pytest.mark.rule("PRE-2")
@pytest.mark.rule("PRE-3")
def test_pre_2_three_way_roll_off_places_the_highest_roll_lowest():
    gangs = [rated("a", 500), rated("b", 500), rated("c", 500)]
    result = order(gangs, faces=[6, 2, 4])
    assert ordered(result) == ["b", "c", "a"]
    assert result.underdog_id == "a"


@pytest.mark.rule("PRE-2")
def test_pre_2_three_way_roll_off_with_a_partial_tie_rerolls_only_the_tied():
    gangs = [rated("a", 500), rated("b", 500), rated("c", 500)]
    # a and c tie on 4 above b's 1, then re-roll: c 2, a 5.
    result = order(gangs, faces=[4, 1, 4, 5, 2])
    assert ordered(result) == ["b", "c", "a"]
    assert {p.gang_id: p.rolloff for p in result.order} == {
        "a": [4, 5], "b": [1], "c": [4, 2]}
    assert len(result.rolls) == 5


@pytest.mark.rule("PRE-2")
def test_pre_2_four_gangs_with_ties_at_every_level():
    gangs = [rated("p", 600, battles=1), rated("q", 600, battles=4),
             rated("r", 300, battles=2, reputation=3), rated("s", 300, battles=2, reputation=3)]
    result = order(gangs, faces=[1, 6])
    assert ordered(result) == ["q", "p", "r", "s"]
    assert [p.tie_break for p in result.order] == [
        TieBreak.BATTLES, TieBreak.BATTLES, TieBreak.ROLL_OFF, TieBreak.ROLL_OFF]
    assert result.underdog_id == "s"


@pytest.mark.rule("PRE-2")
def test_pre_2_refuses_bad_gang_lists_and_changes_nothing():
    a, b, c, d, e = (rated(name, 100) for name in "abcde")
    w = world(a, b, c, d, e)
    before = w.model_copy(deep=True)
    with pytest.raises(InvalidRequest, match="2 to 4 gangs, not 1"):
        order_by_rating(w, ["a"], ScriptedRoller([]))
    with pytest.raises(InvalidRequest, match="2 to 4 gangs, not 5"):
        order_by_rating(w, list("abcde"), ScriptedRoller([]))
    with pytest.raises(InvalidRequest, match="listed more than once"):
        order_by_rating(w, ["a", "a"], ScriptedRoller([]))
    with pytest.raises(NotFound):
        order_by_rating(w, ["a", "zz"], ScriptedRoller([]))
    assert w == before


# --------------------------------------------------------------------------- PRE-4


@pytest.mark.rule("PRE-4")
@pytest.mark.parametrize(("face", "name"), [(1, "Battle Royale"), (4, "Take and Hold"),
                                            (5, "Eliminate High Value Targets"),
                                            (6, "Small Crews Bump Into Each Other")])
def test_pre_4_d6_reaches_every_entry(face, name):
    result = roll_scenario(default_ruleset(), D6, ScriptedRoller([face]), 2)
    assert result.name == name
    assert result.scenario is not None and result.scenario.roll == face
    assert result.die is ScenarioDie.D6
    assert result.roll is not None and result.roll.expression == "D6"
    assert result.roll.faces == (face,)
    assert "Rolling a D6 on the Scripted Scenario chart." in result.notes
    assert result.clause == "PRE-4"


@pytest.mark.rule("PRE-4")
def test_pre_4_d4_is_said_and_reaches_entry_4():
    result = roll_scenario(default_ruleset(), D4, ScriptedRoller([4]), 3)
    assert (result.name, result.die) == ("Take and Hold", ScenarioDie.D4)
    assert result.roll is not None and result.roll.expression == "D4"
    assert any("D4" in note and "entries 1-4 only" in note for note in result.notes)


@pytest.mark.rule("PRE-4")
@settings(max_examples=100, deadline=None)
@given(seed=st.integers(min_value=0, max_value=1_000_000))
def test_pre_4_d4_never_gives_5_or_6(seed):
    result = roll_scenario(default_ruleset(), D4, SeededRoller(seed), 4)
    assert result.scenario is not None and result.scenario.roll <= 4


@pytest.mark.rule("PRE-4")
def test_pre_4_a_scenario_that_does_not_admit_the_gangs_is_rolled_again():
    ruleset = default_ruleset().model_copy(deep=True)
    ruleset.scenarios[0] = Scenario(roll=1, name="Duel", min_gangs=2, max_gangs=2)
    result = roll_scenario(ruleset, D6, ScriptedRoller([1, 3]), 3)
    assert result.name == "Race to Acquire Archeotech"
    assert [r.faces for r in result.rolls] == [(1,), (3,)]
    assert any("Duel is for 2-2 gangs, not 3" in note for note in result.notes)
    assert roll_scenario(ruleset, D6, ScriptedRoller([1]), 2).name == "Duel"


@pytest.mark.rule("PRE-4")
def test_pre_4_refuses_impossible_gang_counts():
    with pytest.raises(InvalidRequest):
        roll_scenario(default_ruleset(), D6, ScriptedRoller([]), 1)
    with pytest.raises(InvalidRequest):
        roll_scenario(default_ruleset(), D6, ScriptedRoller([]), 5)
    duels = default_ruleset().model_copy(deep=True)
    duels.scenarios = [Scenario(roll=n, name=f"Duel {n}", max_gangs=2) for n in range(1, 7)]
    with pytest.raises(NotEligible, match="for 3 gangs"):
        roll_scenario(duels, D6, ScriptedRoller([]), 3)


# --------------------------------------------------------------------------- PB-1.7


def captive_world() -> World:
    taken = fighter("Skab", id="skab", status=FighterStatus.CAPTURED, captured_by="captor")
    free = fighter("Free", id="free")
    return world(gang("Owner", id="owner", fighters=[taken, free]), rated("captor", 300),
                 rated("other", 300))


@pytest.mark.rule("PB-1.7")
def test_pb_1_7_rescue_mission_replaces_the_scenario_roll():
    result = declare_rescue_mission(captive_world(), "owner", "captor", "skab")
    assert (result.name, result.scenario, result.die, result.roll) == (
        "Rescue Mission", None, None, None)
    assert result.rescue == RescueMission(owner_gang_id="owner", captor_gang_id="captor",
                                          captive_fighter_id="skab")
    assert result.rolls == []
    assert result.clause == "PB-1.7"


@pytest.mark.rule("PB-1.7")
def test_pb_1_7_rescue_needs_the_captor_to_hold_the_captive():
    w = captive_world()
    with pytest.raises(NotEligible, match="Other does not hold Skab captive"):
        declare_rescue_mission(w, "owner", "other", "skab")
    with pytest.raises(NotEligible, match="Captor does not hold Free captive"):
        declare_rescue_mission(w, "owner", "captor", "free")
    with pytest.raises(NotFound):
        declare_rescue_mission(w, "captor", "owner", "skab")
    with pytest.raises(InvalidRequest, match="from itself"):
        declare_rescue_mission(w, "owner", "owner", "skab")


# --------------------------------------------------------------------------- PRE-5


@pytest.mark.rule("PRE-5")
def test_pre_5_the_scenarios_battlefield_wins_over_agreement():
    tunnels = Scenario(roll=1, name="Tunnel Fight", battlefield="Zone Mortalis")
    result = determine_battlefield(tunnels, ScriptedRoller([]), "Sector Mechanicus")
    assert (result.battlefield, result.method) == ("Zone Mortalis", BattlefieldMethod.SCENARIO)
    assert result.roll is None
    assert "not the agreed Sector Mechanicus" in result.notes[0]


@pytest.mark.rule("PRE-5")
@pytest.mark.parametrize(("agreed", "expected"), [
    ("Zone Mortalis", "Zone Mortalis"), ("sector mechanicus", "Sector Mechanicus"),
    ("hybrid", "Hybrid")])
def test_pre_5_the_players_agreement_is_used(agreed, expected):
    scenario = default_ruleset().scenarios[0]
    result = determine_battlefield(scenario, ScriptedRoller([]), agreed)
    assert (result.battlefield, result.method) == (expected, BattlefieldMethod.AGREED)


@pytest.mark.rule("PRE-5")
@pytest.mark.parametrize(("face", "expected"), [
    (1, "Zone Mortalis"), (3, "Zone Mortalis"), (4, "Sector Mechanicus"),
    (6, "Sector Mechanicus")])
def test_pre_5_without_agreement_a_d6_4_plus_is_sector_mechanicus(face, expected):
    result = determine_battlefield(None, ScriptedRoller([face]), None)
    assert (result.battlefield, result.method) == (expected, BattlefieldMethod.ROLL)
    assert result.roll is not None and result.roll.faces == (face,)
    assert result.rolls == [result.roll]


@pytest.mark.rule("PRE-5")
def test_pre_5_an_unknown_battlefield_is_refused():
    with pytest.raises(InvalidRequest, match="not a type of battlefield"):
        determine_battlefield(None, ScriptedRoller([]), "the moon")


# --------------------------------------------------------------------------- whole sequence


@pytest.mark.rule("PRE-6")
def test_pre_6_whole_sequence_in_order_ends_with_priority():
    w = world(rated("a", 500), rated("b", 500), rated("c", 800))
    roller = ScriptedRoller([2, 5, 6, 3])  # roll-off a 2, b 5; scenario 6; battlefield 3
    result = prebattle(w, ["a", "b", "c"], default_ruleset(), D6, roller)
    assert roller.remaining == 0
    assert ordered(result) == ["c", "a", "b"]
    assert result.underdog_id == "b"
    assert result.scenario.name == "Small Crews Bump Into Each Other"
    assert result.battlefield.battlefield == "Zone Mortalis"
    assert [r.purpose.split(" ")[0] for r in result.rolls] == [
        "roll-off", "roll-off", "scenario", "battlefield"]
    assert result.scenario.rolls == [result.rolls[2]]
    assert result.battlefield.rolls == [result.rolls[3]]
    assert "priority marker" in result.priority
    assert "Small Crews Bump Into Each Other" in result.priority
    assert result.notes[-1] == result.priority
    assert result.changes == []
    assert result.world == w


@pytest.mark.rule("PRE-6")
def test_pre_6_agreed_battlefield_and_rescue_mission():
    w = captive_world()
    rescue = RescueMission(owner_gang_id="owner", captor_gang_id="captor",
                           captive_fighter_id="skab")
    result = prebattle(w, ["captor", "owner"], default_ruleset(), D6, ScriptedRoller([]),
                       agreed_battlefield="Hybrid", rescue=rescue)
    assert result.scenario.name == "Rescue Mission"
    assert (result.battlefield.battlefield, result.battlefield.method) == (
        "Hybrid", BattlefieldMethod.AGREED)
    assert "Rescue Mission" in result.priority


@pytest.mark.rule("PRE-6")
def test_pre_6_prebattle_refuses_bad_requests_before_rolling():
    w = captive_world()
    rescue = RescueMission(owner_gang_id="owner", captor_gang_id="captor",
                           captive_fighter_id="skab")
    before = w.model_copy(deep=True)
    for gang_ids in (["owner"], ["owner", "owner"], ["owner", "nobody"],
                     ["owner", "captor", "other", "owner", "captor"]):
        with pytest.raises(InvalidRequest):
            prebattle(w, gang_ids, default_ruleset(), D6, ScriptedRoller([]))
    with pytest.raises(InvalidRequest, match="captor only"):
        prebattle(w, ["owner", "captor", "other"], default_ruleset(), D6, ScriptedRoller([]),
                  rescue=rescue)
    with pytest.raises(InvalidRequest, match="not a type of battlefield"):
        prebattle(w, ["owner", "captor"], default_ruleset(), D6, ScriptedRoller([]),
                  agreed_battlefield="outdoors")
    wrong = rescue.model_copy(update={"captive_fighter_id": "free"})
    with pytest.raises(NotEligible):
        prebattle(w, ["owner", "captor"], default_ruleset(), D6, ScriptedRoller([]),
                  rescue=wrong)
    assert w == before


@pytest.mark.rule("PRE-2")
@pytest.mark.rule("PRE-4")
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=1_000_000), count=st.integers(2, 4))
def test_same_seed_same_prebattle(seed, count):
    gangs = [rated(f"g{n}", 500) for n in range(count)]
    w = world(*gangs)
    ids = [g.id for g in gangs]
    first = prebattle(w, ids, default_ruleset(), D6, SeededRoller(seed))
    second = prebattle(w, ids, default_ruleset(), D6, SeededRoller(seed))
    assert first.model_dump() == second.model_dump()
    assert sorted(ordered(first)) == sorted(ids)
    assert [p.position for p in first.order] == list(range(1, count + 1))
    # Fully tied gangs all roll off, and the Underdog rolled at least one die.
    assert all(p.tie_break is TieBreak.ROLL_OFF and p.rolloff for p in first.order)
    assert first.underdog_id == first.order[-1].gang_id
    if count == 2:
        assert first.order[0].rolloff[-1] < first.order[1].rolloff[-1]
