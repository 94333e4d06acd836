"""A new fighter on a roster: hired at its founding cost, or written down by hand.

``/fighter add`` either pays for a House List type through the Trading Post
rules (:func:`hired`) or writes onto the roster a fighter the gang already
has (:func:`written_down`): the House List's facts where there is an entry,
the player's own category, cost and profile over them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.errors import InvalidRequest
from rules.models import Fighter, FighterCategory, Gang, Profile
from rules.names import checked_name
from rules.ruleset import FighterTemplate, RuleSet
from rules.tradingpost import HANGER_ON_CATEGORIES, hire_fighter, recruit_hanger_on
from rules.world import RuleResult, World


@dataclass(frozen=True)
class ByHand:
    """What a player gives by hand, over the House List's entry."""

    category: FighterCategory | None = None
    cost: int | None = None
    profile: Profile | None = None


def hired(
    world: World, gang: Gang, ruleset: RuleSet, template: FighterTemplate | None, name: str,
    fighter_id: str, given: ByHand = ByHand(),
) -> RuleResult:
    """Hire (or recruit a Hanger-on) at founding cost: the House List sets everything else."""
    if given.profile is not None:
        raise InvalidRequest("A hired fighter takes the House List's profile; leave profile "
                             "out, or add the fighter by hand (pay:False).")
    if template is None:
        raise InvalidRequest(
            f"Paying needs a fighter type from the {gang.house} House List, whose founding "
            "cost is charged."
        )
    if given.category is not None or given.cost is not None:
        raise InvalidRequest("When paying, the House List sets the category and cost; "
                             "leave them out.")
    hire = recruit_hanger_on if template.category in HANGER_ON_CATEGORIES else hire_fighter
    return hire(world, gang.id, ruleset, template.fighter_type, name, fighter_id)


def written_down(
    gang: Gang, template: FighterTemplate | None, fighter_type: str | None, name: str,
    fighter_id: str, given: ByHand,
) -> Fighter:
    """A fighter written onto the roster: the House List's facts, the player's overrides.

    The profile is the one given, else the House List's, else none ("profile not set").
    Without a House List entry the category and the cost must be given. Raises
    pydantic's ValidationError for values the model refuses.
    """
    category, cost, profile = given.category, given.cost, given.profile
    if template is None and (category is None or cost is None):
        if fighter_type:
            raise InvalidRequest(
                f"'{fighter_type}' is not in the {gang.house} House List: pick a type from it, "
                "or give a category and a cost by hand."
            )
        raise InvalidRequest(
            f"Give a fighter_type from the {gang.house} House List, or a category and a cost."
        )
    if template is None:
        try:
            kind = checked_name(fighter_type, "fighter type") if fighter_type else ""
        except ValueError as error:
            raise InvalidRequest(str(error)) from None
        hierarchy = category is not None and category.has_gang_hierarchy
        return Fighter(id=fighter_id, name=name, category=category, fighter_type=kind,
                       cost=cost, profile=profile, gang_hierarchy=hierarchy)
    return Fighter(
        id=fighter_id, name=name, category=category or template.category,
        fighter_type=template.fighter_type,
        cost=template.cost if cost is None else cost,
        profile=profile if profile is not None else template.profile,
        gang_hierarchy=(template.gang_hierarchy if category is None
                        else category.has_gang_hierarchy),
        special_rules=list(template.special_rules),
        skills=list(template.skills),
    )
