"""Territory Boons and income rules computed from the shipped data (PB-4, PB-6C):
the Settlement's Reputation and recruit roll, the Collapsed Dome's choice of dice and
its double, the free Hangers-on of the Rogue Doc Shop and Workshop, the Tunnels told."""

from __future__ import annotations

from typing import Any

import pytest

from rules.boons import BoonClaim, claim_boons
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, RulesError
from rules.income import collect_income
from rules.models import Alignment, Battle, FighterCategory, FighterStatus, Territory
from rules.ruleset import RuleSet
from rules.world import World
from tests.factories import fighter, gang, world

BATTLE = Battle(id="b1", gang_ids=["g", "h"], winner="g")


def _shipped(ruleset: RuleSet, name: str, controller: str = "g") -> Territory:
    found = next(t for t in ruleset.territories if t.name == name)
    return found.model_copy(update={"controller": controller})


def _world(ruleset: RuleSet, *names: str, alignment: Alignment = Alignment.LAW_ABIDING,
           reputation: int = 3, fighters: list[Any] | None = None) -> World:
    roster = fighters if fighters is not None else [
        fighter("Boss", FighterCategory.LEADER, id="boss")]
    return world(
        gang("Slag Lords", id="g", house="Goliath", alignment=alignment, credits=50,
             reputation=reputation, fighters=roster),
        gang("Rust Rats", id="h"),
        territories=[_shipped(ruleset, name) for name in names],
    )


def _claim(w: World, ruleset: RuleSet, territory_id: str, faces: list[int],
           **claim: Any) -> Any:
    roller = ScriptedRoller(faces)
    result = claim_boons(w, "g", "seq1", [BoonClaim(territory_id=territory_id, **claim)],
                         ruleset, roller=roller)
    assert roller.remaining == 0
    return result


def _refused(w: World, call: Any, error: type[RulesError], match: str) -> None:
    before = w.model_copy(deep=True)
    roller = ScriptedRoller([6] * 6)
    with pytest.raises(error, match=match):
        call(roller)
    assert roller.used == 0 and w == before


# --------------------------------------------------------------------------- Settlement


@pytest.mark.rule("PB-6C")
@pytest.mark.parametrize(("faces", "recruit"), [
    ([6, 3], FighterCategory.JUVE),
    ([6, 6], FighterCategory.GANGER),
    ([2, 2], None),
])
def test_settlement_gives_reputation_and_rolls_for_a_free_recruit(
    ruleset: RuleSet, faces: list[int], recruit: FighterCategory | None
) -> None:
    w = _world(ruleset, "Settlement")
    result = _claim(w, ruleset, "settlement", faces, recruit_id="new1", recruit_name="Cinder")
    g = result.world.gang("g")
    assert g.reputation == 4 and g.credits == 50
    (dice,) = result.rolls
    assert dice.expression == "2D6" and dice.faces == tuple(faces)
    assert dice.purpose == "Settlement recruit roll for Slag Lords"
    (line,) = result.claimed
    assert line.reputation == 1
    if recruit is None:
        assert line.fighter_ids == [] and [f.id for f in g.fighters] == ["boss"]
    else:
        new = g.fighter("new1")
        assert (new.name, new.category) == ("Cinder", recruit)
        # Free to the Stash, but it counts at its House List cost.
        assert new.cost == {FighterCategory.JUVE: 35, FighterCategory.GANGER: 55}[recruit]
        assert line.fighter_ids == ["new1"]


@pytest.mark.rule("PB-6C")
def test_computed_boons_refuse_declared_values_and_missing_ids(ruleset: RuleSet) -> None:
    w = _world(ruleset, "Settlement")
    _refused(w, lambda roller: claim_boons(
        w, "g", "s", [BoonClaim(territory_id="settlement", reputation=1, recruit_id="n")],
        ruleset, roller=roller), InvalidRequest, "rolled and applied by the bot")
    _refused(w, lambda roller: claim_boons(
        w, "g", "s", [BoonClaim(territory_id="settlement")], ruleset, roller=roller),
        InvalidRequest, "give the id")
    _refused(w, lambda roller: claim_boons(
        w, "g", "s", [BoonClaim(territory_id="settlement", recruit_id="boss")], ruleset,
        roller=roller), InvalidRequest, "already in use")
    _refused(w, lambda _roller: claim_boons(
        w, "g", "s", [BoonClaim(territory_id="settlement", recruit_id="n")], ruleset),
        InvalidRequest, "needs dice")


# --------------------------------------------------------------------------- free Hangers-on


@pytest.mark.rule("PB-6C")
def test_rogue_doc_shop_gives_a_law_abiding_gang_a_free_rogue_doc(ruleset: RuleSet) -> None:
    result = _claim(_world(ruleset, "Rogue Doc Shop"), ruleset, "rogue-doc-shop", [],
                    recruit_id="doc")
    doc = result.world.gang("g").fighter("doc")
    assert (doc.fighter_type, doc.category, doc.cost) == ("Rogue Doc", FighterCategory.HANGER_ON,
                                                          50)
    assert doc.name == "Rogue Doc of Rogue Doc Shop"
    assert result.world.gang("g").credits == 50


