"""A new fighter: hired at founding cost, or written down by hand over the House List."""

from __future__ import annotations

import pytest

from rules.data import default_ruleset
from rules.errors import InvalidRequest
from rules.models import FighterCategory
from rules.profiles import parse_profile
from rules.recruits import ByHand, hired, written_down
from rules.ruleset import FighterTemplate
from rules.tradingpost import type_template
from tests import factories

RULES = default_ruleset()
GANG = factories.gang("Ash Wolves", house="Goliath", credits=200, id="g")
BRUISER = type_template(RULES, GANG, "Goliath Bruiser")


def test_hiring_charges_the_founding_cost_from_the_stash() -> None:
    result = hired(factories.world(GANG), GANG, RULES, BRUISER, "Krusher", "n1")
    after = result.world.gang("g")
    assert BRUISER is not None and after.credits == 200 - BRUISER.cost
    assert [f.name for f in after.fighters if f.id == "n1"] == ["Krusher"]


@pytest.mark.parametrize(("template", "given", "refusal"), [
    (None, ByHand(), "Paying needs a fighter type"),
    (BRUISER, ByHand(cost=10), "the House List sets the category and cost"),
    (BRUISER, ByHand(category=FighterCategory.JUVE), "the House List sets the category"),
    (BRUISER, ByHand(profile=parse_profile('M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+')),
     "takes the House List's profile"),
])
def test_hiring_refuses_what_the_house_list_decides(template: FighterTemplate | None,
                                                    given: ByHand, refusal: str) -> None:
    with pytest.raises(InvalidRequest, match=refusal):
        hired(factories.world(GANG), GANG, RULES, template, "K", "n1", given)


def test_written_down_takes_the_house_list_and_the_players_overrides() -> None:
    plain = written_down(GANG, BRUISER, "Goliath Bruiser", "Krusher", "n1", ByHand())
    assert BRUISER is not None
    assert (plain.category, plain.cost, plain.fighter_type) == (BRUISER.category, BRUISER.cost,
                                                            "Goliath Bruiser")
    cheaper = written_down(GANG, BRUISER, "Goliath Bruiser", "Krusher", "n1",
                           ByHand(category=FighterCategory.CHAMPION, cost=5))
    assert (cheaper.category, cheaper.cost) == (FighterCategory.CHAMPION, 5)
    assert cheaper.gang_hierarchy is FighterCategory.CHAMPION.has_gang_hierarchy


def test_written_down_without_a_house_list_entry_needs_category_and_cost() -> None:
    with pytest.raises(InvalidRequest, match="'Mutant' is not in the Goliath House List"):
        written_down(GANG, None, "Mutant", "Odd", "n1", ByHand(cost=10))
    with pytest.raises(InvalidRequest, match="Give a fighter_type"):
        written_down(GANG, None, None, "Odd", "n1", ByHand())
    odd = written_down(GANG, None, "  Mutant  ", "Odd", "n1",
                       ByHand(category=FighterCategory.GANGER, cost=10))
    assert (odd.fighter_type, odd.cost, odd.profile) == ("Mutant", 10, None)
