"""The shipped Necromunda content (necromunda-2023) played by the rules: hiring from a House
List, buying from its Equipment List and the Trading Post, a Lasting Injury on a real profile."""

from __future__ import annotations

import pytest

from rules.data import load_ruleset
from rules.dice import ScriptedRoller
from rules.errors import NotEligible
from rules.injuries import apply_lasting_injury
from rules.models import FighterCategory
from rules.profiles import profile_line
from rules.ruleset import RuleSet
from rules.tradingpost import buy_equipment, hire_fighter
from rules.world import Workspace
from tests.factories import fighter, gang, world
from tests.rules.refusals import refused


@pytest.fixture(scope="module")
def content() -> RuleSet:
    return load_ruleset("necromunda-2023")


@pytest.mark.rule("PB-6B.1")
@pytest.mark.parametrize(("house", "fighter_type", "category", "cost", "line"), [
    ("Goliath", "Goliath Bruiser", FighterCategory.GANGER, 55,
     'M4" WS4+ BS4+ S4 T4 W1 I4+ A1 Ld8+ Cl5+ Wil9+ Int8+'),
    ("Escher", "Little Sister", FighterCategory.JUVE, 20,
     'M5" WS4+ BS5+ S3 T3 W1 I3+ A1 Ld8+ Cl8+ Wil8+ Int8+'),
    ("Orlock", "Gunner", FighterCategory.GANGER, 45,
     'M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld6+ Cl7+ Wil7+ Int7+'),
    ("Van Saar", "Van Saar Tek", FighterCategory.GANGER, 65,
     'M4" WS4+ BS3+ S3 T3 W1 I5+ A1 Ld6+ Cl7+ Wil7+ Int6+'),
    ("Cawdor", "Bonepicker", FighterCategory.JUVE, 20,
     'M6" WS5+ BS5+ S3 T3 W1 I3+ A1 Ld8+ Cl8+ Wil8+ Int9+'),
    ("Delaque", "Ghost", FighterCategory.GANGER, 40,
     'M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl6+ Wil7+ Int7+'),
])
def test_hiring_gives_the_list_s_profile_and_cost(
        content: RuleSet, house: str, fighter_type: str, category: FighterCategory, cost: int,
        line: str) -> None:
    w = world(gang(id="g", house=house, credits=200))
    result = hire_fighter(w, "g", content, fighter_type, "New", "n1")
    hired = result.world.gang("g").fighter("n1")
    assert (result.cost, hired.category, hired.cost) == (cost, category, cost)
    assert hired.profile is not None and profile_line(hired.profile) == line
    assert result.world.gang("g").credits == 200 - cost


@pytest.mark.rule("PB-6B.5")
def test_the_equipment_list_price_and_profile_then_the_trading_post(content: RuleSet) -> None:
    ganger = fighter("Grub", FighterCategory.GANGER, fighter_type="Goliath Bruiser", id="f1")
    w = world(gang(id="g", credits=200, fighters=[ganger]))
    # Rare (8) at the Trading Post, on a Bruiser's own list at the list's price.
    listed = buy_equipment(w, "g", content, "Boltgun", "i1", fighter_id="f1")
    item = listed.world.gang("g").fighter("f1").equipment[0]
    assert (listed.source, listed.price) == ("Equipment List", 55)
    assert [(p.short_range, p.long_range, p.strength, p.ap) for p in item.profiles[:1]] == [
        ('12"', '24"', "4", "-1")]
    # Not on a Bruiser's list: the Trading Post's price into the Stash; Rare needs a roll.
    posted = buy_equipment(w, "g", content, "Lasgun", "i2")
    assert (posted.source, posted.price) == ("Trading Post", 15)
    refused(NotEligible, w, lambda: buy_equipment(w, "g", content, "Plasma gun", "i3"))


@pytest.mark.rule("PB-1.1")
def test_a_lasting_injury_changes_a_real_figure(content: RuleSet) -> None:
    w = world(gang(id="g", credits=200))
    hired = hire_fighter(w, "g", content, "Goliath Bruiser", "Krug", "n1").world
    ws = Workspace(hired)
    outcome = apply_lasting_injury(ws, "g", "n1", content.fighter_injuries,
                                   ScriptedRoller([4, 4]))  # 44: Eye Injury, -1 BS
    krug = ws.world.gang("g").fighter("n1")
    assert outcome.results == ["Eye Injury"]
    assert krug.profile is not None and krug.profile.bs == 5  # BS4+ became BS5+
