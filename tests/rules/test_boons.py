"""Update Roster C: Gain Boons from Territories (PB-6C)."""

from __future__ import annotations

import pytest

from rules.boons import BoonClaim, claim_boons
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import FighterCategory
from rules.ruleset import RuleSet
from rules.tradingpost import sell_item
from rules.world import World
from tests.factories import fighter, gang, item, territory, world
from tests.rules.refusals import refused


def setup(reputation: int = 3) -> World:
    return world(
        gang(id="g", credits=50, reputation=reputation),
        gang(id="h", name="Rust Rats"),
        territories=[
            territory("Settlement", "D6x10", id="settle", controller="g",
                      boons=["+1 Reputation", "2D6: a free Juve or Ganger"]),
            territory("Rogue Doc Shop", "D6x10", id="docs", controller="g",
                      boons=["Law Abiding: a free Rogue Doc"]),
            territory("Old Ruins", "D3x10", id="ruins", controller="g"),
            territory("Tech Bazaar", "D6x10", id="bazaar", controller="h", boons=["Gear"]),
        ],
    )


@pytest.mark.rule("PB-6C")
def test_pb_6c_claim_reputation_credits_and_items() -> None:
    w = setup()
    claim = BoonClaim(territory_id="settle", reputation=1, credits=20,
                      items=[item("Stub gun", 5, id="boon1")])
    result = claim_boons(w, "g", "seq1", [claim])
    g = result.world.gang("g")
    assert (g.reputation, g.credits) == (4, 70)
    (gift,) = g.stash
    assert gift.id == "boon1" and gift.boon_of_sequence == "seq1"
    (line,) = result.claimed
    assert (line.territory_name, line.reputation, line.credits, line.item_ids) == (
        "Settlement", 1, 20, ["boon1"])
    assert result.territory_ids == ["settle"] and result.clause == "PB-6C"
    assert w.gang("g").reputation == 3 and w.gang("g").stash == []


@pytest.mark.rule("PB-6C")
def test_pb_6c_boon_items_cannot_be_sold_in_the_same_sequence() -> None:
    claimed = claim_boons(setup(), "g", "seq1", [
        BoonClaim(territory_id="settle", items=[item("Stub gun", 5, id="boon1")])
    ]).world
    with pytest.raises(NotEligible):
        sell_item(claimed, "g", "boon1", ScriptedRoller([]), "seq1")
    assert sell_item(claimed, "g", "boon1", ScriptedRoller([1]), "seq2").credits_gained == 5


@pytest.mark.rule("PB-6C")
def test_pb_6c_free_fighter_joins_without_paying(ruleset: RuleSet) -> None:
    juve = fighter("Kid", FighterCategory.JUVE, cost=35, id="kid")
    result = claim_boons(setup(), "g", "seq1", [BoonClaim(territory_id="settle",
                                                          fighters=[juve])])
    g = result.world.gang("g")
    assert g.fighter("kid").cost == 35 and g.credits == 50
    assert result.claimed[0].fighter_ids == ["kid"]


@pytest.mark.rule("PB-6C")
def test_pb_6c_free_hanger_on_counts_against_the_reputation_limit(ruleset: RuleSet) -> None:
    doc = fighter("Doc", FighterCategory.HANGER_ON, cost=30, id="doc")
    w = setup(reputation=4)
    result = claim_boons(w, "g", "seq1", [BoonClaim(territory_id="docs", fighters=[doc])],
                         ruleset=ruleset)
    assert result.world.gang("g").fighter("doc").category is FighterCategory.HANGER_ON
    second = fighter("Doc 2", FighterCategory.HANGER_ON, cost=30, id="doc2")
    refused(NotEligible, result.world,
            lambda: claim_boons(result.world, "g", "seq2",
                                [BoonClaim(territory_id="docs", fighters=[second])],
                                ruleset=ruleset))
    refused(InvalidRequest, w,
            lambda: claim_boons(w, "g", "seq1", [BoonClaim(territory_id="docs",
                                                           fighters=[doc])]))


@pytest.mark.rule("PB-6C")
def test_pb_6c_only_controlled_territories_with_a_boon_once() -> None:
    w = setup()
    refused(NotEligible, w,
            lambda: claim_boons(w, "g", "s", [BoonClaim(territory_id="bazaar", credits=5)]),
            match="does not control")
    refused(NotEligible, w,
            lambda: claim_boons(w, "g", "s", [BoonClaim(territory_id="ruins", credits=5)]),
            match="grants no Boon")
    twice = [BoonClaim(territory_id="settle", reputation=1)] * 2
    refused(NotEligible, w, lambda: claim_boons(w, "g", "s", twice), match="already claimed")
    refused(NotEligible, w,
            lambda: claim_boons(w, "g", "s", [BoonClaim(territory_id="settle", reputation=1)],
                                claimed_before=["settle"]))
    refused(NotFound, w, lambda: claim_boons(w, "g", "s", [BoonClaim(territory_id="nowhere")]))
    refused(InvalidRequest, w, lambda: claim_boons(w, "g", "s", []))


@pytest.mark.rule("PB-6C")
def test_pb_6c_new_ids_must_be_fresh() -> None:
    w = setup()
    used = w.gang("g").fighters[0].id
    refused(InvalidRequest, w,
            lambda: claim_boons(w, "g", "s", [BoonClaim(territory_id="settle",
                                                        items=[item(id=used)])]))


@pytest.mark.rule("PB-6C")
def test_pb_6c_declared_amounts_are_bounded() -> None:
    with pytest.raises(ValueError):
        BoonClaim(territory_id="settle", credits=-5)
    with pytest.raises(ValueError):
        BoonClaim(territory_id="settle", reputation=21)
