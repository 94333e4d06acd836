"""Hangers-on and Brutes ship with the Necromunda content and are recruited within the
limits of the gang's Reputation (PB-6B.3)."""

from __future__ import annotations

import pytest

from rules.errors import NotEligible
from rules.models import FighterCategory
from rules.ruleset import RuleSet
from rules.tradingpost import recruit_hanger_on
from rules.world import World
from tests.assertions import unchanged
from tests.factories import fighter, gang, world


def _world(reputation: int, credits: int = 1000) -> World:
    return world(gang("Ash Wolves", id="g", reputation=reputation, credits=credits, fighters=[
        fighter("Boss", FighterCategory.LEADER, id="boss")]))


@pytest.mark.rule("PB-6B.3")
def test_shipped_hangers_on_and_brutes_are_the_real_ones(ruleset: RuleSet) -> None:
    kinds = {t.category for t in ruleset.hangers_on}
    assert kinds == {FighterCategory.HANGER_ON, FighterCategory.BRUTE}
    assert not any(t.example for t in ruleset.hangers_on)
    assert all(t.source for t in ruleset.hangers_on)
    assert {"Rogue Doc", "Ammo Jack"} <= {t.fighter_type for t in ruleset.hangers_on}


@pytest.mark.rule("PB-6B.3")
def test_a_rogue_doc_is_recruited_from_the_shipped_data(ruleset: RuleSet) -> None:
    result = recruit_hanger_on(_world(1), "g", ruleset, "rogue doc", "Doc Hollis", "h1")
    doc = result.world.gang("g").fighter("h1")
    assert (doc.category, doc.fighter_type, doc.cost) == (
        FighterCategory.HANGER_ON, "Rogue Doc", 50)
    assert result.world.gang("g").credits == 950
    assert any("1 of 1" in n for n in result.notes)
    assert not any("example" in n for n in result.notes)


@pytest.mark.rule("PB-6B.3")
@pytest.mark.parametrize(("reputation", "allowed"), [(1, 1), (4, 1), (5, 2), (14, 3), (20, 5)])
def test_hangers_on_count_against_the_reputation_limit(
    ruleset: RuleSet, reputation: int, allowed: int
) -> None:
    w = _world(reputation)
    # Each of these is 0-1 on its list: one of each.
    kinds = ["Slopper", "Data-Scrivener", "Gang Lookout", "Cadaver Merchant", "Proxy"]
    for n in range(allowed):
        w = recruit_hanger_on(w, "g", ruleset, kinds[n], f"Help {n}", f"s{n}").world
    with (unchanged(w),
          pytest.raises(NotEligible, match=f"may have {allowed} Hangers-on and Brutes")):
        recruit_hanger_on(w, "g", ruleset, "Dome Runner", "Runner", "r1")


@pytest.mark.rule("PB-6B.3")
def test_a_brute_needs_its_minimum_reputation(ruleset: RuleSet) -> None:
    # The shipped lists give no Brute a minimum; a campaign's rule data may.
    demanding = ruleset.model_copy(deep=True)
    automata = next(t for t in demanding.hangers_on if t.fighter_type == "Iron Automata")
    automata.min_reputation = 5
    with pytest.raises(NotEligible, match="needs Reputation 5"):
        recruit_hanger_on(_world(4), "g", demanding, "Iron Automata", "Clank", "b1")
    result = recruit_hanger_on(_world(5), "g", demanding, "Iron Automata", "Clank", "b1")
    assert result.world.gang("g").fighter("b1").category is FighterCategory.BRUTE
