"""No invented figures: hiring gives the template's profile or none, and a rule that changes
a characteristic nobody gave leaves it unknown instead of making one up."""

from __future__ import annotations

import pytest

from rules.advancements import buy_advancement, roll_ganger_advancement
from rules.data import default_ruleset
from rules.dice import ScriptedRoller
from rules.errors import NotEligible
from rules.injuries import apply_lasting_injury
from rules.models import FighterCategory
from rules.profiles import parse_profile
from rules.ruleset import FighterTemplate, HouseList, RuleSet
from rules.tradingpost import hire_fighter
from rules.world import Workspace
from tests.factories import fighter, gang, profile, world

QUILL = 'M5" WS3+ BS4+ S3 T3 W2 I3+ A2 Ld6+ Cl6+ Wil7+ Int7+'


def with_house(*templates: FighterTemplate) -> RuleSet:
    base = default_ruleset()
    house = HouseList(house="Quillon", fighters=list(templates))
    return base.model_copy(update={"houses": [*base.houses, house]})


@pytest.mark.rule("PB-6B.1")
def test_hiring_gives_the_template_profile_and_none_where_the_data_has_none() -> None:
    ruleset = with_house(
        FighterTemplate(fighter_type="Quill Matriarch", category=FighterCategory.LEADER,
                        cost=120, profile=QUILL, skills=["Nerves of Steel"]),
        FighterTemplate(fighter_type="Quill Sister", category=FighterCategory.GANGER, cost=50,
                        special_rules=["Gang Fighter (Ganger)"]),
    )
    w = world(gang(id="g", house="Quillon", credits=500, fighters=[]))
    hired = hire_fighter(w, "g", ruleset, "Quill Matriarch", "Ma", "n1").world
    mother = hired.gang("g").fighter("n1")
    assert mother.profile == parse_profile(QUILL) and mother.skills == ["Nerves of Steel"]
    sister = hire_fighter(hired, "g", ruleset, "Quill Sister", "Sis", "n2").world
    assert sister.gang("g").fighter("n2").profile is None
    # The shipped lists leave unset a profile their source does not give (the Delaque
    # Wraith has no profile table): nothing is made up for it.
    wraith = hire_fighter(world(gang(id="h", house="Delaque", credits=500)), "h",
                          default_ruleset(), "Delaque Wraith", "W", "n3").world
    assert wraith.gang("h").fighter("n3").profile is None


@pytest.mark.rule("PB-1.1")
def test_an_injury_to_a_characteristic_nobody_gave_is_kept_but_changes_no_figure() -> None:
    for given in (None, profile(bs=None)):
        skab = fighter("Skab", id="skab", profile=given)
        ws = Workspace(world(gang(id="ash", fighters=[skab])))
        outcome = apply_lasting_injury(ws, "ash", "skab", default_ruleset().fighter_injuries,
                                       ScriptedRoller([4, 4]))  # 44: Eye Injury, -1 BS
        hurt = ws.world.gang("ash").fighter("skab")
        assert outcome.results == ["Eye Injury"] and hurt.lasting_injuries == ["Eye Injury"]
        assert hurt.profile == given
        assert any("not applied" in note for note in ws.notes)


@pytest.mark.rule("PB-6E")
def test_an_advancement_of_a_characteristic_needs_the_profile_before_any_roll() -> None:
    ruleset = default_ruleset()
    w = world(gang(id="g", fighters=[
        fighter("Hero", FighterCategory.LEADER, id="f1", xp=20, profile=None),
        fighter("Grunt", FighterCategory.GANGER, id="f2", xp=20, profile=None),
        fighter("Half", FighterCategory.CHAMPION, id="f3", xp=20, profile=profile(bs=None)),
    ]))
    with pytest.raises(NotEligible, match="profile is not set"):
        buy_advancement(w, "g", "f1", "+1 Weapon Skill or Ballistic Skill", ruleset,
                        ScriptedRoller([]), stat="ws")
    no_dice = ScriptedRoller([])
    with pytest.raises(NotEligible, match="profile is not set"):
        roll_ganger_advancement(w, "g", "f2", ruleset, no_dice)
    with pytest.raises(NotEligible, match="has no BS"):
        buy_advancement(w, "g", "f3", "+1 Weapon Skill or Ballistic Skill", ruleset,
                        ScriptedRoller([]), stat="bs")
