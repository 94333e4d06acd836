"""Update Gang Rating (PB-6F) and Report Results (PB-7)."""

from __future__ import annotations

import pytest

from rules.data import default_ruleset
from rules.errors import InvalidRequest, NotEligible, NotFound, OutOfStep
from rules.models import Battle, FighterCategory
from rules.report import battle_report, update_gang_rating
from rules.sequence import PostBattleSequence, Step, SubStep
from rules.tradingpost import hire_fighter
from rules.world import World
from tests.factories import fighter, gang, item, territory, world


def two_gangs() -> World:
    wolves = gang("Ash Wolves", id="a", credits=100, stash=[item("Lasgun", 15)], fighters=[
        fighter("Boss", FighterCategory.LEADER, cost=120, equipment=[item("Autogun", 15)]),
        fighter("Grunt", cost=50),
    ])
    rats = gang("Rust Rats", id="b", credits=40, fighters=[
        fighter("Big Rat", FighterCategory.LEADER, cost=110), fighter("Rat", cost=45),
    ])
    return world(wolves, rats, territories=[territory("Old Ruins", id="ruins")])


def battle(**fields: object) -> Battle:
    base: dict[str, object] = {"id": "b1", "gang_ids": ["a", "b"], "scenario": "Take and Hold",
                               "winner": "a", "staked_territory": "ruins",
                               "enemies_out_of_action": {"a": 3, "b": 1}}
    base.update(fields)
    return Battle.model_validate(base)


# --------------------------------------------------------------------------- PB-6F


@pytest.mark.rule("PB-6F")
def test_pb_6f_rating_before_and_after() -> None:
    w = two_gangs()
    result = update_gang_rating(w, ["a", "b"], {"a": 150, "b": 155})
    a, b = result.ratings
    assert (a.gang_id, a.before, a.after, a.change) == ("a", 150, 185, 35)
    assert (b.before, b.after, b.change) == (155, 155, 0)
    assert result.rating("a") == a and result.changes == [] and result.clause == "PB-6F"


@pytest.mark.rule("PB-6F")
def test_pb_6f_captives_held_by_others_leave_the_rating() -> None:
    w = two_gangs()
    w.gang("a").fighters[1].capture("b")
    assert update_gang_rating(w, ["a"]).rating("a").after == 135


@pytest.mark.rule("PB-6F")
def test_pb_6f_refusals() -> None:
    w = two_gangs()
    with pytest.raises(InvalidRequest):
        update_gang_rating(w, ["a", "a"])
    with pytest.raises(NotFound):
        update_gang_rating(w, ["zzz"])


@pytest.mark.rule("PB-6F")
def test_pb_6f_earlier_references_use_the_rating_from_the_start() -> None:
    w = two_gangs()
    seq = PostBattleSequence.start("s1", battle(), w)
    hired = hire_fighter(w, "a", default_ruleset(), "Goliath Bruiser", "New", "n1").world
    assert hired.gang("a").rating == 240
    assert seq.rating_before("a") == 185  # anything before step F still reads this
    with pytest.raises(OutOfStep, match=r"F\. Update Gang Rating"):
        seq.update_gang_rating(hired)
    while seq.stage != (Step.UPDATE_ROSTER, SubStep.GANG_RATING):
        for gang_id in seq.gang_ids:
            seq.confirm(gang_id)
        seq.advance()
    line = seq.update_gang_rating(hired).rating("a")
    assert (line.before, line.after) == (185, 240)


# --------------------------------------------------------------------------- PB-7


@pytest.mark.rule("PB-7")
def test_pb_7_report_has_gangs_outcome_territory_kills_rating_and_wealth() -> None:
    w = two_gangs()
    w.territories["ruins"].controller = "a"
    report = battle_report(w, battle())
    assert (report.winner_id, report.winner_name) == ("a", "Ash Wolves")
    assert (report.territory_id, report.territory_name) == ("ruins", "Old Ruins")
    a, b = report.gangs
    assert (a.gang_name, a.outcome, a.enemies_out_of_action) == ("Ash Wolves", "win", 3)
    assert (b.outcome, b.enemies_out_of_action) == ("loss", 1)
    assert (a.gang_rating, a.wealth) == (185, 185 + 100 + 15)
    assert (b.gang_rating, b.wealth) == (155, 195)
    assert report.clause == "PB-7" and not report.draw
    assert report.text.splitlines() == [
        "Take and Hold: Ash Wolves, Rust Rats; won by Ash Wolves.",
        "Territory gained: Old Ruins.",
        "Ash Wolves: 3 enemies Out of Action, Gang Rating 185, Wealth 300.",
        "Rust Rats: 1 enemy Out of Action, Gang Rating 155, Wealth 195.",
    ]


@pytest.mark.rule("PB-7")
def test_pb_7_draw_gains_no_territory_and_missing_kills_are_zero() -> None:
    report = battle_report(two_gangs(), battle(winner=None, enemies_out_of_action={"a": 2}))
    assert report.draw and report.territory_id is None and report.winner_name is None
    assert [line.outcome for line in report.gangs] == ["draw", "draw"]
    assert [line.enemies_out_of_action for line in report.gangs] == [2, 0]
    assert "a draw" in report.text


@pytest.mark.rule("PB-7")
def test_pb_7_skirmish_has_no_report() -> None:
    with pytest.raises(NotEligible, match="skirmish"):
        battle_report(two_gangs(), battle(campaign=False))


@pytest.mark.rule("PB-7")
def test_pb_7_report_belongs_to_the_last_step() -> None:
    w = two_gangs()
    seq = PostBattleSequence.start("s1", battle(), w)
    with pytest.raises(OutOfStep, match="That belongs to Report Results; this battle is at"):
        seq.report(w, battle())
    while seq.step is not Step.REPORT_RESULTS:
        for gang_id in seq.gang_ids:
            seq.confirm(gang_id)
        seq.advance()
    assert seq.report(w, battle()).winner_id == "a"
    with pytest.raises(InvalidRequest):
        seq.report(w, battle(id="other"))
