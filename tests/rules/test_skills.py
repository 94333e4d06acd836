"""Skills by name (PB-6E): the skill sets ship as data, a random skill is rolled on a real
table and named, a chosen skill is picked from its set, and no skill is gained twice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules.advancements import GANGER_TABLE, buy_advancement, roll_ganger_advancement
from rules.data import load_ruleset
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, NotFound, RulesError
from rules.models import FighterCategory
from rules.ruleset import RuleSet
from rules.world import World
from tests.factories import fighter, gang, world

RANDOM = "Random Primary skill"
CHOSEN = "Chosen Primary skill"


def _world(category: FighterCategory = FighterCategory.CHAMPION, **fields: Any) -> World:
    fields.setdefault("xp", 20)
    return world(gang("Ash Wolves", id="g", fighters=[
        fighter("Hero", category, id="f1", cost=100, **fields)]))


def _refused(error: type[RulesError], w: World, call: Callable[[ScriptedRoller], object],
             match: str) -> None:
    roller = ScriptedRoller([6] * 4)
    before = w.model_copy(deep=True)
    with pytest.raises(error, match=match):
        call(roller)
    assert roller.used == 0 and w == before


@pytest.mark.rule("PB-6E")
def test_skill_sets_ship_as_named_data_with_their_source(ruleset: RuleSet) -> None:
    assert len(ruleset.skill_sets) >= 6
    for skill_set in ruleset.skill_sets:
        assert not skill_set.example and skill_set.source, skill_set.name
        assert len(skill_set.skills) == 6 == len(set(skill_set.skills))
    assert ruleset.skill_set("agility").skills[0] == "Catfall"


@pytest.mark.rule("PB-6E")
def test_random_skill_is_read_from_the_sets_table_and_named(ruleset: RuleSet) -> None:
    result = buy_advancement(_world(), "g", "f1", RANDOM, ruleset, ScriptedRoller([2]),
                             skill_set="Brawn")
    assert result.skill == "Bulging Biceps"
    assert result.world.gang("g").fighter("f1").skills == ["Bulging Biceps"]
    assert "Hero rolls 2 on the Brawn skills: Bulging Biceps." in result.notes
    # A campaign's own data without skill sets numbers the skills of the set named.
    bare = ruleset.model_copy(update={"skill_sets": []})
    numbered = buy_advancement(_world(), "g", "f1", RANDOM, bare, ScriptedRoller([3]),
                               skill_set="Brawn")
    assert numbered.skill == "Brawn skill 3"


@pytest.mark.rule("PB-6E")
def test_random_skill_already_held_is_rerolled_openly(ruleset: RuleSet) -> None:
    # Fearsome may come from Horrid Scars; a roll of 2 on Ferocity is Fearsome again.
    w = _world(skills=["fearsome"])
    result = buy_advancement(w, "g", "f1", RANDOM, ruleset, ScriptedRoller([2, 2, 6]),
                             skill_set="Ferocity")
    assert [r.faces for r in result.rolls] == [(2,), (2,), (6,)]
    assert result.skill == "Unstoppable"
    assert result.notes.count("Hero already has Fearsome: re-roll.") == 2


@pytest.mark.rule("PB-6E")
def test_chosen_skill_is_picked_from_its_set(ruleset: RuleSet) -> None:
    named = buy_advancement(_world(), "g", "f1", CHOSEN, ruleset, ScriptedRoller([]),
                            skill="iron jaw", skill_set="Brawn")
    assert named.skill == "Iron Jaw"
    anywhere = buy_advancement(_world(), "g", "f1", CHOSEN, ruleset, ScriptedRoller([]),
                               skill="overwatch")
    assert anywhere.skill == "Overwatch"


@pytest.mark.rule("PB-6E")
@pytest.mark.parametrize(("fields", "kwargs", "error", "match"), [
    ({}, {"skill": "Dodge", "skill_set": "Brawn"}, NotFound, "not a Brawn skill"),
    ({}, {"skill": "Laser Eyes"}, NotFound, "not a skill of any skill set"),
    ({}, {"skill": "Dodge", "skill_set": "Psionics"}, NotFound, "no skill set called Psionics"),
    ({"skills": ["Dodge"]}, {"skill": "DODGE"}, NotEligible, "already has Dodge"),
])
def test_a_chosen_skill_outside_its_set_or_held_is_refused(
    ruleset: RuleSet, fields: dict[str, Any], kwargs: dict[str, str],
    error: type[RulesError], match: str,
) -> None:
    w = _world(**fields)
    _refused(error, w, lambda roller: buy_advancement(w, "g", "f1", CHOSEN, ruleset, roller,
                                                      **kwargs), match)


@pytest.mark.rule("PB-6E")
def test_random_skill_from_an_unknown_or_completed_set_is_refused_before_rolling(
    ruleset: RuleSet,
) -> None:
    w = _world()
    _refused(NotFound, w, lambda roller: buy_advancement(
        w, "g", "f1", RANDOM, ruleset, roller, skill_set="Psionics"), "Agility, Brawn")
    full = _world(skills=list(ruleset.skill_set("Cunning").skills))
    _refused(NotEligible, full, lambda roller: buy_advancement(
        full, "g", "f1", RANDOM, ruleset, roller, skill_set="Cunning"), "every Cunning skill")


@pytest.mark.rule("PB-6E")
def test_gangers_roll_needs_its_promotion_skill_set_before_the_dice(ruleset: RuleSet) -> None:
    w = _world(FighterCategory.GANGER, xp=6)
    _refused(InvalidRequest, w, lambda roller: roll_ganger_advancement(
        w, "g", "f1", ruleset, roller), "Name the skill set")
    _refused(NotFound, w, lambda roller: buy_advancement(
        w, "g", "f1", GANGER_TABLE, ruleset, roller, skill_set="Psionics"), "no skill set")
    promoted = roll_ganger_advancement(w, "g", "f1", ruleset, ScriptedRoller([6, 6, 1]),
                                       skill_set="Shooting")
    assert promoted.skill == "Fast Shot" and promoted.promoted_to is FighterCategory.SPECIALIST


def test_skill_set_data_naming_a_skill_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "manifest.toml").write_text('base = "core-2023"\n', encoding="utf-8")
    (tmp_path / "skills.toml").write_text(
        '[[skill_sets]]\nname = "Odd"\nskills = ["A", "B", "C", "D", "E", "a"]\n',
        encoding="utf-8")
    with pytest.raises(InvalidRequest, match="Odd names a skill twice"):
        load_ruleset(tmp_path)