@pytest.mark.rule("PB-6C")
def test_an_outlaw_gang_gets_no_free_ammo_jack(ruleset: RuleSet) -> None:
    w = _world(ruleset, "Workshop", alignment=Alignment.OUTLAW)
    result = _claim(w, ruleset, "workshop", [], recruit_id="aj")
    assert [f.id for f in result.world.gang("g").fighters] == ["boss"]
    assert any("only for Law Abiding gangs" in n for n in result.notes)


@pytest.mark.rule("PB-6B.3")
def test_a_free_hanger_on_still_needs_room_under_the_limit(ruleset: RuleSet) -> None:
    slopper = fighter("Slop", FighterCategory.HANGER_ON, id="slop", cost=15)
    w = _world(ruleset, "Workshop", reputation=4,
               fighters=[fighter("Boss", FighterCategory.LEADER, id="boss"), slopper])
    _refused(w, lambda roller: claim_boons(
        w, "g", "s", [BoonClaim(territory_id="workshop", recruit_id="aj")], ruleset,
        roller=roller), NotEligible, "may have 1 Hangers-on")


# --------------------------------------------------------------------------- manual and income


@pytest.mark.rule("PB-6C")
def test_tunnels_boon_is_told_not_applied(ruleset: RuleSet) -> None:
    w = _world(ruleset, "Tunnels")
    result = _claim(w, ruleset, "tunnels", [])
    (line,) = result.claimed
    assert line.instructions and "deploy via the tunnels" in line.instructions[0]
    assert result.changes == []


@pytest.mark.rule("PB-6C")
def test_the_collapsed_dome_has_no_boon_to_claim(ruleset: RuleSet) -> None:
    w = _world(ruleset, "Collapsed Dome")
    _refused(w, lambda roller: claim_boons(
        w, "g", "s", [BoonClaim(territory_id="collapsed-dome")], ruleset, roller=roller),
        NotEligible, "grants no Boon")


@pytest.mark.rule("PB-4")
def test_collapsed_dome_income_is_rolled_on_the_chosen_dice(ruleset: RuleSet) -> None:
    w = _world(ruleset, "Collapsed Dome")
    default = collect_income(w, BATTLE, ScriptedRoller([1, 2]), ruleset=ruleset)
    assert default.rolls[0].expression == "2D6x10" and default.totals["g"] == 30
    chosen = collect_income(w, BATTLE, ScriptedRoller([1, 2, 3, 4, 5, 6]), ruleset=ruleset,
                            income_dice={"collapsed-dome": 6})
    assert chosen.rolls[0].expression == "6D6x10" and chosen.totals["g"] == 210
    assert chosen.world.gang("g").credits == 260


@pytest.mark.rule("PB-4")
@pytest.mark.parametrize(("choice", "match"), [
    ({"collapsed-dome": 1}, "between 2 and 6"),
    ({"collapsed-dome": 7}, "between 2 and 6"),
    ({"old-ruins": 3}, "no choice of income dice"),
])
def test_income_dice_out_of_range_are_refused_before_rolling(
    ruleset: RuleSet, choice: dict[str, int], match: str
) -> None:
    w = _world(ruleset, "Collapsed Dome", "Old Ruins")
    _refused(w, lambda roller: collect_income(w, BATTLE, roller, ruleset=ruleset,
                                              income_dice=choice), InvalidRequest, match)


@pytest.mark.rule("PB-4")
def test_collapsed_dome_double_pays_nothing_and_injures_a_random_fighter(
    ruleset: RuleSet,
) -> None:
    roster = [fighter("Boss", FighterCategory.LEADER, id="boss"), fighter("Skab", id="skab"),
              fighter("Held", id="held"), fighter("Grub", id="grub")]
    roster[2].capture("h")
    w = _world(ruleset, "Collapsed Dome", fighters=roster)
    # A double 3; the random fighter is the 3rd of 3 candidates (the Captive is none);
    # its Lasting Injury: 5,5 Captured is re-rolled, then 4,4 Eye Injury.
    result = collect_income(w, BATTLE, ScriptedRoller([3, 3, 3, 5, 5, 4, 4]), ruleset=ruleset)
    (income,) = result.incomes
    assert income.credits == 0 and result.world.gang("g").credits == 50
    assert [r.expression for r in result.rolls] == ["2D6x10", "D3", "D66", "D66"]
    assert result.rolls[1].purpose == "random fighter of Slag Lords hurt in Collapsed Dome"
    assert income.injury is not None and income.injury.fighter_id == "grub"
    grub = result.world.gang("g").fighter("grub")
    assert grub.status is FighterStatus.IN_RECOVERY and grub.profile.bs == 5
    _refused(w, lambda roller: collect_income(w, BATTLE, roller), InvalidRequest,
             "needs the rule set")
