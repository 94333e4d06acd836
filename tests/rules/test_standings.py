"""Standings and the race for each Triumph, ties as the campaign type says."""

from __future__ import annotations

from rules.campaign_types import Measure, Ties, find_type
from rules.models import Battle
from rules.ruleset import RuleSet
from rules.standings import races, standings
from tests.factories import gang, territory

ASH = gang("Ash", id="a", credits=300, reputation=5, battles_fought=2)
BONE = gang("Bone", id="b", credits=100, reputation=5, battles_fought=1)
HELD = [territory("Old Ruins", controller="a"), territory("Wastes", controller="a"),
        territory("Tunnels", controller="b"), territory("Sludge Sea")]
BATTLES = [
    Battle(id="x", gang_ids=["a", "b"], winner="a", enemies_out_of_action={"a": 3, "b": 1}),
    Battle(id="y", gang_ids=["a", "b"], winner=None, enemies_out_of_action={"b": 2}),
    Battle(id="z", gang_ids=["a", "b"], winner="b", campaign=False,
           enemies_out_of_action={"b": 9}),
]


def test_each_gangs_standing() -> None:
    rows = standings([BONE, ASH], HELD, BATTLES)
    assert [r.name for r in rows] == ["Ash", "Bone"]  # most Territories first
    ash, bone = rows
    assert (ash.territories, ash.battles, ash.wins, ash.enemies_out_of_action) == (2, 2, 1, 3)
    assert (bone.territories, bone.wins, bone.enemies_out_of_action) == (1, 0, 3)
    assert ash.wealth == ASH.rating + 300 and ash.rating == ASH.rating


def test_dominion_shares_a_tie(ruleset: RuleSet) -> None:
    dominion = find_type(ruleset.campaign_types, "Dominion")
    found = {r.triumph.name: r for r in races(dominion, standings([ASH, BONE], HELD, BATTLES))}
    assert found["Dominator"].holders == ["a"] and found["Dominator"].best == 2
    assert found["Slaughterer"].tied and found["Slaughterer"].holders == ["a", "b"]
    assert found["Powerbroker"].holders == ["a", "b"]
    assert found["Creditor"].holders == ["a"]


def test_law_and_misrule_awards_a_tie_to_no_one(ruleset: RuleSet) -> None:
    law = find_type(ruleset.campaign_types, "Law and Misrule")
    assert law.ties is Ties.NO_ONE
    found = {r.triumph.name: r for r in races(law, standings([ASH, BONE], HELD, BATTLES))}
    assert found["Lord of Law/Misrule"].leaders == ["a", "b"]
    assert found["Lord of Law/Misrule"].holders == []
    assert found["Racketeer"].holders == ["a"]
    assert found["Hit Man"].triumph.measure is Measure.NOT_TRACKED
    assert found["Hit Man"].best is None and found["Hit Man"].holders == []


def test_nobody_leads_a_race_at_nothing(ruleset: RuleSet) -> None:
    dominion = find_type(ruleset.campaign_types, "Dominion")
    fresh = [gang("New", id="n")]
    found = {r.triumph.name: r for r in races(dominion, standings(fresh, [], []))}
    assert found["Dominator"].holders == [] and found["Warmonger"].holders == []
